package hnsw_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/annalist-dev/annalist/internal/ports/vectors"

	"github.com/annalist-dev/annalist/infra/hnsw"
)

const benchDim = 256

var bench struct {
	once    sync.Once
	ix      *hnsw.Index
	queries [][]float32
}

// benchIndex is 20,000 clustered vectors of dimension 256 with the default
// parameters, built once per benchmark run.
func benchIndex(b *testing.B) (*hnsw.Index, [][]float32) {
	bench.once.Do(func() {
		g, _ := hnsw.NewGenerator(hnsw.DatasetClustered, benchDim, 100, 42)
		ix, err := hnsw.NewIndex(benchDim, hnsw.Params{})
		if err != nil {
			panic(err)
		}
		for i := range 20000 {
			ix.Upsert(fmt.Sprint(i), "", g.Next())
		}
		bench.ix = ix
		for range 256 {
			bench.queries = append(bench.queries, g.Next())
		}
	})
	return bench.ix, bench.queries
}

// BenchmarkInsert inserts into the graph of an index that already holds
// 5,000 vectors (the graph is on from the first insert).
func BenchmarkInsert(b *testing.B) {
	g, _ := hnsw.NewGenerator(hnsw.DatasetClustered, benchDim, 100, 1)
	ix, _ := hnsw.NewIndex(benchDim, hnsw.Params{ExactBelow: -1})
	for i := range 5000 {
		ix.Upsert(fmt.Sprint("seed", i), "", g.Next())
	}
	vecs := make([][]float32, 4096)
	for i := range vecs {
		vecs[i] = g.Next()
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if err := ix.Upsert(fmt.Sprint(i), "", vecs[i%len(vecs)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func BenchmarkSearchGraph(b *testing.B) {
	for _, ef := range []int{64, hnsw.DefaultEfSearch} {
		b.Run(fmt.Sprint("ef=", ef), func(b *testing.B) {
			ix, qs := benchIndex(b)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, err := ix.SearchGraph(qs[i%len(qs)], 10, ef); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

func BenchmarkSearchExact(b *testing.B) {
	ix, qs := benchIndex(b)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := ix.Exact(qs[i%len(qs)], 10); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkStoreUpsert is the durable write path of one embedder batch (64
// vectors of dimension 384): log append and fsync, and the in-memory
// insert below ExactBelow. Graph inserts are BenchmarkInsert, snapshots
// BenchmarkSnapshot.
func BenchmarkStoreUpsert(b *testing.B) {
	s, err := hnsw.Open(hnsw.Config{Dir: b.TempDir(), SnapshotEvery: 1 << 30,
		Params: hnsw.Params{ExactBelow: 1 << 30}})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	g, _ := hnsw.NewGenerator(hnsw.DatasetClustered, 384, 100, 3)
	batch := make([]vectors.Item, 64)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		for i := range batch {
			batch[i] = vectors.Item{ChunkID: fmt.Sprint(n), DocID: "d", Vector: g.Next()}
			n++
		}
		if err := s.Upsert(context.Background(), "bench", batch); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSnapshot writes the snapshot of 20,000 vectors of dimension 384
// (temp file, fsync, rename) after one more upsert.
func BenchmarkSnapshot(b *testing.B) {
	s, err := hnsw.Open(hnsw.Config{Dir: b.TempDir(), SnapshotEvery: 1 << 30})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	g, _ := hnsw.NewGenerator(hnsw.DatasetClustered, 384, 100, 3)
	batch := make([]vectors.Item, 1000)
	for n := 0; n < 20000; n += len(batch) {
		for i := range batch {
			batch[i] = vectors.Item{ChunkID: fmt.Sprint(n + i), DocID: "d", Vector: g.Next()}
		}
		if err := s.Upsert(context.Background(), "bench", batch); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		it := []vectors.Item{{ChunkID: fmt.Sprint("extra", n), Vector: g.Next()}}
		n++
		if err := s.Upsert(context.Background(), "bench", it); err != nil {
			b.Fatal(err)
		}
		if err := s.Snapshot(); err != nil {
			b.Fatal(err)
		}
	}
}
