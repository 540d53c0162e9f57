package eval_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/internal/evaluation/eval"
	"github.com/annalist-dev/annalist/schemas"
)

// A volume written for this test: line 1 lists 林安, 周明 (with his son in
// parentheses), 王濂 and 叶应聪; 周明's entry opens mid-line, 王濂's by his
// given name, 叶应聪's with a variant character; a later line that begins
// with 林安's name does not open a second entry of his.
const volume = "林安周明(子琮)王濂叶应聪\n" +
	"林安，字子平，号石溪，闽县人。举万历五年进士。\n" +
	"安历官吏部右侍郎。卒。周明，字伯达，莆田人。官至户部尚书。\n" +
	"林安，周明之友也，尝论学于书院。\n" +
	"子琮，字季玉，以荫补官。\n" +
	"濂，字习古，定远人。\n" +
	"叶应骢，字肃卿，鄞人。正德十二年进士。\n"

// lineChunks chunks a document by lines, as a stand-in for the chunker.
func lineChunks(_ context.Context, doc schemas.Document) ([]schemas.Chunk, error) {
	var out []schemas.Chunk
	pos := 0
	for i, l := range strings.SplitAfter(doc.Text, "\n") {
		if l == "" {
			continue
		}
		n := utf8.RuneCountInString(l)
		out = append(out, schemas.Chunk{ChunkID: doc.DocID + "-" + string(rune('a'+i)), DocID: doc.DocID,
			Text: l, Start: pos, End: pos + n})
		pos += n
	}
	return out, nil
}

func volumeDir(t *testing.T) string {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "001.txt"), []byte(volume), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestRetrievalQueries(t *testing.T) {
	qs, err := eval.RetrievalQueries(context.Background(), volumeDir(t), lineChunks)
	if err != nil {
		t.Fatal(err)
	}
	type q struct {
		name    string
		aliases []string
		chunks  int
	}
	want := []q{
		{"林安", []string{"子平", "石溪"}, 1}, // the next line is mostly 周明's
		{"周明", []string{"伯达"}, 3},       // opens mid-line; the two lines after, his son's included
		{"王濂", []string{"习古"}, 1},
		{"叶应聪", []string{"肃卿"}, 1},
	}
	if len(qs) != len(want) {
		t.Fatalf("%d queries %+v, want %d", len(qs), qs, len(want))
	}
	for i, w := range want {
		g := qs[i]
		if g.Name != w.name || !slices.Equal(g.Aliases, w.aliases) || len(g.Chunks) != w.chunks {
			t.Errorf("query %d: %s %v %v, want %s %v with %d chunks", i, g.Name, g.Aliases, g.Chunks, w.name, w.aliases, w.chunks)
		}
	}
}

func TestRetrievalScores(t *testing.T) {
	ctx := context.Background()
	qs, err := eval.RetrievalQueries(ctx, volumeDir(t), lineChunks)
	if err != nil {
		t.Fatal(err)
	}
	ref := func(id, text string) schemas.Reference { return schemas.Reference{ChunkID: id, Text: text} }
	own := func(name string) []schemas.Reference {
		for _, q := range qs {
			if q.Name == name {
				var out []schemas.Reference
				for _, c := range q.Chunks {
					out = append(out, ref(c, ""))
				}
				return out
			}
		}
		return nil
	}
	systems := map[string]eval.RetrieveFunc{
		// Every query answered with its own chunks: 1, 1, 1.
		"perfect": func(_ context.Context, name string) ([]schemas.Reference, error) { return own(name), nil },
		// Half the own chunks of 林安 and 周明 plus a chunk that names the
		// person by courtesy name (precise) and one that does not; nothing
		// for the others.
		"partial": func(_ context.Context, name string) ([]schemas.Reference, error) {
			switch name {
			case "林安":
				return append(own(name)[:1], ref("x1", "子平来游"), ref("x2", "无关")), nil
			case "周明":
				return append(own(name)[:1], ref("x3", "伯达"), ref("x3", "伯达"), ref("x4", "无关")), nil
			}
			return nil, nil
		},
	}
	rep, err := eval.Retrieval(ctx, qs, systems, nil)
	if err != nil {
		t.Fatal(err)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	p := rep.Scores["perfect"]
	if !near(p.Precision, 1) || !near(p.Recall, 1) || !near(p.F1, 1) || p.Answered != 4 {
		t.Errorf("perfect %+v", p)
	}
	// 林安: P 2/3, R 1, F1 4/5; 周明 (a duplicate counted once): P 2/3,
	// R 1/3, F1 4/9; the two unanswered 0; macro over four.
	s := rep.Scores["partial"]
	if !near(s.Precision, (2.0/3+2.0/3)/4) || !near(s.Recall, (1+1.0/3)/4) || !near(s.F1, (0.8+4.0/9)/4) ||
		s.Answered != 2 || !near(s.MeanReferences, 7.0/4) {
		t.Errorf("partial %+v", s)
	}
	if n := len(rep.Misses); n != 3 {
		t.Errorf("%d misses %+v, want 周明 and the two unanswered", n, rep.Misses)
	}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"perfect", "partial", "queries", "averaging"} {
		if _, ok := m[k]; !ok {
			t.Errorf("report JSON lacks %q: %s", k, b)
		}
	}
	if pp := m["perfect"].(map[string]any); pp["f1"] != 1.0 || pp["precision"] == nil || pp["recall"] == nil {
		t.Errorf("perfect score JSON %v", pp)
	}
}

// TestRetrievalStrict: under the strict definition the son's entry inside
// 周明's is not his own text, so returning it costs precision, and leaving
// it out costs no recall.
func TestRetrievalStrict(t *testing.T) {
	ctx := context.Background()
	qs, err := eval.RetrievalQueries(ctx, volumeDir(t), lineChunks)
	if err != nil {
		t.Fatal(err)
	}
	var zhou eval.RetrievalQuery
	for _, q := range qs {
		if q.Name == "周明" {
			zhou = q
		}
		if len(q.Own) == 0 {
			t.Errorf("%s has no own chunks", q.Name)
		}
	}
	if len(zhou.Chunks) != 3 || len(zhou.Own) != 2 || !slices.Equal(zhou.Own, zhou.Chunks[:2]) {
		t.Fatalf("周明: chunks %v own %v, want the first two of three", zhou.Chunks, zhou.Own)
	}
	refs := func(ids []string) []schemas.Reference {
		var out []schemas.Reference
		for _, id := range ids {
			out = append(out, schemas.Reference{ChunkID: id, Text: "子琮，字季玉，以荫补官。"})
		}
		return out
	}
	systems := map[string]eval.RetrieveFunc{
		"entry": func(_ context.Context, name string) ([]schemas.Reference, error) {
			if name != "周明" {
				return nil, nil
			}
			return refs(zhou.Chunks), nil
		},
		"own": func(_ context.Context, name string) ([]schemas.Reference, error) {
			if name != "周明" {
				return nil, nil
			}
			return refs(zhou.Own), nil
		},
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	for _, tc := range []struct {
		strict          bool
		system          string
		precision, rcll float64
	}{
		{false, "entry", 1, 1},
		{false, "own", 1, 2.0 / 3},
		{true, "entry", 2.0 / 3, 1},
		{true, "own", 1, 1},
	} {
		rep, err := eval.RetrievalWith(ctx, []eval.RetrievalQuery{zhou}, systems, eval.RetrievalOptions{Strict: tc.strict}, nil)
		if err != nil {
			t.Fatal(err)
		}
		s := rep.Scores[tc.system]
		if !near(s.Precision, tc.precision) || !near(s.Recall, tc.rcll) || rep.Strict != tc.strict {
			t.Errorf("strict=%v %s: %+v, want precision %.3f recall %.3f", tc.strict, tc.system, s, tc.precision, tc.rcll)
		}
	}
}

// sentenceChunks chunks a document at every full stop and line end.
func sentenceChunks(_ context.Context, doc schemas.Document) ([]schemas.Chunk, error) {
	var out []schemas.Chunk
	rs := []rune(doc.Text)
	start := 0
	for i, r := range rs {
		if r == '。' || r == '\n' || i == len(rs)-1 {
			if i+1 > start {
				out = append(out, schemas.Chunk{ChunkID: fmt.Sprintf("%s-%04d", doc.DocID, len(out)), DocID: doc.DocID,
					Text: string(rs[start : i+1]), Start: start, End: i + 1})
			}
			start = i + 1
		}
	}
	return out, nil
}

// TestRetrievalStrictInlineOpening: a person line 1 names in parentheses
// whose text opens inside a paragraph of the entry ("…。丙丁，字子二") is
// not the entry's person's own text from there on; an unlisted name
// opening the same way is.
func TestRetrievalStrictInlineOpening(t *testing.T) {
	dir := t.TempDir()
	vol := "甲乙(丙丁)\n甲乙，字子一，某县人。官至尚书。丙丁，字子二，某县人。官御史。戊己，字子三，某县人。\n"
	if err := os.WriteFile(filepath.Join(dir, "001.txt"), []byte(vol), 0o644); err != nil {
		t.Fatal(err)
	}
	qs, err := eval.RetrievalQueries(context.Background(), dir, sentenceChunks)
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 1 || len(qs[0].Chunks) != 6 || len(qs[0].Own) != 2 {
		t.Fatalf("queries %+v, want 甲乙 with six chunks, his own the first two", qs)
	}
}

// TestRetrievalStrictIntroducedOpening: a person line 1 names in
// parentheses whose text a sentence opens after the words that bring him
// in, closed by 者 ("合肥丙丁者，…"), is not the entry's person's own text
// from there on.
func TestRetrievalStrictIntroducedOpening(t *testing.T) {
	dir := t.TempDir()
	vol := "甲乙(丙丁)\n甲乙，字子一，某县人。官至尚书。\n合肥丙丁者，南北征伐。官御史。\n"
	if err := os.WriteFile(filepath.Join(dir, "001.txt"), []byte(vol), 0o644); err != nil {
		t.Fatal(err)
	}
	qs, err := eval.RetrievalQueries(context.Background(), dir, sentenceChunks)
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 1 || len(qs[0].Chunks) != 6 || len(qs[0].Own) != 3 || !slices.Equal(qs[0].Own, qs[0].Chunks[:3]) {
		t.Fatalf("queries %+v, want 甲乙 with six chunks, his own the first three (his paragraph)", qs)
	}
}

// TestRetrievalStrictNamedAfterWho: a sentence that says who a listed
// person was and then names him after 者 ("时与乙同里而先为南京兵部尚书者丙丁，字子二")
// begins his text.
func TestRetrievalStrictNamedAfterWho(t *testing.T) {
	dir := t.TempDir()
	vol := "甲乙(丙丁)\n甲乙，字子一，某县人。官至尚书。时与乙同里而先为南京兵部尚书者丙丁，字子二。官御史。\n"
	if err := os.WriteFile(filepath.Join(dir, "001.txt"), []byte(vol), 0o644); err != nil {
		t.Fatal(err)
	}
	qs, err := eval.RetrievalQueries(context.Background(), dir, sentenceChunks)
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 1 || len(qs[0].Chunks) != 5 || len(qs[0].Own) != 2 || !slices.Equal(qs[0].Own, qs[0].Chunks[:2]) {
		t.Fatalf("queries %+v, want 甲乙 with five chunks, his own the first two", qs)
	}
}

// TestRetrievalStrictNamedSubject: a sentence whose subject is a listed
// person, written after the words that bring him in and followed by 亦,
// or by a stop and his courtesy name, begins his text; so does a line
// that opens with his name alone and a comma.
func TestRetrievalStrictNamedSubject(t *testing.T) {
	for _, tc := range []struct {
		name, vol string
		own       int // his own chunks: the sentences before the person's (and a line break)
	}{
		{"亦", "甲乙(丙丁)\n甲乙，字子一，某县人。官至尚书。时御史古田丙丁亦在军中。\n", 2},
		{"a stop and the courtesy name", "甲乙(丙丁)\n甲乙，字子一，某县人。官至尚书。同邑丙丁。字子二。\n", 2},
		{"a line opening with the name", "甲乙(丙丁)\n甲乙，字子一，某县人。官至尚书。\n丙丁，袭伯爵。\n", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "001.txt"), []byte(tc.vol), 0o644); err != nil {
				t.Fatal(err)
			}
			qs, err := eval.RetrievalQueries(context.Background(), dir, sentenceChunks)
			if err != nil {
				t.Fatal(err)
			}
			if len(qs) != 1 || len(qs[0].Own) != tc.own || !slices.Equal(qs[0].Own, qs[0].Chunks[:tc.own]) {
				t.Fatalf("queries %+v, want 甲乙's own text the first %d chunks", qs, tc.own)
			}
		})
	}
}
