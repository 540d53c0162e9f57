package eval_test

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/internal/evaluation/eval"
	"github.com/annalist-dev/annalist/schemas"
)

// volumes writes the files of a data folder and returns the folder.
func volumes(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "vols")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// scriptedChunker returns entry chunks with the subjects listed for each
// file (by source path), and checks the document is built like the ingest
// producer builds it.
func scriptedChunker(t *testing.T, subjects map[string][]string) eval.ChunkFunc {
	return func(_ context.Context, doc schemas.Document) ([]schemas.Chunk, error) {
		if doc.Profile != "" || !strings.HasPrefix(doc.DocID, strings.TrimSuffix(filepath.Base(doc.Source), ".txt")+"-") {
			t.Errorf("document %q from %q profile %q: not as the producer makes it", doc.DocID, doc.Source, doc.Profile)
		}
		var out []schemas.Chunk
		for _, s := range subjects[filepath.Base(doc.Source)] {
			out = append(out, schemas.Chunk{DocID: doc.DocID, Subject: s, Entry: s})
		}
		out = append(out, schemas.Chunk{DocID: doc.DocID})
		return out, nil
	}
}

func TestSegmentationMetric(t *testing.T) {
	dir := volumes(t, map[string]string{
		"a.txt": "甲乙丙丁(子庚)戊己\n甲乙，字子。\n丙丁，某人。\n戊己，某人。\n",
		"b.txt": "王一王二王三\n王一，字甲。\n",
		"c.txt": "◎循吏\n序文，论吏治。\n张甲(李乙)张丙\n张甲，某人。\n",
		"d.txt": "刘基(子琏璟)宋濂\n刘基，字伯温。\n",
		"e.txt": "赵大钱二孙三李四\n赵大，某人。\n",
	})
	var calls [][2]int
	rep, err := eval.Segmentation(context.Background(), dir, scriptedChunker(t, map[string][]string{
		"a.txt": {"甲乙", "丙丁", "戊己"}, // exact
		"b.txt": {"王一", "庚", "王三"},  // 王二 missed, 庚 listed nowhere
		"c.txt": {"张甲", "李乙", "赵丁"}, // category volume: precision only
		"d.txt": {"刘基", "琏", "宋濂"},  // a relative's entry chunk: listed, but not exact
		"e.txt": {"赵大"},             // a run of 6 missed characters counts as 2 names
	}), func(done, total int) { calls = append(calls, [2]int{done, total}) })
	if err != nil {
		t.Fatal(err)
	}
	want := eval.SegmentationReport{
		Volumes: 5, VolumesNamed: 4, VolumesExact: 1, ExactRate: 0.25,
		NamesListed: 3 + 3 + 2 + 3, NamesFound: 3 + 2 + 2 + 1, NameRecall: 8.0 / 11,
		EntryChunks: 13, EntryChunksListed: 3 + 2 + 2 + 3 + 1, NamePrecision: 11.0 / 13,
		NamePrecisionNamed: 9.0 / 10, Chunks: 13 + 5,
	}
	got := rep
	got.Failures, got.Chars = nil, 0
	if !sameReport(got, want) {
		t.Fatalf("report\n got %+v\nwant %+v", got, want)
	}
	if len(calls) != 5 || calls[4] != [2]int{5, 5} {
		t.Fatalf("progress calls %v", calls)
	}
	byFile := map[string]eval.SegmentationFailure{}
	for _, f := range rep.Failures {
		byFile[filepath.Base(f.File)] = f
	}
	// Every volume misses entry openings (the scripted chunks all start
	// at 0); a's listing is exact.
	if len(byFile) != 5 {
		t.Fatalf("failures for %v, want a, b, c, d, e", rep.Failures)
	}
	if f := byFile["a.txt"]; len(f.Missing)+len(f.Extra)+len(f.Unlisted) != 0 || len(f.MissedOpenings) != 3 {
		t.Errorf("a: %+v", f)
	}
	if f := byFile["b.txt"]; !f.Named || strings.Join(f.Missing, ",") != "王二" || strings.Join(f.Extra, ",") != "庚" || strings.Join(f.Unlisted, ",") != "庚" {
		t.Errorf("b: %+v", f)
	}
	if f := byFile["c.txt"]; f.Named || strings.Join(f.Unlisted, ",") != "赵丁" || len(f.Missing) != 0 {
		t.Errorf("c: %+v", f)
	}
	if f := byFile["d.txt"]; strings.Join(f.Extra, ",") != "琏" || len(f.Unlisted) != 0 || len(f.Missing) != 0 {
		t.Errorf("d: %+v", f)
	}
	if f := byFile["e.txt"]; strings.Join(f.Missing, ",") != "钱二孙三李四" {
		t.Errorf("e: %+v", f)
	}
}

func sameReport(a, b eval.SegmentationReport) bool {
	eq := func(x, y float64) bool { return math.Abs(x-y) < 1e-9 }
	fa, fb := a, b
	fa.ExactRate, fa.NameRecall, fa.NamePrecision, fa.NamePrecisionNamed = 0, 0, 0, 0
	fb.ExactRate, fb.NameRecall, fb.NamePrecision, fb.NamePrecisionNamed = 0, 0, 0, 0
	return eq(a.ExactRate, b.ExactRate) && eq(a.NameRecall, b.NameRecall) && eq(a.NamePrecision, b.NamePrecision) &&
		eq(a.NamePrecisionNamed, b.NamePrecisionNamed) && fa.Volumes == fb.Volumes && fa.VolumesNamed == fb.VolumesNamed &&
		fa.VolumesExact == fb.VolumesExact && fa.NamesListed == fb.NamesListed && fa.NamesFound == fb.NamesFound &&
		fa.EntryChunks == fb.EntryChunks && fa.EntryChunksListed == fb.EntryChunksListed && fa.Chunks == fb.Chunks
}

// The listing rules: nested parentheses, full-width parentheses, a stop
// inside a group, heading markers.
func TestSegmentationListingRules(t *testing.T) {
	dir := volumes(t, map[string]string{
		"n.txt": "刘抃(吕翀(艾洪)赵佑)许天锡（周钥等）王艮(程济等。)\n刘抃，字某。\n",
	})
	rep, err := eval.Segmentation(context.Background(), dir, scriptedChunker(t, map[string][]string{
		"n.txt": {"刘抃", "艾洪", "许天锡", "王艮"},
	}), nil)
	if err != nil {
		t.Fatal(err)
	}
	// 艾洪 is an extra (a nested relative) but listed; the rest spell the
	// main string.
	if rep.VolumesNamed != 1 || rep.VolumesExact != 0 || rep.NamesFound != 3 || rep.NamesListed != 3 || rep.EntryChunksListed != 4 {
		t.Fatalf("%+v", rep)
	}
	rep, err = eval.Segmentation(context.Background(), dir, scriptedChunker(t, map[string][]string{
		"n.txt": {"刘抃", "许天锡", "王艮"},
	}), nil)
	if err != nil || rep.VolumesExact != 1 || rep.NameRecall != 1 || rep.NamePrecision != 1 {
		t.Fatalf("%+v %v", rep, err)
	}
}

func TestSegmentationErrors(t *testing.T) {
	dir := volumes(t, map[string]string{"a.txt": "甲乙\n甲乙，字丙。\n"})
	boom := errors.New("boom")
	_, err := eval.Segmentation(context.Background(), dir, func(context.Context, schemas.Document) ([]schemas.Chunk, error) {
		return nil, boom
	}, nil)
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "a.txt") {
		t.Fatalf("chunker error: %v", err)
	}
	if _, err := eval.Segmentation(context.Background(), filepath.Join(dir, "missing"), scriptedChunker(t, nil), nil); err == nil {
		t.Fatal("missing folder: want an error")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := eval.Segmentation(ctx, dir, scriptedChunker(t, nil), nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
}

// positionedChunker cuts each document at the lines that open with one of
// the given subjects; a subject written "+name" is an attached person.
func positionedChunker(subjects []string) eval.ChunkFunc {
	return func(_ context.Context, doc schemas.Document) ([]schemas.Chunk, error) {
		var at []entryAt
		for _, s := range subjects {
			name, attached := strings.CutPrefix(s, "+")
			if b := strings.Index("\n"+doc.Text, "\n"+name+"，"); b >= 0 {
				at = append(at, entryAt{at: len([]rune(doc.Text[:b])), subject: name, attached: attached})
			}
		}
		return tile(doc, at), nil
	}
}

func TestSegmentationEntryOpenings(t *testing.T) {
	dir := volumes(t, map[string]string{"a.txt": strings.Join([]string{
		"甲乙丙丁(子琏)",
		"甲乙，字子丑，某州人。仕至尚书。", // courtesy name: an entry
		"二十九年春，使来朝贡其子。",    // a time, not a name
		"琏，字孟藻。",           // a relative's own entry (attached)
		"丙丁，钮祜禄氏，世居长白山。",   // a clan
		"三年，从征某部。",         // a time
		"戊己，隶正蓝旗。",         // a banner
		"庚辛，某人之所为也。",       // not who a person is
		"壬癸，甲乙弟。",          // a kinship
		"子丑，由拔贡授知县。",       // no formula: not an entry opening
	}, "\n") + "\n"})
	rep, err := eval.Segmentation(context.Background(), dir,
		positionedChunker([]string{"甲乙", "+琏", "丙丁", "戊己", "子丑"}), nil)
	if err != nil {
		t.Fatal(err)
	}
	// Gold: 甲乙, 琏, 丙丁, 戊己, 壬癸. Found: the first four. Chunks with a
	// subject: five, of which 子丑 begins no entry opening.
	want := eval.EntryScore{Gold: 5, Found: 4, Recall: 0.8, Chunks: 5, Correct: 4, Precision: 0.8}
	if rep.Entries != want {
		t.Errorf("entries = %+v, want %+v", rep.Entries, want)
	}
	// The attached chunk is no main entry: the volume is exact (甲乙丙丁
	// needs 甲乙 and 丙丁; 戊己 and 子丑 are extra, so it is not).
	if rep.AttachedChunks != 1 || rep.AttachedListed != 1 {
		t.Errorf("attached = %d listed %d, want 1 and 1", rep.AttachedChunks, rep.AttachedListed)
	}
	if rep.NamesFound != 2 || rep.NamesListed != 2 {
		t.Errorf("names %d of %d, want 2 of 2", rep.NamesFound, rep.NamesListed)
	}
}

func TestSegmentationNoListing(t *testing.T) {
	// b.txt is its line 1 alone: nothing is left to chunk, and the volume
	// still counts.
	dir := volumes(t, map[string]string{"a.txt": "甲乙丙丁\n甲乙，某州人。\n丙丁，某州人。\n", "b.txt": "戊己，某州人。"})
	var seen string
	rep, err := eval.SegmentationWith(context.Background(), dir, func(ctx context.Context, doc schemas.Document) ([]schemas.Chunk, error) {
		if doc.Text == "" {
			t.Error("the chunker was given an empty document")
		}
		if strings.HasPrefix(doc.Source, "b") || strings.Contains(doc.Source, "/b") {
			return nil, nil
		}
		seen = doc.Text
		return positionedChunker([]string{"甲乙", "丙丁"})(ctx, doc)
	}, eval.SegmentationOptions{NoListing: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if seen != "甲乙，某州人。\n丙丁，某州人。\n" {
		t.Errorf("the chunker saw %q, want the text without line 1", seen)
	}
	if !rep.NoListing || rep.Volumes != 2 || rep.VolumesExact != 1 || rep.Entries.Found != 2 || rep.Entries.Correct != 2 {
		t.Errorf("report = %+v, want the listing scored: exact, both openings found", rep)
	}
}
