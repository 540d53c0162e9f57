// Package api is annalist's HTTP interface: JSON under /v1 (documents in
// and their progress through the stages; entity search, entities and their
// KG neighbourhood; chunks; generation requests with a Server-Sent Events
// stream of their sentences; pages of every kind (biographies; topic pages,
// with their sections and the persons their sentences name), their
// versions and diffs; the review queue; discussions in and the feed of
// their summaries, as JSON Feed 1.1 and Server-Sent Events; the
// pipeline's numbers), plus
// /healthz, /readyz, /metrics, /openapi.json and the web UI. The OpenAPI 3 document (openapi.json, embedded) describes
// every route.
//
// It holds no state of its own: documents go to the producer sink, reads go
// to the stores it is given. Every read and write is scoped to the tenant of
// the request (the X-Annalist-Tenant header, or the tenant query parameter
// for clients such as EventSource that cannot set headers): another
// tenant's entities, pages, requests, documents and chunks are 404.
//
// # Auth
//
// With Deps.Auth.APIToken set, the write endpoints (POST documents,
// requests, review decisions) need "Authorization: Bearer <APIToken>": no
// token is 401, a wrong one 403. With Deps.Auth.ReadToken set, the /v1 read
// endpoints need the read token or the API token; without it they are open.
// With only a read token set, writes need it too (a server that hides its
// data does not take anonymous writes). GET requests may pass the token as
// the access_token query parameter instead of the header, for EventSource.
// /healthz, /readyz, /metrics, /openapi.json and the UI are always open.
//
// # Liveness, readiness, admission
//
// GET /healthz is liveness: 200 whenever the process serves HTTP, whatever
// its dependencies do (restarting the process would not bring Redis
// back). GET /readyz is readiness: 200 when the broker, Redis and the
// vector store answer, else 503 naming what is down. The write endpoints
// admit a request only while the write path's dependencies answer
// (Deps.Admit); otherwise, and when a store or the broker fails under
// the write itself, they answer 503 with Retry-After and a JSON error, so
// a 202 always means the input was published.
//
// # Input at the edge
//
// Documents are checked before anything is published (producers.NewItem):
// the text rule (UTF-8; no control characters but tab, newline, carriage
// return), a known profile, a doc_id of the id grammar (schemas.ValidID).
// A doc_id already bound to another text is 409. Ids in paths that are not
// of the grammar are 400.
package api

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/annalist-dev/annalist/internal/ports/graph"

	"github.com/annalist-dev/annalist/internal/ports/genmem"

	"github.com/annalist-dev/annalist/infra/pages"
	"github.com/annalist-dev/annalist/internal/kit/kgview"
	"github.com/annalist-dev/annalist/internal/ports/vectors"
	"github.com/annalist-dev/annalist/producers"
)

// Deps are what the handlers use. Endpoints whose dependencies are missing
// are not routed (404).
type Deps struct {
	Sink producers.Sink
	// Graph serves GET /v1/entities/{name}; when it also implements
	// EntitySearcher (as *kg.Store does) GET /v1/entities?q= is routed,
	// and when it implements NeighbourhoodReader the neighbourhood is.
	Graph graph.Reader
	// Chunks gives citations their text; when it also implements
	// DocumentReader (as *redis.Chunks does) GET /v1/documents/{id} is
	// routed.
	Chunks kgview.ChunkReader
	// MaxBody bounds POST /v1/documents bodies (0: the producers'
	// default).
	MaxBody int64
	// Pages and Requester serve the generation endpoints (requests,
	// pages, reviews); without them those endpoints are not routed.
	Pages     *pages.Store
	Requester Requester
	// Memory is the generation loop's request memory
	// (*infra/memory.Requests): the SSE stream of a request reads the
	// sentences accepted so far from it.
	Memory Memory
	// UI, when set, is mounted at / and /ui/.
	UI http.Handler
	// Metrics, when set, is mounted at GET /metrics.
	Metrics http.Handler
	// Ready reports whether the services the process needs (broker, Redis,
	// vector store) are reachable: GET /readyz is 200 when it returns nil,
	// else 503 with the error. Nil: always ready.
	Ready func(ctx context.Context) error
	// Admit reports whether the write path's dependencies (those a write
	// must reach to be stored: the broker and Redis) are reachable. While
	// it fails, the write endpoints answer 503 with Retry-After before
	// reading their bodies, never 202. It is called at most every
	// admitTTL whatever the load. Nil: Ready.
	Admit func(ctx context.Context) error
	// Pipeline returns the per-stage numbers GET /v1/pipeline serves
	// ({"stages":[…]}); nil: not routed.
	Pipeline func(ctx context.Context) (any, error)
	// DeadLetters serves GET /v1/dead-letters and POST
	// /v1/dead-letters/replay; nil: not routed.
	DeadLetters DeadLetterStore
	// Auth holds the bearer tokens; empty tokens leave endpoints open.
	Auth AuthConfig
	// Vectors serves POST /v1/vectors/search and GET /v1/vectors/count to
	// the commands that join this process; nil: not routed.
	Vectors vectors.Store
	// Discussions serves GET /v1/discussions, /v1/discussions/{id},
	// /v1/feed and /v1/feed/events; nil: not routed. POST
	// /v1/discussions is routed when Sink also implements
	// producers.DiscussionSink (as the App does).
	Discussions DiscussionStore
}

// Memory reads the final sentences of a request from the generation loop's
// memory, in index order.
type Memory interface {
	Sentences(ctx context.Context, tenant, requestID string) ([]genmem.Final, error)
}

const tenantHeader = producers.TenantHeader

// readyTimeout bounds one readiness check.
const readyTimeout = 5 * time.Second

//go:embed openapi.json
var openapiFS embed.FS

// access is who may call a route.
type access int

const (
	accessOpen  access = iota // anyone
	accessRead                // the read token when set
	accessWrite               // the API token when set
)

// route is one pattern of the mux ("METHOD /path/{var}") with its access
// and handler.
type route struct {
	pattern string
	access  access
	handler http.HandlerFunc
}

// New returns the API's handler. Write routes pass the admission check
// (Deps.Admit) after auth; unknown routes under /v1/ answer a JSON 404.
func New(d Deps) http.Handler {
	mux := http.NewServeMux()
	guard := d.Auth.guard()
	admit := d.Admit
	if admit == nil {
		admit = d.Ready
	}
	g := &gate{check: admit}
	for _, rt := range routes(d) {
		h := rt.handler
		if rt.access == accessWrite {
			h = admitted(g, h)
		}
		mux.Handle(rt.pattern, guard(rt.access, h))
	}
	if d.UI != nil {
		mux.Handle("GET /{$}", d.UI)
		mux.Handle("/ui/", d.UI)
	}
	return withoutReadDeadline(jsonErrors(mux))
}

// routes lists every API route New mounts for d (the UI aside).
func routes(d Deps) []route {
	var rs []route
	if d.Sink != nil {
		rs = append(rs, route{"POST /v1/documents", accessWrite, documentsPost(d)})
	}
	if d.Graph != nil {
		rs = append(rs, route{"GET /v1/entities/{name}", accessRead, entityShow(d)})
	}
	if _, ok := d.Graph.(EntitySearcher); ok {
		rs = append(rs, route{"GET /v1/entities", accessRead, entitySearch(d)})
	}
	if _, ok := d.Graph.(NeighbourhoodReader); ok {
		rs = append(rs, route{"GET /v1/entities/{name}/neighbourhood", accessRead, entityNeighbourhood(d)})
	}
	if d.Chunks != nil {
		rs = append(rs, route{"GET /v1/chunks/{id}", accessRead, chunkGet(d)})
	}
	if _, ok := d.Chunks.(DocumentReader); ok {
		rs = append(rs, route{"GET /v1/documents/{id}", accessRead, documentGet(d)})
	}
	if _, ok := d.Sink.(DocumentRetractor); ok {
		rs = append(rs, route{"DELETE /v1/documents/{id}", accessWrite, documentDelete(d)})
	}
	rs = append(rs, generationRoutes(d)...)
	rs = append(rs, deadLetterRoutes(d)...)
	rs = append(rs, vectorRoutes(d)...)
	rs = append(rs, discussionRoutes(d)...)
	if d.Pipeline != nil {
		rs = append(rs, route{"GET /v1/pipeline", accessRead, func(w http.ResponseWriter, r *http.Request) {
			v, err := d.Pipeline(r.Context())
			if err != nil {
				writeError(w, http.StatusServiceUnavailable, err.Error())
				return
			}
			writeJSON(w, http.StatusOK, v)
		}})
	}
	rs = append(rs,
		route{"GET /healthz", accessOpen, func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
		}},
		route{"GET /readyz", accessOpen, func(w http.ResponseWriter, r *http.Request) {
			if d.Ready != nil {
				ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
				defer cancel()
				if err := d.Ready(ctx); err != nil {
					writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable", "error": err.Error()})
					return
				}
			}
			writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
		}},
		route{"GET /openapi.json", accessOpen, func(w http.ResponseWriter, r *http.Request) {
			b, _ := openapiFS.ReadFile("openapi.json")
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(b)
		}},
	)
	if d.Metrics != nil {
		rs = append(rs, route{"GET /metrics", accessOpen, d.Metrics.ServeHTTP})
	}
	return rs
}

func entityShow(d Deps) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		tenant, ok := tenantOf(w, r)
		if !ok {
			return
		}
		v, err := kgview.Show(r.Context(), d.Graph, d.Chunks, tenant, r.PathValue("name"), r.URL.Query().Get("text") == "1")
		switch {
		case errors.Is(err, graph.ErrNotFound):
			writeError(w, http.StatusNotFound, err.Error())
		case err != nil:
			writeError(w, http.StatusInternalServerError, err.Error())
		default:
			writeJSON(w, http.StatusOK, v)
		}
	}
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
