package api_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/annalist-dev/annalist/infra/redisdb"
	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
	"github.com/annalist-dev/annalist/internal/wiring/api"
	"github.com/annalist-dev/annalist/producers"
	"github.com/annalist-dev/annalist/schemas"
)

// versionedSink is the App's document path on a real document store:
// documents versioned by source (producers.Versioned), retractions marked
// and recorded in publishing order with the documents.
type versionedSink struct {
	chunks *redisdb.Chunks
	mu     sync.Mutex
	events []string // "doc <id> <supersedes>" and "retraction <id> <reason> <by>"
	docs   []producers.Item
}

func (s *versionedSink) Send(_ context.Context, _ string, items []producers.Item) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, it := range items {
		s.docs = append(s.docs, it)
		s.events = append(s.events, "doc "+it.Doc.DocID+" "+it.Doc.Supersedes)
	}
	return nil
}

func (s *versionedSink) PublishRetraction(_ context.Context, _ string, r schemas.Retraction) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events = append(s.events, "retraction "+r.DocID+" "+r.Reason+" "+r.SupersededBy)
	return nil
}

func (s *versionedSink) SendVersions(ctx context.Context, tenant string, items []producers.Item) error {
	return producers.Versioned{Sink: s, Versions: s.chunks, Retracts: s.chunks, Publisher: s}.Send(ctx, tenant, items)
}

func (s *versionedSink) Retract(ctx context.Context, tenant, idOrSource string) (schemas.Retraction, error) {
	return producers.Retract(ctx, s.chunks, s, tenant, idOrSource, time.Now())
}

func (s *versionedSink) take() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.events
	s.events = nil
	return e
}

func callAPI(t *testing.T, srv *httptest.Server, method, path, tenant, body string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if tenant != "" {
		req.Header.Set(producers.TenantHeader, tenant)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s %s: %d %s is not a JSON object", method, path, resp.StatusCode, b)
	}
	return resp.StatusCode, m
}

func docIDs(m map[string]any) []string {
	var out []string
	l, _ := m["doc_ids"].([]any)
	for _, v := range l {
		s, _ := v.(string)
		out = append(out, s)
	}
	return out
}

// TestDocumentVersionsAndRetraction: POST with a source answers the doc
// ids; the same source with other text is a new id that supersedes the
// first, whose retraction is published after the new document; the same
// text again publishes nothing; DELETE retracts by id or by source (202),
// again (202, the first mark), and an unknown one is 404; a retracted id
// stays retracted (409); another tenant's source is its own.
func TestDocumentVersionsAndRetraction(t *testing.T) {
	chunks := redisdb.NewChunks(redistest.Client(t))
	s := &versionedSink{chunks: chunks}
	srv := httptest.NewServer(api.New(api.Deps{Sink: s, Chunks: chunks}))
	defer srv.Close()

	code, m := callAPI(t, srv, "POST", "/v1/documents", "", `{"text":"Ann Lee was born in York.","source":"notes/ann.txt","title":"Ann"}`)
	v1 := docIDs(m)
	if code != http.StatusAccepted || len(v1) != 1 || !strings.HasPrefix(v1[0], "ann-") {
		t.Fatalf("first version: %d %v", code, m)
	}
	if e := s.take(); len(e) != 1 || e[0] != "doc "+v1[0]+" " {
		t.Fatalf("published %q", e)
	}
	code, m = callAPI(t, srv, "POST", "/v1/documents", "", `{"text":"Ann Lee was born in York.","source":"notes/ann.txt"}`)
	if code != http.StatusAccepted || docIDs(m)[0] != v1[0] {
		t.Fatalf("same text again: %d %v", code, m)
	}
	if e := s.take(); len(e) != 0 {
		t.Fatalf("the same text again published %q", e)
	}
	code, m = callAPI(t, srv, "POST", "/v1/documents", "", `{"text":"Ann Lee was born in Leeds.","source":"notes/ann.txt"}`)
	v2 := docIDs(m)
	if code != http.StatusAccepted || len(v2) != 1 || v2[0] == v1[0] {
		t.Fatalf("second version: %d %v", code, m)
	}
	want := []string{"doc " + v2[0] + " " + v1[0], "retraction " + v1[0] + " superseded " + v2[0]}
	if e := s.take(); strings.Join(e, "|") != strings.Join(want, "|") {
		t.Fatalf("published %q, want %q", e, want)
	}
	code, m = callAPI(t, srv, "GET", "/v1/documents/"+v1[0], "", "")
	if code != http.StatusOK || m["retract_reason"] != "superseded" || m["superseded_by"] != v2[0] {
		t.Fatalf("GET the superseded version: %d %v", code, m)
	}
	// The first text again under its (retracted) id: 409, not revived.
	if code, m := callAPI(t, srv, "POST", "/v1/documents", "", `{"doc_id":"`+v1[0]+`","text":"Ann Lee was born in York."}`); code != http.StatusConflict {
		t.Fatalf("a retracted id again: %d %v", code, m)
	}
	// An explicit id with other text stays a conflict.
	if code, _ := callAPI(t, srv, "POST", "/v1/documents", "", `{"doc_id":"`+v2[0]+`","text":"other"}`); code != http.StatusConflict {
		t.Fatalf("other text under an id: %d", code)
	}

	// Retract by source: its current version.
	code, m = callAPI(t, srv, "DELETE", "/v1/documents/notes%2Fann.txt", "", "")
	if code != http.StatusAccepted || m["doc_id"] != v2[0] || m["reason"] != "retracted" {
		t.Fatalf("DELETE by source: %d %v", code, m)
	}
	if e := s.take(); len(e) != 1 || e[0] != "retraction "+v2[0]+" retracted " {
		t.Fatalf("published %q", e)
	}
	first := m["retracted"]
	code, m = callAPI(t, srv, "DELETE", "/v1/documents/"+v2[0], "", "")
	if code != http.StatusAccepted || m["retracted"] != first {
		t.Fatalf("DELETE again: %d %v, want 202 with the first mark %v", code, m, first)
	}
	if code, m := callAPI(t, srv, "DELETE", "/v1/documents/no-such-doc", "", ""); code != http.StatusNotFound {
		t.Fatalf("DELETE of an unknown id: %d %v", code, m)
	}
	// By id, a document without a source.
	_, m = callAPI(t, srv, "POST", "/v1/documents", "", `{"text":"Bo Chen was born in Hull."}`)
	bo := docIDs(m)[0]
	s.take()
	if code, m := callAPI(t, srv, "DELETE", "/v1/documents/"+bo, "", ""); code != http.StatusAccepted || m["doc_id"] != bo {
		t.Fatalf("DELETE by id: %d %v", code, m)
	}
	// Another tenant: the same source is new there, and t1's ids unknown.
	if code, _ := callAPI(t, srv, "DELETE", "/v1/documents/"+bo, "other", ""); code != http.StatusNotFound {
		t.Fatalf("another tenant's DELETE of %s: %d", bo, code)
	}
	s.take()
	code, m = callAPI(t, srv, "POST", "/v1/documents", "other", `{"text":"Ann Lee was born in York.","source":"notes/ann.txt"}`)
	if code != http.StatusAccepted || docIDs(m)[0] != v1[0] {
		t.Fatalf("the first text in another tenant: %d %v", code, m)
	}
	if e := s.take(); len(e) != 1 || e[0] != "doc "+v1[0]+" " {
		t.Fatalf("another tenant published %q", e)
	}
}
