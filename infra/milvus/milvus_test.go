package milvus_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/annalist-dev/annalist/internal/ports/vectors"

	"github.com/annalist-dev/annalist/infra/milvus"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/milvus-io/milvus-proto/go-api/v2/commonpb"
	"github.com/milvus-io/milvus-proto/go-api/v2/schemapb"
)

func newStore(t testing.TB, addr string, cfg milvus.Config) *milvus.Store {
	t.Helper()
	cfg.Address = addr
	if cfg.Timeout == 0 {
		cfg.Timeout = 10 * time.Second
	}
	s, err := milvus.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(context.Background()) })
	return s
}

func testItems(n, dim int, seed uint64) []vectors.Item {
	r := rand.New(rand.NewPCG(seed, 1))
	out := make([]vectors.Item, n)
	for i := range out {
		v := make([]float32, dim)
		for j := range v {
			v[j] = float32(r.NormFloat64())
		}
		out[i] = vectors.Item{ChunkID: fmt.Sprintf("chunk-%03d", i), DocID: fmt.Sprintf("doc-%d", i/4), Vector: v}
	}
	return out
}

// TestStoreOnFakeMilvus checks what the adapter says to Milvus: the calls
// it makes, the schema and index of the collections it creates, the
// columns it writes and the search parameters it sends. What a store
// answers is the contract suite's (contract_test.go).
func TestStoreOnFakeMilvus(t *testing.T) {
	ctx := context.Background()
	f, addr := startFake(t)
	s := newStore(t, addr, milvus.Config{})
	if f.count("Connect") != 1 {
		t.Fatalf("Connect called %d times, want once by New", f.count("Connect"))
	}

	// Reads of a tenant with no collection answer empty and create nothing.
	if n, err := s.Count(ctx, "archive"); n != 0 || err != nil {
		t.Fatalf("count = %d, %v", n, err)
	}
	if h, err := s.Search(ctx, "archive", []float32{1, 2, 3}, 5); h != nil || err != nil {
		t.Fatalf("search = %v, %v", h, err)
	}
	if f.count("CreateCollection") != 0 {
		t.Fatal("a read created a collection")
	}

	items := testItems(24, 8, 1)
	if err := s.Upsert(ctx, "archive", items); err != nil {
		t.Fatal(err)
	}
	// The fake's state is read under its lock: the race detector cannot
	// see the ordering that the gRPC round trip gives.
	f.mu.Lock()
	coll := f.colls["annalist_archive"]
	if coll == nil {
		t.Fatalf("collections %v, want annalist_archive", keys(f.colls))
	}
	checkSchema(t, coll.schema, 8)
	wantIndex := map[string]string{"index_type": "HNSW", "metric_type": "COSINE", "M": "16", "efConstruction": "200"}
	for k, v := range wantIndex {
		if coll.index[k] != v {
			t.Fatalf("index params %v, want %s=%s", coll.index, k, v)
		}
	}
	if !coll.loaded {
		t.Fatal("collection not loaded after the first upsert")
	}
	if len(coll.rows) != 24 || coll.rows["chunk-005"].doc != "doc-1" {
		t.Fatalf("rows %d, chunk-005 in %q", len(coll.rows), coll.rows["chunk-005"].doc)
	}
	f.mu.Unlock()

	// A redelivered batch, with a duplicate inside it: one request without
	// the duplicate key (Milvus refuses those), carrying the last copy's
	// doc id, and nothing is set up again.
	again := append(append([]vectors.Item(nil), items...), vectors.Item{ChunkID: "chunk-000", DocID: "doc-moved", Vector: items[0].Vector})
	if err := s.Upsert(ctx, "archive", again); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	moved, rows := coll.rows["chunk-000"].doc, len(coll.rows)
	f.mu.Unlock()
	if moved != "doc-moved" || rows != 24 {
		t.Fatalf("after redelivery: %d rows, chunk-000 in %q; want 24 and the last copy's doc", rows, moved)
	}
	for rpc, want := range map[string]int{"CreateCollection": 1, "CreateIndex": 1, "LoadCollection": 1, "Upsert": 2} {
		if got := f.count(rpc); got != want {
			t.Fatalf("%s called %d times, want %d", rpc, got, want)
		}
	}

	// ef is raised to k when k is larger (Milvus refuses ef below topk).
	for _, k := range []int{5, 200} {
		hits, err := s.Search(ctx, "archive", items[9].Vector, k)
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != min(k, 24) || hits[0].ChunkID != "chunk-009" {
			t.Fatalf("search for chunk-009's vector, k %d = %+v", k, hits)
		}
		f.mu.Lock()
		topk, params := f.lastSearch["topk"], f.lastSearch["params"]
		f.mu.Unlock()
		if topk != fmt.Sprint(k) || !strings.Contains(params, fmt.Sprintf(`"ef":%d`, max(k, milvus.DefaultEfSearch))) {
			t.Fatalf("k %d: search sent topk %q, params %s", k, topk, params)
		}
	}

	if err := s.DropTenant(ctx, "archive"); err != nil {
		t.Fatal(err)
	}
	if n, err := s.Count(ctx, "archive"); n != 0 || err != nil {
		t.Fatalf("count after drop = %d, %v", n, err)
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func checkSchema(t *testing.T, sch *schemapb.CollectionSchema, dim int) {
	t.Helper()
	want := map[string]schemapb.DataType{
		"chunk_id": schemapb.DataType_VarChar, "doc_id": schemapb.DataType_VarChar, "vector": schemapb.DataType_FloatVector,
	}
	if len(sch.GetFields()) != len(want) {
		t.Fatalf("schema has %d fields, want 3", len(sch.GetFields()))
	}
	for _, fld := range sch.GetFields() {
		if want[fld.GetName()] != fld.GetDataType() {
			t.Fatalf("field %s is %v", fld.GetName(), fld.GetDataType())
		}
		if fld.GetIsPrimaryKey() != (fld.GetName() == "chunk_id") || fld.GetAutoID() {
			t.Fatalf("field %s: primary %v auto id %v; chunk_id must be the primary key, set by us", fld.GetName(), fld.GetIsPrimaryKey(), fld.GetAutoID())
		}
		params := map[string]string{}
		for _, kv := range fld.GetTypeParams() {
			params[kv.GetKey()] = kv.GetValue()
		}
		switch fld.GetName() {
		case "vector":
			if params["dim"] != fmt.Sprint(dim) {
				t.Fatalf("vector dim %q, want %d", params["dim"], dim)
			}
		default:
			if params["max_length"] == "" {
				t.Fatalf("varchar %s without max_length", fld.GetName())
			}
		}
	}
}

// TestDeleteByPrimaryKey: Delete sends one delete by an expression on the
// primary key, escaping what an id may hold, removes exactly those rows,
// and makes no call for an empty list or a tenant without a collection.
func TestDeleteByPrimaryKey(t *testing.T) {
	ctx := context.Background()
	f, addr := startFake(t)
	s := newStore(t, addr, milvus.Config{})
	if err := s.Delete(ctx, "nobody", []string{"chunk-000"}); err != nil {
		t.Fatalf("delete from a tenant without a collection: %v", err)
	}
	if n := f.count("Delete"); n != 0 {
		t.Fatalf("a tenant without a collection cost %d Delete calls", n)
	}
	items := testItems(6, 8, 3)
	items[2].ChunkID = `odd"id\\x`
	if err := s.Upsert(ctx, "t1", items); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, "t1", nil); err != nil || f.count("Delete") != 0 {
		t.Fatalf("empty delete: %v, %d calls", err, f.count("Delete"))
	}
	if err := s.Delete(ctx, "t1", []string{"chunk-001", items[2].ChunkID, "absent"}); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	expr := f.lastDelete
	var left []string
	for id := range f.colls[s.Collection("t1")].rows {
		left = append(left, id)
	}
	f.mu.Unlock()
	if want := `chunk_id in ["chunk-001","odd\"id\\\\x","absent"]`; expr != want {
		t.Fatalf("delete expression %s, want %s", expr, want)
	}
	if n, err := s.Count(ctx, "t1"); err != nil || n != 4 {
		t.Fatalf("count after delete = %d, %v; want 4 (left %v)", n, err, left)
	}
	for _, id := range left {
		if id == "chunk-001" || id == items[2].ChunkID {
			t.Fatalf("%q survived its delete", id)
		}
	}
}

func TestStoreLoadsAndChecksExistingCollections(t *testing.T) {
	ctx := context.Background()
	f, addr := startFake(t)
	first := newStore(t, addr, milvus.Config{})
	if err := first.Upsert(ctx, "t", testItems(3, 4, 2)); err != nil {
		t.Fatal(err)
	}
	// Milvus restarted with the collection released.
	f.mu.Lock()
	f.colls["annalist_t"].loaded = false
	f.mu.Unlock()

	second := newStore(t, addr, milvus.Config{})
	if n, err := second.Count(ctx, "t"); n != 3 || err != nil {
		t.Fatalf("count = %d, %v; want the existing collection loaded and counted", n, err)
	}
	if f.count("CreateCollection") != 1 || f.count("LoadCollection") != 2 {
		t.Fatalf("create %d load %d: an existing collection must be loaded, not recreated",
			f.count("CreateCollection"), f.count("LoadCollection"))
	}
	third := newStore(t, addr, milvus.Config{})
	err := third.Upsert(ctx, "t", testItems(1, 6, 3))
	if !errors.Is(err, vectors.ErrDimension) || !pipeline.IsPermanent(err) {
		t.Fatalf("upsert of 6-dim vectors into a 4-dim collection: err = %v", err)
	}
	if _, err := third.Search(ctx, "t", make([]float32, 5), 1); !errors.Is(err, vectors.ErrDimension) {
		t.Fatalf("search with a 5-dim query: err = %v", err)
	}
}

func TestStoreRejectsBadItems(t *testing.T) {
	ctx := context.Background()
	f, addr := startFake(t)
	s := newStore(t, addr, milvus.Config{Dim: 4})
	tests := []struct {
		name string
		item vectors.Item
	}{
		{"wrong dimension", vectors.Item{ChunkID: "a", Vector: []float32{1, 2}}},
		{"no id", vectors.Item{Vector: []float32{1, 2, 3, 4}}},
		{"id too long", vectors.Item{ChunkID: strings.Repeat("x", 300), Vector: []float32{1, 2, 3, 4}}},
		{"NaN component", vectors.Item{ChunkID: "a", Vector: []float32{1, float32(math.NaN()), 3, 4}}},
		{"infinite component", vectors.Item{ChunkID: "a", Vector: []float32{1, float32(math.Inf(-1)), 3, 4}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := s.Upsert(ctx, "t", []vectors.Item{tc.item})
			if err == nil || !pipeline.IsPermanent(err) {
				t.Fatalf("err = %v, want a permanent error", err)
			}
		})
	}
	if f.count("Upsert") != 0 {
		t.Fatal("a bad item reached Milvus")
	}
}

func TestStoreReportsServerErrors(t *testing.T) {
	ctx := context.Background()
	f, addr := startFake(t)
	s := newStore(t, addr, milvus.Config{})
	f.mu.Lock()
	f.failUpsert = &commonpb.Status{Code: 65535, Reason: "disk quota exhausted"}
	f.mu.Unlock()
	err := s.Upsert(ctx, "t", testItems(2, 4, 4))
	if err == nil || pipeline.IsPermanent(err) {
		t.Fatalf("err = %v, want a transient error", err)
	}
	if !strings.Contains(err.Error(), "milvus upsert 2 vectors into annalist_t") || !strings.Contains(err.Error(), "disk quota exhausted") {
		t.Fatalf("error %q does not say what failed and why", err)
	}
}

func TestCollectionNames(t *testing.T) {
	_, addr := startFake(t)
	s := newStore(t, addr, milvus.Config{})
	valid := regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,254}$`)
	seen := map[string]string{}
	for _, tenant := range []string{"default", "", "a-b", "a_b", "档案", "../x", "x y", strings.Repeat("long", 100)} {
		name := s.Collection(tenant)
		if !valid.MatchString(name) {
			t.Fatalf("tenant %q → collection %q, not a valid Milvus name", tenant, name)
		}
		if other, dup := seen[name]; dup && !(tenant == "" && other == "default" || tenant == "default" && other == "") {
			t.Fatalf("tenants %q and %q share collection %q", tenant, other, name)
		}
		seen[name] = tenant
	}
	if s.Collection("default") != "annalist_default" || s.Collection("") != "annalist_default" {
		t.Fatalf("default tenant → %q", s.Collection("default"))
	}
}

func TestConfigValidate(t *testing.T) {
	for _, c := range []milvus.Config{
		{Metric: "L2"}, {CollectionPrefix: "1abc"}, {CollectionPrefix: "a-b"}, {Dim: -1}, {Timeout: -time.Second},
	} {
		if err := c.Validate(); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
	if err := (milvus.Config{Metric: "ip"}).Validate(); err != nil {
		t.Errorf("IP rejected: %v", err)
	}
	var c milvus.Config
	c.ApplyEnv(func(k string) string { return map[string]string{milvus.EnvAddress: "milvus:19530"}[k] })
	if c.Address != "milvus:19530" {
		t.Errorf("MILVUS_ADDR not applied: %q", c.Address)
	}
}

func TestNewFailsWithoutServer(t *testing.T) {
	_, err := milvus.New(context.Background(), milvus.Config{Address: "127.0.0.1:1", Timeout: 300 * time.Millisecond})
	if err == nil {
		t.Fatal("connected to nothing")
	}
}
