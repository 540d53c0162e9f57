package assembler_test

import (
	"context"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/annalist-dev/annalist/internal/ports/genmem"

	"github.com/annalist-dev/annalist/consumers/assembler"
	"github.com/annalist-dev/annalist/infra/memory"
	"github.com/annalist-dev/annalist/infra/pages"
	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
)

func TestAssemblePublishesOncePerRequest(t *testing.T) {
	ctx := context.Background()
	c := redistest.Client(t)
	mem, store := memory.NewRequests(c, 0), pages.New(c)
	refs := &schemas.ReferenceSet{Subject: "进卿", Name: "叶向高", References: []schemas.Reference{
		{ChunkID: "c1", Text: "叶向高，字进卿，福清人。"},
		{ChunkID: "c2", Text: "万历十一年进士。"},
	}}
	if err := mem.PutReferences(ctx, "t", "r1", refs); err != nil {
		t.Fatal(err)
	}
	req := schemas.Request{RequestID: "r1", Kind: schemas.KindBiography, Subject: "进卿"}
	if err := store.SetRequest(ctx, "t", pages.RequestStatus{RequestID: "r1", Subject: "进卿", State: pages.RequestQueued}); err != nil {
		t.Fatal(err)
	}
	steps := []genmem.Step{
		{Key: "start", Start: &req, Name: "叶向高", StartedMillis: 1, Output: []byte("[]"), Incr: map[string]int64{"drafted": 1}},
		{Key: "v:0:0", Record: &genmem.Final{Index: 0, Sentence: schemas.PageSentence{Text: "叶向高，字进卿，福清人。",
			Status: schemas.StatusSupported, Citations: []schemas.Citation{{ChunkID: "c1"}, {ChunkID: "gone"}}}},
			NextIndex: 1, Output: []byte("[]"), Incr: map[string]int64{"drafted": 1}},
		{Key: "c:1:0", ExpectIndex: 1, NextIndex: 2, Record: &genmem.Final{Index: 1, Dropped: "no support"}, Output: []byte("[]")},
		{Key: "v:2:0", ExpectIndex: 2, NextIndex: 3, Done: true, Record: &genmem.Final{Index: 2, Sentence: schemas.PageSentence{
			Text: "万历十一年（1583年）进士。", Status: schemas.OutcomeCorrected,
			Facts: []schemas.Fact{{Relation: "jinshi", Value: "万历十一年", ChunkID: "c2"}}}}, Output: []byte("[]")},
	}
	for _, s := range steps {
		if ok, _, err := mem.Step(ctx, "t", "r1", s); err != nil || !ok {
			t.Fatalf("step %s: applied=%v err=%v", s.Key, ok, err)
		}
	}
	h := assembler.New(mem, store, nil).Handler()
	final := schemas.Draft{RequestID: "r1", Kind: schemas.KindBiography, Subject: "进卿", Index: 3, Final: true}
	in := pipeline.Input{Meta: schemas.Meta{Tenant: "t", EventID: "e", TraceID: "r1"}, Msg: final}
	var pub []pipeline.Output
	for i := 0; i < 2; i++ {
		outs, err := h(ctx, in)
		if err != nil || len(outs) != 1 || outs[0].Topic != topology.Pages {
			t.Fatalf("outputs = %+v, %v", outs, err)
		}
		pub = append(pub, outs...)
	}
	if pub[0].EventID != pub[1].EventID {
		t.Fatalf("redelivery published another event: %q vs %q", pub[0].EventID, pub[1].EventID)
	}
	p := pub[0].Msg.(schemas.Page)
	if p.Subject != "叶向高" || p.Version != 1 || len(p.Sentences) != 2 || len(p.Dropped) != 1 {
		t.Fatalf("page = %+v", p)
	}
	s0, s1 := p.Sentences[0], p.Sentences[1]
	if len(s0.Citations) != 1 || s0.Citations[0].ChunkID != "c1" || s0.Citations[0].Text == "" {
		t.Fatalf("sentence 0 citations = %+v; want c1 with its text, the unknown chunk left out", s0.Citations)
	}
	if len(s1.Citations) != 1 || s1.Citations[0].ChunkID != "c2" {
		t.Fatalf("sentence 1 citations = %+v; want the chunk of its fact", s1.Citations)
	}
	if p.Stats["drafted"] != 2 || p.Stats["sentences"] != 2 || p.Stats["dropped"] != 1 {
		t.Fatalf("stats = %v", p.Stats)
	}
	if p.TraceID != "r1" {
		t.Fatalf("page trace id = %q; want the final draft's trace id r1", p.TraceID)
	}
	st, err := store.Request(ctx, "t", "r1")
	if err != nil || st.State != pages.RequestPublished || st.Page != "叶向高" || st.Version != 1 {
		t.Fatalf("request status = %+v, %v", st, err)
	}
	if vs, _ := store.Versions(ctx, "t", "叶向高"); len(vs) != 1 {
		t.Fatalf("versions = %+v; want one (published once)", vs)
	}
	// A Final draft with an error fails the request and publishes nothing.
	fail := schemas.Draft{RequestID: "r2", Kind: schemas.KindBiography, Subject: "nobody", Final: true, Error: "unknown subject"}
	outs, err := h(ctx, pipeline.Input{Meta: schemas.Meta{Tenant: "t", EventID: "e2"}, Msg: fail})
	if err != nil || len(outs) != 0 {
		t.Fatalf("failed request: %+v, %v", outs, err)
	}
	if st, err := store.Request(ctx, "t", "r2"); err != nil || st.State != pages.RequestFailed || st.Error != "unknown subject" {
		t.Fatalf("failed status = %+v, %v", st, err)
	}
}

// A page of another kind about a subject is published under its kind: the
// subject's biography keeps its versions, the page and its event have keys
// of their own, and the request's status leads to it.
func TestAssemblePassesTheKindThrough(t *testing.T) {
	ctx := context.Background()
	c := redistest.Client(t)
	mem, store := memory.NewRequests(c, 0), pages.New(c)
	h := assembler.New(mem, store, nil).Handler()
	refs := &schemas.ReferenceSet{Subject: "叶向高", Name: "叶向高", References: []schemas.Reference{
		{ChunkID: "c1", Text: "叶向高，字进卿，福清人。"}}}
	docs := []schemas.AnswerDocument{{Title: "叶向高传", Text: "叶向高，字进卿，福清人。"}}
	publish := func(id, kind string) pipeline.Output {
		t.Helper()
		if err := mem.PutReferences(ctx, "t", id, refs); err != nil {
			t.Fatal(err)
		}
		req := schemas.Request{RequestID: id, Kind: kind, Subject: "叶向高"}
		if kind == schemas.KindAnswer {
			req.Documents = docs
		}
		for _, s := range []genmem.Step{
			{Key: "start", Start: &req, Name: "叶向高", Output: []byte("[]")},
			{Key: "v:0:0", NextIndex: 1, Done: true, Output: []byte("[]"), Record: &genmem.Final{Index: 0,
				Sentence: schemas.PageSentence{Text: "叶向高，字进卿，福清人。", Status: schemas.StatusSupported,
					Citations: []schemas.Citation{{ChunkID: "c1"}}}}},
		} {
			if ok, _, err := mem.Step(ctx, "t", id, s); err != nil || !ok {
				t.Fatalf("step %s of %s: applied=%v err=%v", s.Key, id, ok, err)
			}
		}
		final := schemas.Draft{RequestID: id, Kind: kind, Subject: "叶向高", Index: 1, Final: true}
		outs, err := h(ctx, pipeline.Input{Meta: schemas.Meta{Tenant: "t", EventID: "e-" + id}, Msg: final})
		if err != nil || len(outs) != 1 {
			t.Fatalf("outputs of %s = %+v, %v", id, outs, err)
		}
		return outs[0]
	}
	bio := publish("r-bio", schemas.KindBiography)
	ans := publish("r-answer", schemas.KindAnswer)
	bp, ap := bio.Msg.(schemas.Page), ans.Msg.(schemas.Page)
	if bp.Kind != schemas.KindBiography || ap.Kind != schemas.KindAnswer || ap.Version != 1 {
		t.Fatalf("pages = %s v%d, %s v%d; want a biography and an answer, each version 1", bp.Kind, bp.Version, ap.Kind, ap.Version)
	}
	// The answer keeps the documents it was given (its regeneration
	// answers from them again); the biography has none.
	if !reflect.DeepEqual(ap.Documents, docs) || bp.Documents != nil {
		t.Fatalf("documents: answer page %+v, biography page %+v; want the request's on the answer only", ap.Documents, bp.Documents)
	}
	if bio.EventID == ans.EventID || bp.PartitionKey() == ap.PartitionKey() {
		t.Fatalf("the answer shares the biography's event id or topic key (%q, %q)", ans.EventID, ap.PartitionKey())
	}
	if vs, err := store.Versions(ctx, "t", "叶向高"); err != nil || len(vs) != 1 || vs[0].RequestID != "r-bio" {
		t.Fatalf("biography versions = %+v, %v; want only r-bio's", vs, err)
	}
	st, err := store.Request(ctx, "t", "r-answer")
	if err != nil || st.Kind != schemas.KindAnswer {
		t.Fatalf("answer request status = %+v, %v", st, err)
	}
	if p, err := store.Published(ctx, "t", st); err != nil || p.RequestID != "r-answer" || p.Kind != schemas.KindAnswer {
		t.Fatalf("page of the answer request = %+v, %v", p, err)
	}
}

// A Final draft of a request whose memory is gone is dead-lettered, and
// the request fails with the reason, so no client waits for its page.
func TestAssembleForgottenRequestFailsIt(t *testing.T) {
	ctx := context.Background()
	c := redistest.Client(t)
	mem, store := memory.NewRequests(c, 0), pages.New(c)
	if err := store.SetRequest(ctx, "t", pages.RequestStatus{RequestID: "gone", Subject: "进卿", State: pages.RequestQueued}); err != nil {
		t.Fatal(err)
	}
	final := schemas.Draft{RequestID: "gone", Kind: schemas.KindBiography, Subject: "进卿", Index: 3, Final: true}
	_, err := assembler.New(mem, store, nil).Handler()(ctx, pipeline.Input{Meta: schemas.Meta{Tenant: "t", EventID: "e"}, Msg: final})
	if !pipeline.IsPermanent(err) {
		t.Fatalf("err = %v; want permanent", err)
	}
	st, err := store.Request(ctx, "t", "gone")
	if err != nil || st.State != pages.RequestFailed || st.Error == "" {
		t.Fatalf("status %+v, %v; want failed with the reason", st, err)
	}
}

// A page says why it was made: a regeneration's page carries its
// trigger's reason and documents, a user's request's "requested". The
// page is indexed by the entity it is about as well as by the chunks it
// cites, and publishing the regeneration clears the page's stale mark.
func TestPageReasonAndEntityDeps(t *testing.T) {
	ctx := context.Background()
	c := redistest.Client(t)
	mem, store := memory.NewRequests(c, 0), pages.New(c)
	sched := pages.NewSchedule(c)
	refs := &schemas.ReferenceSet{Subject: "叶向高", Name: "叶向高", EntityID: "e-ye", References: []schemas.Reference{
		{ChunkID: "c1", Text: "叶向高，字进卿，福清人。"}}}
	// The page is stale, and the regeneration's claim names request r-regen.
	now := time.UnixMilli(1_700_000_000_000)
	if _, err := sched.Record(ctx, "t", pages.Trigger{Reason: schemas.ReasonSuperseded, DocIDs: []string{"d2", "d1"}, Key: "k"},
		[]pages.PageRef{{Kind: schemas.KindBiography, Subject: "叶向高"}}, now, time.Millisecond, time.Second); err != nil {
		t.Fatal(err)
	}
	claims, err := sched.Claim(ctx, "t", now.Add(time.Second), time.Minute, 1)
	if err != nil || len(claims) != 1 {
		t.Fatalf("claim = %v, %v", claims, err)
	}
	regen := claims[0].Request()
	user := schemas.Request{RequestID: "r-user", Kind: schemas.KindBiography, Subject: "叶向高", Reason: schemas.RequestUser}
	for _, tc := range []struct {
		req        schemas.Request
		wantReason string
		wantDocs   []string
	}{
		{user, schemas.ReasonRequested, nil},
		{regen, schemas.ReasonSuperseded, []string{"d1", "d2"}},
	} {
		id := tc.req.RequestID
		if err := mem.PutReferences(ctx, "t", id, refs); err != nil {
			t.Fatal(err)
		}
		steps := []genmem.Step{
			{Key: "start", Start: &tc.req, Name: "叶向高", StartedMillis: 1, Output: []byte("[]")},
			{Key: "v:0:0", NextIndex: 1, Done: true, Record: &genmem.Final{Index: 0, Sentence: schemas.PageSentence{
				Text: "叶向高，字进卿。", Status: schemas.StatusSupported, Citations: []schemas.Citation{{ChunkID: "c1"}}}},
				Output: []byte("[]")},
		}
		for _, s := range steps {
			if ok, _, err := mem.Step(ctx, "t", id, s); err != nil || !ok {
				t.Fatalf("step %s: applied=%v err=%v", s.Key, ok, err)
			}
		}
		p, err := assembler.New(mem, store, nil).Assemble(ctx, "t",
			schemas.Draft{RequestID: id, Kind: schemas.KindBiography, Subject: "叶向高", Index: 1, Final: true})
		if err != nil || p == nil {
			t.Fatalf("assemble %s = %v, %v", id, p, err)
		}
		if p.Reason != tc.wantReason || !slices.Equal(p.TriggerDocIDs, tc.wantDocs) {
			t.Errorf("page of %s: reason %q, trigger docs %v; want %q, %v", id, p.Reason, p.TriggerDocIDs, tc.wantReason, tc.wantDocs)
		}
		stale, err := store.Stale(ctx, "t", schemas.KindBiography, "叶向高")
		if err != nil {
			t.Fatal(err)
		}
		if wantStale := id == user.RequestID; stale != wantStale {
			t.Errorf("after the page of %s: stale = %v; want %v", id, stale, wantStale)
		}
	}
	deps, err := store.Dependents(ctx, "t", []string{"e-ye"}, nil)
	if err != nil || len(deps) != 1 || deps[0].Subject != "叶向高" {
		t.Fatalf("pages about e-ye = %v, %v; want the biography", deps, err)
	}
}
