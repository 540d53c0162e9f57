package app_test

import (
	"context"
	"testing"
	"time"

	"github.com/annalist-dev/annalist/infra/pages"
	"github.com/annalist-dev/annalist/internal/ports/kind"
	"github.com/annalist-dev/annalist/schemas"
)

// kindTimeline is a kind no process registers: the test registers it.
const kindTimeline = "timeline"

// answerPlanner plans a page as one reference.
type answerPlanner struct{}

func (answerPlanner) Plan(_ context.Context, _ string, r schemas.Request) (*schemas.ReferenceSet, error) {
	return &schemas.ReferenceSet{Subject: r.Subject, Name: r.Subject, References: []schemas.Reference{
		{ChunkID: "answer-0", Text: "陆文渊，字静之。"}}}, nil
}

// answerDrafter writes one sentence, the reference's text, citing it.
type answerDrafter struct{}

func (answerDrafter) Draft(_ context.Context, refs *schemas.ReferenceSet, _ []schemas.PageSentence, k int) (schemas.Draft, bool, error) {
	if k > 0 {
		return schemas.Draft{}, true, nil
	}
	r := refs.References[0]
	return schemas.Draft{Text: r.Text, Citations: []string{r.ChunkID}}, false, nil
}

// TestAddingAKindIsOneRegistration registers a do-nothing kind (kind
// timeline: a one-reference plan and one sentence copied from it) on
// the app's registry, publishes a request of that kind through the real
// stages (embedded kfake broker over TCP, a child redis-server) and checks
// that the page is stored under kind timeline, verified and cited, and that
// the subject's biography is untouched.
func TestAddingAKindIsOneRegistration(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	a := open(t, t.TempDir())
	defer a.Close()
	const subject = "陆文渊"
	bio := schemas.Page{Subject: subject, Kind: schemas.KindBiography, RequestID: "r-bio", Version: 1,
		Sentences: []schemas.PageSentence{{Text: "陆文渊，字静之，吴县人。", Status: schemas.StatusSupported,
			Citations: []schemas.Citation{{ChunkID: "c-bio"}}}}}
	if _, _, err := a.Pages.Publish(ctx, schemas.DefaultTenant, bio); err != nil {
		t.Fatal(err)
	}
	kinds, err := a.Kinds()
	if err != nil {
		t.Fatal(err)
	}
	req := []schemas.Request{{Kind: kindTimeline, Subject: subject}}
	if _, err := a.Generate(ctx, schemas.DefaultTenant, false, false, req); err == nil {
		t.Fatal("a request of kind timeline was accepted before the kind was registered")
	}

	if err := kinds.Register(kind.Spec{Name: kindTimeline, Planner: answerPlanner{},
		Drafters: map[string]kind.Drafter{kind.EngineOffline: answerDrafter{}},
		Layout:   kind.Layout{Sections: []kind.Section{{Name: "answer"}}}}); err != nil {
		t.Fatal(err)
	}

	res, err := a.Generate(ctx, schemas.DefaultTenant, true, true, req)
	if err != nil {
		t.Fatal(err)
	}
	r := res[0]
	if r.Status.State != pages.RequestPublished || r.Page == nil {
		t.Fatalf("answer request: %+v", r.Status)
	}
	p := r.Page
	if p.Kind != kindTimeline || p.Subject != subject || p.Version != 1 || len(p.Sentences) != 1 ||
		p.Sentences[0].Text != "陆文渊，字静之。" || p.Sentences[0].Status != schemas.StatusSupported ||
		len(p.Sentences[0].Citations) != 1 || p.Sentences[0].Citations[0].ChunkID != "answer-0" {
		t.Fatalf("answer page = %+v", p)
	}
	if cur, err := a.Pages.CurrentOf(ctx, schemas.DefaultTenant, kindTimeline, subject); err != nil || cur.RequestID != r.Request.RequestID {
		t.Fatalf("stored answer = %+v, %v", cur, err)
	}
	cur, err := a.Pages.Current(ctx, schemas.DefaultTenant, subject)
	if err != nil || cur.RequestID != "r-bio" || cur.Version != 1 || cur.Sentences[0].Text != bio.Sentences[0].Text {
		t.Fatalf("biography after the answer = %+v, %v; want r-bio's version 1 unchanged", cur, err)
	}
	if vs, err := a.Pages.Versions(ctx, schemas.DefaultTenant, subject); err != nil || len(vs) != 1 {
		t.Fatalf("biography versions = %+v, %v; want one", vs, err)
	}
}
