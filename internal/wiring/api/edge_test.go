package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/annalist-dev/annalist/infra/kg"
	"github.com/annalist-dev/annalist/infra/pages"
	"github.com/annalist-dev/annalist/infra/redisdb"
	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
	"github.com/annalist-dev/annalist/internal/wiring/api"
)

// jsonError checks that body is a JSON object with an "error" string and
// returns it.
func jsonError(t *testing.T, body string) string {
	t.Helper()
	var e struct {
		Error string `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &e); err != nil || e.Error == "" {
		t.Fatalf("body %q is not a JSON error", body)
	}
	return e.Error
}

// TestWritesRefusedWhileRedisIsDown: with the redis-server gone, the write
// endpoints answer 503 with Retry-After and publish nothing, whether the
// admission check sees the outage first (Admit) or the write's own store
// call does (no Admit); never 202, and POST /v1/requests never 500.
func TestWritesRefusedWhileRedisIsDown(t *testing.T) {
	for _, withAdmit := range []bool{true, false} {
		name := "admission"
		if !withAdmit {
			name = "store call"
		}
		t.Run(name, func(t *testing.T) {
			srv := redistest.Server(t)
			c, err := redisdb.Connect(context.Background(), redisdb.Config{Addr: srv.Addr()})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = c.Close() })
			store, err := kg.New(c, kg.Config{})
			if err != nil {
				t.Fatal(err)
			}
			ping := func(ctx context.Context) error { return c.Ping(ctx).Err() }
			f := newFixture(t, func(d *api.Deps) {
				d.Graph, d.Chunks, d.Pages = store, redisdb.NewChunks(c), pages.New(c)
				d.Ready = ping
				if withAdmit {
					d.Admit = ping
				} else {
					d.Admit = func(context.Context) error { return nil }
				}
			})
			if err := srv.Close(); err != nil {
				t.Fatal(err)
			}
			for _, w := range []struct{ path, body string }{
				{"/v1/documents", `{"text":"Ann Lee was born in York.","doc_id":"ann"}`},
				{"/v1/requests", `{"kind":"biography","subject":"叶向高"}`},
				{"/v1/reviews/rv1", `{"decision":"福清"}`},
			} {
				req, _ := http.NewRequest(http.MethodPost, f.srv.URL+w.path, strings.NewReader(w.body))
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				body := string(b)
				if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
					t.Errorf("POST %s with Redis down: %d Retry-After %q %s; want 503 with Retry-After",
						w.path, resp.StatusCode, resp.Header.Get("Retry-After"), body)
					continue
				}
				jsonError(t, body)
			}
			if len(f.sink.got) != 0 || len(f.req.got) != 0 {
				t.Errorf("published %d documents and %d requests while Redis was down", len(f.sink.got), len(f.req.got))
			}
			if code, body := f.do(t, "GET", "/healthz", ""); code != http.StatusOK {
				t.Errorf("healthz (liveness) with Redis down: %d %s; want 200", code, body)
			}
			if code, body := f.do(t, "GET", "/readyz", ""); code != http.StatusServiceUnavailable {
				t.Errorf("readyz with Redis down: %d %s; want 503", code, body)
			}
		})
	}
}

// TestDocumentsRefusedAtTheEdge: what the pipeline would dead-letter or
// store damaged after a 202 is a 400 before anything is published.
func TestDocumentsRefusedAtTheEdge(t *testing.T) {
	f := newFixture(t, func(d *api.Deps) { d.MaxBody = 1 << 20 })
	cases := map[string]string{
		"unknown profile":  `{"text":"Ann Lee was born in York.","profile":"nope"}`,
		"invalid UTF-8":    "{\"text\":\"Ann \xff Lee\"}",
		"lone surrogate":   `{"text":"Ann \udc00 Lee"}`,
		"ANSI escape":      `{"text":"\u001b[31mAnn Lee\u001b[0m"}`,
		"NUL":              `{"text":"Ann\u0000Lee"}`,
		"path id":          `{"text":"Ann Lee.","doc_id":"../../etc/passwd"}`,
		"slashes":          `{"text":"Ann Lee.","doc_id":"a/b/c"}`,
		"100 k characters": `{"text":"Ann Lee.","doc_id":"` + strings.Repeat("a", 100_000) + `"}`,
	}
	for name, body := range cases {
		code, resp := f.do(t, "POST", "/v1/documents", body)
		if code != http.StatusBadRequest {
			t.Errorf("%s: %d %.200s; want 400", name, code, resp)
			continue
		}
		msg := jsonError(t, resp)
		if name == "unknown profile" && !strings.Contains(msg, "liezhuan") {
			t.Errorf("unknown profile: %q does not list the profiles", msg)
		}
	}
	if len(f.sink.got) != 0 {
		t.Errorf("%d documents published", len(f.sink.got))
	}
}

// TestDocumentIDConflict: a doc_id names one text. The same text again is
// an idempotent 202; another text under it is 409, published nowhere.
func TestDocumentIDConflict(t *testing.T) {
	f := newFixture(t, nil)
	post := func(body string) (int, string) { return f.do(t, "POST", "/v1/documents", body) }
	if code, body := post(`{"doc_id":"notes:ann","text":"Ann Lee was born in York."}`); code != http.StatusAccepted {
		t.Fatalf("first post: %d %s", code, body)
	}
	if code, body := post(`{"doc_id":"notes:ann","text":"Ann Lee was born in York."}`); code != http.StatusAccepted {
		t.Fatalf("same text again: %d %s; want 202", code, body)
	}
	code, body := post(`{"doc_id":"notes:ann","text":"Ann Lee was born in Leeds."}`)
	if code != http.StatusConflict {
		t.Fatalf("another text under the id: %d %s; want 409", code, body)
	}
	jsonError(t, body)
	// A document the chunker stored (the fixture's "d") is bound too.
	if code, body := post(`{"doc_id":"d","text":"something else"}`); code != http.StatusConflict {
		t.Fatalf("another text under a stored document's id: %d %s; want 409", code, body)
	}
	// One request naming an id twice with two texts publishes nothing.
	code, body = post(`{"documents":[{"doc_id":"twice","text":"one"},{"doc_id":"twice","text":"two"}]}`)
	if code != http.StatusConflict {
		t.Fatalf("one id, two texts in a request: %d %s; want 409", code, body)
	}
	if len(f.sink.got) != 2 {
		t.Fatalf("%d documents published; want the two posts of the first text", len(f.sink.got))
	}
	// The refused request left no claim: its id is free for either text.
	if code, body := post(`{"doc_id":"twice","text":"two"}`); code != http.StatusAccepted {
		t.Fatalf("id of a refused request: %d %s; want 202", code, body)
	}
}

// TestUnknownRoutesAnswerJSON: the mux's own 404 and 405 under /v1/ are
// JSON like every other error, and ids in paths follow the id grammar.
func TestUnknownRoutesAnswerJSON(t *testing.T) {
	f := newFixture(t, nil)
	for _, c := range []struct {
		method, path string
		code         int
	}{
		{"GET", "/v1/documents/a/b/c", http.StatusNotFound},
		{"GET", "/v1/nothing", http.StatusNotFound},
		{"GET", "/v1/documents", http.StatusMethodNotAllowed},
		{"GET", "/v1/documents/..%2F..%2Fetc%2Fpasswd", http.StatusBadRequest},
		{"GET", "/v1/chunks/a%20b", http.StatusBadRequest},
		{"GET", "/v1/documents/d", http.StatusOK},
	} {
		code, body := f.do(t, c.method, c.path, "")
		if code != c.code {
			t.Errorf("%s %s: %d %s; want %d", c.method, c.path, code, body, c.code)
			continue
		}
		if code != http.StatusOK {
			jsonError(t, body)
		}
	}
}

// TestLongResponsesOutliveReadTimeout: serve sets the server's
// ReadTimeout to bound slow bodies; a request without a body must still
// be able to stream longer than that (the SSE streams).
func TestLongResponsesOutliveReadTimeout(t *testing.T) {
	alive := make(chan error, 1)
	h := api.New(api.Deps{UI: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(600 * time.Millisecond):
			alive <- nil
		case <-r.Context().Done():
			alive <- r.Context().Err()
		}
		_, _ = w.Write([]byte("ok"))
	})})
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ReadTimeout = 200 * time.Millisecond
	srv.Start()
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if err := <-alive; err != nil {
		t.Fatalf("a bodiless request was cut by the read timeout: %v", err)
	}
}

// TestDocumentIDConflictConcurrent: of concurrent posts of different
// texts under one free id, exactly one is accepted.
func TestDocumentIDConflictConcurrent(t *testing.T) {
	f := newFixture(t, nil)
	const n = 16
	codes := make(chan int, n)
	for i := range n {
		go func() {
			body := fmt.Sprintf(`{"doc_id":"race","text":"text number %d"}`, i)
			req, _ := http.NewRequest(http.MethodPost, f.srv.URL+"/v1/documents", strings.NewReader(body))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				codes <- 0
				return
			}
			resp.Body.Close()
			codes <- resp.StatusCode
		}()
	}
	count := map[int]int{}
	for range n {
		count[<-codes]++
	}
	if count[http.StatusAccepted] != 1 || count[http.StatusConflict] != n-1 {
		t.Fatalf("status counts %v; want one 202 and %d 409", count, n-1)
	}
}
