package embedder_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/consumers/embedder"
	"github.com/annalist-dev/annalist/infra/embed"
	"github.com/annalist-dev/annalist/infra/hnsw"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/pipeline/pipelinetest"
)

// Biography openings written for this test, in the style of the corpus.
var bios = []struct{ name, text string }{
	{"林清远", "林清远，字澄之，莆田人。嘉靖二年进士。授行人，擢御史。巡按浙江，劾贪吏数人，一方肃然。"},
	{"周文涣", "周文涣，字子明，吉水人。少孤，事母至孝。正德九年举进士，授南京户部主事，迁郎中。"},
	{"韩默", "韩默，字静山，泾阳人。万历五年进士。知嘉兴县，兴水利，民德之。累官右副都御史，巡抚山东。"},
	{"沈一鹤", "沈一鹤，字云翔，归安人。隆庆二年进士。改庶吉士，授编修。以直言忤旨，谪广东布政司照磨。"},
	{"Harriet Vane", "Harriet Vane was born in Oxford and read English at Shrewsbury College. She wrote detective novels."},
}

// A real offline embedder and the embedded index behind the stage: the
// same chunks delivered twice leave one vector each, and a query by name
// and place finds the person's chunk.
func TestStageWithOfflineEmbedderAndEmbeddedIndex(t *testing.T) {
	ctx := context.Background()
	emb, err := embed.NewOffline(embed.OfflineConfig{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	store, err := hnsw.Open(hnsw.Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	s := newStage(t, emb, store, embedder.Config{MaxBatch: 2})
	var ins []pipeline.Input
	for i, b := range bios {
		ins = append(ins, pipelinetest.Input(chunk("doc-bios", i, len(bios), b.text), onChunks, pipelinetest.Tenant("museum"), pipelinetest.Event(fmt.Sprint("ev", i)), pipelinetest.Offset(int64(i))))
	}
	for range 2 {
		if _, err := s.Handle(ctx, ins); err != nil {
			t.Fatal(err)
		}
	}
	if n, _ := store.Count(ctx, "museum"); n != len(bios) {
		t.Fatalf("count = %d after two deliveries, want %d", n, len(bios))
	}
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}

	// Reopened from disk, the vectors answer queries.
	store, err = hnsw.Open(hnsw.Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	for i, q := range []string{"林清远 莆田人", "周文涣 吉水", "韩默 泾阳人", "沈一鹤 归安", "Harriet Vane Oxford"} {
		hits, err := store.Search(ctx, "museum", emb.Vector(q), 1)
		if err != nil {
			t.Fatal(err)
		}
		want := chunk("doc-bios", i, len(bios), bios[i].text).ChunkID
		if len(hits) != 1 || hits[0].ChunkID != want {
			t.Errorf("query %q found %+v, want %s (%s)", q, hits, want, bios[i].name)
		}
	}
}

// BenchmarkHandle is one batch of 64 biography-sized chunks (about 600
// characters each) through the offline embedder into the embedded index.
func BenchmarkHandle(b *testing.B) {
	ctx := context.Background()
	emb, err := embed.NewOffline(embed.OfflineConfig{})
	if err != nil {
		b.Fatal(err)
	}
	store, err := hnsw.Open(hnsw.Config{})
	if err != nil {
		b.Fatal(err)
	}
	s := newStage(b, emb, store, embedder.Config{})
	text := strings.Repeat(bios[0].text+bios[1].text+bios[2].text, 4)
	const batch = 64
	ins := make([]pipeline.Input, batch)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		for i := range ins {
			ins[i] = pipelinetest.Input(chunk(fmt.Sprint("doc", n/16), n%16, 16, fmt.Sprint(n, text)), onChunks, pipelinetest.Tenant("bench"), pipelinetest.Event(fmt.Sprint("ev", n)), pipelinetest.Offset(int64(n)))
			n++
		}
		if _, err := s.Handle(ctx, ins); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "chunks/s")
}
