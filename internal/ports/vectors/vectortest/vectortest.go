// Package vectortest is the contract suite of vectors.Store: every adapter
// (the embedded HNSW index, Milvus) runs the same cases, so a stage that
// works against one works against the other. Only tests import it.
//
// The suite stores unit vectors, for which cosine and inner product agree,
// and small collections (at most a few hundred vectors per tenant), where an
// approximate index with the project's parameters searches exhaustively:
// the cases may then expect the exact nearest neighbour of a stored vector
// and scores equal to the cosine the suite computes itself.
package vectortest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/annalist-dev/annalist/internal/ports/vectors"
	"github.com/annalist-dev/annalist/pipeline"
)

// Dim is the dimension of every vector the suite stores.
const Dim = 16

// scoreTolerance bounds the difference between a hit's score and the
// cosine the suite computes in float64: float32 arithmetic and a store's
// own normalisation account for far less.
const scoreTolerance = 1e-3

// NewStore returns a store for one case. Every tenant it holds starts
// empty: a store shared between cases must give each call its own
// namespace (a fresh directory, a fresh collection prefix). The factory
// releases what it opens through t.Cleanup.
type NewStore func(t testing.TB) vectors.Store

// Run runs every case of the contract against stores made by newStore, each
// case as a subtest with a store of its own.
func Run(t *testing.T, newStore NewStore) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.run(t, newStore(t))
		})
	}
}

// cases are the contract, one function per promise of vectors.Store.
var cases = []struct {
	name string
	run  func(t testing.TB, s vectors.Store)
}{
	{"EmptyTenant", testEmptyTenant},
	{"UpsertReplacesByChunkID", testUpsertReplaces},
	{"LastItemOfAnIDInOneCallWins", testDuplicateInOneCall},
	{"TenantsAreIsolated", testTenantsIsolated},
	{"SearchAtMostKBestFirst", testSearchOrder},
	{"WrongDimension", testWrongDimension},
	{"InvalidItems", testInvalidItems},
	{"CancelledContext", testCancelledContext},
	{"ConcurrentUpsertsAndSearches", testConcurrent},
	{"DeleteRemovesByChunkID", testDelete},
	{"DeleteAbsentIsNoError", testDeleteAbsent},
}

// corpus is what the suite stored in one tenant: the current vector of
// every chunk id.
type corpus map[string][]float32

func (c corpus) put(items []vectors.Item) {
	for _, it := range items {
		c[it.ChunkID] = it.Vector
	}
}

// unitVectors returns n unit vectors of dimension dim, the same for the
// same seed.
func unitVectors(n, dim int, seed uint64) [][]float32 {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	out := make([][]float32, n)
	for i := range out {
		v := make([]float32, dim)
		var s float64
		for j := range v {
			x := r.NormFloat64()
			v[j] = float32(x)
			s += x * x
		}
		inv := 1 / math.Sqrt(s)
		for j := range v {
			v[j] = float32(float64(v[j]) * inv)
		}
		out[i] = v
	}
	return out
}

// makeItems returns n items with ids prefix-000…, one document per four.
func makeItems(prefix string, n int, seed uint64) []vectors.Item {
	vecs := unitVectors(n, Dim, seed)
	out := make([]vectors.Item, n)
	for i, v := range vecs {
		out[i] = vectors.Item{ChunkID: fmt.Sprintf("%s-%03d", prefix, i), DocID: fmt.Sprintf("%s-doc-%d", prefix, i/4), Vector: v}
	}
	return out
}

func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	return dot / math.Sqrt(na*nb)
}

func upsert(t testing.TB, s vectors.Store, tenant string, items []vectors.Item) {
	t.Helper()
	if err := s.Upsert(context.Background(), tenant, items); err != nil {
		t.Fatalf("upsert %d items into %s: %v", len(items), tenant, err)
	}
}

func count(t testing.TB, s vectors.Store, tenant string) int {
	t.Helper()
	n, err := s.Count(context.Background(), tenant)
	if err != nil {
		t.Fatalf("count %s: %v", tenant, err)
	}
	return n
}

func wantCount(t testing.TB, s vectors.Store, tenant string, want int) {
	t.Helper()
	if n := count(t, s, tenant); n != want {
		t.Fatalf("count of %s = %d, want %d", tenant, n, want)
	}
}

// search runs a query and checks what every answer must satisfy: at most
// k hits, distinct chunk ids the tenant holds, each scored with the cosine
// between the query and that chunk's current vector, best first.
func search(t testing.TB, s vectors.Store, tenant string, c corpus, q []float32, k int) []vectors.Hit {
	t.Helper()
	hits, err := s.Search(context.Background(), tenant, q, k)
	if err != nil {
		t.Fatalf("search %s (k %d): %v", tenant, k, err)
	}
	if len(hits) > k {
		t.Fatalf("search %s: %d hits for k %d", tenant, len(hits), k)
	}
	seen := make(map[string]bool, len(hits))
	for i, h := range hits {
		v, ok := c[h.ChunkID]
		if !ok {
			t.Fatalf("search %s: hit %d is %q, which the tenant does not hold", tenant, i, h.ChunkID)
		}
		if seen[h.ChunkID] {
			t.Fatalf("search %s: %q returned twice: %+v", tenant, h.ChunkID, hits)
		}
		seen[h.ChunkID] = true
		if want := cosine(q, v); math.Abs(float64(h.Score)-want) > scoreTolerance {
			t.Fatalf("search %s: hit %q scored %v, its cosine with the query is %v", tenant, h.ChunkID, h.Score, want)
		}
		if i > 0 && h.Score > hits[i-1].Score {
			t.Fatalf("search %s: hits not best first: %+v", tenant, hits)
		}
	}
	return hits
}

// wantNearest checks that the query's nearest hit is id, an exact match.
func wantNearest(t testing.TB, s vectors.Store, tenant string, c corpus, q []float32, k int, id string) []vectors.Hit {
	t.Helper()
	hits := search(t, s, tenant, c, q, k)
	if len(hits) == 0 || hits[0].ChunkID != id || hits[0].Score < 1-scoreTolerance {
		t.Fatalf("search %s for the vector of %s: %+v, want it first with score 1", tenant, id, hits)
	}
	return hits
}

// wantRejected checks that err is a permanent error wrapping each of
// wrapped: the runtime dead-letters such input instead of retrying it.
func wantRejected(t testing.TB, what string, err error, wrapped ...error) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: accepted, want an error", what)
	}
	if !pipeline.IsPermanent(err) {
		t.Fatalf("%s: %v is not permanent; retrying cannot fix it", what, err)
	}
	for _, w := range wrapped {
		if !errors.Is(err, w) {
			t.Fatalf("%s: %v does not wrap %v", what, err, w)
		}
	}
}

func testEmptyTenant(t testing.TB, s vectors.Store) {
	ctx := context.Background()
	check := func(when string) {
		t.Helper()
		if n, err := s.Count(ctx, "empty"); n != 0 || err != nil {
			t.Fatalf("%s: count of a tenant with no vectors = %d, %v; want 0, nil", when, n, err)
		}
		if h, err := s.Search(ctx, "empty", unitVectors(1, Dim, 1)[0], 5); len(h) != 0 || err != nil {
			t.Fatalf("%s: search of a tenant with no vectors = %+v, %v; want no hits, nil", when, h, err)
		}
	}
	check("empty store")
	upsert(t, s, "full", makeItems("c", 5, 2))
	check("another tenant holds vectors")
	wantCount(t, s, "full", 5)
}

func testUpsertReplaces(t testing.TB, s vectors.Store) {
	const tenant = "replace"
	c := corpus{}
	items := makeItems("c", 30, 3)
	upsert(t, s, tenant, items)
	c.put(items)
	wantCount(t, s, tenant, 30)

	// A redelivered batch: nothing is added.
	upsert(t, s, tenant, items)
	wantCount(t, s, tenant, 30)

	// New vectors for five stored ids (one batch) and one new id.
	old := items[4].Vector
	fresh := unitVectors(6, Dim, 4)
	var changed []vectors.Item
	for i := range 5 {
		it := items[4+i]
		it.Vector = fresh[i]
		changed = append(changed, it)
	}
	changed = append(changed, vectors.Item{ChunkID: "c-new", DocID: "d-new", Vector: fresh[5]})
	upsert(t, s, tenant, changed)
	c.put(changed)
	wantCount(t, s, tenant, 31)

	for _, it := range changed {
		wantNearest(t, s, tenant, c, it.Vector, 3, it.ChunkID)
	}
	// The old vector is gone: searching for it scores c-004 by its new
	// vector (checked by search), so no hit is an exact match any more.
	hits := search(t, s, tenant, c, old, len(c))
	if len(hits) != len(c) {
		t.Fatalf("search with k = every vector: %d hits, want %d", len(hits), len(c))
	}
	if hits[0].Score > 1-scoreTolerance {
		t.Fatalf("the replaced vector of c-004 is still found: %+v", hits[0])
	}
}

func testDuplicateInOneCall(t testing.TB, s vectors.Store) {
	const tenant = "dup"
	vecs := unitVectors(3, Dim, 5)
	batch := []vectors.Item{
		{ChunkID: "a", DocID: "d", Vector: vecs[0]},
		{ChunkID: "b", DocID: "d", Vector: vecs[1]},
		{ChunkID: "a", DocID: "d", Vector: vecs[2]},
	}
	upsert(t, s, tenant, batch)
	wantCount(t, s, tenant, 2)
	c := corpus{"a": vecs[2], "b": vecs[1]}
	wantNearest(t, s, tenant, c, vecs[2], 2, "a")
	if h := search(t, s, tenant, c, vecs[0], 2); h[0].Score > 1-scoreTolerance {
		t.Fatalf("the first of two items with id a was kept: %+v", h)
	}
}

func testTenantsIsolated(t testing.TB, s vectors.Store) {
	// The same chunk ids in two tenants, with different vectors.
	a := makeItems("c", 20, 6)
	b := makeItems("c", 12, 7)
	upsert(t, s, "tenant-a", a)
	upsert(t, s, "tenant-b", b)
	ca, cb := corpus{}, corpus{}
	ca.put(a)
	cb.put(b)
	wantCount(t, s, "tenant-a", 20)
	wantCount(t, s, "tenant-b", 12)

	for i := range b {
		wantNearest(t, s, "tenant-b", cb, b[i].Vector, 5, b[i].ChunkID)
		// search checks every hit's score against tenant-a's vectors: a
		// hit scored by tenant-b's vector of the same id fails it.
		if h := search(t, s, "tenant-a", ca, b[i].Vector, 5); len(h) != 5 || h[0].Score > 1-scoreTolerance {
			t.Fatalf("tenant-a answers tenant-b's vector of %s with %+v", b[i].ChunkID, h)
		}
	}

	// Replacing a vector in one tenant leaves the other's alone.
	moved := a[0]
	moved.Vector = unitVectors(1, Dim, 8)[0]
	upsert(t, s, "tenant-a", []vectors.Item{moved})
	ca.put([]vectors.Item{moved})
	wantNearest(t, s, "tenant-a", ca, moved.Vector, 3, moved.ChunkID)
	wantNearest(t, s, "tenant-b", cb, b[0].Vector, 3, b[0].ChunkID)
	wantCount(t, s, "tenant-a", 20)
	wantCount(t, s, "tenant-b", 12)
	wantCount(t, s, "tenant-c", 0)
}

func testSearchOrder(t testing.TB, s vectors.Store) {
	const tenant = "order"
	items := makeItems("c", 40, 9)
	upsert(t, s, tenant, items[:25])
	upsert(t, s, tenant, items[25:])
	c := corpus{}
	c.put(items)
	queries := unitVectors(5, Dim, 10)
	for _, k := range []int{1, 3, 10, 40, 55} {
		for _, q := range queries {
			if h := search(t, s, tenant, c, q, k); len(h) != min(k, len(items)) {
				t.Fatalf("k %d: %d hits, want %d", k, len(h), min(k, len(items)))
			}
		}
	}
	for _, it := range items {
		wantNearest(t, s, tenant, c, it.Vector, 4, it.ChunkID)
	}
	for _, k := range []int{0, -1} {
		if h, err := s.Search(context.Background(), tenant, queries[0], k); len(h) != 0 || err != nil {
			t.Fatalf("k %d: %+v, %v; want no hits and no error", k, h, err)
		}
	}
}

func testWrongDimension(t testing.TB, s vectors.Store) {
	ctx := context.Background()
	const tenant = "dim"
	items := makeItems("c", 10, 11)
	upsert(t, s, tenant, items)
	c := corpus{}
	c.put(items)

	good := vectors.Item{ChunkID: "c-good", DocID: "d", Vector: unitVectors(1, Dim, 12)[0]}
	for _, dim := range []int{Dim - 1, Dim + 1, 1, 0} {
		bad := vectors.Item{ChunkID: fmt.Sprintf("c-dim-%d", dim), DocID: "d", Vector: unitVectors(1, Dim+1, 13)[0][:dim]}
		err := s.Upsert(ctx, tenant, []vectors.Item{bad})
		wantRejected(t, fmt.Sprintf("upsert of a %d-dimensional vector into a %d-dimensional tenant", dim, Dim), err, vectors.ErrDimension)
		// One bad item fails the whole call: the good one beside it is not
		// stored either.
		err = s.Upsert(ctx, tenant, []vectors.Item{good, bad})
		wantRejected(t, fmt.Sprintf("upsert of a batch with a %d-dimensional vector", dim), err, vectors.ErrDimension)

		h, err := s.Search(ctx, tenant, bad.Vector, 3)
		wantRejected(t, fmt.Sprintf("search with a %d-dimensional query", dim), err, vectors.ErrDimension)
		if len(h) != 0 {
			t.Fatalf("search with a %d-dimensional query returned hits with its error: %+v", dim, h)
		}
	}
	wantCount(t, s, tenant, 10)
	if h := search(t, s, tenant, c, good.Vector, 3); h[0].ChunkID == good.ChunkID {
		t.Fatalf("an item of a rejected batch was stored: %+v", h)
	}

	// The first call into a new tenant is rejected for its mixed
	// dimensions; it must not fix the tenant's dimension either, so
	// vectors of the suite's dimension are accepted afterwards.
	mixed := []vectors.Item{
		{ChunkID: "m-short", DocID: "d", Vector: unitVectors(1, Dim-1, 19)[0]},
		{ChunkID: "m-full", DocID: "d", Vector: unitVectors(1, Dim, 20)[0]},
	}
	wantRejected(t, "first upsert into a new tenant with mixed dimensions", s.Upsert(ctx, "dim-new", mixed), vectors.ErrDimension)
	wantCount(t, s, "dim-new", 0)
	upsert(t, s, "dim-new", mixed[1:])
	wantNearest(t, s, "dim-new", corpus{"m-full": mixed[1].Vector}, mixed[1].Vector, 1, "m-full")
}

func testInvalidItems(t testing.TB, s vectors.Store) {
	ctx := context.Background()
	const tenant = "invalid"
	items := makeItems("c", 10, 14)
	upsert(t, s, tenant, items)
	c := corpus{}
	c.put(items)

	nonFinite := func(x float32) []float32 {
		v := slices.Clone(items[0].Vector)
		v[3] = x
		return v
	}
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	for _, tc := range []struct {
		name string
		item vectors.Item
	}{
		{"empty chunk id", vectors.Item{DocID: "d", Vector: items[1].Vector}},
		{"NaN component", vectors.Item{ChunkID: "c-nan", DocID: "d", Vector: nonFinite(nan)}},
		{"infinite component", vectors.Item{ChunkID: "c-inf", DocID: "d", Vector: nonFinite(inf)}},
	} {
		good := vectors.Item{ChunkID: "c-beside-" + tc.name, DocID: "d", Vector: unitVectors(1, Dim, 15)[0]}
		wantRejected(t, "upsert of an item with "+tc.name, s.Upsert(ctx, tenant, []vectors.Item{good, tc.item}))
	}
	for _, tc := range []struct {
		name string
		q    []float32
	}{{"NaN", nonFinite(nan)}, {"infinite", nonFinite(inf)}} {
		h, err := s.Search(ctx, tenant, tc.q, 3)
		wantRejected(t, "search with a "+tc.name+" component", err)
		if len(h) != 0 {
			t.Fatalf("search with a %s component returned hits with its error: %+v", tc.name, h)
		}
	}
	wantCount(t, s, tenant, 10)
	wantNearest(t, s, tenant, c, items[0].Vector, 3, items[0].ChunkID)
}

func testCancelledContext(t testing.TB, s vectors.Store) {
	const tenant = "cancel"
	items := makeItems("c", 10, 16)
	upsert(t, s, tenant, items)
	c := corpus{}
	c.put(items)

	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancel2 := context.WithTimeout(context.Background(), -1)
	defer cancel2()
	more := makeItems("d", 5, 17)
	for _, tc := range []struct {
		name string
		ctx  context.Context
		want error
	}{{"cancelled", cancelled, context.Canceled}, {"past its deadline", expired, context.DeadlineExceeded}} {
		if err := s.Upsert(tc.ctx, tenant, more); !errors.Is(err, tc.want) {
			t.Fatalf("upsert with a context %s: %v, want %v", tc.name, err, tc.want)
		}
		if h, err := s.Search(tc.ctx, tenant, items[0].Vector, 3); !errors.Is(err, tc.want) || len(h) != 0 {
			t.Fatalf("search with a context %s: %+v, %v; want %v", tc.name, h, err, tc.want)
		}
		if _, err := s.Count(tc.ctx, tenant); !errors.Is(err, tc.want) {
			t.Fatalf("count with a context %s: %v, want %v", tc.name, err, tc.want)
		}
		// A tenant the store has not seen yet answers the same way.
		if err := s.Upsert(tc.ctx, "cancel-new", more); !errors.Is(err, tc.want) {
			t.Fatalf("upsert into a new tenant with a context %s: %v, want %v", tc.name, err, tc.want)
		}
	}
	wantCount(t, s, tenant, 10)
	wantCount(t, s, "cancel-new", 0)
	wantNearest(t, s, tenant, c, items[0].Vector, 3, items[0].ChunkID)
}

// testConcurrent runs writers and readers on two tenants at once (run it
// under -race): each writer upserts ids of its own and, in every batch,
// ids all writers share. Afterwards each tenant holds every distinct id
// once, and each shared id holds exactly one of the vectors written for it.
func testConcurrent(t testing.TB, s vectors.Store) {
	ctx := context.Background()
	const writers, batches, perBatch, shared = 4, 6, 8, 5
	tenants := []string{"conc-a", "conc-b"}
	// Seed each tenant first so readers always have something to find.
	seed := makeItems("seed", 4, 18)
	for _, tn := range tenants {
		upsert(t, s, tn, seed)
	}

	type job struct {
		tenant string
		items  []vectors.Item
	}
	jobs := make([][]job, writers)
	for w := range writers {
		tn := tenants[w%len(tenants)]
		own := makeItems(fmt.Sprintf("w%d", w), batches*perBatch, uint64(100+w))
		for b := range batches {
			batch := slices.Clone(own[b*perBatch : (b+1)*perBatch])
			for i, v := range unitVectors(shared, Dim, uint64(1000+w*batches+b)) {
				batch = append(batch, vectors.Item{ChunkID: fmt.Sprintf("shared-%d", i), DocID: "shared", Vector: v})
			}
			jobs[w] = append(jobs[w], job{tn, batch})
		}
	}

	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Go(func() {
			for _, j := range jobs[w] {
				if err := s.Upsert(ctx, j.tenant, j.items); err != nil {
					errs <- fmt.Errorf("writer %d: upsert: %w", w, err)
					return
				}
				hits, err := s.Search(ctx, j.tenant, j.items[0].Vector, 3)
				if err != nil {
					errs <- fmt.Errorf("writer %d: search: %w", w, err)
					return
				}
				// Only this writer writes its own ids, and the upsert has
				// returned: the id must be found by its vector.
				if len(hits) == 0 || hits[0].ChunkID != j.items[0].ChunkID {
					errs <- fmt.Errorf("writer %d: search for %s right after its upsert: %+v", w, j.items[0].ChunkID, hits)
					return
				}
				if _, err := s.Count(ctx, j.tenant); err != nil {
					errs <- fmt.Errorf("writer %d: count: %w", w, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		return
	}

	for ti, tn := range tenants {
		own := 0
		written := map[string][][]float32{} // shared id → every vector written for it
		for w, js := range jobs {
			if w%len(tenants) != ti {
				continue
			}
			for _, j := range js {
				own += perBatch
				for _, it := range j.items[perBatch:] {
					written[it.ChunkID] = append(written[it.ChunkID], it.Vector)
				}
			}
		}
		wantCount(t, s, tn, len(seed)+own+shared)
		for id, vecs := range written {
			held := 0
			for _, v := range vecs {
				h, err := s.Search(ctx, tn, v, 1)
				if err != nil {
					t.Fatalf("%s: search: %v", tn, err)
				}
				if len(h) == 1 && h[0].ChunkID == id && h[0].Score > 1-scoreTolerance {
					held++
				}
			}
			if held != 1 {
				t.Fatalf("%s: %s holds %d of the %d vectors written for it, want exactly 1", tn, id, held, len(vecs))
			}
		}
	}
}

func deleteIDs(t testing.TB, s vectors.Store, tenant string, ids []string) {
	t.Helper()
	if err := s.Delete(context.Background(), tenant, ids); err != nil {
		t.Fatalf("delete %d ids from %s: %v", len(ids), tenant, err)
	}
}

// testDelete: deleted ids are neither counted nor found, the rest stay
// found, another tenant holding the same ids keeps them, and an id stored
// again after its deletion is back.
func testDelete(t testing.TB, s vectors.Store) {
	const tenant, other = "del", "del-other"
	items := makeItems("c", 12, 21)
	upsert(t, s, tenant, items)
	upsert(t, s, other, items)
	gone := []string{items[0].ChunkID, items[5].ChunkID, items[11].ChunkID}
	deleteIDs(t, s, tenant, gone)
	wantCount(t, s, tenant, 9)
	wantCount(t, s, other, 12)
	c := corpus{}
	for _, it := range items {
		if !slices.Contains(gone, it.ChunkID) {
			c.put([]vectors.Item{it})
		}
	}
	for _, it := range items {
		if slices.Contains(gone, it.ChunkID) {
			// search checks that every hit is a chunk the tenant holds.
			hits := search(t, s, tenant, c, it.Vector, len(items))
			if len(hits) != 9 {
				t.Fatalf("search after delete: %d hits, want the 9 left", len(hits))
			}
			continue
		}
		wantNearest(t, s, tenant, c, it.Vector, 3, it.ChunkID)
	}
	all := corpus{}
	all.put(items)
	wantNearest(t, s, other, all, items[5].Vector, 3, items[5].ChunkID)

	upsert(t, s, tenant, items[5:6])
	c.put(items[5:6])
	wantCount(t, s, tenant, 10)
	wantNearest(t, s, tenant, c, items[5].Vector, 3, items[5].ChunkID)
}

// testDeleteAbsent: deleting what is not there (an unknown tenant, ids
// never stored, ids deleted before, nothing) is no error and changes
// nothing else.
func testDeleteAbsent(t testing.TB, s vectors.Store) {
	const tenant = "del-absent"
	deleteIDs(t, s, "never-written", []string{"c-000"})
	items := makeItems("c", 4, 22)
	upsert(t, s, tenant, items)
	deleteIDs(t, s, tenant, []string{"missing-1", "missing-2"})
	wantCount(t, s, tenant, 4)
	deleteIDs(t, s, tenant, []string{items[1].ChunkID})
	deleteIDs(t, s, tenant, []string{items[1].ChunkID})
	deleteIDs(t, s, tenant, nil)
	wantCount(t, s, tenant, 3)
}
