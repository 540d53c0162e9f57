package producers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/annalist-dev/annalist/producers"
)

type sliceSink struct {
	mu    sync.Mutex
	items []producers.Item
	fail  error
}

func (s *sliceSink) Send(_ context.Context, tenant string, docs []producers.Item) error {
	if s.fail != nil {
		return s.fail
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.items = append(s.items, docs...)
	return nil
}

func write(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestIngestFilesStableIDsAndErrors(t *testing.T) {
	root := filepath.Join(t.TempDir(), "corpus")
	write(t, root, "a.txt", "甲，字乙，丙人。")
	write(t, root, "sub/b.md", "# Title B\n\nJohn Doe was born in 1700.")
	write(t, root, "c.jsonl", `{"text":"one"}`+"\n\n"+`{"text":`+"\n"+`{"doc_id":"x1","text":"two","colour":1}`+"\n"+`{"doc_id":"x2","text":"three"}`+"\n")
	write(t, root, "bad.txt", "\xff\xfe")
	write(t, root, "skip.pdf", "ignored")
	write(t, root, ".hidden/d.txt", "hidden")

	run := func() ([]producers.Item, producers.Summary) {
		sink := &sliceSink{}
		sum, err := producers.IngestFiles(context.Background(), []string{root}, producers.Options{}, "default", sink, nil)
		if err != nil {
			t.Fatal(err)
		}
		return sink.items, sum
	}
	items, sum := run()
	if sum.Files != 4 || sum.Documents != 4 || len(items) != 4 {
		t.Fatalf("summary %+v with %d items; want 4 files, 4 documents", sum, len(items))
	}
	if len(sum.Errors) != 3 {
		t.Fatalf("want 3 errors (bad JSON, unknown field, not UTF-8), got %q", sum.Errors)
	}
	for _, want := range []string{"c.jsonl:3", "c.jsonl:4", "bad.txt"} {
		if !strings.Contains(strings.Join(sum.Errors, "\n"), want) {
			t.Errorf("errors do not name %s: %q", want, sum.Errors)
		}
	}
	titles := map[string]bool{}
	for _, it := range items {
		titles[it.Doc.Title] = true
		if it.Doc.Collection != "corpus" {
			t.Errorf("%s: collection %q, want corpus", it.Doc.Source, it.Doc.Collection)
		}
		if strings.HasPrefix(it.Doc.Source, "/") {
			t.Errorf("source %q leaks an absolute path", it.Doc.Source)
		}
	}
	if !titles["Title B"] || !titles["a"] {
		t.Errorf("titles %v: want the Markdown heading and the text file's name", titles)
	}
	again, _ := run()
	for i := range items {
		if items[i].Doc.DocID != again[i].Doc.DocID || items[i].EventID != again[i].EventID {
			t.Fatalf("re-ingest changed ids: %s/%s vs %s/%s", items[i].Doc.DocID, items[i].EventID, again[i].Doc.DocID, again[i].EventID)
		}
	}
	if items[1].Doc.DocID == "" || items[2].Doc.DocID != "x2" {
		t.Fatalf("jsonl ids: %q %q", items[1].Doc.DocID, items[2].Doc.DocID)
	}
}

func TestDocIDDependsOnContent(t *testing.T) {
	a := producers.DocID("dir/128.txt", "text one")
	if a != producers.DocID("dir/128.txt", "text one") {
		t.Error("same source and content must give the same id")
	}
	if b := producers.DocID("other/128.txt", "text one"); a == b || !strings.HasPrefix(b, "128-") {
		t.Errorf("two sources with the same text share id %q (other: %q): one's retraction would take the other's", a, b)
	}
	if a == producers.DocID("dir/128.txt", "text two") {
		t.Error("changed content must give a new id")
	}
	if !strings.HasPrefix(a, "128-") {
		t.Errorf("id %q should start with the file's slug", a)
	}
}

func TestWalkMissingPath(t *testing.T) {
	if _, err := producers.Walk([]string{filepath.Join(t.TempDir(), "nope")}, producers.Options{}); err == nil {
		t.Fatal("missing path must be an error")
	}
	f := write(t, t.TempDir(), "x.pdf", "x")
	if _, err := producers.Walk([]string{f}, producers.Options{}); !errors.Is(err, producers.ErrInput) {
		t.Fatalf("unsupported file named directly: %v", err)
	}
}

func TestHTTPDocuments(t *testing.T) {
	sink := &sliceSink{}
	h := producers.DocumentsHandler(sink, 1<<10)
	post := func(body, ctype string, hdr map[string]string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodPost, "/v1/documents", strings.NewReader(body))
		r.Header.Set("Content-Type", ctype)
		for k, v := range hdr {
			r.Header.Set(k, v)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	tests := []struct {
		name   string
		body   string
		ctype  string
		hdr    map[string]string
		status int
		docs   int
	}{
		{"single", `{"text":"hello","title":"t"}`, "application/json", nil, 202, 1},
		{"batch with one bad", `{"documents":[{"text":"a"},{"text":""},{"text":"b"}]}`, "application/json", nil, 202, 2},
		{"ndjson", "{\"text\":\"a\"}\n{\"text\":\"c\"}\n", "application/x-ndjson", nil, 202, 2},
		{"malformed", `{"text":`, "application/json", nil, 400, 0},
		{"unknown field", `{"txt":"a"}`, "application/json", nil, 400, 0},
		{"too large", `{"text":"` + strings.Repeat("x", 2000) + `"}`, "application/json", nil, 413, 0},
		{"bad tenant", `{"text":"a"}`, "application/json", map[string]string{producers.TenantHeader: "a b"}, 400, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sink.items = nil
			w := post(tt.body, tt.ctype, tt.hdr)
			if w.Code != tt.status {
				t.Fatalf("status %d, want %d: %s", w.Code, tt.status, w.Body)
			}
			if len(sink.items) != tt.docs {
				t.Fatalf("%d documents published, want %d", len(sink.items), tt.docs)
			}
			var body map[string]any
			if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
				t.Fatalf("response is not JSON: %s", w.Body)
			}
			if tt.status >= 400 && body["error"] == "" {
				t.Fatalf("error response without message: %s", w.Body)
			}
		})
	}
	sink.fail = errors.New("broker down")
	if w := post(`{"text":"x"}`, "application/json", nil); w.Code != http.StatusServiceUnavailable {
		t.Fatalf("sink failure: status %d", w.Code)
	}
	r := httptest.NewRequest(http.MethodGet, "/v1/documents", &bytes.Buffer{})
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != http.StatusMethodNotAllowed {
		t.Fatalf("GET: %d", w.Code)
	}
}
