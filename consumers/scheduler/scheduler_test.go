package scheduler_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/annalist-dev/annalist/consumers/scheduler"
	"github.com/annalist-dev/annalist/infra/pages"
	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
)

// store is the Redis page store and schedule seen through the stage's
// interfaces, as the wiring adapts them.
type store struct {
	pages *pages.Store
	sched *pages.Schedule
}

func (s store) Dependents(ctx context.Context, tenant string, qs []scheduler.Query) ([][]scheduler.Page, error) {
	out := make([][]scheduler.Page, len(qs))
	for i, q := range qs {
		refs, err := s.pages.Dependents(ctx, tenant, q.Entities, q.Chunks)
		if err != nil {
			return nil, err
		}
		for _, r := range refs {
			out[i] = append(out[i], scheduler.Page{Kind: r.Kind, Subject: r.Subject})
		}
	}
	return out, nil
}

func (s store) Record(ctx context.Context, tenant string, tr scheduler.Trigger, ps []scheduler.Page, now time.Time, window, maxDelay time.Duration) (int, error) {
	var refs []pages.PageRef
	for _, p := range ps {
		refs = append(refs, pages.PageRef{Kind: p.Kind, Subject: p.Subject})
	}
	return s.sched.Record(ctx, tenant, pages.Trigger{Reason: tr.Reason, DocIDs: tr.DocIDs, Key: tr.Key}, refs, now, window, maxDelay)
}

func (s store) Tenants(ctx context.Context) ([]string, error) { return s.sched.Tenants(ctx) }

func (s store) Claim(ctx context.Context, tenant string, now time.Time, lease time.Duration, n int) ([]scheduler.Claim, error) {
	cs, err := s.sched.Claim(ctx, tenant, now, lease, n)
	var out []scheduler.Claim
	for _, c := range cs {
		out = append(out, scheduler.Claim{Request: c.Request(), First: c.First})
	}
	return out, err
}

func (s store) Ack(ctx context.Context, tenant string, c scheduler.Claim) (bool, error) {
	return s.sched.Ack(ctx, tenant, pages.Claimed{Page: pages.PageRef{Kind: c.Request.Kind, Subject: c.Request.Subject},
		RequestID: c.Request.RequestID})
}

func (s store) Release(ctx context.Context, tenant string, c scheduler.Claim, now time.Time) error {
	return s.sched.Release(ctx, tenant, pages.Claimed{Page: pages.PageRef{Kind: c.Request.Kind, Subject: c.Request.Subject},
		RequestID: c.Request.RequestID}, now)
}

func (s store) Forget(ctx context.Context, tenant string) error { return s.sched.Forget(ctx, tenant) }

// clock is a settable test clock.
type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }
func newClock() *clock                   { return &clock{t: time.UnixMilli(1_700_000_000_000)} }
func citing(subject, req string, chunks ...string) schemas.Page {
	p := schemas.Page{Subject: subject, Kind: schemas.KindBiography, RequestID: req, Version: 1}
	for _, c := range chunks {
		p.Sentences = append(p.Sentences, schemas.PageSentence{Text: subject + "。", Status: schemas.StatusSupported,
			Citations: []schemas.Citation{{ChunkID: c}}})
	}
	return p
}

type fixture struct {
	ctx       context.Context
	st        store
	clk       *clock
	h         pipeline.BatchHandler
	published []schemas.Request
	em        *scheduler.Emitter
}

// newFixture publishes three biographies: 叶向高 (entity e-ye, cites
// d1-0001), 申时行 (e-shen, cites d1-0002 and d2-0001) and 王锡爵 (e-wang,
// cites d3-0001), and builds the handler and an emitter that collects
// what it publishes.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	c := redistest.Client(t)
	f := &fixture{ctx: context.Background(), st: store{pages.New(c), pages.NewSchedule(c)}, clk: newClock()}
	for _, p := range []struct {
		page   schemas.Page
		entity string
	}{
		{citing("叶向高", "r1", "d1-0001"), "e-ye"},
		{citing("申时行", "r2", "d1-0002", "d2-0001"), "e-shen"},
		{citing("王锡爵", "r3", "d3-0001"), "e-wang"},
	} {
		if _, _, err := f.st.pages.Publish(f.ctx, "t", p.page, p.entity); err != nil {
			t.Fatal(err)
		}
	}
	f.h = scheduler.Handler(f.st, scheduler.Config{Window: 300 * time.Millisecond, Now: f.clk.now})
	f.em = scheduler.NewEmitter(f.st, func(_ context.Context, tenant string, r schemas.Request) error {
		if tenant != "t" {
			t.Errorf("published for tenant %q", tenant)
		}
		f.published = append(f.published, r)
		return nil
	}, f.st.pages, scheduler.EmitterConfig{Rate: 1000, Now: f.clk.now}, zerolog.Nop())
	return f
}

func (f *fixture) update(t *testing.T, u schemas.KGUpdate) {
	t.Helper()
	outs, err := f.h(f.ctx, []pipeline.Input{{Meta: schemas.Meta{Tenant: "t"}, Msg: u, Topic: topology.KGUpdates}})
	if err != nil || len(outs) != 1 || len(outs[0]) != 0 {
		t.Fatalf("handle %+v = %v, %v; want no output, no error", u, outs, err)
	}
}

// round runs one emitter round and returns what it published.
func (f *fixture) round(t *testing.T) []schemas.Request {
	t.Helper()
	f.published = nil
	if _, err := f.em.Round(f.ctx); err != nil {
		t.Fatal(err)
	}
	return f.published
}

func subjectsOf(rs []schemas.Request) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Subject)
	}
	return out
}

// An update reaches the pages about its entity and the pages citing the
// chunks it added or removed, and no other; pages fall due one window
// after the last change; each gets one request carrying the trigger.
func TestHandlerFindsDependentsAndDebounces(t *testing.T) {
	f := newFixture(t)
	f.update(t, schemas.KGUpdate{EntityID: "e-ye", Name: "叶向高", Type: schemas.EntityPerson,
		Edges: []string{"x1"}, DocIDs: []string{"d9"}})
	f.clk.advance(200 * time.Millisecond)
	f.update(t, schemas.KGUpdate{EntityID: "e-other", Name: "某", Type: schemas.EntityPerson,
		RemovedChunks: []string{"d2-0001"}, Reason: schemas.ReasonSuperseded, DocIDs: []string{"d2", "d8"}})
	f.clk.advance(50 * time.Millisecond)
	f.update(t, schemas.KGUpdate{EntityID: "e-ye", Name: "叶向高", Type: schemas.EntityPerson,
		Chunks: []string{"d9-0003"}, DocIDs: []string{"d9"}})
	f.clk.advance(150 * time.Millisecond)
	if got := f.round(t); len(got) != 0 {
		t.Fatalf("published %v inside the window", subjectsOf(got))
	}
	f.clk.advance(120 * time.Millisecond)
	got := f.round(t)
	if !slices.Equal(subjectsOf(got), []string{"申时行"}) {
		t.Fatalf("published %v; want 申时行 (叶向高's window was pushed back)", subjectsOf(got))
	}
	r := got[0]
	if r.Reason != schemas.RequestRegeneration || r.Kind != schemas.KindBiography || r.Trigger == nil ||
		r.Trigger.Reason != schemas.ReasonSuperseded || !slices.Equal(r.Trigger.DocIDs, []string{"d2", "d8"}) ||
		r.Priority != 2 || r.RequestID == "" {
		t.Fatalf("request = %+v (trigger %+v)", r, r.Trigger)
	}
	f.clk.advance(80 * time.Millisecond)
	got = f.round(t)
	if !slices.Equal(subjectsOf(got), []string{"叶向高"}) || got[0].Trigger.Reason != schemas.ReasonNewEvidence ||
		!slices.Equal(got[0].Trigger.DocIDs, []string{"d9"}) {
		t.Fatalf("published %+v; want one request for 叶向高 on new evidence from d9", got)
	}
	f.clk.advance(time.Second)
	if got := f.round(t); len(got) != 0 {
		t.Fatalf("published %v again", subjectsOf(got))
	}
	// 王锡爵 depended on nothing that changed.
	if ok, err := f.st.pages.Stale(f.ctx, "t", schemas.KindBiography, "王锡爵"); err != nil || ok {
		t.Fatalf("王锡爵 stale = %v, %v; want false", ok, err)
	}
}

// A batch of updates is handled as its updates one by one: each page gets
// the triggers of the updates it rests under, whatever else the batch
// holds (an update no page rests on, one that changes nothing).
func TestBatchOfUpdates(t *testing.T) {
	f := newFixture(t)
	in := func(u schemas.KGUpdate) pipeline.Input {
		return pipeline.Input{Meta: schemas.Meta{Tenant: "t"}, Msg: u, Topic: topology.KGUpdates}
	}
	outs, err := f.h(f.ctx, []pipeline.Input{
		in(schemas.KGUpdate{EntityID: "e-ye", Name: "叶向高", Type: schemas.EntityPerson, Edges: []string{"x1"}, DocIDs: []string{"d9"}}),
		in(schemas.KGUpdate{EntityID: "e-none", Name: "某", Type: schemas.EntityPerson, Edges: []string{"x2"}, DocIDs: []string{"d7"}}),
		in(schemas.KGUpdate{EntityID: "e-shen", Name: "申时行", Type: schemas.EntityPerson}),
		in(schemas.KGUpdate{EntityID: "e-x", Name: "某", Type: schemas.EntityPerson, RemovedChunks: []string{"d3-0001"},
			Reason: schemas.ReasonSuperseded, DocIDs: []string{"d3", "d4"}}),
	})
	if err != nil || len(outs) != 4 {
		t.Fatalf("handle a batch of 4 = %d output lists, %v", len(outs), err)
	}
	f.clk.advance(time.Second)
	got := f.round(t)
	slices.SortFunc(got, func(a, b schemas.Request) int { return strings.Compare(a.Subject, b.Subject) })
	if !slices.Equal(subjectsOf(got), []string{"叶向高", "王锡爵"}) {
		t.Fatalf("published %v; want 叶向高 and 王锡爵", subjectsOf(got))
	}
	if tr := got[0].Trigger; tr == nil || tr.Reason != schemas.ReasonNewEvidence || !slices.Equal(tr.DocIDs, []string{"d9"}) {
		t.Errorf("叶向高's trigger = %+v; want new evidence from d9", tr)
	}
	if tr := got[1].Trigger; tr == nil || tr.Reason != schemas.ReasonSuperseded || !slices.Equal(tr.DocIDs, []string{"d3", "d4"}) {
		t.Errorf("王锡爵's trigger = %+v; want d3 superseded by d4", tr)
	}
}

// Updates that change nothing under any page schedule nothing: an entity
// no page is about, a chunk no page cites, an update with no change.
// The same update announced again, after its page was regenerated,
// schedules nothing either.
func TestNothingChangedNothingScheduled(t *testing.T) {
	f := newFixture(t)
	f.update(t, schemas.KGUpdate{EntityID: "e-nobody", Name: "无名", Type: schemas.EntityPerson,
		Edges: []string{"x"}, Chunks: []string{"d7-0001"}})
	f.update(t, schemas.KGUpdate{EntityID: "e-ye", Name: "叶向高", Type: schemas.EntityPerson})
	u := schemas.KGUpdate{EntityID: "e-wang", Name: "王锡爵", Type: schemas.EntityPerson,
		Aliases: []string{"元驭", "荆石"}, DocIDs: []string{"d5"}}
	f.update(t, u)
	f.clk.advance(time.Second)
	if got := f.round(t); !slices.Equal(subjectsOf(got), []string{"王锡爵"}) {
		t.Fatalf("published %v; want 王锡爵 alone", subjectsOf(got))
	}
	u.Aliases = []string{"荆石", "元驭"}
	f.update(t, u)
	f.clk.advance(time.Second)
	if got := f.round(t); len(got) != 0 {
		t.Fatalf("the same update again published %v", subjectsOf(got))
	}
	for _, s := range []string{"叶向高", "申时行"} {
		if ok, err := f.st.pages.Stale(f.ctx, "t", schemas.KindBiography, s); err != nil || ok {
			t.Fatalf("%s stale = %v, %v; want false", s, ok, err)
		}
	}
}

// A document's retraction reaches every page citing its chunks whatever
// entity they came through, and is served before new evidence that fell
// due at the same time; its documents default to the retracted one.
func TestRetractionFirst(t *testing.T) {
	f := newFixture(t)
	f.update(t, schemas.KGUpdate{EntityID: "e-wang", Name: "王锡爵", Type: schemas.EntityPerson, Edges: []string{"x"}})
	f.update(t, schemas.KGUpdate{EntityID: schemas.DocumentEntity("d1"), Name: "a.txt", Type: schemas.EntityDocument,
		RemovedChunks: []string{"d1-0001", "d1-0002"}, Reason: schemas.ReasonRetracted})
	f.clk.advance(time.Second)
	got := f.round(t)
	if want := []string{"叶向高", "申时行", "王锡爵"}; !slices.Equal(subjectsOf(got), want) {
		t.Fatalf("order %v; want %v", subjectsOf(got), want)
	}
	for _, r := range got[:2] {
		if r.Trigger.Reason != schemas.ReasonRetracted || !slices.Equal(r.Trigger.DocIDs, []string{"d1"}) || r.Priority != 3 {
			t.Fatalf("retraction request = %+v (trigger %+v)", r, r.Trigger)
		}
	}
}

// An update with a reason the scheduler does not know is permanent
// (dead-lettered), not retried forever.
func TestUnknownReasonIsPermanent(t *testing.T) {
	f := newFixture(t)
	_, err := f.h(f.ctx, []pipeline.Input{{Meta: schemas.Meta{Tenant: "t"}, Topic: topology.KGUpdates,
		Msg: schemas.KGUpdate{EntityID: "e-ye", Name: "叶向高", Edges: []string{"x"}, Reason: "whim"}}})
	if !pipeline.IsPermanent(err) {
		t.Fatalf("err = %v; want permanent", err)
	}
}

// The rate: a token bucket of one second's worth; a backlog drains at the
// rate, and a publish that fails transiently releases its claim for the
// next round under the same request id, while one refused for good fails
// the request (freeing the stale mark) and is not tried again.
func TestEmitterRateAndFailures(t *testing.T) {
	f := newFixture(t)
	if _, _, err := f.st.pages.Publish(f.ctx, "t", citing("张居正", "r4", "d1-0003"), "e-zhang"); err != nil {
		t.Fatal(err)
	}
	var fail error
	var sent []schemas.Request
	em := scheduler.NewEmitter(f.st, func(_ context.Context, _ string, r schemas.Request) error {
		if fail != nil {
			return fail
		}
		sent = append(sent, r)
		return nil
	}, f.st.pages, scheduler.EmitterConfig{Rate: 2, Now: f.clk.now}, zerolog.Nop())
	f.update(t, schemas.KGUpdate{EntityID: schemas.DocumentEntity("d1"), Name: "d1", Type: schemas.EntityDocument,
		RemovedChunks: []string{"d1-0001", "d1-0002", "d1-0003", "d3-0001"}, Reason: schemas.ReasonRetracted})
	f.clk.advance(time.Second)
	if n, err := em.Round(f.ctx); err != nil || n != 2 {
		t.Fatalf("first round published %d, %v; want 2 (the bucket)", n, err)
	}
	f.clk.advance(100 * time.Millisecond)
	if n, err := em.Round(f.ctx); err != nil || n != 0 {
		t.Fatalf("round after 100ms published %d, %v; want 0 at 2/s", n, err)
	}
	fail = errors.New("broker down")
	f.clk.advance(500 * time.Millisecond)
	if _, err := em.Round(f.ctx); err == nil {
		t.Fatal("a failed publish was not reported")
	}
	fail = nil
	f.clk.advance(500 * time.Millisecond)
	if n, err := em.Round(f.ctx); err != nil || n != 1 {
		t.Fatalf("round after the outage published %d, %v; want 1", n, err)
	}
	fail = schemas.ErrInvalid
	f.clk.advance(500 * time.Millisecond)
	if n, err := em.Round(f.ctx); err != nil || n != 1 {
		t.Fatalf("round with a refused request = %d, %v; want it counted and acknowledged", n, err)
	}
	if n, err := f.st.pages.StaleCount(f.ctx, "t"); err != nil || n != 3 {
		t.Fatalf("stale pages = %d, %v; want 3 (the refused one freed)", n, err)
	}
	fail = nil
	f.clk.advance(5 * time.Second)
	if n, err := em.Round(f.ctx); err != nil || n != 0 {
		t.Fatalf("a last round published %d, %v; want nothing left", n, err)
	}
	seen := map[string]bool{}
	for _, r := range sent {
		if seen[r.Subject] {
			t.Errorf("%s published twice", r.Subject)
		}
		seen[r.Subject] = true
	}
	if len(sent) != 3 {
		t.Fatalf("published %v; want three pages", subjectsOf(sent))
	}
}

// failingPages fails every read of a page, as Redis down would.
type failingPages struct{}

func (failingPages) CurrentOf(context.Context, string, string, string) (schemas.Page, error) {
	return schemas.Page{}, errors.New("connection refused")
}

// The regeneration of an answer carries the documents its current page
// was written from, so it is answered from them again and not from a
// retrieval; an answer from retrieval goes as it is; an answer that cites
// given documents its page does not record is refused (and its stale
// mark freed) rather than answered from a retrieval; a page that cannot
// be read gives the claim back.
func TestAnswerRegenerationCarriesDocuments(t *testing.T) {
	f := newFixture(t)
	docs := []schemas.AnswerDocument{{Title: "Tower", Text: "The tower was built in 1889."}, {Title: "Paint", Text: "It is painted every seven years."}}
	answerPage := func(subject, req string, chunks ...string) schemas.Page {
		p := citing(subject, req, chunks...)
		p.Kind = schemas.KindAnswer
		return p
	}
	const tower, bridge, mill = "When was the tower built?", "Who built the bridge?", "Where is the mill?"
	// Each was first answered from a retrieval (citing d5's chunks); the
	// tower and the mill were then answered from given documents.
	withDocs := answerPage(tower, "r-tower-2", schemas.AnswerDocRef(1))
	withDocs.Documents = docs
	for _, p := range []schemas.Page{answerPage(tower, "r-tower-1", "d5-0001"), withDocs,
		answerPage(bridge, "r-bridge", "d5-0002"),
		answerPage(mill, "r-mill-1", "d5-0003"), answerPage(mill, "r-mill-2", schemas.AnswerDocRef(2))} {
		if _, _, err := f.st.pages.Publish(f.ctx, "t", p); err != nil {
			t.Fatal(err)
		}
	}
	f.em.WithPages(failingPages{}, nil)
	f.update(t, schemas.KGUpdate{EntityID: schemas.DocumentEntity("d5"), Name: "d5", Type: schemas.EntityDocument,
		RemovedChunks: []string{"d5-0001", "d5-0002", "d5-0003"}, Reason: schemas.ReasonRetracted})
	f.clk.advance(time.Second)
	if n, err := f.em.Round(f.ctx); err == nil || n != 0 || len(f.published) != 0 {
		t.Fatalf("round with the pages unreadable = %d, %v, %v; want an error and nothing published", n, err, subjectsOf(f.published))
	}
	f.em.WithPages(f.st.pages, func(err error) bool { return errors.Is(err, pages.ErrNotFound) })
	got := f.round(t)
	slices.SortFunc(got, func(a, b schemas.Request) int { return strings.Compare(a.Subject, b.Subject) })
	if !slices.Equal(subjectsOf(got), []string{tower, bridge}) && !slices.Equal(subjectsOf(got), []string{bridge, tower}) {
		t.Fatalf("published %v; want the tower and the bridge (the mill refused)", subjectsOf(got))
	}
	for _, r := range got {
		switch r.Subject {
		case tower:
			if !slices.Equal(r.Documents, docs) || r.Reason != schemas.RequestRegeneration || r.Trigger == nil {
				t.Errorf("tower: %+v; want a regeneration carrying its two documents", r)
			}
		case bridge:
			if r.Documents != nil {
				t.Errorf("bridge: documents %+v; want none (answered from a retrieval)", r.Documents)
			}
		}
	}
	if stale, err := f.st.pages.Stale(f.ctx, "t", schemas.KindAnswer, mill); err != nil || stale {
		t.Fatalf("mill stale = %v, %v; want its refused regeneration to have freed the mark", stale, err)
	}
	if got := f.round(t); len(got) != 0 {
		t.Fatalf("published %v again", subjectsOf(got))
	}
}
