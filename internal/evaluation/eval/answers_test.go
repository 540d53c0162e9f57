package eval_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/internal/evaluation/eval"
	"github.com/annalist-dev/annalist/schemas"
)

// wordsSupport is a judge for the tests: passages support a claim when
// every word of the claim is a word of one of them.
func wordsSupport(claim string, passages []string) bool {
	have := map[string]bool{}
	for _, p := range passages {
		for _, w := range strings.Fields(strings.ToLower(strings.Trim(p, "."))) {
			have[strings.Trim(w, ".,?")] = true
		}
	}
	for _, w := range strings.Fields(strings.ToLower(claim)) {
		if !have[strings.Trim(w, ".,?")] {
			return false
		}
	}
	return true
}

// titled is a document's passage for the tests: its title, then its text.
func titled(d schemas.AnswerDocument) string { return d.Title + ". " + d.Text }

// ALCE's citation recall and precision on a hand-written answer: a
// sentence without citations is unsupported, an unsupported sentence's
// citations are all irrelevant, a citation the rest can do without (and
// that supports nothing alone) is irrelevant, one that supports the
// sentence alone is relevant even beside another that does, and a
// citation outside the documents makes its sentence unsupported.
func TestScoreCitations(t *testing.T) {
	passages := []string{"red apple", "green pear", "red apple green pear", "blue sky"}
	sentences := []eval.CitedSentence{
		{Text: "red apple", Citations: []int{1}},               // supported, 1 relevant
		{Text: "red apple green pear", Citations: []int{1, 2}}, // supported, both needed
		{Text: "red apple", Citations: []int{1, 4}},            // supported; 4 can go
		{Text: "green pear", Citations: []int{2, 3}},           // supported; each alone supports
		{Text: "blue sky", Citations: nil},                     // no citation
		{Text: "blue pear", Citations: []int{4}},               // unsupported
		{Text: "blue sky", Citations: []int{9}},                // outside the documents
	}
	got := eval.ScoreCitations(sentences, passages, wordsSupport)
	want := eval.Citations{Sentences: 7, Cited: 6, Supported: 4, Citations: 9, Relevant: 6,
		Recall: 4.0 / 7, Precision: 6.0 / 9, CitedShare: 6.0 / 7}
	if got != want {
		t.Fatalf("ScoreCitations = %+v; want %+v", got, want)
	}
	if z := eval.ScoreCitations(nil, passages, wordsSupport); z != (eval.Citations{}) {
		t.Errorf("no sentence: %+v; want zeros", z)
	}
}

// The hand-written answers are read as ALCE writes them: sentences with
// their [k] markers (markers split off after an abbreviation's period go
// with the sentence before), and QAMPARI's lists item by item, each a
// claim "question item".
func TestGoldSentences(t *testing.T) {
	prose := eval.ALCEDemo{Question: "Q?", Answer: "It formed in 632 A.D. [1][2]. It grew later [3]. Both hold [2][3]."}
	got := eval.GoldSentences(prose)
	want := []eval.CitedSentence{{Text: "It formed in 632 A.D.", Citations: []int{1, 2}}, {Text: "It grew later.", Citations: []int{3}},
		{Text: "Both hold.", Citations: []int{2, 3}}}
	if !slices.EqualFunc(got, want, func(a, b eval.CitedSentence) bool { return a.Text == b.Text && slices.Equal(a.Citations, b.Citations) }) {
		t.Errorf("prose: %+v; want %+v", got, want)
	}
	list := eval.ALCEDemo{Question: "Which fruit is red?", Answer: "Apple [1], Cherry [2], Plum.", List: true}
	got = eval.GoldSentences(list)
	want = []eval.CitedSentence{{Text: "Which fruit is red? Apple", Citations: []int{1}}, {Text: "Which fruit is red? Cherry", Citations: []int{2}},
		{Text: "Which fruit is red? Plum", Citations: []int{}}}
	if !slices.EqualFunc(got, want, func(a, b eval.CitedSentence) bool { return a.Text == b.Text && slices.Equal(a.Citations, b.Citations) }) {
		t.Errorf("list: %+v; want %+v", got, want)
	}
}

// Answers reads the files, holds out the last demonstration of each,
// averages the figures over the answers of each split, scores the
// hand-written answers beside them, and counts a retrieval hit when the
// retrieved documents include one the hand-written answer cites.
func TestAnswers(t *testing.T) {
	dir := t.TempDir()
	file := `{"demos": [
 {"question": "What is red?", "answer": "An apple is red [1].", "docs": [{"title": "Apple", "text": "An apple is red."}, {"title": "Sky", "text": "The sky is blue."}]},
 {"question": "What is blue?", "answer": "The sky is blue [2].", "docs": [{"title": "Apple", "text": "An apple is red."}, {"title": "Sky", "text": "The sky is blue."}]},
 {"question": "What is green?", "answer": "A pear is green [1][2].", "docs": [{"title": "Pear", "text": "A pear is green."}, {"title": "Sky", "text": "The sky is blue."}]}]}`
	if err := os.WriteFile(filepath.Join(dir, "asqa_x.json"), []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	demos, err := eval.ReadALCE(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(demos) != 3 || demos[0].HeldOut || demos[1].HeldOut || !demos[2].HeldOut || demos[2].Index != 2 || demos[0].File != "asqa_x.json" {
		t.Fatalf("demos %+v; want three, the last held out", demos)
	}
	answers := map[string]eval.Answered{
		// Supported, one needless citation.
		"What is red?": {Sentences: []eval.CitedSentence{{Text: "An apple is red.", Citations: []int{1, 2}}},
			Passages: []string{"An apple is red.", "The sky is blue."}, Dropped: 1, GateFired: true, Retrieved: []int{1}},
		// Nothing written.
		"What is blue?": {Passages: []string{"An apple is red.", "The sky is blue."}, Retrieved: []int{}},
		"What is green?": {Sentences: []eval.CitedSentence{{Text: "A pear is green.", Citations: []int{1}}, {Text: "The sky is red.", Citations: []int{2}}},
			Passages: []string{"A pear is green.", "The sky is blue."}, Retrieved: []int{1, 2}},
	}
	steps := 0
	rep, err := eval.Answers(context.Background(), demos, func(_ context.Context, d eval.ALCEDemo) (eval.Answered, error) {
		return answers[d.Question], nil
	}, wordsSupport, titled, func() { steps++ })
	if err != nil {
		t.Fatal(err)
	}
	if steps != 3 || len(rep.Demos) != 3 {
		t.Fatalf("%d steps, %d demos", steps, len(rep.Demos))
	}
	dev, held := rep.Dev, rep.HeldOut
	if dev.Demos != 2 || dev.Empty != 1 || dev.Dropped != 1 || dev.GateFired != 1 || dev.System.Sentences != 1 ||
		dev.System.Recall != 0.5 || dev.System.Precision != 0.25 || dev.System.CitedShare != 1 {
		t.Errorf("dev %+v", dev)
	}
	// Red: [1] hit; blue: nothing retrieved.
	if dev.RetrievedGold != 1 || dev.RetrievedGoldRate != 0.5 || !*rep.Demos[0].RetrievedGold || *rep.Demos[1].RetrievedGold || !*rep.Demos[2].RetrievedGold {
		t.Errorf("retrieval: dev %d (%.2f), demos %+v", dev.RetrievedGold, dev.RetrievedGoldRate, rep.Demos)
	}
	// The hand-written answers are judged against the documents with
	// their titles: all supported; green's [2] is needless.
	if dev.Gold.Recall != 1 || dev.Gold.Precision != 1 || held.Gold.Recall != 1 || held.Gold.Precision != 0.5 {
		t.Errorf("gold: dev %+v, held out %+v", dev.Gold, held.Gold)
	}
	if held.Demos != 1 || held.System.Recall != 0.5 || held.System.Precision != 0.5 || held.Empty != 0 {
		t.Errorf("held out %+v", held)
	}
	for _, bad := range []struct{ name, body, want string }{
		{"empty.json", `{"demos": []}`, "no demonstration"},
		{"noq.json", `{"demos": [{"question": " ", "docs": [{"text": "x"}]}]}`, "no question"},
		{"notext.json", `{"demos": [{"question": "q", "docs": [{"title": "t", "text": ""}]}]}`, "document 1 has no text"},
	} {
		d := t.TempDir()
		if err := os.WriteFile(filepath.Join(d, bad.name), []byte(bad.body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := eval.ReadALCE(d); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: %v; want %q", bad.name, err, bad.want)
		}
	}
	if _, err := eval.ReadALCE(t.TempDir()); err == nil {
		t.Error("a folder without files: no error")
	}
}
