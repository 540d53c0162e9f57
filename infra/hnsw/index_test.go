package hnsw_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/annalist-dev/annalist/internal/ports/vectors"

	"github.com/annalist-dev/annalist/infra/hnsw"
)

func newIndex(t testing.TB, dim int, p hnsw.Params) *hnsw.Index {
	t.Helper()
	ix, err := hnsw.NewIndex(dim, p)
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

func randomVectors(n, dim int, seed uint64) [][]float32 {
	g, err := hnsw.NewGenerator(hnsw.DatasetClustered, dim, 20, seed)
	if err != nil {
		panic(err)
	}
	out := make([][]float32, n)
	for i := range out {
		out[i] = g.Next()
	}
	return out
}

func ids(hits []vectors.Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.ChunkID
	}
	return out
}

func TestIndexUpsertReplacesInsteadOfDuplicating(t *testing.T) {
	ix := newIndex(t, 0, hnsw.Params{})
	a, b, c := []float32{1, 0, 0}, []float32{0, 1, 0}, []float32{0, 0, 1}
	for _, step := range []struct {
		id  string
		vec []float32
	}{{"x", a}, {"y", b}, {"x", a}, {"x", c}} {
		if err := ix.Upsert(step.id, "doc", step.vec); err != nil {
			t.Fatal(err)
		}
	}
	if ix.Len() != 2 || ix.Dim() != 3 {
		t.Fatalf("len %d dim %d, want 2 live vectors of dim 3", ix.Len(), ix.Dim())
	}
	st := ix.Stats()
	if st.Dead != 1 {
		t.Fatalf("stats %+v: the identical re-upsert must be a no-op and the changed one leave one tombstone", st)
	}
	for name, search := range map[string]func([]float32, int) ([]vectors.Hit, error){
		"exact": ix.Exact, "graph": func(v []float32, k int) ([]vectors.Hit, error) { return ix.SearchGraph(v, k, 0) },
	} {
		hits, err := search(a, 10)
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(hits); !slices.Equal(got, []string{"x", "y"}) && !slices.Equal(got, []string{"y", "x"}) {
			t.Fatalf("%s search = %v, want x and y once each", name, got)
		}
		hits, _ = search(c, 1)
		if len(hits) != 1 || hits[0].ChunkID != "x" || math.Abs(float64(hits[0].Score)-1) > 1e-6 {
			t.Fatalf("%s search for x's new vector = %+v, want x with cosine 1", name, hits)
		}
	}
	if !ix.Delete("x") || ix.Delete("x") || ix.Len() != 1 {
		t.Fatalf("delete: len %d", ix.Len())
	}
	hits, _ := ix.Exact(c, 5)
	if got := ids(hits); !slices.Equal(got, []string{"y"}) {
		t.Fatalf("after delete search = %v, want only y", got)
	}
}

func TestIndexRejectsInvalidVectors(t *testing.T) {
	ix := newIndex(t, 4, hnsw.Params{})
	nan := float32(math.NaN())
	tests := []struct {
		name  string
		items []vectors.Item
		is    error
	}{
		{"wrong dimension", []vectors.Item{{ChunkID: "a", Vector: []float32{1, 2, 3}}}, vectors.ErrDimension},
		{"NaN", []vectors.Item{{ChunkID: "a", Vector: []float32{1, nan, 0, 0}}}, hnsw.ErrInvalidVector},
		{"infinite", []vectors.Item{{ChunkID: "a", Vector: []float32{float32(math.Inf(1)), 0, 0, 0}}}, hnsw.ErrInvalidVector},
		{"empty", []vectors.Item{{ChunkID: "a"}}, hnsw.ErrInvalidVector},
		{"no id", []vectors.Item{{Vector: []float32{1, 0, 0, 0}}}, hnsw.ErrInvalidVector},
		{"one bad item in a batch", []vectors.Item{
			{ChunkID: "ok", Vector: []float32{1, 0, 0, 0}}, {ChunkID: "bad", Vector: []float32{1}},
		}, vectors.ErrDimension},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := ix.Add(tc.items)
			if !errors.Is(err, tc.is) {
				t.Fatalf("err = %v, want %v", err, tc.is)
			}
			if ix.Len() != 0 {
				t.Fatalf("a rejected batch left %d vectors", ix.Len())
			}
		})
	}
	if _, err := ix.Exact([]float32{1}, 1); err != nil {
		t.Fatalf("query of an empty index: %v", err)
	}
	ix.Upsert("a", "", []float32{1, 0, 0, 0})
	if _, err := ix.Exact([]float32{1}, 1); !errors.Is(err, vectors.ErrDimension) {
		t.Fatalf("query of the wrong dimension: err = %v", err)
	}
}

func TestIndexZeroVectorIsStoredAndMatchesNothing(t *testing.T) {
	ix := newIndex(t, 3, hnsw.Params{})
	ix.Upsert("zero", "", []float32{0, 0, 0})
	ix.Upsert("x", "", []float32{1, 0, 0})
	hits, err := ix.Exact([]float32{1, 0, 0}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 || hits[0].ChunkID != "x" || hits[1].Score != 0 {
		t.Fatalf("hits = %+v, want x first and the zero vector at score 0", hits)
	}
}

func TestExactSearchIsExact(t *testing.T) {
	const n, dim, k = 500, 32, 10
	vecs := randomVectors(n, dim, 7)
	ix := newIndex(t, dim, hnsw.Params{})
	for i, v := range vecs {
		ix.Upsert(fmt.Sprint(i), "", v)
	}
	q := randomVectors(1, dim, 99)[0]
	type scored struct {
		id string
		s  float64
	}
	var all []scored
	qn := unit(q)
	for i, v := range vecs {
		vn := unit(v)
		var d float64
		for j := range vn {
			d += qn[j] * vn[j]
		}
		all = append(all, scored{fmt.Sprint(i), d})
	}
	slices.SortFunc(all, func(a, b scored) int {
		switch {
		case a.s > b.s:
			return -1
		case a.s < b.s:
			return 1
		}
		return 0
	})
	hits, err := ix.Search(q, k) // 500 < ExactBelow: the exact path
	if err != nil {
		t.Fatal(err)
	}
	for i, h := range hits {
		if h.ChunkID != all[i].id || math.Abs(float64(h.Score)-all[i].s) > 1e-5 {
			t.Fatalf("hit %d = %+v, want %s at %.6f", i, h, all[i].id, all[i].s)
		}
	}
}

func unit(v []float32) []float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x) / math.Sqrt(s)
	}
	return out
}

func recallOf(t *testing.T, ix *hnsw.Index, queries [][]float32, k int) float64 {
	t.Helper()
	found, want := 0, 0
	for _, q := range queries {
		truth, err := ix.Exact(q, k)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ix.SearchGraph(q, k, 0)
		if err != nil {
			t.Fatal(err)
		}
		set := map[string]bool{}
		for _, h := range truth {
			set[h.ChunkID] = true
		}
		for _, h := range got {
			if set[h.ChunkID] {
				found++
			}
		}
		want += len(truth)
	}
	return float64(found) / float64(want)
}

func TestGraphSearchSkipsTombstones(t *testing.T) {
	const n, dim = 3000, 32
	vecs := randomVectors(n, dim, 3)
	ix := newIndex(t, dim, hnsw.Params{})
	for i, v := range vecs {
		ix.Upsert(fmt.Sprint(i), "", v)
	}
	for i := range n {
		if i%3 != 0 {
			ix.Delete(fmt.Sprint(i))
		}
	}
	queries := randomVectors(50, dim, 4)
	for _, q := range queries {
		hits, err := ix.SearchGraph(q, 10, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != 10 {
			t.Fatalf("%d hits with 1000 live vectors, want 10", len(hits))
		}
		for _, h := range hits {
			var i int
			fmt.Sscan(h.ChunkID, &i)
			if i%3 != 0 {
				t.Fatalf("deleted %s returned", h.ChunkID)
			}
		}
	}
	if r := recallOf(t, ix, queries, 10); r < 0.95 {
		t.Fatalf("recall with two thirds of the graph deleted = %.3f", r)
	}
}

func TestGraphStartsAtExactBelow(t *testing.T) {
	const dim = 16
	ix := newIndex(t, dim, hnsw.Params{ExactBelow: 1000})
	vecs := randomVectors(1500, dim, 11)
	for i, v := range vecs[:999] {
		ix.Upsert(fmt.Sprint(i), "", v)
	}
	if st := ix.Stats(); st.Layers != 0 {
		t.Fatalf("a graph was built below ExactBelow: %+v", st)
	}
	for i, v := range vecs[999:] {
		ix.Upsert(fmt.Sprint(999+i), "", v)
	}
	if st := ix.Stats(); st.Layers == 0 || st.Live != 1500 {
		t.Fatalf("no graph at 1,500 vectors: %+v", st)
	}
	if r := recallOf(t, ix, randomVectors(50, dim, 12), 10); r < 0.98 {
		t.Fatalf("recall of the graph built in one go = %.3f", r)
	}
}

func TestIndexIsDeterministic(t *testing.T) {
	vecs := randomVectors(800, 16, 5)
	build := func() [][]string {
		ix := newIndex(t, 16, hnsw.Params{Seed: 9})
		for i, v := range vecs {
			ix.Upsert(fmt.Sprint(i), "", v)
		}
		var out [][]string
		for _, q := range randomVectors(20, 16, 6) {
			h, _ := ix.SearchGraph(q, 5, 16)
			out = append(out, ids(h))
		}
		return out
	}
	a, b := build(), build()
	for i := range a {
		if !slices.Equal(a[i], b[i]) {
			t.Fatalf("query %d: %v then %v from the same inserts and seed", i, a[i], b[i])
		}
	}
}

func TestIndexConcurrentUse(t *testing.T) {
	const dim = 16
	ix := newIndex(t, dim, hnsw.Params{ExactBelow: -1})
	vecs := randomVectors(2000, dim, 8)
	done := make(chan error, 4)
	for w := range 2 {
		go func() {
			for i := w; i < len(vecs); i += 2 {
				if err := ix.Upsert(fmt.Sprint(i), "", vecs[i]); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for range 2 {
		go func() {
			r := rand.New(rand.NewPCG(1, 1))
			for range 500 {
				if _, err := ix.Search(vecs[r.IntN(len(vecs))], 5); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for range 4 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if ix.Len() != len(vecs) {
		t.Fatalf("len = %d, want %d", ix.Len(), len(vecs))
	}
	// Every vector is found as its own nearest neighbour through the graph.
	miss := 0
	for i, v := range vecs {
		h, _ := ix.SearchGraph(v, 1, 0)
		if len(h) == 0 || h[0].ChunkID != fmt.Sprint(i) {
			miss++
		}
	}
	if miss > len(vecs)/100 {
		t.Fatalf("%d of %d vectors are not their own nearest neighbour", miss, len(vecs))
	}
}

// TestRecall asserts recall@10 ≥ 0.98 against exact search with the
// default parameters, on 20,000 vectors of dimension 256: Gaussian noise
// (no structure: the hardest case) and Gaussian clusters. Under the race
// detector the collection is smaller.
func TestRecall(t *testing.T) {
	n := 20000
	if raceEnabled || testing.Short() {
		n = 3000
	}
	for _, ds := range []string{hnsw.DatasetRandom, hnsw.DatasetClustered} {
		t.Run(ds, func(t *testing.T) {
			rep, err := hnsw.Recall(context.Background(), hnsw.RecallConfig{Dataset: ds, N: n})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: n=%d dim=%d recall@%d=%.4f M=%d efC=%d ef=%d build %.1fs (%.0f inserts/s) graph %.0f QPS, exact %.0f QPS",
				ds, rep.N, rep.Dim, rep.K, rep.Recall, rep.M, rep.EfConstruction, rep.EfSearch,
				rep.BuildSeconds, rep.InsertsPerSec, rep.QPS, rep.ExactQPS)
			if rep.Recall < 0.98 {
				t.Fatalf("recall@10 = %.4f, want ≥ 0.98", rep.Recall)
			}
		})
	}
}

func TestRecallRejectsUnknownDataset(t *testing.T) {
	if _, err := hnsw.Recall(context.Background(), hnsw.RecallConfig{Dataset: "sift"}); err == nil {
		t.Fatal("unknown dataset accepted")
	}
}

func TestParamsValidate(t *testing.T) {
	for _, p := range []hnsw.Params{{M: 1}, {M: 300}, {M: -2}, {EfConstruction: -1}, {EfSearch: -1}} {
		if _, err := hnsw.NewIndex(8, p); err == nil {
			t.Errorf("%+v accepted", p)
		}
	}
}
