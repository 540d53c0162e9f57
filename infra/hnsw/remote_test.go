package hnsw_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/annalist-dev/annalist/infra/hnsw"
	"github.com/annalist-dev/annalist/internal/ports/vectors"
	"github.com/annalist-dev/annalist/pipeline"
)

// owner is the two read routes of an owner's API over a real store, as
// the client sees them; status, when set, is answered instead.
type owner struct {
	st     *hnsw.Store
	status atomic.Int32
	calls  atomic.Int32
	tenant atomic.Value
	token  atomic.Value
}

func (o *owner) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	o.calls.Add(1)
	o.tenant.Store(r.Header.Get(hnsw.TenantHeader))
	o.token.Store(r.Header.Get("Authorization"))
	if s := o.status.Load(); s != 0 {
		w.WriteHeader(int(s))
		_ = json.NewEncoder(w).Encode(hnsw.ErrorResponse{Error: http.StatusText(int(s))})
		return
	}
	tenant := r.Header.Get(hnsw.TenantHeader)
	switch r.URL.Path {
	case hnsw.SearchPath:
		var req hnsw.SearchRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		hits, err := o.st.Search(r.Context(), tenant, req.Vector, req.K)
		if errors.Is(err, vectors.ErrDimension) {
			w.WriteHeader(http.StatusBadRequest)
			_ = json.NewEncoder(w).Encode(hnsw.ErrorResponse{Error: err.Error(), Code: hnsw.CodeDimension})
			return
		}
		resp := hnsw.SearchResponse{Hits: []hnsw.SearchHit{}}
		for _, h := range hits {
			resp.Hits = append(resp.Hits, hnsw.SearchHit{ChunkID: h.ChunkID, Score: h.Score})
		}
		_ = json.NewEncoder(w).Encode(resp)
	case hnsw.CountPath:
		n, _ := o.st.Count(r.Context(), tenant)
		_ = json.NewEncoder(w).Encode(hnsw.CountResponse{Count: n})
	default:
		w.WriteHeader(http.StatusNotFound)
	}
}

func TestRemoteSearchesAndCountsNeverWrites(t *testing.T) {
	ctx := context.Background()
	st := openStore(t, hnsw.Config{})
	defer st.Close()
	if err := st.Upsert(ctx, "t1", items(0, 50, 8, 1)); err != nil {
		t.Fatal(err)
	}
	o := &owner{st: st}
	srv := httptest.NewServer(o)
	defer srv.Close()
	r, err := hnsw.NewRemote(hnsw.RemoteConfig{BaseURL: srv.URL + "/", Token: "secret"})
	if err != nil {
		t.Fatal(err)
	}
	q := items(7, 8, 8, 1)[0].Vector
	want, err := st.Search(ctx, "t1", q, 5)
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.Search(ctx, "t1", q, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("remote %v, local %v", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("hit %d: remote %v, local %v", i, got[i], want[i])
		}
	}
	if o.tenant.Load() != "t1" || o.token.Load() != "Bearer secret" {
		t.Fatalf("the call carried tenant %v and authorization %v", o.tenant.Load(), o.token.Load())
	}
	if n, err := r.Count(ctx, "t1"); err != nil || n != 50 {
		t.Fatalf("count %d, %v; want 50", n, err)
	}

	calls := o.calls.Load()
	if err := r.Upsert(ctx, "t1", items(50, 51, 8, 2)); !errors.Is(err, hnsw.ErrReadOnly) {
		t.Fatalf("upsert: %v; want ErrReadOnly", err)
	}
	if err := r.Delete(ctx, "t1", []string{"c00001"}); !errors.Is(err, hnsw.ErrReadOnly) {
		t.Fatalf("delete: %v; want ErrReadOnly", err)
	}
	if hits, err := r.Search(ctx, "t1", q, 0); err != nil || len(hits) != 0 {
		t.Fatalf("k = 0: %v, %v", hits, err)
	}
	if _, err := r.Search(ctx, "t1", []float32{float32(math.NaN()), 0, 0, 0, 0, 0, 0, 0}, 3); !pipeline.IsPermanent(err) {
		t.Fatalf("a NaN query: %v; want a permanent error", err)
	}
	if o.calls.Load() != calls {
		t.Fatalf("%d calls for writes, k = 0 and a NaN query; want none", o.calls.Load()-calls)
	}
	if n, err := st.Count(ctx, "t1"); err != nil || n != 50 {
		t.Fatalf("the owner's store holds %d after refused writes, %v", n, err)
	}

	_, err = r.Search(ctx, "t1", []float32{1, 2}, 3)
	if !errors.Is(err, vectors.ErrDimension) || !pipeline.IsPermanent(err) {
		t.Fatalf("a query of another dimension: %v; want a permanent ErrDimension", err)
	}
}

// TestRemoteErrors: what the owner cannot answer now (down, busy, failing)
// is transient, so a caller retries; what it refuses is permanent; an
// ended context is the context's error.
func TestRemoteErrors(t *testing.T) {
	ctx := context.Background()
	st := openStore(t, hnsw.Config{})
	defer st.Close()
	o := &owner{st: st}
	srv := httptest.NewServer(o)
	defer srv.Close()
	r, err := hnsw.NewRemote(hnsw.RemoteConfig{BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	for status, permanent := range map[int]bool{
		http.StatusServiceUnavailable:  false,
		http.StatusInternalServerError: false,
		http.StatusTooManyRequests:     false,
		http.StatusForbidden:           true,
		http.StatusNotFound:            true,
	} {
		o.status.Store(int32(status))
		_, err := r.Count(ctx, "t1")
		if err == nil || pipeline.IsPermanent(err) != permanent {
			t.Errorf("status %d: %v; want permanent=%v", status, err, permanent)
		}
	}
	o.status.Store(0)

	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := r.Search(canceled, "t1", []float32{1}, 1); !errors.Is(err, context.Canceled) {
		t.Fatalf("ended context: %v", err)
	}

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + l.Addr().String()
	l.Close()
	gone, err := hnsw.NewRemote(hnsw.RemoteConfig{BaseURL: down, Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gone.Count(ctx, "t1"); err == nil || pipeline.IsPermanent(err) {
		t.Fatalf("owner gone: %v; want a transient error", err)
	}
	if _, err := hnsw.NewRemote(hnsw.RemoteConfig{BaseURL: "127.0.0.1:8080"}); err == nil {
		t.Fatal("a base URL without a scheme was accepted")
	}
}
