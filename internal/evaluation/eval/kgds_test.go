package eval_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/annalist-dev/annalist/internal/evaluation/eval"
	"github.com/annalist-dev/annalist/schemas"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestBSPScore(t *testing.T) {
	for _, c := range []struct {
		sel, gold []int
		p, r, f1  float64
	}{
		{[]int{1, 2, 3}, []int{1, 2, 3}, 1, 1, 1},
		{[]int{1, 2, 5, 6}, []int{1, 2}, 0.5, 1, 2.0 / 3},
		{[]int{1}, []int{1, 2, 3, 4}, 1, 0.25, 0.4},
		{nil, []int{1}, 0, 0, 0},
		{[]int{7}, []int{1}, 0, 0, 0},
		{[]int{1, 1, 2}, []int{1, 2}, 1, 1, 1},
	} {
		p, r, f1 := eval.BSPScore(c.sel, c.gold)
		if !near(p, c.p) || !near(r, c.r) || !near(f1, c.f1) {
			t.Errorf("BSPScore(%v, %v) = %.3f %.3f %.3f, want %.3f %.3f %.3f", c.sel, c.gold, p, r, f1, c.p, c.r, c.f1)
		}
	}
}

func TestEntityNames(t *testing.T) {
	got := eval.BoldEntities([]string{
		"Person1 thinks that **the Harbour Council's** vote was wrong.",
		"Person2 thinks that **Petra Lind** is right and **the harbour council** should listen to **Lind**.",
	})
	if want := []string{"the Harbour Council's", "Petra Lind", "Lind"}; !slices.Equal(got, want) {
		t.Errorf("BoldEntities = %q, want %q", got, want)
	}
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"the Harbour Council's", "Harbour Council", true},
		{"Petra Lind’s", "petra lind", true},
		{"Lind", "Petra Lind", true},
		{"reduce Petra Lind's strike", "Petra Lind", true},
		{"the Reds' coach", "Reds coach", true},
		{"Lin", "Petra Lind", false},
		{"Marlow", "Harbour Council", false},
		{"", "Marlow", false},
	} {
		if got := eval.EntityMatch(c.a, c.b); got != c.want {
			t.Errorf("EntityMatch(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
	for s, want := range map[string]bool{
		"Person1 thinks that she was right.":                        true,
		"Person1 thinks that **Petra Lind's** members will strike.": false,
		"Person2 thinks that their wages are too low.":              true,
		"Person2 thinks that it is unfair to **the union**.":        false,
		"Person1 thinks that **Shepherd** should resign.":           false,
	} {
		if got := eval.HasBarePronoun(s); got != want {
			t.Errorf("HasBarePronoun(%q) = %v, want %v", s, got, want)
		}
	}
}

const kgdsSample = `{"id": %q, "SBK": [{"paragraph_index": 1, "paragraph_text": "Petra Lind leads the union."},
 {"paragraph_index": 2, "paragraph_text": "The council closed the harbour."},
 {"paragraph_index": 3, "paragraph_text": "It rained."}],
 "KGD": [{"participant": "Person1", "utterance": "She is right."}, {"participant": "Person2", "utterance": "The council was wrong."}],
 "BSP": [{"paragraph_index": 1, "paragraph_text": "Petra Lind leads the union."}, {"paragraph_index": 2, "paragraph_text": "The council closed the harbour."}],
 "CAO": ["Person1 thinks that **Petra Lind** is right.", "Person2 thinks that **the council** was wrong."]}`

// writeSamples writes kgdsSample once per id, as JSON lines.
func writeSamples(t *testing.T, ids ...string) string {
	t.Helper()
	var b bytes.Buffer
	for _, id := range ids {
		if err := json.Compact(&b, []byte(fmt.Sprintf(kgdsSample, id))); err != nil {
			t.Fatal(err)
		}
		b.WriteByte('\n')
	}
	path := filepath.Join(t.TempDir(), "kgds.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestReadKGDS(t *testing.T) {
	samples, err := eval.ReadKGDS(writeSamples(t, "a", "b"))
	if err != nil {
		t.Fatal(err)
	}
	if len(samples) != 2 || samples[1].ID != "b" || !slices.Equal(samples[0].BSP, []int{1, 2}) || len(samples[0].CAO) != 2 || len(samples[0].Turns) != 2 {
		t.Fatalf("read %+v", samples)
	}
	// A JSON array reads the same.
	path := filepath.Join(t.TempDir(), "kgds.json")
	if err := os.WriteFile(path, []byte("["+fmt.Sprintf(kgdsSample, "a")+"]"), 0o644); err != nil {
		t.Fatal(err)
	}
	if s, err := eval.ReadKGDS(path); err != nil || len(s) != 1 || s[0].ID != "a" {
		t.Errorf("array: %+v, %v", s, err)
	}
	for name, body := range map[string]string{
		"empty":    "",
		"not json": "SBK KGD",
		"no turns": `{"SBK": [{"paragraph_index": 1, "paragraph_text": "x"}]}`,
	} {
		path := filepath.Join(t.TempDir(), "bad.json")
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := eval.ReadKGDS(path); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestKGDS(t *testing.T) {
	// Ids chosen so that one is held out and one is not.
	var dev, held string
	for i := 0; dev == "" || held == ""; i++ {
		id := fmt.Sprint(i)
		if eval.HeldOut(id) {
			held = id
		} else {
			dev = id
		}
	}
	samples, err := eval.ReadKGDS(writeSamples(t, dev, held))
	if err != nil {
		t.Fatal(err)
	}
	rep := eval.KGDS(samples, func(d schemas.Discussion) schemas.DiscussionSummary {
		sum := schemas.DiscussionSummary{ID: d.ID}
		if d.ID == dev {
			// Perfect: both gold paragraphs, both entities, no pronoun.
			sum.Background.Paragraphs = []int{1, 2}
			sum.Opinions = []schemas.ParticipantOpinions{
				{Participant: "Person1", Sentences: []schemas.OpinionSentence{{Text: "Person1 thinks that Petra Lind is right.", Entities: []string{"Petra Lind"}}}},
				{Participant: "Person2", Sentences: []schemas.OpinionSentence{{Text: "Person2 thinks that the council was wrong.", Entities: []string{"The Council"}}}},
			}
			return sum
		}
		// Every paragraph; one pronoun left; one entity the gold does not name.
		sum.Background.Paragraphs = []int{1, 2, 3}
		sum.Opinions = []schemas.ParticipantOpinions{
			{Participant: "Person1", Sentences: []schemas.OpinionSentence{{Text: "Person1 thinks that she is right.", Entities: []string{}}}},
			{Participant: "Person2", Sentences: []schemas.OpinionSentence{{Text: "Person2 thinks that the council of Marlow was wrong.", Entities: []string{"council", "Marlow"}}}},
		}
		return sum
	})
	if rep.Dev.Samples != 1 || rep.HeldOut.Samples != 1 || rep.Overall.Samples != 2 {
		t.Fatalf("splits: %+v", rep)
	}
	d, h, o := rep.Dev, rep.HeldOut, rep.Overall
	if !near(d.BSPF1, 1) || !near(d.EntityRecall, 1) || !near(d.EntityPrecision, 1) || d.PronounShare != 0 {
		t.Errorf("dev: %+v", d)
	}
	if !near(h.BSPPrecision, 2.0/3) || !near(h.BSPRecall, 1) || !near(h.BSPF1, 0.8) {
		t.Errorf("held out BSP: %+v", h)
	}
	if !near(h.EntityRecall, 0.5) || !near(h.EntityPrecision, 0.5) || !near(h.PronounShare, 0.5) || h.GoldPronounShare != 0 {
		t.Errorf("held out entities: %+v", h)
	}
	if !near(o.BSPF1, 0.9) || !near(o.EntityRecall, 0.75) || !near(o.PronounShare, 0.25) || !near(o.SelectedShare, 5.0/6) || !near(o.GoldShare, 4.0/6) {
		t.Errorf("overall: %+v", o)
	}
	r := rep.Results[1]
	if !slices.Equal(r.MissedEntities, []string{"Petra Lind"}) || !slices.Equal(r.ExtraEntities, []string{"Marlow"}) {
		t.Errorf("held out result: %+v", r)
	}
}

// A name the gold opinions write in plain text (the turn said it, so the
// gold did not bold it) counts for precision; bold-only precision is kept
// beside it.
func TestKGDSPrecisionCountsNamesTheGoldWrites(t *testing.T) {
	sample := eval.KGDSSample{
		Discussion: schemas.Discussion{ID: "p"},
		CAO:        []string{"Person1 thinks that **Petra Lind** beat Anna Berg's team."},
	}
	sum := schemas.DiscussionSummary{ID: "p", Opinions: []schemas.ParticipantOpinions{{Participant: "Person1",
		Sentences: []schemas.OpinionSentence{{Text: "Person1 thinks that Petra Lind beat Anna Berg's team in Marlow.",
			Entities: []string{"Petra Lind", "Anna Berg", "Marlow"}}}}}}
	r := eval.ScoreKGDS(sample, sum)
	if r.EntityPrecision == nil || !near(*r.EntityPrecision, 2.0/3) || !near(*r.EntityPrecisionBold, 1.0/3) {
		t.Fatalf("precision %v, bold %v; want 2/3 and 1/3", r.EntityPrecision, r.EntityPrecisionBold)
	}
	if !slices.Equal(r.PlainEntities, []string{"Anna Berg"}) || !slices.Equal(r.ExtraEntities, []string{"Marlow"}) {
		t.Fatalf("plain %v, extra %v", r.PlainEntities, r.ExtraEntities)
	}
	if r.EntityRecall == nil || !near(*r.EntityRecall, 1) {
		t.Fatalf("recall %v; want 1 (only bold names are recalled)", r.EntityRecall)
	}
}
