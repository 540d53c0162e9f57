package writer_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/annalist-dev/annalist/internal/dataset/datasettest"

	"github.com/annalist-dev/annalist/consumers/chunker"
	"github.com/annalist-dev/annalist/consumers/extractor"
	"github.com/annalist-dev/annalist/consumers/writer"
	"github.com/annalist-dev/annalist/internal/demo"
	"github.com/annalist-dev/annalist/producers"
	"github.com/annalist-dev/annalist/schemas"
)

// ingest runs the offline chunker and extractor over docs in-process and
// writes chunks and triplets into w, as the ingestion stages would. It
// returns the chunks.
func (w *world) ingest(tb testing.TB, docs []schemas.Document) []schemas.Chunk {
	tb.Helper()
	ctx := context.Background()
	ch := chunker.New(chunker.Config{})
	ex := extractor.New(extractor.Config{})
	var all []schemas.Chunk
	for _, d := range docs {
		cs, err := ch.Chunk(ctx, d)
		if err != nil {
			tb.Fatal(err)
		}
		if err := w.chunks.PutDocument(ctx, tenant, d, cs); err != nil {
			tb.Fatal(err)
		}
		var ts []schemas.Triplet
		for _, c := range cs {
			tr, err := ex.Extract(ctx, tenant, c)
			if err != nil {
				tb.Fatal(err)
			}
			ts = append(ts, tr...)
		}
		if _, err := w.g.Apply(ctx, tenant, ts, nil); err != nil {
			tb.Fatal(err)
		}
		all = append(all, cs...)
	}
	return all
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

func volumeDocs(tb testing.TB, dir string, names ...string) []schemas.Document {
	tb.Helper()
	var docs []schemas.Document
	for _, n := range names {
		f := producers.File{Path: filepath.Join(dir, n), Rel: "mingshi-liezhuan/" + n}
		if n == "" {
			continue
		}
		items, errs := producers.Read(f, producers.Options{})
		if len(errs) > 0 {
			tb.Fatal(errs[0])
		}
		for _, it := range items {
			docs = append(docs, it.Doc)
		}
	}
	return docs
}

// benchRetrieve retrieves the subjects in turn and reports the latency
// percentiles of one Retrieve over loopback Redis (the acceptance is p99
// ≤ 2 ms; seed 000 reports 1.46 ms).
func benchRetrieve(b *testing.B, w *world, subjects []string) {
	r := writer.NewRetriever(w.g, w.chunks)
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
	w := newWorld(b)
	w.ingest(b, demoDocs(b))
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
	w := newWorld(b)
	w.ingest(b, volumeDocs(b, dir, files...))
	benchRetrieve(b, w, []string{"叶向高", "进卿", "王守仁", "戚继光", "陈寿", "张岳", "于谦", "徐阶", "申时行", "刘基"})
}
