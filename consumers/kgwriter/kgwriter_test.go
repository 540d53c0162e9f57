package kgwriter_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/annalist-dev/annalist/consumers/kgwriter"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/pipeline/pipelinetest"
	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
)

// fakeGraph records its calls and answers the changes scripted per triplet
// id.
type fakeGraph struct {
	calls   []call
	changes map[string][]schemas.KGUpdate
	err     error
}

type call struct {
	tenant     string
	ids        []string
	deliveries []string
}

func (f *fakeGraph) Apply(_ context.Context, tenant string, ts []schemas.Triplet, deliveries []string) ([][]schemas.KGUpdate, error) {
	c := call{tenant: tenant, deliveries: slices.Clone(deliveries)}
	for _, t := range ts {
		c.ids = append(c.ids, t.TripletID)
	}
	f.calls = append(f.calls, c)
	if f.err != nil {
		return nil, f.err
	}
	out := make([][]schemas.KGUpdate, len(ts))
	for i, t := range ts {
		out[i] = f.changes[t.TripletID]
	}
	return out, nil
}

func triplet(id string) schemas.Triplet {
	return schemas.Triplet{TripletID: id, Head: "叶向高", HeadType: schemas.EntityPerson,
		Relation: schemas.RelNativePlace, Tail: "福清", TailType: schemas.EntityPlace,
		ChunkID: "c1", DocID: "d1", Span: schemas.Span{Start: 8, End: 11}, Method: "regex", Confidence: 1}
}

// onTriplets places an input on partition 1 of the triplets topic.
var onTriplets = pipelinetest.Options(pipelinetest.Topic(topology.Triplets), pipelinetest.Partition(1))

func newStage(t testing.TB, g kgwriter.Graph) *kgwriter.Stage {
	t.Helper()
	s, err := kgwriter.New(g)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestNewNeedsAGraph(t *testing.T) {
	if _, err := kgwriter.New(nil); err == nil {
		t.Fatal("New(nil) should fail")
	}
}

func TestHandleMergesChangesPerEntity(t *testing.T) {
	person := "person:叶向高@1"
	g := &fakeGraph{changes: map[string][]schemas.KGUpdate{
		"t1": {{EntityID: person, Name: "叶向高", Type: "person", Created: true, Edges: []string{"e1"}, Chunks: []string{"c1"}, Aliases: []string{"进卿"}}},
		"t2": {}, // already applied: no change
		"t3": {
			{EntityID: person, Name: "叶向高", Type: "person", Edges: []string{"e3"}},
			{EntityID: "place:福清", Name: "福清", Type: "place", Created: true, Edges: []string{"e3"}, Chunks: []string{"c1"}},
		},
		"t4": {{EntityID: "person:王溥", Name: "王溥", Type: "person", Edges: []string{"e4"}}},
	}}
	s := newStage(t, g)
	ins := []pipeline.Input{
		pipelinetest.Input(triplet("t1"), onTriplets, pipelinetest.Event("ev1"), pipelinetest.Offset(10)),
		pipelinetest.Input(&[]schemas.Triplet{triplet("t2")}[0], onTriplets, pipelinetest.Event("ev2"), pipelinetest.Tenant("default"), pipelinetest.Offset(11)),
		pipelinetest.Input(triplet("t3"), onTriplets, pipelinetest.Event("ev3"), pipelinetest.Tenant("default"), pipelinetest.Offset(12)),
		pipelinetest.Input(triplet("t4"), onTriplets, pipelinetest.Event("ev4"), pipelinetest.Tenant("acme"), pipelinetest.Offset(13)),
	}
	out, err := s.Handle(context.Background(), ins)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != len(ins) {
		t.Fatalf("%d output slices for %d inputs", len(out), len(ins))
	}

	wantCalls := []call{
		{tenant: "default", ids: []string{"t1", "t2", "t3"}, deliveries: []string{"ev1", "ev2", "ev3"}},
		{tenant: "acme", ids: []string{"t4"}, deliveries: []string{"ev4"}},
	}
	if fmt.Sprint(g.calls) != fmt.Sprint(wantCalls) {
		t.Fatalf("calls = %+v\nwant %+v", g.calls, wantCalls)
	}

	// The person changed through inputs 0 and 2: one update, on input 2.
	wantPerson := schemas.KGUpdate{EntityID: person, Name: "叶向高", Type: "person", Created: true,
		Edges: []string{"e1", "e3"}, Chunks: []string{"c1"}, Aliases: []string{"进卿"}, DocIDs: []string{"d1"}}
	wantPlace := schemas.KGUpdate{EntityID: "place:福清", Name: "福清", Type: "place", Created: true,
		Edges: []string{"e3"}, Chunks: []string{"c1"}, DocIDs: []string{"d1"}}
	wantOther := schemas.KGUpdate{EntityID: "person:王溥", Name: "王溥", Type: "person", Edges: []string{"e4"}, DocIDs: []string{"d1"}}
	for _, tc := range []struct {
		input  int
		tenant string
		want   []schemas.KGUpdate
	}{
		{0, "default", nil},
		{1, "default", nil},
		{2, "default", []schemas.KGUpdate{wantPerson, wantPlace}},
		{3, "acme", []schemas.KGUpdate{wantOther}},
	} {
		got := out[tc.input]
		if len(got) != len(tc.want) {
			t.Fatalf("input %d: %d outputs, want %d: %+v", tc.input, len(got), len(tc.want), got)
		}
		for i, o := range got {
			if o.Topic != topology.KGUpdates {
				t.Errorf("input %d output %d topic %q", tc.input, i, o.Topic)
			}
			u, ok := o.Msg.(schemas.KGUpdate)
			if !ok {
				t.Fatalf("input %d output %d is %T", tc.input, i, o.Msg)
			}
			if fmt.Sprintf("%+v", u) != fmt.Sprintf("%+v", tc.want[i]) {
				t.Errorf("input %d output %d:\n got %+v\nwant %+v", tc.input, i, u, tc.want[i])
			}
			if err := u.Validate(); err != nil {
				t.Errorf("input %d output %d: %v", tc.input, i, err)
			}
			if o.EventID != kgwriter.UpdateEventID(tc.tenant, tc.want[i]) {
				t.Errorf("input %d output %d event id %q", tc.input, i, o.EventID)
			}
		}
	}
}

func TestUpdateEventIDDependsOnContentAndTenant(t *testing.T) {
	u := schemas.KGUpdate{EntityID: "person:a", Name: "a", Edges: []string{"e1"}, Chunks: []string{"c1"}}
	id := kgwriter.UpdateEventID("default", u)
	if id != kgwriter.UpdateEventID("default", u) {
		t.Fatal("event id is not stable")
	}
	for name, v := range map[string]schemas.KGUpdate{
		"created":     {EntityID: "person:a", Name: "a", Created: true, Edges: []string{"e1"}, Chunks: []string{"c1"}},
		"other edge":  {EntityID: "person:a", Name: "a", Edges: []string{"e2"}, Chunks: []string{"c1"}},
		"edge→chunk":  {EntityID: "person:a", Name: "a", Chunks: []string{"e1", "c1"}},
		"other alias": {EntityID: "person:a", Name: "a", Edges: []string{"e1"}, Chunks: []string{"c1"}, Aliases: []string{"x"}},
	} {
		if kgwriter.UpdateEventID("default", v) == id {
			t.Errorf("%s: same event id", name)
		}
	}
	if kgwriter.UpdateEventID("acme", u) == id {
		t.Error("tenant does not change the event id")
	}
}

func TestHandleRejectsBadInput(t *testing.T) {
	bad := triplet("t9")
	bad.ChunkID = ""
	for _, tc := range []struct {
		name string
		msg  schemas.Message
	}{
		{"not a triplet", schemas.Chunk{ChunkID: "c", DocID: "d", Text: "x", End: 1, Total: 1}},
		{"nil triplet pointer", (*schemas.Triplet)(nil)},
		{"invalid triplet", bad},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := &fakeGraph{}
			s := newStage(t, g)
			_, err := s.Handle(context.Background(), []pipeline.Input{
				pipelinetest.Input(triplet("t1"), onTriplets, pipelinetest.Event("ev1"), pipelinetest.Offset(1)),
				pipelinetest.Input(tc.msg, onTriplets, pipelinetest.Event("ev2"), pipelinetest.Offset(2)),
			})
			if !pipeline.IsPermanent(err) {
				t.Fatalf("err = %v, want permanent", err)
			}
			if len(g.calls) != 0 {
				t.Fatalf("graph written before validation: %+v", g.calls)
			}
		})
	}
}

func TestHandleGraphErrors(t *testing.T) {
	for _, tc := range []struct {
		name      string
		err       error
		permanent bool
	}{
		{"transient", errors.New("connection reset"), false},
		{"invalid", fmt.Errorf("apply triplet t1: %w: bad", schemas.ErrInvalid), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newStage(t, &fakeGraph{err: tc.err})
			_, err := s.Handle(context.Background(), []pipeline.Input{pipelinetest.Input(triplet("t1"), onTriplets, pipelinetest.Event("ev1"), pipelinetest.Offset(1))})
			if !errors.Is(err, tc.err) || pipeline.IsPermanent(err) != tc.permanent {
				t.Fatalf("err = %v (permanent %v), want %v permanent=%v", err, pipeline.IsPermanent(err), tc.err, tc.permanent)
			}
		})
	}
}

type shortGraph struct{}

func (shortGraph) Apply(context.Context, string, []schemas.Triplet, []string) ([][]schemas.KGUpdate, error) {
	return nil, nil
}

func TestHandleRejectsAGraphThatLosesTriplets(t *testing.T) {
	s := newStage(t, shortGraph{})
	if _, err := s.Handle(context.Background(), []pipeline.Input{pipelinetest.Input(triplet("t1"), onTriplets, pipelinetest.Event("ev1"), pipelinetest.Offset(1))}); err == nil {
		t.Fatal("a graph answering fewer change lists than triplets should fail the batch")
	}
}

func BenchmarkHandle(b *testing.B) {
	const n = 500
	g := &fakeGraph{changes: map[string][]schemas.KGUpdate{}}
	ins := make([]pipeline.Input, n)
	for i := range ins {
		id := fmt.Sprintf("t%d", i)
		person := fmt.Sprintf("person:p%d", i/8)
		g.changes[id] = []schemas.KGUpdate{
			{EntityID: person, Name: "p", Type: "person", Edges: []string{"e" + id}, Chunks: []string{fmt.Sprint("c", i/8)}},
			{EntityID: fmt.Sprintf("place:%d", i%50), Name: "x", Type: "place", Edges: []string{"e" + id}},
		}
		ins[i] = pipelinetest.Input(triplet(id), onTriplets, pipelinetest.Event("ev"+id), pipelinetest.Offset(int64(i)))
	}
	s := newStage(b, g)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		g.calls = g.calls[:0]
		if _, err := s.Handle(ctx, ins); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "triplets/s")
}
