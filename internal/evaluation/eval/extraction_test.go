package eval_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/consumers/chunker"
	"github.com/annalist-dev/annalist/consumers/extractor"
	"github.com/annalist-dev/annalist/internal/evaluation/dataset/datasettest"
	"github.com/annalist-dev/annalist/internal/evaluation/eval"
	"github.com/annalist-dev/annalist/schemas"
)

// paragraphChunks is a chunker for the tests: one chunk per paragraph,
// the paragraphs that open with one of the names beginning entries.
func paragraphChunks(names ...string) eval.ChunkFunc {
	return func(_ context.Context, doc schemas.Document) ([]schemas.Chunk, error) {
		var out []schemas.Chunk
		entry, entryChunk := "", ""
		for i, p := range strings.Split(doc.Text, "\n") {
			id := fmt.Sprintf("%s-%d", doc.DocID, i)
			c := schemas.Chunk{ChunkID: id, DocID: doc.DocID, Text: p}
			for _, n := range names {
				if strings.HasPrefix(p, n+"，") {
					c.Subject, entry, entryChunk = n, n, id
				}
			}
			c.Entry, c.EntryChunk = entry, entryChunk
			out = append(out, c)
		}
		return out, nil
	}
}

// Two volumes, the first held out (the first numbered volume in file
// order), each with one entry whose gold is read from its text.
func TestExtractionScoresAgainstTheText(t *testing.T) {
	dir := t.TempDir()
	vols := map[string]string{
		"001.txt": "林安\n林安，字子静，莆田人。父昭，字德明。嘉靖二年进士。安举嘉靖八年进士，授编修。\n安历官礼部尚书。万历五年卒，年七十一。",
		"002.txt": "周明\n周明，福清人。万历十一年进士。\n卒，年六十。",
	}
	for f, text := range vols {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The extractor under test: each entry's facts, right and wrong.
	facts := map[string][][2]string{
		"林安": {{schemas.RelCourtesyName, "子静"}, {schemas.RelNativePlace, "莆田"}, {schemas.RelJinshi, "嘉靖八年"},
			{schemas.RelJinshi, "嘉靖二年"}, {schemas.RelDeath, "万历五年"}, {schemas.RelDeathAge, "七十一"}},
		"周明": {{schemas.RelNativePlace, "福清"}, {schemas.RelCourtesyName, "子平"}, {schemas.RelDeathAge, "六十"},
			{schemas.RelDeath, "万历十一年"}},
	}
	extract := func(_ context.Context, c schemas.Chunk) ([]schemas.Triplet, error) {
		if c.Subject == "" {
			return nil, nil
		}
		var out []schemas.Triplet
		for _, f := range facts[c.Subject] {
			out = append(out, schemas.Triplet{Head: c.Subject, Relation: f[0], Tail: f[1], ChunkID: c.ChunkID,
				Entry: c.Entry, EntryChunk: c.EntryChunk})
		}
		return out, nil
	}
	rep, err := eval.Extraction(context.Background(), dir, paragraphChunks("林安", "周明"), extract, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.HeldOut.Volumes != 1 || rep.DevRest.Volumes != 1 || rep.All.Entries != 2 {
		t.Fatalf("splits: held out %d, dev %d volumes, %d entries", rep.HeldOut.Volumes, rep.DevRest.Volumes, rep.All.Entries)
	}
	want := map[string]eval.RelationScore{
		// 子静 is gold; 子平 has no gold and is written nowhere.
		schemas.RelCourtesyName: {Gold: 1, Found: 1, Predicted: 2, Correct: 1, Unsupported: 1},
		schemas.RelNativePlace:  {Gold: 2, Found: 2, Predicted: 2, Correct: 2},
		// 嘉靖二年 follows the father's name: the father's degree, not
		// gold, and the entry has gold, so it is wrong.
		schemas.RelJinshi: {Gold: 2, Found: 1, Predicted: 2, Correct: 1, Wrong: 1},
		// The death gold is the closing formula's time; 万历十一年 is
		// 周明's degree.
		schemas.RelDeath:    {Gold: 1, Found: 1, Predicted: 2, Correct: 1, Unsupported: 1},
		schemas.RelDeathAge: {Gold: 2, Found: 2, Predicted: 2, Correct: 2},
	}
	for rel, w := range want {
		got := rep.All.Relations[rel]
		got.Recall, got.Precision, got.PrecisionGold = 0, 0, 0
		if got != w {
			t.Errorf("%s: got %+v, want %+v", rel, got, w)
		}
	}
	if p := rep.All.Relations[schemas.RelCourtesyName].Precision; p != 0.5 {
		t.Errorf("courtesy name precision %v, want 0.5", p)
	}
}

// TestExtractionOnTheHistories holds the offline extractor to precision
// 0.97 for courtesy name, native place and jinshi year on the development
// volumes and the held-out third, on both histories. Run it with -v to see
// the figures.
func TestExtractionOnTheHistories(t *testing.T) {
	for _, folder := range []string{"mingshi-liezhuan", "qingshigao-liezhuan"} {
		t.Run(folder, func(t *testing.T) {
			dir := datasettest.Require(t, folder)
			ch := chunker.New(chunker.Config{})
			ex := extractor.New(extractor.Config{})
			rep, err := eval.Extraction(context.Background(), dir, ch.Chunk,
				func(ctx context.Context, c schemas.Chunk) ([]schemas.Triplet, error) { return ex.Extract(ctx, "", c) }, nil)
			if err != nil {
				t.Fatal(err)
			}
			for name, sp := range map[string]eval.ExtractionSplit{"dev-rest": rep.DevRest, "held-out": rep.HeldOut} {
				for _, rel := range eval.ExtractionRelations {
					x := sp.Relations[rel]
					t.Logf("%s %-14s precision %.3f (%d+%d/%d) recall %.3f (%d/%d)", name, rel, x.Precision,
						x.Correct, x.Supported, x.Predicted, x.Recall, x.Found, x.Gold)
				}
				for _, rel := range []string{schemas.RelCourtesyName, schemas.RelNativePlace, schemas.RelJinshi} {
					if x := sp.Relations[rel]; x.Predicted == 0 || x.Precision < 0.97 {
						t.Errorf("%s %s precision %.3f of %d, want ≥ 0.97", name, rel, x.Precision, x.Predicted)
					}
				}
			}
			t.Logf("attached: %d listed, %d with a fact (%.3f)", rep.Attached.Listed, rep.Attached.WithFact, rep.Attached.Share)
		})
	}
}
