package biography_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/annalist-dev/annalist/internal/evaluation/dataset/datasettest"

	"github.com/annalist-dev/annalist/consumers/chunker"
	"github.com/annalist-dev/annalist/consumers/extractor"
	"github.com/annalist-dev/annalist/consumers/writer/biography"
	"github.com/annalist-dev/annalist/consumers/writer/internal/writertest"
	"github.com/annalist-dev/annalist/internal/wiring/demo"
	"github.com/annalist-dev/annalist/schemas"
)

// tenant is the fixtures' tenant.
const tenant = writertest.Tenant

// ingest writes docs into w through the offline chunker and extractor.
func ingest(tb testing.TB, w *writertest.World, docs []schemas.Document) []schemas.Chunk {
	tb.Helper()
	return w.Ingest(tb, chunker.New(chunker.Config{}).Chunk, extractor.New(extractor.Config{}).Extract, docs)
}

func demoDocs(tb testing.TB) []schemas.Document {
	tb.Helper()
	items, err := demo.Documents()
	if err != nil {
		tb.Fatal(err)
	}
	docs := make([]schemas.Document, len(items))
	for i, it := range items {
		docs[i] = it.Doc
	}
	return docs
}

// benchRetrieve retrieves the subjects in turn and reports the latency
// percentiles of one Retrieve over loopback Redis (the acceptance is p99
// ≤ 2 ms; the Alstorian paper reports 1.46 ms).
func benchRetrieve(b *testing.B, w *writertest.World, subjects []string) {
	r := biography.NewRetriever(w.G, w.Chunks)
	ctx := context.Background()
	refs := 0
	for _, s := range subjects {
		rs, err := r.Retrieve(ctx, tenant, s)
		if err != nil {
			b.Fatalf("%s: %v", s, err)
		}
		refs += len(rs.References)
	}
	lat := make([]time.Duration, 0, 1024)
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		t0 := time.Now()
		if _, err := r.Retrieve(ctx, tenant, subjects[i%len(subjects)]); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
		i++
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
	b.ReportMetric(float64(refs)/float64(len(subjects)), "refs/op")
}

// BenchmarkRetrieve: the demo corpus through the offline chunker and
// extractor into a real redis-server, every person retrieved by name or
// courtesy name.
func BenchmarkRetrieve(b *testing.B) {
	w := writertest.NewWorld(b)
	ingest(b, w, demoDocs(b))
	benchRetrieve(b, w, []string{"陆文渊", "顾承泽", "严鹤龄", "静之", "Margaret Ellery", "Thomas Harrow"})
}

// BenchmarkRetrieveLiezhuan: the whole History of Ming biographies (about
// 5,000 entities and 10,000 edges) in the graph; the subjects include men
// with long entries, a name shared by several entries and a courtesy name.
func BenchmarkRetrieveLiezhuan(b *testing.B) {
	dir := datasettest.Require(b, "mingshi-liezhuan")
	files, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil {
		b.Fatal(err)
	}
	for i := range files {
		files[i] = filepath.Base(files[i])
	}
	w := writertest.NewWorld(b)
	ingest(b, w, writertest.VolumeDocs(b, dir, files...))
	benchRetrieve(b, w, []string{"叶向高", "进卿", "王守仁", "戚继光", "陈寿", "张岳", "于谦", "徐阶", "申时行", "刘基"})
}
