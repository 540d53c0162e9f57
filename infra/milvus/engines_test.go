//go:build engines

package milvus_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/annalist-dev/annalist/infra/milvus"
	"github.com/annalist-dev/annalist/internal/kit/enginestest"
	"github.com/annalist-dev/annalist/internal/ports/vectors"
	"github.com/annalist-dev/annalist/internal/ports/vectors/vectortest"
)

// TestEnginesStoreContract runs the vector port's contract suite against
// Milvus Lite. Each case gets a collection prefix of its own and drops the
// collections it created.
func TestEnginesStoreContract(t *testing.T) {
	e := enginestest.Require(t)
	run := time.Now().UnixNano()
	n := 0
	vectortest.Run(t, func(tb testing.TB) vectors.Store {
		n++
		return droppingOn(tb, e.Milvus, fmt.Sprintf("annalist_etest_%d_%d_", run, n))
	})
}

// TestEnginesWrittenIsFoundByTheNextSearch: with the adapter's default
// consistency (Strong), a vector whose Upsert returned is found by the
// very next search, and a deleted one is gone from it; Milvus's own
// default (Bounded) may miss a write of the last moments.
func TestEnginesWrittenIsFoundByTheNextSearch(t *testing.T) {
	e := enginestest.Require(t)
	s := droppingOn(t, e.Milvus, fmt.Sprintf("annalist_etest_ryw_%d_", time.Now().UnixNano()))
	ctx := context.Background()
	r := rand.New(rand.NewPCG(7, 7))
	const dim, rounds = 16, 40
	for i := range rounds {
		v := make([]float32, dim)
		for k := range v {
			v[k] = float32(r.NormFloat64())
		}
		id := fmt.Sprintf("c%03d", i)
		if err := s.Upsert(ctx, "ryw", []vectors.Item{{ChunkID: id, DocID: "d", Vector: v}}); err != nil {
			t.Fatalf("upsert %s: %v", id, err)
		}
		hits, err := s.Search(ctx, "ryw", v, 1)
		if err != nil {
			t.Fatalf("search %s: %v", id, err)
		}
		if len(hits) != 1 || hits[0].ChunkID != id {
			t.Fatalf("round %d: the next search after writing %s found %v", i, id, hits)
		}
		if n, err := s.Count(ctx, "ryw"); err != nil || n != i+1 {
			t.Fatalf("round %d: count %d (%v), want %d", i, n, err, i+1)
		}
		if i%4 == 3 {
			if err := s.Delete(ctx, "ryw", []string{id}); err != nil {
				t.Fatalf("delete %s: %v", id, err)
			}
			hits, err := s.Search(ctx, "ryw", v, 1)
			if err != nil {
				t.Fatalf("search after deleting %s: %v", id, err)
			}
			if len(hits) > 0 && hits[0].ChunkID == id {
				t.Fatalf("round %d: the search after deleting %s still found it", i, id)
			}
			// Written again, so the count goes on by one per round.
			if err := s.Upsert(ctx, "ryw", []vectors.Item{{ChunkID: id, DocID: "d", Vector: v}}); err != nil {
				t.Fatalf("upsert %s again: %v", id, err)
			}
		}
	}
}

// droppingOn is a store on the Milvus at addr, with its own collection
// prefix; the test's cleanup drops the collections it wrote.
func droppingOn(tb testing.TB, addr, prefix string) *droppingStore {
	s := &droppingStore{Store: newStore(tb, addr, milvus.Config{CollectionPrefix: prefix, Timeout: time.Minute})}
	tb.Cleanup(func() {
		for _, tenant := range s.tenants() {
			if err := s.DropTenant(context.Background(), tenant); err != nil {
				tb.Errorf("drop the test collection of %s: %v", tenant, err)
			}
		}
	})
	return s
}

// droppingStore remembers the tenants written to, so a test can drop the
// collections it created on a server it shares.
type droppingStore struct {
	*milvus.Store
	mu      sync.Mutex
	written map[string]bool
}

func (d *droppingStore) Upsert(ctx context.Context, tenant string, items []vectors.Item) error {
	d.mu.Lock()
	if d.written == nil {
		d.written = map[string]bool{}
	}
	d.written[tenant] = true
	d.mu.Unlock()
	return d.Store.Upsert(ctx, tenant, items)
}

func (d *droppingStore) tenants() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []string
	for tenant := range d.written {
		out = append(out, tenant)
	}
	return out
}
