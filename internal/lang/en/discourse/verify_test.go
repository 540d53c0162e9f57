package discourse

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/internal/evaluation/dataset/datasettest"
	"github.com/annalist-dev/annalist/internal/evaluation/eval"
	"github.com/annalist-dev/annalist/schemas"
)

// verifyFixture: the coref fixture's background with a discussion about
// it.
func verifyFixture() schemas.Discussion {
	return fixture(
		"I think she deserved the title because her serve was unstoppable. She didn't panic at 5-5 in the third set.",
		"No, I believe the umpire made two bad calls, and her coach was right to complain.",
		"The board fined them 20,000 dollars, and I hope the club appeals.",
		"I'm not convinced the fans are to blame. Their decision was harsh.",
		"Brandt lost the final because Lindqvist served better.",
	)
}

func TestVerifySummarizeOpinions(t *testing.T) {
	for _, d := range []schemas.Discussion{
		verifyFixture(),
		fixture("Lindqvist played brilliantly and she deserved to win.", "I disagree, Brandt was injured and she could not move freely."),
		fixture("The Harbour Rovers should control their fans.", "I don't think the board was fair to them."),
	} {
		g := BuildGraph(d)
		n := 0
		for _, p := range Summarize(d).Opinions {
			for _, s := range p.Sentences {
				n++
				if v := VerifyOpinion(d, g, s); v.Status != schemas.StatusSupported {
					t.Errorf("%q (turn %v): %s %s: %s", s.Text, s.Citations, v.Status, v.ErrorType, v.Reason)
				}
			}
		}
		if n == 0 {
			t.Errorf("no opinions written for %v", d.Turns)
		}
	}
}

func TestVerifyCatchesWrongOpinions(t *testing.T) {
	d := verifyFixture()
	g := BuildGraph(d)
	cite := func(ts ...int) []schemas.TurnCitation {
		var out []schemas.TurnCitation
		for _, t := range ts {
			out = append(out, schemas.TurnCitation{Turn: t})
		}
		return out
	}
	for _, tc := range []struct {
		name, text string
		turns      []int
		status     string
		errType    string
	}{
		{"right", "Person1 thinks that Maria Lindqvist deserved the title.", []int{0}, schemas.StatusSupported, ""},
		{"right negation", "Person1 thinks that Maria Lindqvist didn't panic at 5-5 in the third set.", []int{0}, schemas.StatusSupported, ""},
		{"right number", "Person1 thinks that the Tennis Integrity Board fined the Harbour Rovers 20,000 dollars.", []int{2}, schemas.StatusSupported, ""},
		{"speaker as subject", "Person1 hopes the Harbour Rovers appeals.", []int{2}, schemas.StatusSupported, ""},
		{"wrong participant", "Person2 thinks that Maria Lindqvist deserved the title.", []int{0}, schemas.StatusNotSupported, OpinionErrorAttribution},
		{"no participant", "Everyone thinks that Maria Lindqvist deserved the title.", []int{0}, schemas.StatusNotSupported, OpinionErrorAttribution},
		{"wrong turn index", "Person1 thinks that Maria Lindqvist deserved the title.", []int{2}, schemas.StatusNotIncluded, ""},
		{"turn of the other participant", "Person1 thinks that Maria Lindqvist deserved the title.", []int{1}, schemas.StatusNotSupported, OpinionErrorAttribution},
		{"turn out of range", "Person1 thinks that Maria Lindqvist deserved the title.", []int{9}, schemas.StatusNotSupported, OpinionErrorOther},
		{"invented entity", "Person1 thinks that Serena Okoye deserved the title.", []int{0}, schemas.StatusNotSupported, OpinionErrorEntity},
		{"name for another name", "Person1 thinks that Peter Holm lost the final.", []int{4}, schemas.StatusNotSupported, OpinionErrorEntity},
		{"negation added", "Person1 thinks that Maria Lindqvist never deserved the title.", []int{0}, schemas.StatusNotSupported, OpinionErrorPolarity},
		{"negation dropped", "Person1 thinks that Maria Lindqvist did panic at 5-5 in the third set.", []int{0}, schemas.StatusNotSupported, OpinionErrorPolarity},
		{"changed number", "Person1 thinks that the Tennis Integrity Board fined the Harbour Rovers 50,000 dollars.", []int{2}, schemas.StatusNotSupported, OpinionErrorValue},
		{"changed score", "Person1 thinks that Maria Lindqvist didn't panic at 6-5 in the third set.", []int{0}, schemas.StatusNotSupported, OpinionErrorValue},
		{"added clause", "Person1 thinks that Maria Lindqvist deserved the title because the crowd supported her loudly.", []int{0}, schemas.StatusNotIncluded, ""},
		{"missing citation", "Person1 thinks that Maria Lindqvist deserved the title.", nil, schemas.StatusNotIncluded, ""},
		{"two citations", "Person1 thinks that Maria Lindqvist deserved the title.", []int{0, 2}, schemas.StatusNotSupported, OpinionErrorOther},
	} {
		v := VerifyOpinion(d, g, schemas.OpinionSentence{Text: tc.text, Citations: cite(tc.turns...)})
		if v.Status != tc.status || v.ErrorType != tc.errType {
			t.Errorf("%s: %q → %s %q (%s), want %s %q", tc.name, tc.text, v.Status, v.ErrorType, v.Reason, tc.status, tc.errType)
		}
		if v.Reason == "" {
			t.Errorf("%s: verdict without a reason", tc.name)
		}
	}
}

// TestVerifyKGDSDev checks every opinion Summarize writes for KGDS dev,
// and, for information, the gold opinions (CAO) against the turn of their
// participant most like them.
func TestVerifyKGDSDev(t *testing.T) {
	path := filepath.Join(datasettest.Require(t, "kgds"), "dev.json")
	samples, err := eval.ReadKGDS(path)
	if err != nil {
		t.Fatal(err)
	}
	var ours, oursOK, gold, goldOK int
	failures := map[string]int{}
	shown := 0
	for _, s := range samples {
		g := BuildGraph(s.Discussion)
		for _, p := range Summarize(s.Discussion).Opinions {
			for _, o := range p.Sentences {
				ours++
				v := VerifyOpinion(s.Discussion, g, o)
				if v.Status == schemas.StatusSupported {
					oursOK++
					continue
				}
				failures[v.Status+" "+v.ErrorType]++
				if shown < 10 {
					shown++
					t.Logf("%s: %q: %s %s: %s", s.ID, o.Text, v.Status, v.ErrorType, v.Reason)
				}
			}
		}
		for _, c := range s.CAO {
			text := strings.ReplaceAll(c, "**", "")
			ti := mostSimilarTurn(s.Discussion, text)
			if ti < 0 {
				continue
			}
			gold++
			v := VerifyOpinion(s.Discussion, g, schemas.OpinionSentence{Text: text, Citations: []schemas.TurnCitation{{Turn: ti}}})
			if v.Status == schemas.StatusSupported {
				goldOK++
			}
		}
	}
	if ours == 0 {
		t.Fatal("no opinions written")
	}
	share := float64(oursOK) / float64(ours)
	t.Logf("our opinions supported: %d/%d = %.3f; not supported by kind: %v", oursOK, ours, share, failures)
	if gold > 0 {
		t.Logf("gold opinions supported by their most similar turn: %d/%d = %.3f", goldOK, gold, float64(goldOK)/float64(gold))
	}
	if share < 0.95 {
		t.Errorf("only %.3f of our opinions are supported by their turns", share)
	}
}

// mostSimilarTurn is the turn of the opinion's participant sharing the
// most words with it, or -1.
func mostSimilarTurn(d schemas.Discussion, text string) int {
	ws := map[string]bool{}
	for _, w := range expand(tokenize(text), nil, "") {
		if !functionWords[w.norm] {
			ws[w.norm] = true
		}
	}
	who := ""
	if f := strings.Fields(text); len(f) > 0 {
		who = f[0]
	}
	best, bestN := -1, -1
	for i, t := range d.Turns {
		if t.Participant != who {
			continue
		}
		n := 0
		for _, w := range expand(tokenize(t.Utterance), nil, who) {
			if ws[w.norm] {
				n++
			}
		}
		if n > bestN {
			best, bestN = i, n
		}
	}
	return best
}
