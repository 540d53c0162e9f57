package producers

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/annalist-dev/annalist/schemas"
)

// TenantHeader is the HTTP header that names the tenant.
const TenantHeader = "X-Annalist-Tenant"

// RetryAfterSeconds is the Retry-After of a 503: how long a client waits
// before it posts again while a dependency of the write path is down.
const RetryAfterSeconds = "2"

// ErrConflict marks a document whose id is already bound to another text:
// a sink that refuses it returns an error wrapping ErrConflict and
// DocumentsHandler answers 409, publishing nothing of the request.
var ErrConflict = errors.New("document id conflict")

// HTTPResponse is the body of a successful POST /v1/documents.
type HTTPResponse struct {
	Accepted  []AcceptedDoc `json:"accepted"`
	Rejected  []string      `json:"rejected,omitempty"`
	Documents int           `json:"documents"`
}

// AcceptedDoc names a published document.
type AcceptedDoc struct {
	DocID  string `json:"doc_id"`
	Source string `json:"source"`
}

type httpError struct {
	Error string `json:"error"`
}

// DocumentsHandler serves POST /v1/documents. The body is one JSON object
// (a JSONLRecord: text required), an object {"documents": [...]}, or JSON
// Lines with Content-Type application/x-ndjson. Bodies over maxBody bytes
// are refused with 413. All-or-nothing per request is not promised: valid
// documents are published and invalid ones listed under "rejected"; a
// request with no valid document is a 400. A sink error wrapping
// ErrConflict is a 409; any other sink error is a 503 with Retry-After,
// and the client sends the same request again: documents are idempotent by
// id and text, so a part of it that was published is not duplicated.
func DocumentsHandler(sink Sink, maxBody int64) http.Handler {
	if maxBody <= 0 {
		maxBody = 2*MaxDocumentBytes + 1<<20
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			writeJSON(w, http.StatusMethodNotAllowed, httpError{"use POST"})
			return
		}
		tenant := r.Header.Get(TenantHeader)
		if tenant == "" {
			tenant = schemas.DefaultTenant
		}
		if !schemas.ValidTenant(tenant) {
			writeJSON(w, http.StatusBadRequest, httpError{fmt.Sprintf("invalid tenant %q", tenant)})
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
		if err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				writeJSON(w, http.StatusRequestEntityTooLarge, httpError{fmt.Sprintf("body over %d bytes", maxBody)})
				return
			}
			writeJSON(w, http.StatusBadRequest, httpError{"read body: " + err.Error()})
			return
		}
		items, errs := parseBody(r.Header.Get("Content-Type"), body)
		resp := HTTPResponse{}
		for _, e := range errs {
			resp.Rejected = append(resp.Rejected, e.Error())
		}
		if len(items) == 0 {
			msg := "no document in body"
			if len(errs) > 0 {
				msg = errs[0].Error()
			}
			writeJSON(w, http.StatusBadRequest, httpError{msg})
			return
		}
		if err := sink.Send(r.Context(), tenant, items); err != nil {
			if errors.Is(err, ErrConflict) {
				writeJSON(w, http.StatusConflict, httpError{err.Error()})
				return
			}
			w.Header().Set("Retry-After", RetryAfterSeconds)
			writeJSON(w, http.StatusServiceUnavailable, httpError{"publish: " + err.Error()})
			return
		}
		for _, it := range items {
			resp.Accepted = append(resp.Accepted, AcceptedDoc{DocID: it.Doc.DocID, Source: it.Doc.Source})
		}
		resp.Documents = len(items)
		writeJSON(w, http.StatusAccepted, resp)
	})
}

func parseBody(contentType string, body []byte) ([]Item, []error) {
	if strings.HasPrefix(contentType, "application/x-ndjson") || strings.HasPrefix(contentType, "application/jsonl") {
		return ReadJSONL(strings.NewReader(string(body)), "http", JSONLDefaults{})
	}
	var batch struct {
		Documents []json.RawMessage `json:"documents"`
	}
	trimmed := strings.TrimSpace(string(body))
	if strings.HasPrefix(trimmed, "{") && json.Unmarshal(body, &batch) == nil && batch.Documents != nil {
		var items []Item
		var errs []error
		for i, raw := range batch.Documents {
			it, err := parseJSONLLine(raw, "http", i+1, JSONLDefaults{})
			if err != nil {
				errs = append(errs, err)
				continue
			}
			items = append(items, it)
		}
		return items, errs
	}
	it, err := parseJSONLLine(body, "http", 1, JSONLDefaults{})
	if err != nil {
		return nil, []error{err}
	}
	return []Item{it}, nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
