package embedder_test

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/annalist-dev/annalist/internal/ports/vectors"

	"github.com/annalist-dev/annalist/consumers/embedder"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/pipeline/pipelinetest"
	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
)

// hashEmbedder is a deterministic fake: a text's vector is a function of its
// bytes, so equal texts get equal vectors and the test can recompute them.
type hashEmbedder struct {
	dim   int
	mu    sync.Mutex
	calls [][]string
	fail  error
	// short drops the last vector of every answer when set.
	short bool
	// wrongDim answers vectors one component too long when set.
	wrongDim bool
}

func (h *hashEmbedder) Dim() int { return h.dim }

func (h *hashEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	h.mu.Lock()
	h.calls = append(h.calls, append([]string(nil), texts...))
	h.mu.Unlock()
	if h.fail != nil {
		return nil, h.fail
	}
	out := make([][]float32, 0, len(texts))
	for _, t := range texts {
		out = append(out, vectorOf(t, h.dim+boolInt(h.wrongDim)))
	}
	if h.short {
		out = out[:len(out)-1]
	}
	return out, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func vectorOf(text string, dim int) []float32 {
	v := make([]float32, dim)
	var norm float64
	for i := range v {
		f := fnv.New64a()
		fmt.Fprintf(f, "%d:%s", i, text)
		x := float64(f.Sum64()%2001)/1000 - 1
		v[i] = float32(x)
		norm += x * x
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(norm))
	}
	return v
}

// mapStore is an exact in-memory Store.
type mapStore struct {
	mu      sync.Mutex
	items   map[string]map[string]vectors.Item
	upserts int
	fail    error
}

func newMapStore() *mapStore { return &mapStore{items: map[string]map[string]vectors.Item{}} }

func (s *mapStore) Upsert(_ context.Context, tenant string, items []vectors.Item) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return s.fail
	}
	s.upserts++
	if s.items[tenant] == nil {
		s.items[tenant] = map[string]vectors.Item{}
	}
	for _, it := range items {
		s.items[tenant][it.ChunkID] = it
	}
	return nil
}

func (s *mapStore) Search(_ context.Context, tenant string, vec []float32, k int) ([]vectors.Hit, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var hits []vectors.Hit
	for id, it := range s.items[tenant] {
		var dot float32
		for i := range vec {
			dot += vec[i] * it.Vector[i]
		}
		hits = append(hits, vectors.Hit{ChunkID: id, Score: dot})
	}
	sort.Slice(hits, func(i, j int) bool { return hits[i].Score > hits[j].Score })
	return hits[:min(k, len(hits))], nil
}

func (s *mapStore) Count(_ context.Context, tenant string) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.items[tenant]), nil
}

func (s *mapStore) Delete(_ context.Context, tenant string, ids []string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range ids {
		delete(s.items[tenant], id)
	}
	return nil
}

func chunk(doc string, seq, total int, text string) schemas.Chunk {
	n := len([]rune(text))
	return schemas.Chunk{
		ChunkID: pipeline.ContentID(doc, fmt.Sprint(seq)), DocID: doc, Seq: seq, Total: total,
		Profile: "generic", Method: "window", Start: seq * 1000, End: seq*1000 + n, Text: text,
	}
}

// onChunks places an input on the chunks topic.
var onChunks = pipelinetest.Topic(topology.Chunks)

func newStage(t testing.TB, emb vectors.Embedder, st vectors.Store, cfg embedder.Config) *embedder.Stage {
	t.Helper()
	s, err := embedder.New(emb, st, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestHandleBatchesAndStores(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name      string
		maxBatch  int
		n         int
		wantCalls int
	}{
		{"one call", 0, 10, 1},
		{"exactly max", 4, 8, 2},
		{"remainder", 64, 150, 3},
		{"batch of one", 1, 3, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			emb := &hashEmbedder{dim: 16}
			st := newMapStore()
			s := newStage(t, emb, st, embedder.Config{MaxBatch: tc.maxBatch})
			ins := make([]pipeline.Input, tc.n)
			for i := range ins {
				ins[i] = pipelinetest.Input(chunk("doc", i, tc.n, fmt.Sprintf("text number %d", i)), onChunks, pipelinetest.Tenant("t1"), pipelinetest.Event(fmt.Sprint("ev", i)), pipelinetest.Offset(int64(i)))
			}
			outs, err := s.Handle(ctx, ins)
			if err != nil {
				t.Fatal(err)
			}
			if len(outs) != tc.n {
				t.Fatalf("got %d output slices, want %d", len(outs), tc.n)
			}
			for i, o := range outs {
				if len(o) != 0 {
					t.Fatalf("input %d produced %d outputs, want none", i, len(o))
				}
			}
			if len(emb.calls) != tc.wantCalls {
				t.Fatalf("embed calls = %d, want %d", len(emb.calls), tc.wantCalls)
			}
			limit := tc.maxBatch
			if limit == 0 {
				limit = embedder.DefaultMaxBatch
			}
			for _, c := range emb.calls {
				if len(c) > limit {
					t.Fatalf("embed call of %d texts exceeds max batch %d", len(c), limit)
				}
			}
			if st.upserts != 1 {
				t.Fatalf("store upserts = %d, want one per tenant", st.upserts)
			}
			n, _ := st.Count(ctx, "t1")
			if n != tc.n {
				t.Fatalf("count = %d, want %d", n, tc.n)
			}
			// Every stored vector is the embedding of its own chunk text.
			for i := range tc.n {
				c := chunk("doc", i, tc.n, fmt.Sprintf("text number %d", i))
				got := st.items["t1"][c.ChunkID]
				if got.DocID != "doc" || !equal(got.Vector, vectorOf(c.Text, 16)) {
					t.Fatalf("chunk %d stored %+v", i, got)
				}
			}
		})
	}
}

func equal(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestHandleIsIdempotent(t *testing.T) {
	ctx := context.Background()
	emb := &hashEmbedder{dim: 8}
	st := newMapStore()
	s := newStage(t, emb, st, embedder.Config{})
	a := chunk("d", 0, 2, "alpha")
	b := chunk("d", 1, 2, "beta")
	// The same chunk twice within a batch, then the whole batch redelivered.
	ins := []pipeline.Input{
		pipelinetest.Input(a, onChunks, pipelinetest.Event("ev1"), pipelinetest.Offset(1)),
		pipelinetest.Input(b, onChunks, pipelinetest.Event("ev2"), pipelinetest.Offset(2)),
		pipelinetest.Input(a, onChunks, pipelinetest.Event("ev3"), pipelinetest.Offset(3)),
	}
	for range 2 {
		if _, err := s.Handle(ctx, ins); err != nil {
			t.Fatal(err)
		}
	}
	n, err := st.Count(ctx, schemas.DefaultTenant)
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Fatalf("count = %d after redelivery, want 2", n)
	}
	if got := len(emb.calls[0]); got != 2 {
		t.Fatalf("first call embedded %d texts, want the duplicate embedded once (2)", got)
	}
	hits, _ := st.Search(ctx, schemas.DefaultTenant, vectorOf("beta", 8), 1)
	if len(hits) != 1 || hits[0].ChunkID != b.ChunkID {
		t.Fatalf("search for beta's own vector = %+v, want %s", hits, b.ChunkID)
	}
}

func TestHandleSeparatesTenants(t *testing.T) {
	ctx := context.Background()
	st := newMapStore()
	s := newStage(t, &hashEmbedder{dim: 4}, st, embedder.Config{})
	ins := []pipeline.Input{
		pipelinetest.Input(chunk("d1", 0, 1, "one"), onChunks, pipelinetest.Tenant("a"), pipelinetest.Event("ev1"), pipelinetest.Offset(1)),
		pipelinetest.Input(chunk("d2", 0, 2, "two"), onChunks, pipelinetest.Tenant("b"), pipelinetest.Event("ev2"), pipelinetest.Offset(2)),
		pipelinetest.Input(chunk("d2", 1, 2, "three"), onChunks, pipelinetest.Tenant("b"), pipelinetest.Event("ev3"), pipelinetest.Offset(3)),
	}
	if _, err := s.Handle(ctx, ins); err != nil {
		t.Fatal(err)
	}
	for tenant, want := range map[string]int{"a": 1, "b": 2, "c": 0} {
		if n, _ := st.Count(ctx, tenant); n != want {
			t.Errorf("tenant %s count = %d, want %d", tenant, n, want)
		}
	}
	if st.upserts != 2 {
		t.Fatalf("upserts = %d, want one per tenant (2)", st.upserts)
	}
}

func TestHandleRejectsNonChunkPermanently(t *testing.T) {
	emb := &hashEmbedder{dim: 4}
	st := newMapStore()
	s := newStage(t, emb, st, embedder.Config{})
	doc := schemas.Document{DocID: "d", Text: "x"}
	_, err := s.Handle(context.Background(), []pipeline.Input{
		pipelinetest.Input(chunk("d", 0, 1, "fine"), onChunks, pipelinetest.Tenant("t"), pipelinetest.Event("ev1"), pipelinetest.Offset(1)),
		pipelinetest.Input(doc, onChunks, pipelinetest.Tenant("t"), pipelinetest.Event("ev2"), pipelinetest.Offset(2)),
	})
	if err == nil || !pipeline.IsPermanent(err) {
		t.Fatalf("err = %v, want a permanent error", err)
	}
	if !strings.Contains(err.Error(), "not a chunk") {
		t.Fatalf("error %q does not say what is wrong", err)
	}
	if len(emb.calls) != 0 || st.upserts != 0 {
		t.Fatalf("a batch with a bad input embedded %d times and stored %d times", len(emb.calls), st.upserts)
	}
}

func TestHandleErrors(t *testing.T) {
	boom := errors.New("provider unavailable")
	tests := []struct {
		name  string
		emb   *hashEmbedder
		store *mapStore
		is    error
		msg   string
	}{
		{"embedder fails", &hashEmbedder{dim: 4, fail: boom}, newMapStore(), boom, "embed 1 chunks"},
		{"store fails", &hashEmbedder{dim: 4}, &mapStore{fail: boom}, boom, "upsert 1 vectors"},
		{"missing vector", &hashEmbedder{dim: 4, short: true}, newMapStore(), nil, "returned 0 vectors"},
		{"wrong dimension", &hashEmbedder{dim: 4, wrongDim: true}, newMapStore(), vectors.ErrDimension, "got 5, want 4"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newStage(t, tc.emb, tc.store, embedder.Config{})
			_, err := s.Handle(context.Background(), []pipeline.Input{
				pipelinetest.Input(chunk("d", 0, 1, "x"), onChunks, pipelinetest.Tenant("t"), pipelinetest.Event("ev1"), pipelinetest.Offset(1)),
			})
			if err == nil {
				t.Fatal("no error")
			}
			if pipeline.IsPermanent(err) {
				t.Fatalf("%v is permanent; a failing dependency must be retried", err)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Fatalf("err = %v, want it to wrap %v", err, tc.is)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("err = %q, want it to mention %q", err, tc.msg)
			}
		})
	}
}

func TestEmbedTextNamesTheEntry(t *testing.T) {
	first := schemas.Chunk{Entry: "叶向高", Subject: "叶向高", Text: "叶向高，字进卿，福清人。"}
	cont := schemas.Chunk{Entry: "叶向高", Text: "四十二年八月，致仕归。"}
	plain := schemas.Chunk{Text: "A generic window."}
	if got := embedder.EmbedText(first); got != first.Text {
		t.Errorf("entry chunk text = %q, want its text unchanged", got)
	}
	if got := embedder.EmbedText(cont); got != "叶向高\n四十二年八月，致仕归。" {
		t.Errorf("continuation text = %q, want the entry name first", got)
	}
	if got := embedder.EmbedText(plain); got != plain.Text {
		t.Errorf("generic text = %q", got)
	}
}

func TestNewValidates(t *testing.T) {
	if _, err := embedder.New(nil, newMapStore(), embedder.Config{}); err == nil {
		t.Error("nil embedder accepted")
	}
	if _, err := embedder.New(&hashEmbedder{dim: 4}, nil, embedder.Config{}); err == nil {
		t.Error("nil store accepted")
	}
	if _, err := embedder.New(&hashEmbedder{dim: 0}, newMapStore(), embedder.Config{}); err == nil {
		t.Error("zero dimension accepted")
	}
	if _, err := embedder.New(&hashEmbedder{dim: 4}, newMapStore(), embedder.Config{MaxBatch: -1}); err == nil {
		t.Error("negative batch accepted")
	}
}
