package support

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
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
	f, err := os.Open("testdata/judge.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		var c judgeCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("line %d: %v", n+1, err)
		}
		n++
		t.Run(c.Name, func(t *testing.T) {
			r := Judge(c.Claim, c.Evidence)
			var got []string
			for _, s := range r.Spans {
				got = append(got, s.Text)
				if rs := []rune(c.Evidence[s.Passage]); string(rs[s.Start:s.End]) != s.Text {
					t.Errorf("span %+v is not the passage's runes [%d, %d)", s, s.Start, s.End)
				}
			}
			if r.Label != c.Label || !slices.Equal(got, c.Spans) && (len(got) > 0 || len(c.Spans) > 0) {
				t.Errorf("label %q spans %q (score %.3f), want %q %q", r.Label, got, r.Score, c.Label, c.Spans)
			}
			if r.Score < 0 || r.Score > 1 {
				t.Errorf("score %v outside [0, 1]", r.Score)
			}
		})
	}
	if n == 0 {
		t.Fatal("no cases")
	}
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
