package api_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/annalist-dev/annalist/infra/kafka"
	"github.com/annalist-dev/annalist/internal/wiring/api"
	"github.com/annalist-dev/annalist/topology"
)

// fakeDeadLetters records the queries it is given. (The store itself is
// tested against a broker in infra/kafka and through the CLI.)
type fakeDeadLetters struct {
	mu      sync.Mutex
	queries []kafka.DLTQuery
}

func (f *fakeDeadLetters) List(_ context.Context, q kafka.DLTQuery) ([]kafka.DeadLetter, error) {
	f.mu.Lock()
	f.queries = append(f.queries, q)
	f.mu.Unlock()
	return []kafka.DeadLetter{{Topic: q.Topics[0], Error: "decode: bad", Tenant: q.Tenant}}, nil
}

func (f *fakeDeadLetters) Replay(_ context.Context, q kafka.DLTQuery) (kafka.ReplayResult, error) {
	f.mu.Lock()
	f.queries = append(f.queries, q)
	f.mu.Unlock()
	return kafka.ReplayResult{Replayed: []kafka.DeadLetter{{Topic: q.Topics[0]}}, Skipped: 2}, nil
}

func (f *fakeDeadLetters) Counts(_ context.Context, topics []string) (map[string]int64, error) {
	out := map[string]int64{}
	for _, t := range topics {
		out[t] = 1
	}
	return out, nil
}

func (f *fakeDeadLetters) last() kafka.DLTQuery {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.queries[len(f.queries)-1]
}

func call(t *testing.T, h http.Handler, method, target, token, body string) (int, string) {
	t.Helper()
	var r *http.Request
	if body != "" {
		r = httptest.NewRequest(method, target, strings.NewReader(body))
	} else {
		r = httptest.NewRequest(method, target, nil)
	}
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	r.Header.Set("X-Annalist-Tenant", "acme")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Code, w.Body.String()
}

func TestDeadLetterEndpoints(t *testing.T) {
	f := &fakeDeadLetters{}
	h := api.New(api.Deps{DeadLetters: f, Auth: api.AuthConfig{APIToken: "write-secret", ReadToken: "read-secret"}})

	code, body := call(t, h, "GET", "/v1/dead-letters?topic=documents&since=1h&limit=5", "read-secret", "")
	if code != http.StatusOK {
		t.Fatalf("list: %d %s", code, body)
	}
	var list api.DeadLettersList
	if err := json.Unmarshal([]byte(body), &list); err != nil || len(list.DeadLetters) != 1 || list.Counts[topology.Documents] != 1 {
		t.Errorf("list = %+v, %v:\n%s", list, err, body)
	}
	if q := f.last(); q.Tenant != "acme" || q.Limit != 5 || q.Since.IsZero() || len(q.Topics) != 1 || q.Topics[0] != topology.Documents {
		t.Errorf("list query = %+v", q)
	}
	// No topic is every topic; limit=0 is the counts alone.
	n := len(f.queries)
	if code, body := call(t, h, "GET", "/v1/dead-letters?limit=0", "read-secret", ""); code != http.StatusOK ||
		!strings.Contains(body, `"dead_letters":[]`) || !strings.Contains(body, `"`+topology.Documents+`":1`) {
		t.Errorf("list counts only: %d %s", code, body)
	}
	if len(f.queries) != n {
		t.Error("limit=0 read the dead letters")
	}

	code, body = call(t, h, "POST", "/v1/dead-letters/replay", "write-secret", `{"topic":"documents","offsets":["0:3","0:5"]}`)
	if code != http.StatusOK || !strings.Contains(body, `"skipped":2`) {
		t.Fatalf("replay: %d %s", code, body)
	}
	if q := f.last(); q.Tenant != "acme" || len(q.Positions) != 2 || q.Positions[1] != (kafka.DLTPosition{Partition: 0, Offset: 5}) {
		t.Errorf("replay query = %+v", q)
	}

	for _, tc := range []struct {
		method, target, token, body string
		want                        int
	}{
		{"GET", "/v1/dead-letters?topic=nope", "read-secret", "", http.StatusNotFound},
		{"GET", "/v1/dead-letters?topic=documents.dlt", "read-secret", "", http.StatusNotFound},
		{"GET", "/v1/dead-letters?since=yesterday", "read-secret", "", http.StatusBadRequest},
		{"GET", "/v1/dead-letters?limit=-1", "read-secret", "", http.StatusBadRequest},
		{"GET", "/v1/dead-letters?limit=1001", "read-secret", "", http.StatusBadRequest},
		{"GET", "/v1/dead-letters?limit=x", "read-secret", "", http.StatusBadRequest},
		{"GET", "/v1/dead-letters", "", "", http.StatusUnauthorized},
		{"GET", "/v1/dead-letters", "wrong", "", http.StatusForbidden},
		{"POST", "/v1/dead-letters/replay", "write-secret", `{"topic":"nope"}`, http.StatusNotFound},
		{"POST", "/v1/dead-letters/replay", "write-secret", `{}`, http.StatusBadRequest},
		{"POST", "/v1/dead-letters/replay", "write-secret", `{"topic":"documents"`, http.StatusBadRequest},
		{"POST", "/v1/dead-letters/replay", "write-secret", `{"topic":"documents","purge":true}`, http.StatusBadRequest},
		{"POST", "/v1/dead-letters/replay", "write-secret", `{"topic":"documents","since":"soon"}`, http.StatusBadRequest},
		{"POST", "/v1/dead-letters/replay", "write-secret", `{"topic":"documents","offsets":["3"]}`, http.StatusBadRequest},
		{"POST", "/v1/dead-letters/replay", "write-secret", `{"topic":"all","offsets":["0:3"]}`, http.StatusBadRequest},
		{"POST", "/v1/dead-letters/replay", "", `{"topic":"documents"}`, http.StatusUnauthorized},
		{"POST", "/v1/dead-letters/replay", "read-secret", `{"topic":"documents"}`, http.StatusForbidden},
	} {
		n := len(f.queries)
		if code, body := call(t, h, tc.method, tc.target, tc.token, tc.body); code != tc.want {
			t.Errorf("%s %s %s: %d %s, want %d", tc.method, tc.target, tc.body, code, body, tc.want)
		}
		if len(f.queries) != n {
			t.Errorf("%s %s %s reached the store", tc.method, tc.target, tc.body)
		}
	}

	// A replay is a write: refused with 503 and Retry-After while the
	// write path is down, before the store is reached.
	down := api.New(api.Deps{DeadLetters: f, Admit: func(context.Context) error { return errors.New("redis down") }})
	n = len(f.queries)
	r := httptest.NewRequest("POST", "/v1/dead-letters/replay", strings.NewReader(`{"topic":"documents"}`))
	w := httptest.NewRecorder()
	down.ServeHTTP(w, r)
	if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") == "" || len(f.queries) != n {
		t.Errorf("replay while down: %d Retry-After %q, store reached %v", w.Code, w.Header().Get("Retry-After"), len(f.queries) != n)
	}
}
