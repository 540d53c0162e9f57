package writer_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/consumers/writer"
	"github.com/annalist-dev/annalist/infra/memory"
	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
	"github.com/annalist-dev/annalist/internal/ports/kind"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
)

// fixedRefs plans every subject but "nobody" as one reference set.
type fixedRefs struct{ calls int }

func (f *fixedRefs) Plan(_ context.Context, _ string, r schemas.Request) (*schemas.ReferenceSet, error) {
	f.calls++
	subject := r.Subject
	if subject == "nobody" {
		return nil, fmt.Errorf("resolve %q: %w", subject, kind.ErrUnknownSubject)
	}
	return &schemas.ReferenceSet{Subject: subject, Name: "甲乙", EntityID: "person:甲乙@c0",
		References: []schemas.Reference{{ChunkID: "c0", Text: "甲乙，字丙丁，某地人。"}}}, nil
}

// listDrafter drafts sentence k as "<prefix>s<k>" for k < n, and records
// what it was given.
type listDrafter struct {
	n        int
	prefix   string
	accepted [][]string
}

func (d *listDrafter) Draft(_ context.Context, _ *schemas.ReferenceSet, acc []schemas.PageSentence, k int) (schemas.Draft, bool, error) {
	var got []string
	for _, s := range acc {
		got = append(got, s.Text)
	}
	d.accepted = append(d.accepted, got)
	if k >= d.n {
		return schemas.Draft{}, true, nil
	}
	return schemas.Draft{Text: fmt.Sprintf("%ss%d", d.prefix, k), Citations: []string{"c0"}}, false, nil
}

type loopHarness struct {
	t    *testing.T
	h    pipeline.Handler
	mem  *memory.Requests
	refs *fixedRefs
	d    *listDrafter
}

// oneSection is the layout of the test kinds.
var oneSection = kind.Layout{Sections: []kind.Section{{Name: "all", Order: "drafted"}}}

// newLoop is the loop on a real redis-server serving the biography kind,
// planned by fixedRefs and drafted by a listDrafter of n sentences.
func newLoop(t *testing.T, n int, cfg writer.LoopConfig) *loopHarness {
	t.Helper()
	mem := memory.NewRequests(redistest.Client(t), 0)
	refs, d := &fixedRefs{}, &listDrafter{n: n}
	var kinds kind.Registry
	if err := kinds.Register(kind.Spec{Name: schemas.KindBiography, Planner: refs,
		Drafters: map[string]kind.Drafter{kind.EngineOffline: d}, Layout: oneSection}); err != nil {
		t.Fatal(err)
	}
	return &loopHarness{t: t, h: writer.NewLoop(&kinds, mem, cfg).Handler(), mem: mem, refs: refs, d: d}
}

func (l *loopHarness) send(m schemas.Message) []pipeline.Output {
	l.t.Helper()
	outs, err := l.h(context.Background(), pipeline.Input{Meta: schemas.Meta{Tenant: "t", EventID: "e"}, Msg: m})
	if err != nil {
		l.t.Fatalf("handle %T: %v", m, err)
	}
	return outs
}

func (l *loopHarness) one(m schemas.Message) schemas.Draft {
	l.t.Helper()
	outs := l.send(m)
	if len(outs) != 1 || outs[0].Topic != topology.Drafts {
		l.t.Fatalf("outputs of %T = %+v; want one draft", m, outs)
	}
	return outs[0].Msg.(schemas.Draft)
}

func supported(d schemas.Draft) schemas.Verdict {
	return schemas.Verdict{RequestID: d.RequestID, Kind: d.Kind, Subject: d.Subject, Index: d.Index,
		Attempt: d.Attempt, Draft: d, Status: schemas.StatusSupported,
		Facts: []schemas.FactVerdict{{Status: schemas.StatusSupported, Evidence: []schemas.Evidence{{ChunkID: "c9"}}}}}
}

func corrected(d schemas.Draft, outcome, text string) schemas.Correction {
	return schemas.Correction{RequestID: d.RequestID, Kind: d.Kind, Subject: d.Subject, Index: d.Index,
		Attempt: d.Attempt, Solver: "era", Outcome: outcome, Text: text, Citations: []string{"c0"},
		ErrorType: schemas.ErrorEra, Reason: "era date fixed"}
}

func TestLoopDraftsSentenceByPageSentenceAndReplays(t *testing.T) {
	ctx := context.Background()
	l := newLoop(t, 3, writer.LoopConfig{})
	req := schemas.Request{RequestID: "r1", Kind: schemas.KindBiography, Subject: "丙丁"}
	d0 := l.one(req)
	if d0.Index != 0 || d0.Attempt != 0 || d0.Text != "s0" || d0.Origin != writer.OriginWriter || d0.Subject != "丙丁" {
		t.Fatalf("first draft = %+v", d0)
	}
	// A redelivered request replays the same draft with the same event id
	// and does not retrieve again.
	first := l.send(req)
	again := l.send(req)
	if first[0].EventID != again[0].EventID || first[0].EventID == "" || l.refs.calls != 1 {
		t.Fatalf("replayed start: ids %q %q, retrievals %d", first[0].EventID, again[0].EventID, l.refs.calls)
	}

	d1 := l.one(supported(d0))
	if d1.Index != 1 || d1.Attempt != 0 {
		t.Fatalf("after sentence 0: %+v", d1)
	}
	// Sentence 1 fails; the correction is re-submitted as attempt 1 by its solver.
	d1b := l.one(corrected(d1, schemas.OutcomeCorrected, "s1 fixed"))
	if d1b.Index != 1 || d1b.Attempt != 1 || d1b.Text != "s1 fixed" || d1b.Origin != "era" {
		t.Fatalf("re-submitted correction = %+v", d1b)
	}
	// A stale verdict on the replaced attempt produces nothing.
	if outs := l.send(supported(d1)); len(outs) != 0 {
		t.Fatalf("stale verdict produced %+v", outs)
	}
	d2 := l.one(supported(d1b))
	if d2.Index != 2 {
		t.Fatalf("after sentence 1: %+v", d2)
	}
	end := l.one(supported(d2))
	if !end.Final || end.Index != 3 {
		t.Fatalf("end of page = %+v", end)
	}
	// Redelivering the last verdict replays the Final draft, nothing more.
	if again := l.one(supported(d2)); !again.Final {
		t.Fatalf("replay of the last step = %+v", again)
	}
	// The drafter saw each accepted sentence before drafting the next.
	last := l.d.accepted[len(l.d.accepted)-1]
	if fmt.Sprint(last) != "[s0 s1 fixed s2]" {
		t.Fatalf("accepted before the end = %v", last)
	}
	fs, err := l.mem.Sentences(ctx, "t", "r1")
	if err != nil || len(fs) != 3 {
		t.Fatalf("final sentences = %+v, %v", fs, err)
	}
	if fs[1].Sentence.Status != schemas.OutcomeCorrected || fs[1].Sentence.Note != "era date fixed" ||
		fs[0].Sentence.Status != schemas.StatusSupported || len(fs[0].Sentence.Citations) != 2 {
		t.Fatalf("sentence records = %+v", fs)
	}
	st, ok, err := l.mem.State(ctx, "t", "r1")
	if err != nil || !ok || !st.Done {
		t.Fatalf("state = %+v %v %v", st, ok, err)
	}
	want := map[string]int64{"drafted": 4, "accepted": 3, "corrected": 1, "detected_era": 1, "fixed_era": 1}
	for k, v := range want {
		if st.Counters[k] != v {
			t.Errorf("counter %s = %d; want %d (all: %v)", k, st.Counters[k], v, st.Counters)
		}
	}
}

func TestLoopBoundsAttemptsAndDrops(t *testing.T) {
	l := newLoop(t, 2, writer.LoopConfig{MaxAttempts: 2})
	d0 := l.one(schemas.Request{RequestID: "r2", Kind: schemas.KindBiography, Subject: "丙丁"})
	d0b := l.one(corrected(d0, schemas.OutcomeCorrected, "retry 1"))
	if d0b.Attempt != 1 {
		t.Fatalf("attempt = %d", d0b.Attempt)
	}
	// The second failure spends the attempts: the sentence is dropped and
	// the next one drafted.
	d1 := l.one(corrected(d0b, schemas.OutcomeCorrected, "retry 2"))
	if d1.Index != 1 || d1.Attempt != 0 {
		t.Fatalf("after dropping sentence 0: %+v", d1)
	}
	// A solver that gives up drops at once.
	drop := corrected(d1, schemas.OutcomeDropped, "")
	drop.Text, drop.Reason = "", "nothing supported remains"
	end := l.one(drop)
	if !end.Final {
		t.Fatalf("want the end of the page, got %+v", end)
	}
	fs, err := l.mem.Sentences(context.Background(), "t", "r2")
	if err != nil || len(fs) != 2 || fs[0].Dropped == "" || fs[1].Dropped != "nothing supported remains" {
		t.Fatalf("records = %+v, %v", fs, err)
	}
}

func TestLoopUnknownSubjectEndsTheRequest(t *testing.T) {
	l := newLoop(t, 2, writer.LoopConfig{})
	end := l.one(schemas.Request{RequestID: "r3", Kind: schemas.KindBiography, Subject: "nobody"})
	if !end.Final || end.Error == "" {
		t.Fatalf("unknown subject: %+v; want a Final draft with the error", end)
	}
}

func TestLoopForgottenRequestIsPermanent(t *testing.T) {
	l := newLoop(t, 2, writer.LoopConfig{})
	v := supported(schemas.Draft{RequestID: "never", Subject: "x", Text: "s0"})
	_, err := l.h(context.Background(), pipeline.Input{Meta: schemas.Meta{Tenant: "t", EventID: "e"}, Msg: v})
	if !errors.Is(err, pipeline.ErrPermanent) {
		t.Fatalf("verdict of an unknown request: err = %v; want permanent", err)
	}
}

// An unregistered kind is dead-lettered, never drafted as a biography: the
// error is permanent, carries the registry's message and nothing is
// planned, drafted or remembered.
func TestLoopRefusesAnUnregisteredKind(t *testing.T) {
	l := newLoop(t, 2, writer.LoopConfig{})
	req := schemas.Request{RequestID: "r-topic", Kind: schemas.KindTopicPage, Subject: "丙丁"}
	outs, err := l.h(context.Background(), pipeline.Input{Meta: schemas.Meta{Tenant: "t", EventID: "e"}, Msg: req})
	if !errors.Is(err, pipeline.ErrPermanent) || !errors.Is(err, kind.ErrUnregistered) {
		t.Fatalf("request of an unregistered kind: err = %v; want permanent and unregistered", err)
	}
	if want := "kind topic_page is not registered (registered: biography)"; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not say %q", err, want)
	}
	if len(outs) != 0 || l.refs.calls != 0 || len(l.d.accepted) != 0 {
		t.Fatalf("refused request produced %+v, %d plans, %d drafts", outs, l.refs.calls, len(l.d.accepted))
	}
	if _, ok, err := l.mem.State(context.Background(), "t", req.RequestID); err != nil || ok {
		t.Fatalf("refused request is in memory: ok=%v err=%v", ok, err)
	}
}

// Requests of two kinds go through the same loop, each planned and drafted
// by its own kind, on every step (the kind of a verdict's request is read
// from memory); the engine picks the kind's drafter, the offline one when
// the kind has none for it.
func TestLoopDispatchesOnKind(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewRequests(redistest.Client(t), 0)
	bioRefs, bio := &fixedRefs{}, &listDrafter{n: 2, prefix: "bio-"}
	ansRefs, ansOff, ansLLM := &fixedRefs{}, &listDrafter{n: 2, prefix: "answer-"}, &listDrafter{n: 2, prefix: "answer-llm-"}
	var kinds kind.Registry
	for _, s := range []kind.Spec{
		{Name: schemas.KindBiography, Planner: bioRefs, Drafters: map[string]kind.Drafter{kind.EngineOffline: bio}, Layout: oneSection},
		{Name: schemas.KindAnswer, Planner: ansRefs, Layout: oneSection,
			Drafters: map[string]kind.Drafter{kind.EngineOffline: ansOff, kind.EngineLLM: ansLLM}},
	} {
		if err := kinds.Register(s); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		engine, kind, want0, want1 string
	}{
		{kind.EngineOffline, schemas.KindAnswer, "answer-s0", "answer-s1"},
		{kind.EngineOffline, schemas.KindBiography, "bio-s0", "bio-s1"},
		{kind.EngineLLM, schemas.KindAnswer, "answer-llm-s0", "answer-llm-s1"},
		{kind.EngineLLM, schemas.KindBiography, "bio-s0", "bio-s1"},
	} {
		h := writer.NewLoop(&kinds, mem, writer.LoopConfig{Engine: tc.engine}).Handler()
		one := func(m schemas.Message) schemas.Draft {
			t.Helper()
			outs, err := h(ctx, pipeline.Input{Meta: schemas.Meta{Tenant: "t", EventID: "e"}, Msg: m})
			if err != nil || len(outs) != 1 {
				t.Fatalf("%s %s: handle %T = %+v, %v", tc.engine, tc.kind, m, outs, err)
			}
			return outs[0].Msg.(schemas.Draft)
		}
		id := "r-" + tc.engine + "-" + tc.kind
		d0 := one(schemas.Request{RequestID: id, Kind: tc.kind, Subject: "丙丁"})
		d1 := one(supported(d0))
		if d0.Text != tc.want0 || d1.Text != tc.want1 || d0.Kind != tc.kind || d1.Kind != tc.kind {
			t.Errorf("%s engine, %s: drafts %q (%s), %q (%s); want %q, %q", tc.engine, tc.kind,
				d0.Text, d0.Kind, d1.Text, d1.Kind, tc.want0, tc.want1)
		}
		if end := one(supported(d1)); !end.Final || end.Kind != tc.kind {
			t.Errorf("%s engine, %s: end = %+v", tc.engine, tc.kind, end)
		}
	}
	if bioRefs.calls != 2 || ansRefs.calls != 2 {
		t.Errorf("plans: biography %d, answer %d; want 2 each", bioRefs.calls, ansRefs.calls)
	}
}

// The entities a verified draft names (a discussion summary's opinion)
// are carried to its final sentence, for the assembler to publish.
func TestLoopCarriesEntities(t *testing.T) {
	ctx := context.Background()
	l := newLoop(t, 1, writer.LoopConfig{})
	d0 := l.one(schemas.Request{RequestID: "r-ent", Kind: schemas.KindBiography, Subject: "丙丁"})
	d0.Entities = []string{"Maya Torres", "Harbor City FC"}
	if end := l.one(supported(d0)); !end.Final {
		t.Fatalf("after the only sentence: %+v", end)
	}
	fs, err := l.mem.Sentences(ctx, "t", "r-ent")
	if err != nil || len(fs) != 1 {
		t.Fatalf("final sentences = %+v, %v", fs, err)
	}
	if got := fs[0].Sentence.Entities; fmt.Sprint(got) != "[Maya Torres Harbor City FC]" {
		t.Errorf("entities of the final sentence = %q", got)
	}
}
