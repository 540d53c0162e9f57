package api_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/infra/hnsw"
	"github.com/annalist-dev/annalist/internal/ports/vectors"
	"github.com/annalist-dev/annalist/internal/wiring/api"
	"github.com/annalist-dev/annalist/pipeline"
)

// TestVectorEndpointsServeAJoinedProcess: the owner's vector store,
// searched and counted over the API by the client a joined command uses
// (hnsw.Remote), answers as the store itself does, tenant by tenant; a
// query of another dimension is a permanent ErrDimension on the client's
// side; the read token guards both routes; and there is no write route.
func TestVectorEndpointsServeAJoinedProcess(t *testing.T) {
	ctx := context.Background()
	st, err := hnsw.Open(hnsw.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	items := []vectors.Item{
		{ChunkID: "a-0000", DocID: "a", Vector: []float32{1, 0, 0}},
		{ChunkID: "a-0001", DocID: "a", Vector: []float32{0.8, 0.6, 0}},
		{ChunkID: "b-0000", DocID: "b", Vector: []float32{0, 0, 1}},
	}
	if err := st.Upsert(ctx, "default", items); err != nil {
		t.Fatal(err)
	}
	if err := st.Upsert(ctx, "other", items[:1]); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(api.New(api.Deps{Vectors: st, Auth: api.AuthConfig{ReadToken: "r", APIToken: "w"}}))
	defer srv.Close()

	for _, token := range []string{"r", "w"} {
		remote, err := hnsw.NewRemote(hnsw.RemoteConfig{BaseURL: srv.URL, Token: token})
		if err != nil {
			t.Fatal(err)
		}
		want, err := st.Search(ctx, "default", []float32{1, 0.1, 0}, 2)
		if err != nil {
			t.Fatal(err)
		}
		got, err := remote.Search(ctx, "default", []float32{1, 0.1, 0}, 2)
		if err != nil {
			t.Fatalf("token %s: search: %v", token, err)
		}
		if len(got) != 2 || got[0] != want[0] || got[1] != want[1] || got[0].ChunkID != "a-0000" {
			t.Fatalf("token %s: remote hits %v, the store's %v", token, got, want)
		}
		for tenant, n := range map[string]int{"default": 3, "other": 1, "nobody": 0} {
			if c, err := remote.Count(ctx, tenant); err != nil || c != n {
				t.Fatalf("token %s: count %s = %d, %v; want %d", token, tenant, c, err, n)
			}
		}
		if hits, err := remote.Search(ctx, "nobody", []float32{1, 0, 0}, 5); err != nil || len(hits) != 0 {
			t.Fatalf("a tenant without vectors: %v, %v", hits, err)
		}
		_, err = remote.Search(ctx, "default", []float32{1, 0}, 2)
		if !errors.Is(err, vectors.ErrDimension) || !pipeline.IsPermanent(err) {
			t.Fatalf("a 2-dimensional query of a 3-dimensional index: %v; want a permanent ErrDimension", err)
		}
	}

	anonymous, err := hnsw.NewRemote(hnsw.RemoteConfig{BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := anonymous.Count(ctx, "default"); err == nil || !strings.Contains(err.Error(), "401") || !pipeline.IsPermanent(err) {
		t.Fatalf("count without the read token: %v; want a permanent 401", err)
	}

	for _, c := range []struct{ method, path, body string }{
		{http.MethodPut, hnsw.SearchPath, `{"vector":[1,0,0],"k":1}`},
		{http.MethodPost, "/v1/vectors", `{}`},
		{http.MethodDelete, hnsw.CountPath, ``},
	} {
		req, _ := http.NewRequest(c.method, srv.URL+c.path, strings.NewReader(c.body))
		req.Header.Set("Authorization", "Bearer w")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound && resp.StatusCode != http.StatusMethodNotAllowed {
			t.Errorf("%s %s: %d; the vectors take no writes over HTTP", c.method, c.path, resp.StatusCode)
		}
	}
	for body, want := range map[string]int{
		`{"vector":[1,0,0],"k":1,"extra":1}`: http.StatusBadRequest,
		`{"vector":"no"}`:                    http.StatusBadRequest,
		`{"vector":[1,0,0],"k":0}`:           http.StatusOK,
		`{"vector":[1,0,0],"k":1000000}`:     http.StatusOK,
	} {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+hnsw.SearchPath, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer r")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("search %s: %d, want %d", body, resp.StatusCode, want)
		}
	}
}

// TestVectorRoutesNeedAStore: without a vector store the routes are not
// mounted, as every endpoint whose dependency is missing.
func TestVectorRoutesNeedAStore(t *testing.T) {
	srv := httptest.NewServer(api.New(api.Deps{}))
	defer srv.Close()
	resp, err := http.Get(srv.URL + hnsw.CountPath)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("GET %s without a store: %d, want 404", hnsw.CountPath, resp.StatusCode)
	}
}
