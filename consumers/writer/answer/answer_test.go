package answer_test

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/consumers/writer/answer"
	"github.com/annalist-dev/annalist/internal/kit/llmtest"
	"github.com/annalist-dev/annalist/internal/lang/text"
	"github.com/annalist-dev/annalist/internal/ports/kind"
	"github.com/annalist-dev/annalist/schemas"
)

// words is a claim-support judge by word cover: the claim's words of
// three letters or more, all in the passages → complete, some → partial,
// none → missing; the score is the share covered.
type words struct{ calls int }

func (w *words) Support(claim string, passages []string) (string, float64) {
	w.calls++
	have := map[string]bool{}
	for _, p := range passages {
		for _, t := range text.Tokens(p) {
			have[t] = true
		}
	}
	n, in := 0, 0
	for _, t := range text.Tokens(claim) {
		if len(t) < 3 {
			continue
		}
		n++
		if have[t] {
			in++
		}
	}
	switch {
	case n > 0 && in == n:
		return answer.LabelComplete, 1
	case in > 0:
		return answer.LabelPartial, float64(in) / float64(n)
	}
	return answer.LabelMissing, 0
}

var docs = []schemas.AnswerDocument{
	{Title: "Eiffel Tower", Text: "The Eiffel Tower is a lattice tower in Paris."},
	{Title: "Construction", Text: "The tower was completed in 1889 for the World's Fair. Gustave Eiffel's company built the tower."},
	{Title: "Bananas", Text: "Bananas are yellow fruit. They grow in the tropics."},
	{Title: "Paris", Text: "Paris is the capital of France. The Eiffel Tower is a lattice tower in Paris."},
}

func run(t *testing.T, props ...answer.Proposal) answer.Result {
	t.Helper()
	res, err := answer.Agent{Support: &words{}}.Run(context.Background(), docs, nil, props)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// A sentence its own citations support keeps a minimal subset of them: a
// document it does not need goes, two documents it needs both stay.
func TestAgentKeepsAMinimalSubset(t *testing.T) {
	res := run(t,
		answer.Proposal{Text: "The Eiffel Tower is a lattice tower in Paris.", Citations: []int{1, 3, 4}},
		answer.Proposal{Text: "The lattice tower in Paris was completed in 1889.", Citations: []int{2, 1}})
	if len(res.Sentences) != 2 || len(res.Dropped) != 0 {
		t.Fatalf("result = %+v", res)
	}
	if got := res.Sentences[0].Citations; len(got) != 1 || (got[0] != 1 && got[0] != 4) {
		t.Errorf("first sentence cites %v; want one of the two documents that state it", got)
	}
	if got := res.Sentences[1].Citations; !slices.Equal(got, []int{1, 2}) {
		t.Errorf("second sentence cites %v; want [1 2], each needed", got)
	}
	if res.Sentences[0].Discovered || res.Sentences[1].Discovered {
		t.Errorf("own citations supported both, nothing discovered: %+v", res.Sentences)
	}
	// Five citations proposed, three needed: precision 3/5, recall 1.
	if q := res.Quality; q.Recall != 1 || q.Precision != 0.6 || math.Abs(q.Score-0.75) > 1e-9 {
		t.Errorf("quality = %+v; want recall 1, precision 0.6, F1 0.75", q)
	}
}

// A sentence its citations do not support gets citations discovered among
// the other documents; one nothing supports is dropped.
func TestAgentDiscoversOrDrops(t *testing.T) {
	res := run(t,
		answer.Proposal{Text: "The tower was completed in 1889.", Citations: []int{3}},
		answer.Proposal{Text: "Bananas are blue.", Citations: []int{3}},
		answer.Proposal{Text: "Rome holds gladiators.", Citations: []int{1}})
	if len(res.Sentences) != 1 || !slices.Equal(res.Sentences[0].Citations, []int{2}) || !res.Sentences[0].Discovered {
		t.Fatalf("sentences = %+v; want the completion date citing [2], discovered", res.Sentences)
	}
	if len(res.Dropped) != 2 || res.Dropped[0].Reason != "the documents support only part of it" ||
		res.Dropped[1].Reason != "no document supports it" {
		t.Fatalf("dropped = %+v", res.Dropped)
	}
	if q := res.Quality; q.Recall != 0 || q.Precision != 0 || q.Score != 0 || !slices.Equal(res.Reduced, []int{2}) {
		t.Errorf("quality = %+v, reduced %v; want 0 and [2]", q, res.Reduced)
	}
}

// scripted answers the answer prompt: first (every document listed) or
// second (the reduced set) by what the prompt lists.
func scripted(first, second string) *llmtest.Model {
	return llmtest.Func(func(c llmtest.Call) (string, error) {
		if strings.Contains(c.User(), "Document [3]") {
			return first, nil
		}
		return second, nil
	})
}

const badFirst = `{"sentences": [
 {"text": "The Eiffel Tower is a lattice tower in Paris.", "citations": [1, 3]},
 {"text": "The tower was completed in 1889.", "citations": [3]},
 {"text": "Bananas are blue.", "citations": [3]}]}`

// The calibration gate: a first draft below τ is drafted again from the
// documents its supported sentences cite, and the better draft is kept.
func TestCalibrationGate(t *testing.T) {
	ctx := context.Background()
	cfg := answer.Config{Support: &words{}}
	off := answer.NewOffline(cfg)

	t.Run("fires and keeps the second", func(t *testing.T) {
		m := scripted(badFirst, `{"sentences": [
 {"text": "The Eiffel Tower is a lattice tower in Paris.", "citations": [1]},
 {"text": "The tower was completed in 1889.", "citations": [2]}]}`)
		l := answer.NewLLM(cfg, answer.LLMConfig{}, m, off)
		a, err := l.Answer(ctx, "When was the Eiffel Tower built?", docs)
		if err != nil {
			t.Fatal(err)
		}
		g := a.Gate
		if !g.Fired || g.Kept != "second" || !slices.Equal(g.Reduced, []int{1, 2}) || g.Second == nil || g.Second.Score != 1 ||
			g.First.Score >= answer.DefaultTau {
			t.Fatalf("gate = %+v", g)
		}
		if len(a.Sentences) != 2 || !slices.Equal(a.Sentences[0].Citations, []int{1}) || !slices.Equal(a.Sentences[1].Citations, []int{2}) {
			t.Fatalf("kept sentences = %+v", a.Sentences)
		}
		second := m.Call(1).User()
		if m.Calls() != 2 || l.Calls() != 2 || strings.Contains(second, "Document [3]") || strings.Contains(second, "Document [4]") ||
			!strings.Contains(second, "Document [2]") {
			t.Fatalf("calls %d/%d; second prompt:\n%s", m.Calls(), l.Calls(), second)
		}
	})
	t.Run("fires and keeps the first", func(t *testing.T) {
		m := scripted(badFirst, `{"sentences": [{"text": "Bananas are blue.", "citations": [1]}]}`)
		a, err := answer.NewLLM(cfg, answer.LLMConfig{}, m, off).Answer(ctx, "When was the Eiffel Tower built?", docs)
		if err != nil {
			t.Fatal(err)
		}
		if g := a.Gate; !g.Fired || g.Kept != "first" || g.Second == nil || g.Second.Score != 0 {
			t.Fatalf("gate = %+v", g)
		}
		if len(a.Sentences) != 2 || a.Quality != a.Gate.First || !a.Sentences[1].Discovered {
			t.Fatalf("kept = %+v", a)
		}
	})
	t.Run("keeps the first when the second cannot be made", func(t *testing.T) {
		m := scripted(badFirst, `not json`)
		a, err := answer.NewLLM(cfg, answer.LLMConfig{}, m, off).Answer(ctx, "When was the Eiffel Tower built?", docs)
		if err != nil {
			t.Fatal(err)
		}
		if g := a.Gate; !g.Fired || g.Kept != "first" || g.Second != nil || !strings.Contains(g.Note, "second draft failed") || len(a.Sentences) != 2 {
			t.Fatalf("answer = %+v", a)
		}
	})
	t.Run("does not fire at or above tau", func(t *testing.T) {
		m := scripted(`{"sentences": [{"text": "The tower was completed in 1889 [2].", "citations": []}]}`, "")
		a, err := answer.NewLLM(cfg, answer.LLMConfig{}, m, off).Answer(ctx, "When was the Eiffel Tower built?", docs)
		if err != nil {
			t.Fatal(err)
		}
		if a.Gate.Fired || m.Calls() != 1 || len(a.Sentences) != 1 || a.Sentences[0].Text != "The tower was completed in 1889." ||
			!slices.Equal(a.Sentences[0].Citations, []int{2}) {
			t.Fatalf("answer = %+v after %d calls; want the marker read as the citation, no gate", a, m.Calls())
		}
	})
}

// A model that never answers in the shape asked for: the offline engine
// writes the answer, and the fallback and the calls are counted.
func TestLLMFallsBackOffline(t *testing.T) {
	m := llmtest.Repeat("Sure! The Eiffel Tower is in Paris.")
	l := answer.NewLLM(answer.Config{Support: &words{}}, answer.LLMConfig{}, m, answer.NewOffline(answer.Config{Support: &words{}}))
	a, why, err := l.Fallback(context.Background(), "Where is the Eiffel Tower?", docs)
	if err != nil || why == "" || len(a.Sentences) == 0 || l.Fallbacks() != 1 || l.Calls() != 2 {
		t.Fatalf("answer %+v, fallback %q, err %v, fallbacks %d, calls %d", a, why, err, l.Fallbacks(), l.Calls())
	}
	// Through the kind's drafter: the loop is told the answer is malformed
	// (it then drafts offline) for each sentence of the offline answer.
	refs := answer.Documents("Where is the Eiffel Tower?", docs)
	if _, _, err := l.Draft(context.Background(), refs, nil, 0); err == nil {
		t.Fatal("a rejected answer drafted a sentence")
	}
}

// The offline engine extracts the sentences most relevant to the
// question, unlike one another, each citing the documents it is a
// sentence of, and leaves out a passage's cut-off last sentence.
func TestSelect(t *testing.T) {
	ds := append(slices.Clone(docs), schemas.AnswerDocument{Text: "The tower was completed in 1889 and its height is"})
	props := answer.Select("When was the Eiffel Tower completed?", ds, []int{1, 2, 3, 4, 5}, 2)
	if len(props) != 2 || props[0].Text != "The tower was completed in 1889 for the World's Fair." {
		t.Fatalf("proposals = %+v", props)
	}
	if props[1].Text != "The Eiffel Tower is a lattice tower in Paris." || !slices.Equal(props[1].Citations, []int{1, 4}) {
		t.Fatalf("second proposal = %+v; want the sentence of documents 1 and 4, citing both", props[1])
	}
	for _, c := range answer.Rank("When was the Eiffel Tower completed?", ds, []int{1, 2, 3, 4, 5}) {
		if strings.HasSuffix(c.Text, "height is") || strings.Contains(c.Text, "Bananas") {
			t.Errorf("ranked %q", c.Text)
		}
	}
}

// The kind: the planner makes the request's documents its references,
// the offline drafter writes the answer a sentence at a time citing them.
func TestKind(t *testing.T) {
	ctx := context.Background()
	p := answer.NewPlanner()
	off := answer.NewOffline(answer.Config{Support: &words{}})
	reg := &kind.Registry{}
	if err := reg.Register(answer.Spec(p, off, nil)); err != nil {
		t.Fatal(err)
	}
	q := "When was the Eiffel Tower completed?"
	refs, err := p.Plan(ctx, "t", schemas.Request{RequestID: "r", Kind: schemas.KindAnswer, Subject: q, Documents: docs})
	if err != nil || len(refs.References) != 4 || refs.References[1].ChunkID != schemas.AnswerDocRef(2) ||
		refs.References[1].Text != "Construction. "+docs[1].Text {
		t.Fatalf("refs = %+v, %v", refs, err)
	}
	var texts []string
	for i := 0; ; i++ {
		d, done, err := off.Draft(ctx, refs, nil, i)
		if err != nil {
			t.Fatal(err)
		}
		if done {
			break
		}
		if len(d.Citations) == 0 || !strings.HasPrefix(d.Citations[0], "answerdoc:") {
			t.Fatalf("draft %d = %+v", i, d)
		}
		texts = append(texts, d.Text)
	}
	if len(texts) == 0 || texts[0] != "The tower was completed in 1889 for the World's Fair." {
		t.Fatalf("drafted %q", texts)
	}
	if _, err := p.Plan(ctx, "t", schemas.Request{RequestID: "r", Kind: schemas.KindAnswer, Subject: q}); !errors.Is(err, kind.ErrUnknownSubject) {
		t.Fatalf("a question without documents and no retrieval: %v; want ErrUnknownSubject", err)
	}
}
