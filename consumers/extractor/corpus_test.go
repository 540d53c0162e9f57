package extractor_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/internal/evaluation/dataset/datasettest"

	"github.com/annalist-dev/annalist/consumers/chunker"
	"github.com/annalist-dev/annalist/consumers/extractor"
	"github.com/annalist-dev/annalist/schemas"
)

// TestCorpusRelationCoverage chunks every mingshi-liezhuan volume as the
// chunker stage does, extracts offline and prints, per relation, how many
// distinct persons have it. It also holds the acceptance spot check:
// 叶向高's entry yields courtesy name 进卿, native place 福清 and the jinshi
// year 万历十一年, each with its evidence span.
func TestCorpusRelationCoverage(t *testing.T) {
	dir := datasettest.Require(t, "mingshi-liezhuan")
	files, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no volumes in %s: %v", dir, err)
	}
	ctx := context.Background()
	ch := chunker.New(chunker.Config{})
	ex := extractor.New(extractor.Config{})
	persons := map[string]map[string]bool{}
	entries := map[string]bool{}
	triplets := 0
	var ye []schemas.Triplet
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		vol := strings.TrimSuffix(filepath.Base(f), ".txt")
		chunks, err := ch.Chunk(ctx, schemas.Document{DocID: "mingshi-" + vol, Text: string(b), Profile: "liezhuan"})
		if err != nil {
			t.Fatalf("chunk %s: %v", vol, err)
		}
		for _, c := range chunks {
			// The main entries: an attached person's entry (附传) is part
			// of the main entry it opens inside, as the floors were set.
			if c.Subject != "" && !c.Attached {
				entries[vol+"/"+c.Subject] = true
			}
			ts, err := ex.Extract(ctx, "", c)
			if err != nil {
				t.Fatalf("extract %s: %v", c.ChunkID, err)
			}
			for _, tr := range ts {
				checkTriplet(t, c, tr)
				if persons[tr.Relation] == nil {
					persons[tr.Relation] = map[string]bool{}
				}
				persons[tr.Relation][vol+"/"+tr.Head] = true
				if vol == "128" && tr.Head == "叶向高" {
					ye = append(ye, tr)
				}
			}
			triplets += len(ts)
		}
	}
	rels := make([]string, 0, len(persons))
	for r := range persons {
		rels = append(rels, r)
	}
	sort.Strings(rels)
	var b strings.Builder
	fmt.Fprintf(&b, "%d volumes, %d main entries begun by the chunker, %d triplets\n", len(files), len(entries), triplets)
	fmt.Fprintf(&b, "%-14s %8s %8s\n", "relation", "persons", "/entries")
	for _, r := range rels {
		fmt.Fprintf(&b, "%-14s %8d %8.3f\n", r, len(persons[r]), float64(len(persons[r]))/float64(len(entries)))
	}
	t.Log("\n" + b.String())

	// Floors on persons per entry for the relations a biography rests on,
	// about 5 % under what the development corpus gives (courtesy 1.00,
	// native place 1.32, office 1.06, jinshi 0.67, relative 0.34, death
	// 0.21, age at death 0.09), so a change that loses a relation across the corpus fails
	// here rather than in a figure someone has to read.
	floors := map[string]float64{
		schemas.RelCourtesyName: 0.95, schemas.RelNativePlace: 1.25, schemas.RelOffice: 1.0,
		schemas.RelJinshi: 0.63, schemas.RelRelative: 0.32, schemas.RelDeath: 0.2,
		schemas.RelDeathAge: 0.08,
	}
	for rel, floor := range floors {
		if got := float64(len(persons[rel])) / float64(len(entries)); got < floor {
			t.Errorf("%s: %.3f persons per entry, want ≥ %.2f", rel, got, floor)
		}
	}

	want := map[string]string{
		schemas.RelCourtesyName: "进卿", schemas.RelNativePlace: "福清", schemas.RelJinshi: "万历十一年",
	}
	for rel, tail := range want {
		found := false
		for _, tr := range ye {
			if tr.Relation == rel && tr.Tail == tail && tr.Span.End > tr.Span.Start && strings.Contains(tr.Evidence, tail) {
				found = true
			}
		}
		if !found {
			t.Errorf("叶向高: no %s %s with a span among %d triplets", rel, tail, len(ye))
		}
	}
}

// checkTriplet asserts the provenance contract of a triplet of chunk c.
func checkTriplet(t testing.TB, c schemas.Chunk, tr schemas.Triplet) {
	t.Helper()
	if err := tr.Validate(); err != nil {
		t.Fatalf("%s: invalid triplet %+v: %v", c.ChunkID, tr, err)
	}
	runes := []rune(c.Text)
	if tr.ChunkID != c.ChunkID || tr.DocID != c.DocID || tr.Entry != c.Entry || tr.EntryChunk != c.EntryChunk {
		t.Fatalf("%s: provenance not copied: %+v", c.ChunkID, tr)
	}
	if tr.Span.End > len(runes) || string(runes[tr.Span.Start:tr.Span.End]) != tr.Evidence {
		t.Fatalf("%s: span [%d,%d) does not hold evidence %q", c.ChunkID, tr.Span.Start, tr.Span.End, tr.Evidence)
	}
}
