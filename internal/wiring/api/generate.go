package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/annalist-dev/annalist/infra/kafka"
	"github.com/annalist-dev/annalist/infra/pages"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
)

// Requester publishes generation requests (app.App does).
type Requester interface {
	// ValidateRequest checks a request against the kinds the process has
	// registered (kind.Registry.Validate); a failure wrapping
	// schemas.ErrInvalid is the client's (400). POST /v1/requests runs it
	// before anything else, so an unregistered kind is refused with the
	// registry's message whatever its subject.
	ValidateRequest(r schemas.Request) error
	Request(ctx context.Context, tenant string, r schemas.Request) (schemas.Request, error)
}

// maxRequestBody bounds the JSON bodies of review decisions and other
// small commands.
const maxRequestBody = 64 << 10

// MaxGenerationRequestBody bounds the body of POST /v1/requests, which
// may carry an answer's documents. The request is published as one
// record on the requests topic, whose largest record is
// kafka.DefaultMaxMessageBytes (16 MiB); JSON re-encoding can make a
// body at most six times longer (a character escaped as \u00XX), so a
// sixteenth of it, 1 MiB, always fits with its envelope. It holds about
// fifteen hundred ALCE passages of a hundred words, where ALCE gives
// five to twenty.
const MaxGenerationRequestBody = kafka.DefaultMaxMessageBytes / 16

// generationRoutes are the request, page and review endpoints.
func generationRoutes(d Deps) []route {
	if d.Pages == nil || d.Requester == nil {
		return nil
	}
	var rs []route
	handle := func(pattern string, a access, h http.HandlerFunc) {
		rs = append(rs, route{pattern, a, h})
	}
	handle("POST /v1/requests", accessWrite, func(w http.ResponseWriter, r *http.Request) {
		tenant, ok := tenantOf(w, r)
		if !ok {
			return
		}
		var body struct {
			Kind     string            `json:"kind"`
			Subject  string            `json:"subject"`
			Params   map[string]string `json:"params"`
			Priority int               `json:"priority"`
			// Documents, for an answer, are the documents it is written
			// from (ALCE's [{title, text}]).
			Documents []schemas.AnswerDocument `json:"documents"`
		}
		if !decodeBodyUpTo(w, r, &body, MaxGenerationRequestBody, "a request, with its documents") {
			return
		}
		if body.Kind == "" {
			body.Kind = schemas.KindBiography
		}
		body.Subject = strings.TrimSpace(body.Subject)
		if body.Subject == "" {
			writeError(w, http.StatusBadRequest, "subject is required")
			return
		}
		probe := schemas.Request{RequestID: "-", Kind: body.Kind, Subject: body.Subject, Documents: body.Documents}
		if err := d.Requester.ValidateRequest(probe); errors.Is(err, schemas.ErrInvalid) {
			writeError(w, http.StatusBadRequest, err.Error())
			return
		} else if err != nil {
			unavailable(w, err)
			return
		}
		// A biography's subject is a person the graph must know; the
		// subject of another kind (a question, a topic) is its planner's.
		if d.Graph != nil && body.Kind == schemas.KindBiography {
			ids, err := d.Graph.Resolve(r.Context(), tenant, body.Subject)
			if err != nil {
				// The graph is in Redis: a failure here is the write
				// path's dependency being down, not a server bug.
				unavailable(w, err)
				return
			}
			if len(ids) == 0 {
				writeError(w, http.StatusNotFound, fmt.Sprintf("unknown subject %q", body.Subject))
				return
			}
			if !slices.ContainsFunc(ids, func(id string) bool { return strings.HasPrefix(id, schemas.EntityPerson+":") }) {
				writeError(w, http.StatusNotFound, fmt.Sprintf("no person is named %q: a place, office, era year or term has a topic page (kind %s)",
					body.Subject, schemas.KindTopicPage))
				return
			}
		}
		ctx := r.Context()
		if t := traceOf(r); t != "" {
			ctx = pipeline.WithTraceID(ctx, t)
			w.Header().Set("X-Trace-Id", t)
		}
		req, err := d.Requester.Request(ctx, tenant, schemas.Request{Kind: body.Kind,
			Subject: body.Subject, Params: body.Params, Priority: body.Priority, Documents: body.Documents})
		if errors.Is(err, schemas.ErrInvalid) {
			writeError(w, http.StatusBadRequest, err.Error())
			return
		}
		if err != nil {
			unavailable(w, err)
			return
		}
		w.Header().Set("Location", "/v1/requests/"+req.RequestID)
		writeJSON(w, http.StatusAccepted, pages.RequestStatus{RequestID: req.RequestID, Kind: req.Kind,
			Subject: req.Subject, State: pages.RequestQueued, RequestedAt: req.RequestedAt})
	})
	handle("GET /v1/requests/{id}", accessRead, func(w http.ResponseWriter, r *http.Request) {
		tenant, ok := tenantOf(w, r)
		if !ok {
			return
		}
		st, err := d.Pages.Request(r.Context(), tenant, r.PathValue("id"))
		respond(w, st, err)
	})
	handle("GET /v1/requests/{id}/events", accessRead, requestEvents(d))
	handle("GET /v1/pages/{subject}", accessRead, func(w http.ResponseWriter, r *http.Request) {
		tenant, ok := tenantOf(w, r)
		if !ok {
			return
		}
		kind, subject, ok := pageOf(w, r, d, tenant)
		if !ok {
			return
		}
		withText := false
		switch r.URL.Query().Get("text") {
		case "", "0":
		case "1":
			withText = true
		default:
			writeError(w, http.StatusBadRequest, "text must be 0 or 1")
			return
		}
		var p schemas.Page
		var vs []pages.VersionInfo
		var err error
		if v := r.URL.Query().Get("version"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 {
				writeError(w, http.StatusBadRequest, "version must be a positive integer")
				return
			}
			if p, err = d.Pages.VersionOf(r.Context(), tenant, kind, subject, n); err != nil {
				respond(w, p, err)
				return
			}
		} else {
			if p, err = d.Pages.CurrentOf(r.Context(), tenant, kind, subject); err != nil {
				respond(w, p, err)
				return
			}
			if vs, err = d.Pages.VersionsOf(r.Context(), tenant, kind, subject); err != nil {
				respond(w, nil, err)
				return
			}
		}
		stale, err := d.Pages.Stale(r.Context(), tenant, kind, subject)
		if err != nil {
			respond(w, nil, err)
			return
		}
		out := pageAnswer(p, stale, vs)
		if out.People, err = pagePeople(r.Context(), d, tenant, p); err != nil {
			respond(w, nil, err)
			return
		}
		if withText {
			if out.Chunks, err = citedTexts(r.Context(), d, tenant, p); err != nil {
				respond(w, nil, err)
				return
			}
		}
		respond(w, out, nil)
	})
	handle("GET /v1/pages/{subject}/versions", accessRead, func(w http.ResponseWriter, r *http.Request) {
		tenant, ok := tenantOf(w, r)
		if !ok {
			return
		}
		kind, subject, ok := pageOf(w, r, d, tenant)
		if !ok {
			return
		}
		vs, err := d.Pages.VersionsOf(r.Context(), tenant, kind, subject)
		if err == nil && len(vs) == 0 {
			err = fmt.Errorf("pages of %q: %w", subject, pages.ErrNotFound)
		}
		respond(w, vs, err)
	})
	handle("GET /v1/pages/{subject}/diff", accessRead, pageDiff(d))
	handle("GET /v1/reviews", accessRead, func(w http.ResponseWriter, r *http.Request) {
		tenant, ok := tenantOf(w, r)
		if !ok {
			return
		}
		// Open reviews by default: the queue an expert works through.
		status := r.URL.Query().Get("status")
		switch status {
		case "":
			status = pages.ReviewOpen
		case "all":
			status = ""
		case pages.ReviewOpen, pages.ReviewDecided:
		default:
			writeError(w, http.StatusBadRequest, "status must be open, decided or all")
			return
		}
		rs, err := d.Pages.Reviews(r.Context(), tenant, status)
		respond(w, rs, err)
	})
	handle("POST /v1/reviews/{id}", accessWrite, func(w http.ResponseWriter, r *http.Request) {
		tenant, ok := tenantOf(w, r)
		if !ok {
			return
		}
		var body struct {
			Decision string `json:"decision"`
		}
		if !decodeBody(w, r, &body) {
			return
		}
		if body.Decision == "" {
			writeError(w, http.StatusBadRequest, "decision is required: one of the review's option values")
			return
		}
		rv, err := d.Pages.Decide(r.Context(), tenant, r.PathValue("id"), body.Decision)
		if err != nil && !errors.Is(err, pages.ErrNotFound) && !errors.Is(err, pages.ErrInvalidDecision) {
			unavailable(w, err)
			return
		}
		// A decision on a mention is applied by the linker: the review's
		// chunks are linked again. It is stored already, so a failed
		// publish is answered 503 and deciding again publishes again.
		if rl, ok := d.Sink.(MentionRelinker); ok && err == nil {
			if err := rl.RelinkDecided(r.Context(), tenant, rv); err != nil {
				unavailable(w, err)
				return
			}
		}
		respond(w, rv, err)
	})
	return rs
}

// MentionRelinker applies a decision on a mention's review (the App does:
// it asks the entity linker to link the review's chunks again).
type MentionRelinker interface {
	RelinkDecided(ctx context.Context, tenant string, rv schemas.Review) error
}

// pageJSON is a page as GET /v1/pages/{subject} answers it: the stored
// version, why it was made (reason, always set: "requested" for a page
// stored before pages said why) and the documents behind it (always a
// list), whether a regeneration is pending (stale), the persons its
// sentences name (people, always a list; see pagePeople) and, with
// ?text=1, the text of every cited chunk (chunks).
type pageJSON struct {
	schemas.Page
	Reason        string              `json:"reason"`
	TriggerDocIDs []string            `json:"trigger_doc_ids"`
	Stale         bool                `json:"stale"`
	Versions      []pages.VersionInfo `json:"versions,omitempty"`
	People        []PersonRef         `json:"people"`
	Chunks        map[string]string   `json:"chunks,omitempty"`
}

func pageAnswer(p schemas.Page, stale bool, vs []pages.VersionInfo) pageJSON {
	out := pageJSON{Page: p, Reason: p.Reason, TriggerDocIDs: p.TriggerDocIDs, Stale: stale, Versions: vs,
		People: []PersonRef{}}
	if out.Reason == "" {
		out.Reason = schemas.ReasonRequested
	}
	if out.TriggerDocIDs == nil {
		out.TriggerDocIDs = []string{}
	}
	return out
}

// pageOf reads the kind (?kind=, default biography, checked for form
// only: pages of a kind no longer registered stay readable) and the
// subject of a page route. A biography is found by any name or alias of
// its subject; a page of another kind by its subject as requested (a
// topic is not an entity, and a place and a person may share a name). A
// malformed kind is answered with 400.
func pageOf(w http.ResponseWriter, r *http.Request, d Deps, tenant string) (kind, subject string, ok bool) {
	kind = r.URL.Query().Get("kind")
	if kind == "" {
		kind = schemas.KindBiography
	}
	if err := schemas.ValidKind(kind); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return "", "", false
	}
	subject = r.PathValue("subject")
	if kind == schemas.KindBiography {
		subject = pageSubject(r.Context(), d, tenant, subject)
	}
	return kind, subject, true
}

// pageDiff serves GET /v1/pages/{subject}/diff?from=A&to=B[&kind=K]: to
// defaults to the current version, from to the one before to; kind, as on
// GET /v1/pages/{subject}, to the biography.
func pageDiff(d Deps) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		tenant, ok := tenantOf(w, r)
		if !ok {
			return
		}
		kind, subject, ok := pageOf(w, r, d, tenant)
		if !ok {
			return
		}
		const maxVersion = 1 << 30
		to, ok := intParam(w, r, "to", 0, 1, maxVersion)
		if !ok {
			return
		}
		if to == 0 {
			cur, err := d.Pages.CurrentOf(r.Context(), tenant, kind, subject)
			if err != nil {
				respond(w, nil, err)
				return
			}
			to = cur.Version
		}
		from, ok := intParam(w, r, "from", to-1, 1, maxVersion)
		if !ok {
			return
		}
		if from < 1 {
			writeError(w, http.StatusBadRequest, "the page has one version: nothing to compare it with")
			return
		}
		a, err := d.Pages.VersionOf(r.Context(), tenant, kind, subject, from)
		if err != nil {
			respond(w, nil, err)
			return
		}
		b, err := d.Pages.VersionOf(r.Context(), tenant, kind, subject, to)
		if err != nil {
			respond(w, nil, err)
			return
		}
		diff := pages.PageDiff{From: from, To: to, Sentences: pages.DiffSentences(a.Sentences, b.Sentences)}
		if diff.Sentences == nil {
			diff.Sentences = []pages.SentenceDiff{}
		}
		respond(w, diff, nil)
	}
}

// pageSubject maps a name or alias to the canonical name pages are stored
// under; an unknown or ambiguous one is used as given.
func pageSubject(ctx context.Context, d Deps, tenant, name string) string {
	if d.Graph == nil {
		return name
	}
	ids, err := d.Graph.Resolve(ctx, tenant, name)
	if err != nil || len(ids) != 1 {
		return name
	}
	e, err := d.Graph.Entity(ctx, tenant, ids[0])
	if err != nil || e.Name == "" {
		return name
	}
	return e.Name
}

// tenantOf returns the request's tenant: the tenant header, else the
// tenant query parameter (EventSource cannot set headers), else the
// default tenant. An invalid one is answered with 400.
func tenantOf(w http.ResponseWriter, r *http.Request) (string, bool) {
	tenant := r.Header.Get(tenantHeader)
	if tenant == "" {
		tenant = r.URL.Query().Get("tenant")
	}
	if tenant == "" {
		tenant = schemas.DefaultTenant
	}
	if !schemas.ValidTenant(tenant) {
		writeError(w, http.StatusBadRequest, "invalid tenant")
		return "", false
	}
	return tenant, true
}

// decodeBody reads one JSON object of at most maxRequestBody bytes; on
// failure it answers 400 or 413 and returns false.
func decodeBody(w http.ResponseWriter, r *http.Request, v any) bool {
	return decodeBodyUpTo(w, r, v, maxRequestBody, "")
}

// decodeBodyUpTo reads one JSON object of at most limit bytes; on failure
// it answers 400, or 413 with a JSON error naming the limit and what
// (what, when not empty) must fit in it, and returns false.
func decodeBodyUpTo(w http.ResponseWriter, r *http.Request, v any, limit int64, what string) bool {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, limit))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil && dec.Decode(&struct{}{}) != io.EOF {
		err = errors.New("more than one JSON value")
	}
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		msg := fmt.Sprintf("body over %d bytes", tooBig.Limit)
		if what != "" {
			msg += fmt.Sprintf(": %s must fit in %d bytes", what, tooBig.Limit)
		}
		writeError(w, http.StatusRequestEntityTooLarge, msg)
		return false
	case err != nil:
		writeError(w, http.StatusBadRequest, "malformed JSON: "+err.Error())
		return false
	}
	return true
}

// respond writes v, or the error as 404 (not found), 400 (invalid
// decision) or 500.
func respond(w http.ResponseWriter, v any, err error) {
	switch {
	case errors.Is(err, pages.ErrNotFound):
		writeError(w, http.StatusNotFound, err.Error())
	case errors.Is(err, pages.ErrInvalidDecision):
		writeError(w, http.StatusBadRequest, err.Error())
	case err != nil:
		writeError(w, http.StatusInternalServerError, err.Error())
	default:
		writeJSON(w, http.StatusOK, v)
	}
}

// traceOf is the caller's trace id: the trace-id field of a W3C
// traceparent header, else an X-Request-ID of up to 128 printable ASCII
// characters; "" when neither is usable.
func traceOf(r *http.Request) string {
	if tp := strings.Split(r.Header.Get("Traceparent"), "-"); len(tp) == 4 && len(tp[1]) == 32 && isHex(tp[1]) &&
		strings.Trim(tp[1], "0") != "" {
		return tp[1]
	}
	id := r.Header.Get("X-Request-Id")
	if id == "" || len(id) > 128 {
		return ""
	}
	for i := 0; i < len(id); i++ {
		if id[i] <= ' ' || id[i] > '~' {
			return ""
		}
	}
	return id
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
