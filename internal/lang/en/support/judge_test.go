package support

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/internal/kit/goldentest"
)

// judgeCase is one line of testdata/judge.jsonl: a claim, its evidence, the
// label the judge must give and the texts of the spans it must return.
type judgeCase struct {
	Name     string   `json:"name"`
	Claim    string   `json:"claim"`
	Evidence []string `json:"evidence"`
	Label    string   `json:"label"`
	Spans    []string `json:"spans"`
}

func TestJudgeGolden(t *testing.T) {
	goldentest.Run(t, os.DirFS("testdata"), "judge.jsonl", func(t *testing.T, c judgeCase, fail goldentest.Fail) {
		r := Judge(c.Claim, c.Evidence)
		var got []string
		for _, s := range r.Spans {
			got = append(got, s.Text)
			if rs := []rune(c.Evidence[s.Passage]); string(rs[s.Start:s.End]) != s.Text {
				fail("span %+v is not the passage's runes [%d, %d)", s, s.Start, s.End)
			}
		}
		if r.Label != c.Label || !slices.Equal(got, c.Spans) && (len(got) > 0 || len(c.Spans) > 0) {
			fail("label %q spans %q (score %.3f), want %q %q", r.Label, got, r.Score, c.Label, c.Spans)
		}
		if r.Score < 0 || r.Score > 1 {
			fail("score %v outside [0, 1]", r.Score)
		}
	})
}

func TestStripCitations(t *testing.T) {
	for in, want := range map[string]string{
		"Water boils at 100 °C at sea level [1].": "Water boils at 100 °C at sea level.",
		"Both agree [2, 3][5] on this.":           "Both agree on this.",
		"No marker here.":                         "No marker here.",
		"A list [1] and another [12].":            "A list and another.",
	} {
		if got := StripCitations(in); got != want {
			t.Errorf("StripCitations(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestModelFileRoundTrip(t *testing.T) {
	m := Default()
	var b bytes.Buffer
	if err := m.Write(&b, "header"); err != nil {
		t.Fatal(err)
	}
	back, err := ReadModel(&b)
	if err != nil {
		t.Fatal(err)
	}
	if back.Bias != m.Bias || back.CutComplete != m.CutComplete || !slices.Equal(back.Weights, m.Weights) {
		t.Errorf("read back %+v, want %+v", back, m)
	}
	if _, err := ReadModel(strings.NewReader("feature\tx\t1\t1\t1\n")); err == nil {
		t.Error("a model with unknown features was read")
	}
}

func TestWordLists(t *testing.T) {
	for _, err := range words.Check() {
		t.Error(err)
	}
}
