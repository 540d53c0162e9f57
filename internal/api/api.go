// Package api is annalist's HTTP interface: JSON under /v1, plus /healthz:
// documents in; entities; generation requests, pages and their versions;
// the review queue.
// It holds no state of its own: documents go to the producer sink, reads go
// to the knowledge graph and chunk store it is given.
package api

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/annalist-dev/annalist/infra/pages"
	"github.com/annalist-dev/annalist/internal/kgview"
	"github.com/annalist-dev/annalist/producers"
	"github.com/annalist-dev/annalist/schemas"
)

// Deps are what the handlers use.
type Deps struct {
	Sink   producers.Sink
	Graph  kgview.Reader
	Chunks kgview.ChunkReader
	// MaxBody bounds request bodies (0: the producers' default).
	MaxBody int64
	// Pages and Requester serve the generation endpoints (requests,
	// pages, reviews); without them those endpoints are not routed.
	Pages     *pages.Store
	Requester Requester
}

const tenantHeader = producers.TenantHeader

// New returns the API's handler.
func New(d Deps) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("POST /v1/documents", producers.DocumentsHandler(d.Sink, d.MaxBody))
	mux.HandleFunc("GET /v1/entities/{name}", func(w http.ResponseWriter, r *http.Request) {
		tenant := r.Header.Get(producers.TenantHeader)
		if tenant == "" {
			tenant = schemas.DefaultTenant
		}
		if !schemas.ValidTenant(tenant) {
			writeError(w, http.StatusBadRequest, "invalid tenant")
			return
		}
		v, err := kgview.Show(r.Context(), d.Graph, d.Chunks, tenant, r.PathValue("name"), r.URL.Query().Get("text") == "1")
		switch {
		case errors.Is(err, kgview.ErrNotFound):
			writeError(w, http.StatusNotFound, err.Error())
		case err != nil:
			writeError(w, http.StatusInternalServerError, err.Error())
		default:
			writeJSON(w, http.StatusOK, v)
		}
	})
	routeGeneration(mux, d)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	return mux
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}
