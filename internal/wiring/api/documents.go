package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/annalist-dev/annalist/infra/redisdb"
	"github.com/annalist-dev/annalist/producers"
	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
)

// VersionedSink accepts documents as versions of their sources (the App
// does: a new text of a source supersedes the version before it, the
// same text again is a no-op). A Deps.Sink implementing it receives POST
// /v1/documents through SendVersions.
type VersionedSink interface {
	SendVersions(ctx context.Context, tenant string, items []producers.Item) error
}

// DocumentRetractor retracts a document by id or source (App.Retract). A
// Deps.Sink implementing it serves DELETE /v1/documents/{id}.
type DocumentRetractor interface {
	Retract(ctx context.Context, tenant, docIDOrSource string) (schemas.Retraction, error)
}

// DocumentReader reads a document's metadata and the stages that finished
// with it; *redisdb.Chunks implements it.
type DocumentReader interface {
	Document(ctx context.Context, tenant, docID string) (redisdb.DocInfo, bool, error)
}

// documentsPost serves POST /v1/documents through the producers' handler
// and adds the accepted documents' ids as "doc_ids", the list a client
// polls GET /v1/documents/{id} with.
func documentsPost(d Deps) http.HandlerFunc {
	sink := d.Sink
	if v, ok := d.Sink.(VersionedSink); ok {
		sink = versionedSink{v}
	} else if c, ok := d.Chunks.(DocumentClaimer); ok {
		sink = claimingSink{Sink: sink, claims: c}
	}
	h := producers.DocumentsHandler(sink, d.MaxBody)
	return func(w http.ResponseWriter, r *http.Request) {
		rec := &recorder{header: http.Header{}, status: http.StatusOK}
		h.ServeHTTP(rec, r)
		if rec.status != http.StatusAccepted {
			for k, v := range rec.header {
				w.Header()[k] = v
			}
			w.WriteHeader(rec.status)
			_, _ = w.Write(rec.body.Bytes())
			return
		}
		var resp struct {
			producers.HTTPResponse
			DocIDs []string `json:"doc_ids"`
		}
		if err := json.Unmarshal(rec.body.Bytes(), &resp.HTTPResponse); err != nil {
			writeError(w, http.StatusInternalServerError, "read the producer's answer: "+err.Error())
			return
		}
		resp.DocIDs = make([]string, 0, len(resp.Accepted))
		for _, a := range resp.Accepted {
			resp.DocIDs = append(resp.DocIDs, a.DocID)
		}
		writeJSON(w, http.StatusAccepted, resp)
	}
}

// versionedSink is a producers.Sink sending through SendVersions.
type versionedSink struct{ v VersionedSink }

func (s versionedSink) Send(ctx context.Context, tenant string, items []producers.Item) error {
	return s.v.SendVersions(ctx, tenant, items)
}

// retractAnswer is the answer of DELETE /v1/documents/{id}.
type retractAnswer struct {
	DocID        string `json:"doc_id"`
	Source       string `json:"source,omitempty"`
	Reason       string `json:"reason"`
	SupersededBy string `json:"superseded_by,omitempty"`
	Retracted    string `json:"retracted"`
}

// documentDelete serves DELETE /v1/documents/{id}: the document (by id,
// or the current version of a source of that name) is marked retracted
// and its retraction published; 202, since the removal runs in the
// pipeline. Retracting it again is 202 with the first retraction's
// answer; an unknown id is 404.
func documentDelete(d Deps) http.HandlerFunc {
	rt := d.Sink.(DocumentRetractor)
	return func(w http.ResponseWriter, r *http.Request) {
		tenant, ok := tenantOf(w, r)
		if !ok {
			return
		}
		id := r.PathValue("id")
		if id == "" {
			writeError(w, http.StatusBadRequest, "document id is empty")
			return
		}
		mark, err := rt.Retract(r.Context(), tenant, id)
		switch {
		case errors.Is(err, producers.ErrUnknownDocument):
			writeError(w, http.StatusNotFound, "document "+id+" not found")
			return
		case err != nil:
			unavailable(w, err)
			return
		}
		writeJSON(w, http.StatusAccepted, retractAnswer{DocID: mark.DocID, Source: mark.Source, Reason: mark.Reason,
			SupersededBy: mark.SupersededBy, Retracted: mark.At})
	}
}

// recorder keeps a handler's answer so it can be amended.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) Write(b []byte) (int, error) { return r.body.Write(b) }
func (r *recorder) WriteHeader(status int)      { r.status = status }

// documentStatus is the answer of GET /v1/documents/{id}.
type documentStatus struct {
	DocID      string `json:"doc_id"`
	Title      string `json:"title"`
	Source     string `json:"source,omitempty"`
	Collection string `json:"collection,omitempty"`
	Chars      int    `json:"chars"`
	Chunks     int    `json:"chunks"`
	Stages     struct {
		Chunked   bool `json:"chunked"`
		Extracted bool `json:"extracted"`
		Indexed   bool `json:"indexed"`
	} `json:"stages"`
	// Marked holds when each stage marked the document (RFC 3339), by
	// stage name.
	Marked map[string]string `json:"marked,omitempty"`
	// Supersedes is the version of the same source this one replaced;
	// Retracted (RFC 3339), RetractReason and SupersededBy are set once
	// the document is retracted.
	Supersedes    string `json:"supersedes,omitempty"`
	Retracted     string `json:"retracted,omitempty"`
	RetractReason string `json:"retract_reason,omitempty"`
	SupersededBy  string `json:"superseded_by,omitempty"`
}

// documentGet serves GET /v1/documents/{id}: chunked when the chunker
// stored its chunks, extracted and indexed when the extractor and the
// embedder marked it done.
func documentGet(d Deps) http.HandlerFunc {
	docs := d.Chunks.(DocumentReader)
	return func(w http.ResponseWriter, r *http.Request) {
		tenant, ok := tenantOf(w, r)
		if !ok {
			return
		}
		id := r.PathValue("id")
		if !validID(w, "document id", id) {
			return
		}
		info, found, err := docs.Document(r.Context(), tenant, id)
		if err != nil {
			unavailable(w, err)
			return
		}
		if !found {
			writeError(w, http.StatusNotFound, "document "+id+" not found")
			return
		}
		st := documentStatus{DocID: info.DocID, Title: info.Title, Source: info.Source,
			Collection: info.Collection, Chars: info.Chars, Chunks: info.Chunks, Marked: info.Stages,
			Supersedes: info.Supersedes, Retracted: info.Retracted, RetractReason: info.RetractReason, SupersededBy: info.SupersededBy}
		st.Stages.Chunked = info.Stages[topology.StageChunker] != ""
		st.Stages.Extracted = info.Stages[topology.StageExtractor] != ""
		st.Stages.Indexed = info.Stages[topology.StageEmbedder] != ""
		writeJSON(w, http.StatusOK, st)
	}
}

// chunkGet serves GET /v1/chunks/{id}: one stored chunk with its text
// (what a citation or an edge points at).
func chunkGet(d Deps) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		tenant, ok := tenantOf(w, r)
		if !ok {
			return
		}
		id := r.PathValue("id")
		if !validID(w, "chunk id", id) {
			return
		}
		cs, err := d.Chunks.Get(r.Context(), tenant, []string{id})
		if err != nil {
			writeError(w, http.StatusInternalServerError, err.Error())
			return
		}
		if len(cs) == 0 {
			writeError(w, http.StatusNotFound, "chunk "+id+" not found")
			return
		}
		writeJSON(w, http.StatusOK, cs[0])
	}
}
