package verifier_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/annalist-dev/annalist/consumers/verifier"
	"github.com/annalist-dev/annalist/internal/kit/llmtest"
	"github.com/annalist-dev/annalist/internal/lang/en/discourse"
	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
)

// harborRefs is the discussion summary's reference set of the writer's
// test discussion, as the kind's planner makes it: the paragraphs, then
// the turns.
func harborRefs(t *testing.T) *schemas.ReferenceSet {
	t.Helper()
	b, err := os.ReadFile("../writer/summary/testdata/harbor.json")
	if err != nil {
		t.Fatal(err)
	}
	var d schemas.Discussion
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	return discussionRefs(d)
}

func discDraft(text string, cites ...string) schemas.Draft {
	return schemas.Draft{RequestID: "r1", Kind: schemas.KindDiscussionSummary, Subject: "harbor-derby", Index: 3,
		Attempt: 1, Text: text, Citations: cites, Origin: "writer"}
}

const (
	t0 = "disc:harbor-derby:t0"
	t1 = "disc:harbor-derby:t1"
	t2 = "disc:harbor-derby:t2"
	t3 = "disc:harbor-derby:t3"
	p1 = "disc:harbor-derby:p1"
	p2 = "disc:harbor-derby:p2"
	p3 = "disc:harbor-derby:p3"
)

// Every sentence of the offline summary passes: the drafter and the
// verifier read the discussion alike.
func TestDiscussionOfflineSummaryIsSupported(t *testing.T) {
	refs := harborRefs(t)
	c := verifier.WithDiscussions(verifier.NewOffline(verifier.Config{}))
	s := discourse.Summarize(*refs.Discussion)
	n := 0
	check := func(d schemas.Draft) {
		t.Helper()
		v, err := c.Check(context.Background(), refs, d)
		if err != nil {
			t.Fatal(err)
		}
		n++
		if v.Status != schemas.StatusSupported || len(v.Facts) != 1 || len(v.Facts[0].Evidence) != 1 {
			t.Errorf("%q: %s %s %+v", d.Text, v.Status, v.ErrorType, v.Facts)
		}
	}
	for _, b := range s.Background.Sentences {
		check(discDraft(b.Text, schemas.ParagraphRef("harbor-derby", b.Citations[0].Paragraph)))
	}
	for _, o := range s.Opinions {
		for _, op := range o.Sentences {
			d := discDraft(op.Text, schemas.TurnRef("harbor-derby", op.Citations[0].Turn))
			d.Entities = op.Entities
			check(d)
		}
	}
	if n < 10 {
		t.Errorf("only %d sentences checked", n)
	}
}

func TestDiscussionOpinions(t *testing.T) {
	refs := harborRefs(t)
	c := verifier.WithDiscussions(verifier.NewOffline(verifier.Config{}))
	for _, tc := range []struct {
		name, text, cite string
		status, kind     string // kind: VerifyOpinion's error type, named in the message
		value            string // the fact's value: the word rejected
	}{
		{"supported", "Person1 thinks that Maya Torres scored two brilliant goals.", t0, schemas.StatusSupported, "", ""},
		{"supported, resolved", "Person1 thinks that Daniel Reyes changed the formation at half time.", t2, schemas.StatusSupported, "", ""},
		{"wrong participant", "Person2 thinks that Maya Torres scored two brilliant goals.", t0, schemas.StatusNotSupported, "attribution", ""},
		{"added negation", "Person1 thinks that Maya Torres never scored two brilliant goals.", t0, schemas.StatusNotSupported, "polarity", "never"},
		{"a number the turn lacks", "Person1 thinks that Maya Torres scored three brilliant goals.", t0, schemas.StatusNotSupported, "value", "three"},
		{"wrong entity", "Person1 thinks that Leon Brandt changed the formation at half time.", t2, schemas.StatusNotSupported, "entity", "Leon Brandt"},
		{"added content", "Person2 agrees that Daniel Reyes has done a great job since March and deserves a new contract.", t3, schemas.StatusNotIncluded, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := discDraft(tc.text, tc.cite)
			v, err := c.Check(context.Background(), refs, d)
			if err != nil {
				t.Fatal(err)
			}
			if v.Status != tc.status || v.RequestID != "r1" || v.Index != 3 || v.Attempt != 1 || v.Draft.Text != tc.text {
				t.Fatalf("verdict %+v", v)
			}
			if len(v.Facts) != 1 {
				t.Fatalf("facts %+v", v.Facts)
			}
			fv := v.Facts[0]
			if fv.Status != tc.status || fv.Fact.ChunkID != tc.cite || len(fv.Evidence) != 1 || fv.Evidence[0].ChunkID != tc.cite {
				t.Errorf("fact verdict %+v", fv)
			}
			turn := refs.Discussion.Turns[int(tc.cite[len(tc.cite)-1]-'0')]
			if fv.Evidence[0].Text != turn.Utterance {
				t.Errorf("evidence %q, want the turn", fv.Evidence[0].Text)
			}
			if !strings.Contains(fv.Message, turn.Participant) {
				t.Errorf("message %q does not name the turn's participant", fv.Message)
			}
			topic, solver := topology.RouteVerdict(v)
			switch tc.status {
			case schemas.StatusSupported:
				if v.ErrorType != "" || topic != "" {
					t.Errorf("supported, routed to %s", topic)
				}
			case schemas.StatusNotSupported:
				if v.ErrorType != schemas.ErrorOther || fv.ErrorType != schemas.ErrorOther ||
					topic != topology.RepairOther || solver != topology.SolverRegenerate {
					t.Errorf("error type %q, routed to %s/%s", v.ErrorType, topic, solver)
				}
				if !strings.HasPrefix(fv.Message, tc.kind+": ") {
					t.Errorf("message %q does not say %s", fv.Message, tc.kind)
				}
				if fv.Fact.Value != tc.value {
					t.Errorf("fact value %q, want %q", fv.Fact.Value, tc.value)
				}
			case schemas.StatusNotIncluded:
				if topic != topology.RepairRegenerate || solver != topology.SolverRegenerate {
					t.Errorf("routed to %s/%s", topic, solver)
				}
			}
		})
	}
}

// A draft without entities (a solver's rewrite) is given the background
// entities its text names, canonical, on the verdict's draft.
func TestDiscussionFillsEntities(t *testing.T) {
	refs := harborRefs(t)
	c := verifier.WithDiscussions(verifier.NewOffline(verifier.Config{}))
	v, err := c.Check(context.Background(), refs, discDraft("Person1 thinks that Torres was the best player on the pitch.", t0))
	if err != nil || v.Status != schemas.StatusSupported {
		t.Fatalf("verdict %+v, %v", v, err)
	}
	if !slices.Equal(v.Draft.Entities, []string{"Maya Torres"}) {
		t.Errorf("entities %q", v.Draft.Entities)
	}
	d := discDraft("Person1 thinks that Maya Torres was the best player on the pitch.", t0)
	d.Entities = []string{"Maya Torres"}
	if v, _ := c.Check(context.Background(), refs, d); !slices.Equal(v.Draft.Entities, d.Entities) {
		t.Errorf("the drafter's entities were replaced: %q", v.Draft.Entities)
	}
}

func TestDiscussionCitations(t *testing.T) {
	refs := harborRefs(t)
	c := verifier.WithDiscussions(verifier.NewOffline(verifier.Config{}))
	const sent = "Harbor City FC beat Northfield United 3-1 on Saturday at Riverside Stadium."
	for _, tc := range []struct {
		name   string
		cites  []string
		reason string
	}{
		{"no citation", nil, "cites no paragraph or turn"},
		{"a turn and a paragraph", []string{p1, t0}, "a turn and a paragraph together"},
		{"not in the set", []string{"disc:harbor-derby:p9"}, `"disc:harbor-derby:p9" is not a paragraph or turn`},
		{"another discussion", []string{"disc:other:p1"}, "is not a paragraph or turn"},
		{"a chunk", []string{"lz-001"}, "is not a paragraph or turn"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := c.Check(context.Background(), refs, discDraft(sent, tc.cites...))
			if err != nil {
				t.Fatal(err)
			}
			if v.Status != schemas.StatusNotIncluded || len(v.Facts) != 1 || !strings.Contains(v.Facts[0].Message, tc.reason) {
				t.Errorf("verdict %s %+v", v.Status, v.Facts)
			}
			if topic, _ := topology.RouteVerdict(v); topic != topology.RepairRegenerate {
				t.Errorf("routed to %s", topic)
			}
		})
	}
	// Two turns: VerifyOpinion's verdict (an opinion comes from one).
	v, _ := c.Check(context.Background(), refs, discDraft("Person1 thinks that Maya Torres was the best player on the pitch.", t0, t2))
	if v.Status != schemas.StatusNotSupported || !strings.Contains(v.Facts[0].Message, "cites 2 turns") {
		t.Errorf("two turns: %s %+v", v.Status, v.Facts)
	}
}

func TestDiscussionBackground(t *testing.T) {
	refs := harborRefs(t)
	p1Text := refs.Discussion.Background[0].Text
	c := verifier.WithDiscussions(verifier.NewOffline(verifier.Config{}))
	check := func(text string, cites ...string) schemas.Verdict {
		t.Helper()
		v, err := c.Check(context.Background(), refs, discDraft(text, cites...))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	// Word for word: one sentence, the whole paragraph, a sentence with its
	// white space changed; the evidence is where it stands.
	for _, tc := range []struct{ text, evidence string }{
		{"Striker Maya Torres scored twice for Harbor City.", "Striker Maya Torres scored twice for Harbor City."},
		{p1Text, p1Text},
		{"Harbor City FC beat  Northfield United 3-1\ton Saturday at Riverside Stadium.", "Harbor City FC beat Northfield United 3-1 on Saturday at Riverside Stadium."},
	} {
		v := check(tc.text, p2, p1)
		if v.Status != schemas.StatusSupported || len(v.Facts) != 1 || len(v.Facts[0].Evidence) != 1 ||
			v.Facts[0].Evidence[0].Text != tc.evidence || v.Facts[0].Evidence[0].ChunkID != p1 {
			t.Errorf("%q: %s %+v", tc.text, v.Status, v.Facts)
		}
	}
	// Written anew: the English checker decides on the cited paragraphs.
	for _, tc := range []struct{ text, status string }{
		{"Harbor City FC beat Northfield United 3-1 on Saturday.", schemas.StatusSupported},
		{"Maya Torres scored twice for Harbor City.", schemas.StatusSupported},
		{"Harbor City FC beat Northfield United 4-1 on Saturday.", schemas.StatusNotSupported},
		{"Harbor City FC lost to Northfield United 3-1 on Saturday.", schemas.StatusNotIncluded},
	} {
		v := check(tc.text, p1)
		if v.Status != tc.status || len(v.Facts) == 0 || strings.Contains(v.Facts[0].Message, "word for word") {
			t.Errorf("%q: %s %+v, want %s from the English checker", tc.text, v.Status, v.Facts, tc.status)
		}
	}
	// A sentence of paragraph 3 cited to paragraph 1 is not supported:
	// the checker sees the cited paragraphs only.
	p3Sent := refs.Discussion.Background[2].Text
	if v := check(p3Sent, p3); v.Status != schemas.StatusSupported {
		t.Errorf("paragraph 3's sentence citing it: %s", v.Status)
	}
	if v := check(p3Sent, p1); v.Status == schemas.StatusSupported {
		t.Errorf("paragraph 3's sentence citing paragraph 1: %s %+v", v.Status, v.Facts)
	}
	if v := check("Brandt was injured and replaced by Tom Avery in the first half.", p1, p2); v.Status == schemas.StatusSupported {
		t.Errorf("reworded paragraph 3 citing paragraphs 1 and 2: %s %+v", v.Status, v.Facts)
	}
}

// The judge is wrapped too: an opinion never reaches the model, and a
// reworded background sentence reaches it with its cited paragraphs
// alone.
func TestDiscussionWrapsTheJudge(t *testing.T) {
	refs := harborRefs(t)
	m := llmtest.Repeat(`{"facts": [{"text": "x", "status": "supported", "error_type": "", "message": "", "chunk_id": "disc:harbor-derby:p1", "quote": "Harbor City FC beat Northfield United 3-1"}]}`)
	c := verifier.WithDiscussions(verifier.NewJudge(verifier.JudgeConfig{}, verifier.WithModel(m),
		verifier.WithFallback(verifier.NewOffline(verifier.Config{}))))
	v, err := c.Check(context.Background(), refs, discDraft("Person1 thinks that Maya Torres never scored two brilliant goals.", t0))
	if err != nil || v.Status != schemas.StatusNotSupported || m.Calls() != 0 {
		t.Fatalf("opinion: %s, err %v, %d model calls", v.Status, err, m.Calls())
	}
	if _, err := c.Check(context.Background(), refs, discDraft("Harbor City FC won 3-1 against Northfield United.", p1)); err != nil {
		t.Fatal(err)
	}
	if m.Calls() == 0 {
		t.Fatal("the judge was not asked about a reworded background sentence")
	}
	p := m.Call(0).User()
	if !strings.Contains(p, p1) || strings.Contains(p, p3) || strings.Contains(p, "Leon Brandt") || strings.Contains(p, t0) {
		t.Errorf("the judge saw more than the cited paragraph:\n%s", p)
	}
}

// A reference set of another kind goes to the wrapped checker unchanged.
func TestDiscussionLeavesOtherSetsAlone(t *testing.T) {
	refs := &schemas.ReferenceSet{Subject: "Margaret Ellery", Name: "Margaret Ellery", Lang: "en",
		References: []schemas.Reference{{ChunkID: "c1", Text: "Margaret Ellery was born in Bristol in 1821."}}}
	inner := verifier.NewOffline(verifier.Config{})
	c := verifier.WithDiscussions(inner)
	for _, text := range []string{"Margaret Ellery was born in Bristol.", "Margaret Ellery was born in Leeds."} {
		d := schemas.Draft{RequestID: "r", Subject: "Margaret Ellery", Text: text, Citations: []string{"c1"}}
		want, err := inner.Check(context.Background(), refs, d)
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.Check(context.Background(), refs, d)
		if err != nil {
			t.Fatal(err)
		}
		a, _ := json.Marshal(want)
		b, _ := json.Marshal(got)
		if string(a) != string(b) {
			t.Errorf("%q: wrapped %s, inner %s", text, b, a)
		}
	}
}

// Concurrent checks of one discussion share its reading (run with -race).
func TestDiscussionConcurrentChecks(t *testing.T) {
	refs := harborRefs(t)
	c := verifier.WithDiscussions(verifier.NewOffline(verifier.Config{}))
	s := discourse.Summarize(*refs.Discussion)
	var drafts []schemas.Draft
	for _, o := range s.Opinions {
		for _, op := range o.Sentences {
			drafts = append(drafts, discDraft(op.Text, schemas.TurnRef("harbor-derby", op.Citations[0].Turn)))
		}
	}
	errs := make(chan string, 8*len(drafts))
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, d := range drafts {
				if v, err := c.Check(context.Background(), refs, d); err != nil || v.Status != schemas.StatusSupported {
					errs <- fmt.Sprintf("%q: %s %v", d.Text, v.Status, err)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
