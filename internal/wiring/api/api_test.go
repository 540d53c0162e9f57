package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/infra/kg"
	"github.com/annalist-dev/annalist/infra/redisdb"
	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
	"github.com/annalist-dev/annalist/internal/wiring/api"
	"github.com/annalist-dev/annalist/producers"
	"github.com/annalist-dev/annalist/schemas"
)

type sink struct{ got []producers.Item }

func (s *sink) Send(_ context.Context, _ string, items []producers.Item) error {
	s.got = append(s.got, items...)
	return nil
}

func TestAPI(t *testing.T) {
	ctx := context.Background()
	c := redistest.Client(t)
	store, err := kg.New(c, kg.Config{})
	if err != nil {
		t.Fatal(err)
	}
	tr := schemas.Triplet{TripletID: "t1", Head: "甲乙", HeadType: schemas.EntityPerson, Relation: schemas.RelCourtesyName,
		Tail: "子明", ChunkID: "d-0000", DocID: "d", Entry: "甲乙", EntryChunk: "d-0000",
		Span: schemas.Span{Start: 3, End: 6}, Evidence: "字子明", Method: "regex", Confidence: 0.9}
	if _, err := store.Apply(ctx, schemas.DefaultTenant, []schemas.Triplet{tr}, []string{"e1"}); err != nil {
		t.Fatal(err)
	}
	s := &sink{}
	srv := httptest.NewServer(api.New(api.Deps{Sink: s, Graph: store, Chunks: redisdb.NewChunks(c)}))
	defer srv.Close()

	resp, err := http.Post(srv.URL+"/v1/documents", "application/json", strings.NewReader(`{"text":"Ann Lee was born in York."}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted || len(s.got) != 1 {
		t.Fatalf("POST /v1/documents: %d, %d published", resp.StatusCode, len(s.got))
	}

	get := func(path string, hdr map[string]string) (int, map[string]any) {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
			t.Fatalf("GET %s: body is not JSON: %v", path, err)
		}
		return resp.StatusCode, body
	}
	code, body := get("/v1/entities/"+url.PathEscape("子明"), nil)
	if code != http.StatusOK || body["name"] != "甲乙" {
		t.Fatalf("entity by courtesy name: %d %v", code, body)
	}
	if code, _ := get("/v1/entities/"+url.PathEscape("无此人"), nil); code != http.StatusNotFound {
		t.Fatalf("unknown entity: %d", code)
	}
	if code, _ := get("/v1/entities/"+url.PathEscape("子明"), map[string]string{producers.TenantHeader: "other"}); code != http.StatusNotFound {
		t.Fatalf("another tenant must not see the entity: %d", code)
	}
	if code, body := get("/healthz", nil); code != http.StatusOK || body["status"] != "ok" {
		t.Fatalf("healthz: %d %v", code, body)
	}
}
