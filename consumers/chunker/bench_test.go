package chunker_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/internal/evaluation/dataset/datasettest"

	"github.com/annalist-dev/annalist/consumers/chunker"
	"github.com/annalist-dev/annalist/pipeline/pipelinetest"
	"github.com/annalist-dev/annalist/schemas"
)

// syntheticVolume is a liezhuan volume of n invented entries, each with a
// relative and several paragraphs.
func syntheticVolume(n int) string {
	var head, body strings.Builder
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("%c%c%c", '林'+rune(i%7), '文'+rune(i), '远'+rune(i%5))
		fmt.Fprintf(&head, "%s(子%c)", name, '甲'+rune(i))
		fmt.Fprintf(&body, "%s，字子%d，莆田人。少孤，事母至孝。举永乐%d年进士，授户部主事。\n", name, i, i%20+1)
		for p := 0; p < 4; p++ {
			body.WriteString(strings.Repeat("居官清慎，未尝以私干人。宣德初，擢郎中，出为知府，有惠政，民甚德之。", 4) + "\n")
		}
		fmt.Fprintf(&body, "%c，字叔%d，以荫入官，有父风。\n", '甲'+rune(i), i)
	}
	return head.String() + "\n" + body.String()
}

func benchmarkHandler(b *testing.B, doc schemas.Document) {
	h := chunker.New(chunker.Config{}).Handler(&memorySink{})
	in := pipelinetest.Input(doc, fromDocuments)
	chars := utf8.RuneCountInString(doc.Text)
	b.SetBytes(int64(len(doc.Text)))
	b.ReportAllocs()
	chunks := 0
	for b.Loop() {
		out, err := h(context.Background(), in)
		if err != nil {
			b.Fatal(err)
		}
		chunks = len(out)
	}
	b.ReportMetric(float64(chars)*float64(b.N)/b.Elapsed().Seconds(), "chars/s")
	b.ReportMetric(float64(chunks), "chunks/doc")
}

func BenchmarkHandlerLiezhuan(b *testing.B) {
	benchmarkHandler(b, schemas.Document{DocID: "bench", Text: syntheticVolume(30)})
}

func BenchmarkHandlerGeneric(b *testing.B) {
	text := strings.Repeat("Thomas Harrow was a Welsh harbour engineer. He was born in Swansea in 1788, and rebuilt the western pier after the storm of 1824.\n\n", 200)
	benchmarkHandler(b, schemas.Document{DocID: "bench", Text: text})
}

// BenchmarkChunkMingshi chunks every History of Ming volume once per
// iteration (profile detected, as in the pipeline).
func BenchmarkChunkMingshi(b *testing.B) {
	dir := datasettest.Require(b, "mingshi-liezhuan")
	paths, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil || len(paths) == 0 {
		b.Fatalf("no volumes in %s: %v", dir, err)
	}
	var docs []schemas.Document
	chars := 0
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		docs = append(docs, schemas.Document{DocID: filepath.Base(p), Text: string(data)})
		chars += utf8.RuneCount(data)
	}
	c := chunker.New(chunker.Config{})
	b.ReportAllocs()
	for b.Loop() {
		for _, d := range docs {
			if _, err := c.Chunk(context.Background(), d); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(chars)*float64(b.N)/b.Elapsed().Seconds(), "chars/s")
}
