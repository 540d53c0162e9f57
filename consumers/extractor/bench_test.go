package extractor_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/internal/dataset/datasettest"

	"github.com/annalist-dev/annalist/consumers/chunker"
	"github.com/annalist-dev/annalist/consumers/extractor"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
)

// benchChunks are the fixture entries as the chunker would emit them: entry
// chunks with a long narrative continuation, and an English window.
func benchChunks() []schemas.Chunk {
	narrative := "时倭寇犯东南，文渊上疏陈海防十事，帝嘉纳之。久之，改吏部左侍郎。会大雪，道路阻绝，使者旬日乃达。" +
		"帝览其疏，叹曰：此忠臣之言也。命有司议行之。是岁大旱，民多流亡，有司请发仓廪以赈之。\n"
	long := ""
	for i := 0; i < 8; i++ {
		long += narrative
	}
	cont := chunk("c-lu-2", "陆文渊", long)
	cont.Subject, cont.EntryChunk = "", "c-lu"
	return []schemas.Chunk{
		chunk("c-lu", "陆文渊", entryLu),
		cont,
		chunk("c-gu", "顾承泽", entryGu),
		chunk("c-yan", "严鹤龄", entryYan),
		englishChunk("e-1", english),
	}
}

// BenchmarkHandlerOffline measures the offline extractor stage: chunks
// and characters per second through the handler.
func BenchmarkHandlerOffline(b *testing.B) {
	h := extractor.New(extractor.Config{}).Handler()
	chunks := benchChunks()
	ins := make([]pipeline.Input, len(chunks))
	chars := 0
	for i, c := range chunks {
		ins[i] = pipeline.Input{Msg: c}
		chars += utf8.RuneCountInString(c.Text)
	}
	ctx := context.Background()
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		for _, in := range ins {
			if _, err := h(ctx, in); err != nil {
				b.Fatal(err)
			}
		}
		n++
	}
	secs := b.Elapsed().Seconds()
	b.ReportMetric(float64(n*len(ins))/secs, "chunks/s")
	b.ReportMetric(float64(n*chars)/secs, "chars/s")
}

// BenchmarkExtractCorpus runs the offline extractor over every
// mingshi-liezhuan volume as the chunker cuts it (run with -benchtime 1x).
func BenchmarkExtractCorpus(b *testing.B) {
	dir := datasettest.Require(b, "mingshi-liezhuan")
	files, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil || len(files) == 0 {
		b.Fatalf("no volumes in %s: %v", dir, err)
	}
	ctx := context.Background()
	ch := chunker.New(chunker.Config{})
	var chunks []schemas.Chunk
	chars := 0
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		cs, err := ch.Chunk(ctx, schemas.Document{DocID: filepath.Base(f), Text: string(text), Profile: "liezhuan"})
		if err != nil {
			b.Fatal(err)
		}
		chunks = append(chunks, cs...)
		chars += utf8.RuneCountInString(string(text))
	}
	ex := extractor.New(extractor.Config{})
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		for _, c := range chunks {
			if _, err := ex.Extract(ctx, "", c); err != nil {
				b.Fatal(err)
			}
		}
		n++
	}
	secs := b.Elapsed().Seconds()
	b.ReportMetric(float64(n*len(chunks))/secs, "chunks/s")
	b.ReportMetric(float64(n*chars)/secs, "chars/s")
}
