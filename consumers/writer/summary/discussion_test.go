package summary_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/consumers/writer"
	"github.com/annalist-dev/annalist/consumers/writer/summary"
	"github.com/annalist-dev/annalist/infra/discussionstore"
	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
	"github.com/annalist-dev/annalist/internal/lang/en/discourse"
	"github.com/annalist-dev/annalist/internal/ports/kind"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
)

// harbor is the test's discussion (testdata/harbor.json): four paragraphs
// about a football match (the last one off the story), four turns of two
// participants.
func harbor(t testing.TB) schemas.Discussion {
	t.Helper()
	b, err := os.ReadFile("testdata/harbor.json")
	if err != nil {
		t.Fatal(err)
	}
	var d schemas.Discussion
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	if err := d.Validate(); err != nil || d.ID != "harbor-derby" {
		t.Fatalf("fixture: id %q, %v", d.ID, err)
	}
	return d
}

func TestPlannerReadsTheStoredDiscussion(t *testing.T) {
	ctx := context.Background()
	c := redistest.Client(t)
	store := discussionstore.New(c)
	d := harbor(t)
	if _, err := store.Put(ctx, "t1", d); err != nil {
		t.Fatal(err)
	}
	p := summary.NewPlanner(store)
	req := schemas.Request{RequestID: "r1", Kind: schemas.KindDiscussionSummary, Subject: d.ID}
	rs, err := p.Plan(ctx, "t1", req)
	if err != nil {
		t.Fatal(err)
	}
	if rs.Subject != d.ID || rs.Name != d.ID || rs.Lang != "en" || rs.Discussion == nil || rs.Discussion.ID != d.ID ||
		len(rs.Discussion.Turns) != 4 || len(rs.Discussion.Background) != 4 {
		t.Fatalf("reference set %+v", rs)
	}
	var ids, sources []string
	for _, r := range rs.References {
		ids = append(ids, r.ChunkID)
		sources = append(sources, r.Source)
	}
	wantIDs := []string{"disc:harbor-derby:p1", "disc:harbor-derby:p2", "disc:harbor-derby:p3", "disc:harbor-derby:p4",
		"disc:harbor-derby:t0", "disc:harbor-derby:t1", "disc:harbor-derby:t2", "disc:harbor-derby:t3"}
	if !slices.Equal(ids, wantIDs) {
		t.Errorf("references %q, want %q", ids, wantIDs)
	}
	if sources[0] != schemas.SourceParagraph || sources[4] != schemas.SourceTurn {
		t.Errorf("sources %q", sources)
	}
	if r, _ := rs.Reference("disc:harbor-derby:t2"); r.Text != d.Turns[2].Utterance {
		t.Errorf("turn 2 reference %q", r.Text)
	}
	if r, _ := rs.Reference("disc:harbor-derby:p3"); r.Text != d.Background[2].Text {
		t.Errorf("paragraph 3 reference %q", r.Text)
	}

	// Another tenant has no such discussion: the request fails.
	_, err = p.Plan(ctx, "t2", req)
	if !errors.Is(err, kind.ErrUnknownSubject) || !strings.Contains(err.Error(), `"harbor-derby"`) {
		t.Errorf("unknown discussion: %v", err)
	}
	// A store that does not answer is transient: neither an unknown
	// subject nor permanent.
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	_, err = p.Plan(ctx, "t1", req)
	if err == nil || errors.Is(err, kind.ErrUnknownSubject) || pipeline.IsPermanent(err) {
		t.Errorf("store down: %v", err)
	}
}

func TestOfflineDraftsTheSummary(t *testing.T) {
	ctx := context.Background()
	d := harbor(t)
	refs := summary.References(d)
	want := discourse.Summarize(d)
	off := summary.NewOffline()

	var got []schemas.Draft
	for k := 0; ; k++ {
		dr, done, err := off.Draft(ctx, refs, nil, k)
		if err != nil {
			t.Fatal(err)
		}
		if done {
			break
		}
		got = append(got, dr)
	}
	nb := len(want.Background.Sentences)
	if nb == 0 || len(got) <= nb {
		t.Fatalf("%d drafts for %d background sentences", len(got), nb)
	}
	for i, b := range want.Background.Sentences {
		g := got[i]
		if g.Text != b.Text || g.Section != summary.SectionBackground || g.Index != i ||
			len(g.Citations) != 1 || g.Citations[0] != schemas.ParagraphRef(d.ID, b.Citations[0].Paragraph) ||
			g.Engine != writer.EngineOffline || g.Origin != writer.OriginWriter || len(g.Entities) != 0 {
			t.Errorf("draft %d = %+v, want background %+v", i, g, b)
		}
	}
	k := nb
	var sections []string
	for _, o := range want.Opinions {
		sections = append(sections, o.Participant)
		for _, s := range o.Sentences {
			g := got[k]
			if g.Text != s.Text || g.Section != o.Participant || len(g.Citations) != 1 ||
				g.Citations[0] != schemas.TurnRef(d.ID, s.Citations[0].Turn) || !slices.Equal(g.Entities, s.Entities) {
				t.Errorf("draft %d = %+v, want %s's opinion %+v", k, g, o.Participant, s)
			}
			k++
		}
	}
	if k != len(got) {
		t.Errorf("%d drafts, want %d", len(got), k)
	}
	if !slices.Equal(sections, []string{"Person1", "Person2"}) {
		t.Errorf("participants %q", sections)
	}
	// The summary names the story's people by their full names.
	var entities []string
	for _, g := range got {
		for _, e := range g.Entities {
			if !slices.Contains(entities, e) {
				entities = append(entities, e)
			}
		}
	}
	for _, e := range []string{"Maya Torres", "Daniel Reyes"} {
		if !slices.Contains(entities, e) {
			t.Errorf("no opinion names %s: %q", e, entities)
		}
	}

	// The plan is computed once per discussion.
	a, b := off.Items(refs), off.Items(summary.References(d))
	if len(a) == 0 || &a[0] != &b[0] {
		t.Error("the plan was computed again for the same discussion")
	}
	other := d
	other.Turns = append(slices.Clone(d.Turns), schemas.Turn{Participant: "Person3", Utterance: "I think Brandt was unlucky."})
	if c := off.Items(summary.References(other)); len(c) <= len(a) || c[len(c)-1].Section != "Person3" {
		t.Errorf("another discussion's plan: %+v", c)
	}

	if _, _, err := off.Draft(ctx, &schemas.ReferenceSet{Subject: "x"}, nil, 0); !pipeline.IsPermanent(err) {
		t.Errorf("a set without a discussion: %v", err)
	}
}

func TestSpec(t *testing.T) {
	d := harbor(t)
	p := summary.NewPlanner(discussionstore.New(redistest.Client(t)))
	off := summary.NewOffline()
	var reg kind.Registry
	if err := reg.Register(summary.Spec(p, off, nil)); err != nil {
		t.Fatal(err)
	}
	s, err := reg.Lookup(schemas.KindDiscussionSummary)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Layout.Sectioned || s.Reviewer(kind.EngineOffline) != nil || s.MaxSentences < 100 ||
		s.Drafter(kind.EngineLLM) != kind.Drafter(off) {
		t.Errorf("spec %+v", s)
	}
	if n := len(off.Items(summary.References(d))); n > s.MaxSentences {
		t.Errorf("the fixture's plan has %d sentences, more than the bound %d", n, s.MaxSentences)
	}
	l := summary.NewLLM(summary.LLMConfig{}, nil, off)
	s = summary.Spec(p, off, l)
	if s.Drafter(kind.EngineLLM) != kind.Drafter(l) || s.Drafter(kind.EngineOffline) != kind.Drafter(off) {
		t.Errorf("drafters %v", s.Drafters)
	}
	if err := reg.Validate(schemas.Request{RequestID: "r", Kind: schemas.KindDiscussionSummary, Subject: d.ID}); err != nil {
		t.Error(err)
	}
}
