package feed_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/annalist-dev/annalist/consumers/feed"
	"github.com/annalist-dev/annalist/infra/discussionstore"
	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/pipeline/pipelinetest"
	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
)

func discussion() schemas.Discussion {
	return schemas.Discussion{ID: "42",
		Background: []schemas.Paragraph{
			{Index: 1, Text: "Simona Halep won the French Open on Saturday. She beat Sloane Stephens."},
			{Index: 2, Text: "Her coach Darren Cahill praised her patience."},
			{Index: 3, Text: "Stephens had won the US Open."},
		},
		Turns: []schemas.Turn{
			{Participant: "Person2", Utterance: "Her coach did a great job."},
			{Participant: "Person1", Utterance: "She deserved it."},
			{Participant: "Person2", Utterance: "Stephens played well too."},
		}}
}

func cite(refs ...string) []schemas.Citation {
	out := make([]schemas.Citation, len(refs))
	for i, r := range refs {
		out[i] = schemas.Citation{ChunkID: r}
	}
	return out
}

// page is a discussion_summary page as the assembler publishes it: the
// background sentences, then the opinions by participant (Person1 first,
// though Person2 speaks first), and sentences the feed must skip.
func page(version int) schemas.Page {
	p, t := schemas.ParagraphRef, schemas.TurnRef
	return schemas.Page{Subject: "42", Kind: schemas.KindDiscussionSummary, Version: version, RequestID: "rd-1",
		Sentences: []schemas.PageSentence{
			{Text: "Simona Halep won the French Open.", Section: "Background", Citations: cite(p("42", 2), p("42", 1))},
			{Text: "Stephens had won the US Open.", Section: "Background", Citations: cite(p("42", 3), p("42", 2))},
			{Text: "Person1 thinks that Simona Halep deserved it.", Section: "Person1", Citations: cite(t("42", 1)),
				Entities: []string{"Simona Halep"}},
			{Text: "Person2 thinks that Darren Cahill did a great job.", Section: "Person2", Citations: cite(t("42", 0)),
				Entities: []string{"Darren Cahill"}},
			{Text: "Person2 thinks that Sloane Stephens played well.", Section: "Person2", Citations: cite(t("42", 2), t("42", 0))},
			{Text: "No citation.", Section: "Person1"},
			{Text: "Mixed.", Section: "Person1", Citations: cite(t("42", 1), p("42", 1))},
			{Text: "Another discussion.", Section: "Person1", Citations: cite(t("41", 1))},
			{Text: "Unknown turn.", Section: "Person1", Citations: cite(t("42", 9))},
			{Text: "Unknown paragraph.", Section: "Background", Citations: cite(p("42", 7))},
			{Text: "Two speakers.", Section: "Person1", Citations: cite(t("42", 0), t("42", 1))},
			{Text: "A chunk.", Section: "Person1", Citations: cite("d-0000")},
		}}
}

func TestSummaryGroupsBackgroundAndOpinions(t *testing.T) {
	d := discussion()
	sum, skipped := feed.Summary(page(1), &d)
	if skipped != 7 {
		t.Errorf("skipped %d sentences, want 7", skipped)
	}
	if sum.ID != "42" || !slices.Equal(sum.Background.Paragraphs, []int{2, 1, 3}) {
		t.Errorf("background paragraphs = %v, want [2 1 3] (first-cited order)", sum.Background.Paragraphs)
	}
	if len(sum.Background.Sentences) != 2 || len(sum.Background.Sentences[0].Citations) != 2 ||
		sum.Background.Sentences[0].Citations[0].Paragraph != 2 {
		t.Errorf("background sentences = %+v", sum.Background.Sentences)
	}
	if len(sum.Opinions) != 2 || sum.Opinions[0].Participant != "Person2" || sum.Opinions[1].Participant != "Person1" {
		t.Fatalf("opinions = %+v, want Person2 (who speaks first), then Person1", sum.Opinions)
	}
	p2 := sum.Opinions[0].Sentences
	if len(p2) != 2 || p2[0].Citations[0].Turn != 0 || !slices.Equal(p2[0].Entities, []string{"Darren Cahill"}) ||
		len(p2[1].Citations) != 2 || p2[1].Entities == nil {
		t.Errorf("Person2's opinions = %+v", p2)
	}
	if p1 := sum.Opinions[1].Sentences; len(p1) != 1 || p1[0].Citations[0].Turn != 1 {
		t.Errorf("Person1's opinions = %+v", p1)
	}
	it := schemas.FeedItem{ID: "42", Version: 1, Published: "2026-11-24T10:00:00Z", Summary: sum}
	if err := it.Validate(); err != nil {
		t.Errorf("the summary does not make a valid feed item: %v", err)
	}
}

// Without the stored discussion the participants are the sections, in
// the order the page gives them, and only references of the discussion's
// id are checked.
func TestSummaryWithoutTheDiscussion(t *testing.T) {
	sum, skipped := feed.Summary(page(1), nil)
	if len(sum.Opinions) != 2 || sum.Opinions[0].Participant != "Person1" || len(sum.Opinions[1].Sentences) != 2 {
		t.Fatalf("opinions = %+v, want Person1 then Person2 as the page orders them", sum.Opinions)
	}
	// Unknown turn, unknown paragraph and two speakers cannot be told
	// without the discussion: kept.
	if skipped != 4 || len(sum.Opinions[0].Sentences) != 3 || len(sum.Background.Sentences) != 3 {
		t.Errorf("skipped %d, Person1 %d, background %d; want 4, 3, 3", skipped, len(sum.Opinions[0].Sentences), len(sum.Background.Sentences))
	}
	empty, skipped := feed.Summary(schemas.Page{Subject: "9", Kind: schemas.KindDiscussionSummary, Version: 1}, nil)
	if skipped != 0 || empty.Background.Paragraphs == nil || empty.Background.Sentences == nil || empty.Opinions == nil {
		t.Errorf("an empty page: %+v; want empty lists, not null", empty)
	}
}

func TestTitle(t *testing.T) {
	d := discussion()
	if got := feed.Title(d); got != "Simona Halep won the French Open on Saturday." {
		t.Errorf("title = %q, want the first sentence", got)
	}
	d.Background[0].Text = strings.Repeat("word ", 60)
	if got := feed.Title(d); len([]rune(got)) > 101 || !strings.HasSuffix(got, "…") || strings.Contains(got, "  ") {
		t.Errorf("long title = %q, want it cut on a word with an ellipsis", got)
	}
}

// onPages places an input on the pages topic.
var onPages = pipelinetest.Options(pipelinetest.Event("ev"), pipelinetest.Topic(topology.Pages))

type downStore struct{}

func (downStore) Discussion(context.Context, string, string) (schemas.Discussion, bool, error) {
	return schemas.Discussion{}, false, errors.New("redis: connection refused")
}

// On real Redis: a summary page becomes the discussion's feed item,
// stored, announced and published; pages of other kinds yield nothing; an
// older version redelivered keeps the newer item; a store outage is
// transient.
func TestStagePublishesFeedItems(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c := redistest.Client(t)
	s := discussionstore.New(c)
	tenant := "t-feed-" + time.Now().Format("150405.000000")
	if _, err := s.Put(ctx, tenant, discussion()); err != nil {
		t.Fatal(err)
	}
	events, err := s.Subscribe(ctx, tenant)
	if err != nil {
		t.Fatal(err)
	}
	st, err := feed.New(s, s)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := st.Handle(ctx, pipelinetest.Input(schemas.Page{Subject: "叶向高", Kind: schemas.KindBiography, Version: 3}, onPages, pipelinetest.Tenant(tenant))); err != nil || len(out) != 0 {
		t.Fatalf("a biography: %+v, %v; want nothing", out, err)
	}
	out, err := st.Handle(ctx, pipelinetest.Input(page(2), onPages, pipelinetest.Tenant(tenant)))
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 1 || out[0].Topic != topology.Feed || out[0].EventID == "" {
		t.Fatalf("outputs = %+v, want one feed item", out)
	}
	it, _ := pipeline.As[schemas.FeedItem](out[0].Msg)
	if it.ID != "42" || it.Version != 2 || it.RequestID != "rd-1" || it.Title != "Simona Halep won the French Open on Saturday." ||
		len(it.Summary.Opinions) != 2 {
		t.Errorf("item = %+v", it)
	}
	if _, err := time.Parse(time.RFC3339Nano, it.Published); err != nil {
		t.Errorf("published %q: %v", it.Published, err)
	}
	select {
	case ev := <-events:
		if ev.ID != "42" || ev.Version != 2 {
			t.Errorf("announced %+v", ev)
		}
	case <-ctx.Done():
		t.Fatal("the item was not announced")
	}
	stored, err := s.Item(ctx, tenant, "42")
	if err != nil || stored.Version != 2 || len(stored.Summary.Background.Sentences) != 2 {
		t.Fatalf("stored = %+v, %v", stored, err)
	}
	older, err := st.Handle(ctx, pipelinetest.Input(page(1), onPages, pipelinetest.Tenant(tenant)))
	if err != nil || len(older) != 0 {
		t.Fatalf("version 1 after 2: %+v, %v; want nothing published", older, err)
	}
	if stored, _ := s.Item(ctx, tenant, "42"); stored.Version != 2 {
		t.Errorf("after an older page the store holds version %d, want 2", stored.Version)
	}
	again, err := st.Handle(ctx, pipelinetest.Input(page(2), onPages, pipelinetest.Tenant(tenant)))
	if err != nil || len(again) != 1 || again[0].EventID != out[0].EventID {
		t.Fatalf("redelivered: %+v, %v; want the same event id %s", again, err, out[0].EventID)
	}
	if re, _ := pipeline.As[schemas.FeedItem](again[0].Msg); re.Published != it.Published {
		t.Errorf("redelivered item published %s, the stored one %s: want the stored item again", re.Published, it.Published)
	}
	down, err := feed.New(downStore{}, s)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := down.Handle(ctx, pipelinetest.Input(page(3), onPages, pipelinetest.Tenant(tenant))); err == nil || pipeline.IsPermanent(err) {
		t.Errorf("store down: %v, want a transient error", err)
	}
	if _, err := st.Handle(ctx, pipeline.Input{Msg: schemas.Retraction{DocID: "x"}}); !pipeline.IsPermanent(err) {
		t.Errorf("not a page: %v, want permanent", err)
	}
}
