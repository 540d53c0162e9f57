//go:build engines

package demo_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/annalist-dev/annalist/consumers/chunker"
	"github.com/annalist-dev/annalist/infra/embed"
	"github.com/annalist-dev/annalist/infra/hnsw"
	"github.com/annalist-dev/annalist/infra/milvus"
	"github.com/annalist-dev/annalist/internal/kit/enginestest"
	"github.com/annalist-dev/annalist/internal/ports/vectors"
	"github.com/annalist-dev/annalist/internal/wiring/demo"
)

// TestEnginesMilvusRetrievesWhatTheEmbeddedIndexDoes: the demo corpus,
// chunked and embedded as the pipeline does it, is written to the embedded
// index and to Milvus Lite; for every chunk's vector as a query, the top
// k of both are the same set. Two ids may swap only where their scores
// tie at the k-th place.
func TestEnginesMilvusRetrievesWhatTheEmbeddedIndexDoes(t *testing.T) {
	e := enginestest.Require(t)
	ctx := context.Background()
	docs, err := demo.Documents()
	if err != nil {
		t.Fatal(err)
	}
	ch := chunker.New(chunker.Config{})
	emb, err := embed.NewOffline(embed.OfflineConfig{})
	if err != nil {
		t.Fatal(err)
	}
	var items []vectors.Item
	for _, d := range docs {
		cs, err := ch.Chunk(ctx, d.Doc)
		if err != nil {
			t.Fatalf("chunk %s: %v", d.Doc.DocID, err)
		}
		texts := make([]string, len(cs))
		for i, c := range cs {
			texts[i] = c.Text
		}
		vs, err := emb.Embed(ctx, texts)
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range cs {
			items = append(items, vectors.Item{ChunkID: c.ChunkID, DocID: c.DocID, Vector: vs[i]})
		}
	}
	if len(items) < 20 {
		t.Fatalf("the demo corpus gave %d chunks", len(items))
	}

	local, err := hnsw.Open(hnsw.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	remote, err := milvus.New(ctx, milvus.Config{
		Address:          e.Milvus,
		CollectionPrefix: fmt.Sprintf("annalist_etest_demo_%d_", time.Now().UnixNano()),
		Timeout:          time.Minute,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer remote.Close(ctx)
	defer func() {
		if err := remote.DropTenant(ctx, "demo"); err != nil {
			t.Errorf("drop the test collection: %v", err)
		}
	}()
	for _, s := range []vectors.Store{local, remote} {
		if err := s.Upsert(ctx, "demo", items); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := remote.Count(ctx, "demo"); err != nil || n != len(items) {
		t.Fatalf("milvus holds %d (%v), want %d", n, err, len(items))
	}

	const k = 5
	differ := 0
	for _, q := range items {
		a, err := local.Search(ctx, "demo", q.Vector, k)
		if err != nil {
			t.Fatal(err)
		}
		b, err := remote.Search(ctx, "demo", q.Vector, k)
		if err != nil {
			t.Fatal(err)
		}
		if len(a) != k || len(b) != k {
			t.Fatalf("query %s: %d and %d hits, want %d", q.ChunkID, len(a), len(b), k)
		}
		if sameSet(a, b) {
			continue
		}
		// Only a tie at the boundary may order two ids differently.
		kth := a[k-1].Score
		for _, h := range symmetricDifference(a, b) {
			if math.Abs(float64(h.Score-kth)) > 1e-4 {
				t.Errorf("query %s: embedded %v, milvus %v: %s (%.5f) is not a tie at the k-th score %.5f",
					q.ChunkID, ids(a), ids(b), h.ChunkID, h.Score, kth)
			}
		}
		differ++
	}
	t.Logf("%d chunks of the demo corpus, %d queries, top-%d sets equal for %d (the rest differ by ties)",
		len(items), len(items), k, len(items)-differ)
}

func ids(hs []vectors.Hit) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.ChunkID
	}
	slices.Sort(out)
	return out
}

func sameSet(a, b []vectors.Hit) bool { return slices.Equal(ids(a), ids(b)) }

// symmetricDifference is the hits of a and b whose id the other lacks.
func symmetricDifference(a, b []vectors.Hit) []vectors.Hit {
	in := func(hs []vectors.Hit, id string) bool {
		return slices.ContainsFunc(hs, func(h vectors.Hit) bool { return h.ChunkID == id })
	}
	var out []vectors.Hit
	for _, h := range a {
		if !in(b, h.ChunkID) {
			out = append(out, h)
		}
	}
	for _, h := range b {
		if !in(a, h.ChunkID) {
			out = append(out, h)
		}
	}
	return out
}
