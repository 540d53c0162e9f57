package kgwriter_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/consumers/kgwriter"
	"github.com/annalist-dev/annalist/infra/kg"
	"github.com/annalist-dev/annalist/infra/pages"
	"github.com/annalist-dev/annalist/infra/redisdb"
	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
	"github.com/annalist-dev/annalist/internal/ports/graph"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/pipeline/pipelinetest"
	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
)

// The Redis stores are the stage's disagreement reader and review store.
var (
	_ kgwriter.Disagreements = (*kg.Store)(nil)
	_ kgwriter.ReviewStore   = (*pages.Store)(nil)
)

// reviewRig is the stage with reviews on one real redis-server.
type reviewRig struct {
	stage *kgwriter.Stage
	kg    *kg.Store
	pages *pages.Store
	c     redisdb.Client
}

func newReviewRig(t *testing.T) reviewRig {
	t.Helper()
	c := redistest.Client(t)
	g, err := kg.New(c, kg.Config{})
	if err != nil {
		t.Fatal(err)
	}
	ps := pages.New(c)
	s, err := kgwriter.New(g, kgwriter.WithReviews(g, ps, nil))
	if err != nil {
		t.Fatal(err)
	}
	return reviewRig{stage: s, kg: g, pages: ps, c: c}
}

// handle runs one batch and fails the test on error.
func (r reviewRig) handle(t *testing.T, ins []pipeline.Input) [][]pipeline.Output {
	t.Helper()
	out, err := r.stage.Handle(context.Background(), ins)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != len(ins) {
		t.Fatalf("%d output slices for %d inputs", len(out), len(ins))
	}
	return out
}

// storedReviews lists every review of the default tenant.
func (r reviewRig) storedReviews(t *testing.T) []schemas.Review {
	t.Helper()
	rs, err := r.pages.Reviews(context.Background(), schemas.DefaultTenant, "")
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// reviewOutput is a review the stage emitted, with the input it rides on.
type reviewOutput struct {
	input   int
	eventID string
	review  schemas.Review
}

// reviewsOf picks the review outputs of a batch; every output not on
// kg-updates must be a review on the reviews topic.
func reviewsOf(t *testing.T, out [][]pipeline.Output) []reviewOutput {
	t.Helper()
	var rs []reviewOutput
	for i, per := range out {
		for _, o := range per {
			switch o.Topic {
			case topology.KGUpdates:
			case topology.Reviews:
				rv, ok := o.Msg.(schemas.Review)
				if !ok {
					t.Fatalf("input %d: review output is %T", i, o.Msg)
				}
				if err := rv.Validate(); err != nil {
					t.Fatalf("input %d: %v", i, err)
				}
				rs = append(rs, reviewOutput{input: i, eventID: o.EventID, review: rv})
			default:
				t.Fatalf("input %d: output on topic %q", i, o.Topic)
			}
		}
	}
	return rs
}

// archive builds the triplets of a chunk outside any entry: heads are
// resolved by surface.
func archive(doc, chunk string, fs ...archiveFact) []schemas.Triplet {
	out := make([]schemas.Triplet, 0, len(fs))
	for _, f := range fs {
		out = append(out, schemas.Triplet{
			TripletID: pipeline.ContentID(chunk, f.rel, f.tail, fmt.Sprint(f.start)),
			Head:      f.head, HeadType: schemas.EntityPerson, Relation: f.rel, Tail: f.tail, TailType: f.tailType,
			ChunkID: chunk, DocID: doc, Span: schemas.Span{Start: f.start, End: f.end},
			Evidence: f.evidence, Method: "regex", Confidence: 0.9,
		})
	}
	return out
}

type archiveFact struct {
	head, rel, tail, tailType string
	start, end                int
	evidence                  string
}

// edgeOf returns the edge a triplet wrote, as the graph holds it.
func edgeOf(t *testing.T, g *kg.Store, person string, tr schemas.Triplet) graph.Edge {
	t.Helper()
	e, err := g.Entity(context.Background(), schemas.DefaultTenant, person)
	if err != nil {
		t.Fatal(err)
	}
	id := kg.EdgeID(tr)
	for _, ed := range e.Edges {
		if ed.ID == id {
			return ed
		}
	}
	t.Fatalf("%s has no edge %s (%s %s): %+v", person, id, tr.Relation, tr.Tail, e.Edges)
	return graph.Edge{}
}

func TestAgreeingFactsOpenNoReviewAndAddProvenance(t *testing.T) {
	r := newReviewRig(t)
	ctx := context.Background()
	entry := entryTriplets()
	if rs := reviewsOf(t, r.handle(t, pipelinetest.Inputs(entry, "a", onTriplets))); len(rs) != 0 {
		t.Fatalf("the first document opened reviews: %+v", rs)
	}
	person := kg.PersonID("叶向高", "c-ye")

	// Another document says the same of 叶向高, at other precisions.
	b := archive("doc-arch", "c-arch",
		archiveFact{head: "叶向高", rel: schemas.RelCourtesyName, tail: "进卿", tailType: schemas.EntityName,
			start: 0, end: 7, evidence: "叶向高，字进卿"},
		archiveFact{head: "叶向高", rel: schemas.RelNativePlace, tail: "福建福清", tailType: schemas.EntityPlace,
			start: 8, end: 13, evidence: "福建福清人"},
		archiveFact{head: "叶向高", rel: schemas.RelJinshi, tail: "万历十一年三月", tailType: schemas.EntityTime,
			start: 20, end: 31, evidence: "万历十一年三月成进士"},
	)
	out := r.handle(t, pipelinetest.Inputs(b, "b", onTriplets))
	if rs := reviewsOf(t, out); len(rs) != 0 {
		t.Fatalf("agreeing facts opened reviews: %+v", rs)
	}
	if rs := r.storedReviews(t); len(rs) != 0 {
		t.Fatalf("agreeing facts stored reviews: %+v", rs)
	}

	// The facts landed on the entry's person, by alias, and the place and
	// the year were compared with values the graph holds: no review is the
	// rule's answer, not a fact that went elsewhere.
	ids := make([]string, len(b))
	for i, tr := range b {
		e := edgeOf(t, r.kg, person, tr)
		if e.Resolution != graph.ResolvedAlias || e.DocID != "doc-arch" {
			t.Fatalf("edge of %s %s: resolution %q doc %q", tr.Relation, tr.Tail, e.Resolution, e.DocID)
		}
		ids[i] = e.ID
	}
	_, others, err := r.kg.Disagreements(ctx, schemas.DefaultTenant, ids)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"", "福清", "万历十一年"} {
		var got []string
		for _, o := range others[i] {
			got = append(got, o.Tail)
		}
		if want == "" && len(got) != 0 || want != "" && !slices.Equal(got, []string{want}) {
			t.Errorf("%s %s is compared with %v, want [%s]", b[i].Relation, b[i].Tail, got, want)
		}
	}

	// One fact, two edges of provenance.
	key := "kg:{" + schemas.DefaultTenant + "}:fact:" + person + "|" + schemas.RelCourtesyName + "|进卿"
	members, err := r.c.SMembers(ctx, key).Result()
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(members)
	if want := sorted(kg.EdgeID(entry[0]), kg.EdgeID(b[0])); !slices.Equal(members, want) {
		t.Fatalf("%s = %v, want %v", key, members, want)
	}
}

func TestContradictingFactOpensOneReview(t *testing.T) {
	r := newReviewRig(t)
	entry := entryTriplets()
	r.handle(t, pipelinetest.Inputs(entry, "a", onTriplets))
	person := kg.PersonID("叶向高", "c-ye")

	// Another document gives 叶向高 another courtesy name, and agrees on
	// his place.
	b := archive("doc-arch", "c-arch",
		archiveFact{head: "叶向高", rel: schemas.RelNativePlace, tail: "福清", tailType: schemas.EntityPlace,
			start: 0, end: 3, evidence: "福清叶向高"},
		archiveFact{head: "叶向高", rel: schemas.RelCourtesyName, tail: "晋卿", tailType: schemas.EntityName,
			start: 3, end: 10, evidence: "叶向高，字晋卿"},
	)
	ins := pipelinetest.Inputs(b, "b", onTriplets)
	out := r.handle(t, ins)
	rs := reviewsOf(t, out)
	if len(rs) != 1 {
		t.Fatalf("%d reviews emitted, want 1: %+v", len(rs), rs)
	}
	got := rs[0]
	if got.input != 1 {
		t.Errorf("the review rides on input %d, want the contradicting triplet's input 1", got.input)
	}
	rv := got.review
	// The id is the refconflict solver's: subject entity, relation, sorted
	// values.
	wantID := "review-" + pipeline.ContentID(person, schemas.RelCourtesyName, "晋卿", "进卿")
	if rv.ReviewID != wantID {
		t.Errorf("review id %q, want %q", rv.ReviewID, wantID)
	}
	if got.eventID != pipeline.ContentID("review", schemas.DefaultTenant, rv.ReviewID) {
		t.Errorf("event id %q is not derived from the tenant and the review id", got.eventID)
	}
	wantOpts := []schemas.ReviewOption{
		{Value: "进卿", ChunkID: "c-ye", Text: "叶向高，字进卿"},
		{Value: "晋卿", ChunkID: "c-arch", Text: "叶向高，字晋卿"},
	}
	if rv.Subject != "叶向高" || rv.Relation != schemas.RelCourtesyName || rv.Status != pages.ReviewOpen ||
		!slices.Equal(rv.Options, wantOpts) {
		t.Fatalf("review = %+v\nwant subject 叶向高, relation %s, status open, options %+v",
			rv, schemas.RelCourtesyName, wantOpts)
	}
	if !strings.Contains(rv.Question, "叶向高") || !strings.Contains(rv.Question, "进卿") ||
		!strings.Contains(rv.Question, "晋卿") {
		t.Errorf("question %q does not name the person and both values", rv.Question)
	}

	stored, err := r.pages.Review(context.Background(), schemas.DefaultTenant, rv.ReviewID)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprintf("%+v", stored) != fmt.Sprintf("%+v", rv) {
		t.Fatalf("stored review = %+v\nemitted %+v", stored, rv)
	}
	if all := r.storedReviews(t); len(all) != 1 {
		t.Fatalf("%d reviews stored, want 1: %+v", len(all), all)
	}

	t.Run("a redelivered batch opens no second review and repeats the event id", func(t *testing.T) {
		again := reviewsOf(t, r.handle(t, ins))
		if len(again) != 1 || again[0].eventID != got.eventID ||
			fmt.Sprintf("%+v", again[0].review) != fmt.Sprintf("%+v", rv) {
			t.Fatalf("redelivery emitted %+v, want the same review with event id %s", again, got.eventID)
		}
		if all := r.storedReviews(t); len(all) != 1 || all[0].ReviewID != rv.ReviewID {
			t.Fatalf("reviews stored after redelivery: %+v", all)
		}
	})

	t.Run("a decided review stays decided when the batch comes again", func(t *testing.T) {
		if _, err := r.pages.Decide(context.Background(), schemas.DefaultTenant, rv.ReviewID, "进卿"); err != nil {
			t.Fatal(err)
		}
		again := reviewsOf(t, r.handle(t, ins))
		if len(again) != 1 || again[0].eventID != got.eventID {
			t.Fatalf("redelivery emitted %+v", again)
		}
		stored, err := r.pages.Review(context.Background(), schemas.DefaultTenant, rv.ReviewID)
		if err != nil {
			t.Fatal(err)
		}
		if stored.Status != pages.ReviewDecided || stored.Decision != "进卿" {
			t.Fatalf("review after redelivery = %+v, want decided 进卿", stored)
		}
	})

	t.Run("a re-ingest of the same facts opens nothing", func(t *testing.T) {
		if again := reviewsOf(t, r.handle(t, pipelinetest.Inputs(b, "reingest", onTriplets))); len(again) != 0 {
			t.Fatalf("re-ingest emitted reviews: %+v", again)
		}
		if all := r.storedReviews(t); len(all) != 1 {
			t.Fatalf("%d reviews stored after re-ingest", len(all))
		}
	})
}

func TestOtherContradictionsOpenReviews(t *testing.T) {
	for _, tc := range []struct {
		name, rel, tail, tailType, was string
	}{
		{"another native place", schemas.RelNativePlace, "晋江", schemas.EntityPlace, "福清"},
		{"another jinshi year", schemas.RelJinshi, "万历十四年", schemas.EntityTime, "万历十一年"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newReviewRig(t)
			r.handle(t, pipelinetest.Inputs(entryTriplets(), "a", onTriplets))
			b := archive("doc-arch", "c-arch", archiveFact{head: "进卿", rel: tc.rel, tail: tc.tail,
				tailType: tc.tailType, start: 0, end: 8, evidence: "进卿" + tc.tail})
			rs := reviewsOf(t, r.handle(t, pipelinetest.Inputs(b, "b", onTriplets)))
			if len(rs) != 1 {
				t.Fatalf("%d reviews, want 1: %+v", len(rs), rs)
			}
			var vals []string
			for _, o := range rs[0].review.Options {
				vals = append(vals, o.Value)
			}
			if rs[0].review.Relation != tc.rel || !slices.Equal(vals, []string{tc.was, tc.tail}) {
				t.Fatalf("review = %+v, want %s options [%s %s]", rs[0].review, tc.rel, tc.was, tc.tail)
			}
		})
	}
}

func TestAmbiguousHeadOpensNoReview(t *testing.T) {
	r := newReviewRig(t)
	// Two people named 王溥, each with an entry and a courtesy name.
	wp := func(doc, chunk, courtesy string) []schemas.Triplet {
		return []schemas.Triplet{{
			TripletID: pipeline.ContentID(chunk, "courtesy"), Head: "王溥", HeadType: schemas.EntityPerson,
			Relation: schemas.RelCourtesyName, Tail: courtesy, TailType: schemas.EntityName,
			ChunkID: chunk, DocID: doc, Entry: "王溥", EntryChunk: chunk, Span: schemas.Span{Start: 0, End: 6},
			Evidence: "王溥，字" + courtesy, Method: "regex", Confidence: 0.95,
		}}
	}
	r.handle(t, pipelinetest.Inputs(slices.Concat(wp("doc-a", "c-wp1", "子明"), wp("doc-b", "c-wp2", "汝弼")), "a", onTriplets))

	// Two archive documents give 王溥 two courtesy names; whose they are
	// is not known.
	for i, doc := range []string{"doc-c", "doc-d"} {
		courtesy := []string{"元礼", "伯玉"}[i]
		b := archive(doc, "c-"+doc, archiveFact{head: "王溥", rel: schemas.RelCourtesyName, tail: courtesy,
			tailType: schemas.EntityName, start: 0, end: 6, evidence: "王溥，字" + courtesy})
		if rs := reviewsOf(t, r.handle(t, pipelinetest.Inputs(b, doc, onTriplets))); len(rs) != 0 {
			t.Fatalf("%s opened reviews on an ambiguous head: %+v", doc, rs)
		}
		if e := edgeOf(t, r.kg, "person:王溥", b[0]); e.Resolution != graph.ResolvedAmbiguous || len(e.Candidates) != 2 {
			t.Fatalf("%s edge = %+v, want an ambiguous head with two candidates", doc, e)
		}
	}
	if rs := r.storedReviews(t); len(rs) != 0 {
		t.Fatalf("reviews stored: %+v", rs)
	}
}

// sorted returns ids in order.
func sorted(ids ...string) []string { slices.Sort(ids); return ids }
