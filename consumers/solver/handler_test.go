package solver_test

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"testing"

	"github.com/annalist-dev/annalist/consumers/solver"
	"github.com/annalist-dev/annalist/internal/kit/llmtest"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/pipeline/pipelinetest"
	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
)

type fakeRefs struct {
	set     *schemas.ReferenceSet
	err     error
	tenants []string
}

func (f *fakeRefs) References(_ context.Context, tenant, _ string) (*schemas.ReferenceSet, error) {
	f.tenants = append(f.tenants, tenant)
	return f.set, f.err
}

// fakeReviews keeps reviews by id, as the Redis store will: opening an
// existing id changes nothing.
type fakeReviews struct {
	mu    sync.Mutex
	byID  map[string]schemas.Review
	calls int
}

func (f *fakeReviews) OpenReview(_ context.Context, tenant string, r schemas.Review) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if f.byID == nil {
		f.byID = map[string]schemas.Review{}
	}
	if _, ok := f.byID[tenant+"/"+r.ReviewID]; !ok {
		f.byID[tenant+"/"+r.ReviewID] = r
	}
	return nil
}

// asRepair places an input on the reference-conflict repairs topic.
var asRepair = pipelinetest.Options(pipelinetest.Tenant("t1"), pipelinetest.Event("ev-1"), pipelinetest.Topic(topology.RepairRefConfl))

func TestHandlerOpensOneReview(t *testing.T) {
	refs := &fakeRefs{set: yeRefs(true)}
	store := &fakeReviews{}
	h := solver.Handler(solver.NewRefConflict(solver.Config{}), refs, store)
	r := conflictRepair("叶向高，字进卿，福清人。", "福清")
	r.Solver = solver.NameRefConflict

	first, err := h(context.Background(), pipelinetest.Input(r, asRepair))
	if err != nil {
		t.Fatal(err)
	}
	if len(first) != 2 || first[0].Topic != topology.Reviews || first[1].Topic != topology.Corrections {
		t.Fatalf("outputs %+v, want a review then a correction", first)
	}
	rv := first[0].Msg.(schemas.Review)
	c := first[1].Msg.(schemas.Correction)
	if c.Outcome != schemas.OutcomeConflict || c.ReviewID != rv.ReviewID || c.Solver != solver.NameRefConflict {
		t.Errorf("correction %+v does not name review %s", c, rv.ReviewID)
	}
	// A redelivery gives the same outputs and opens nothing new.
	again, err := h(context.Background(), pipelinetest.Input(r, asRepair))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(first, again) {
		t.Errorf("redelivery gave other outputs:\n%+v\n%+v", first, again)
	}
	if len(store.byID) != 1 || store.calls != 2 {
		t.Errorf("store holds %d reviews after %d opens, want 1 after 2", len(store.byID), store.calls)
	}
	if _, ok := store.byID["t1/"+rv.ReviewID]; !ok {
		t.Errorf("review %s not stored for tenant t1: %v", rv.ReviewID, store.byID)
	}
	if refs.tenants[0] != "t1" {
		t.Errorf("references read for tenant %q", refs.tenants[0])
	}
}

func TestHandlerCorrection(t *testing.T) {
	g := newFakeGlossary()
	h := solver.Handler(solver.NewKnowledge(solver.Config{Glossary: g}), &fakeRefs{set: luRefs()}, nil)
	r := repair("陆文渊", "陆文渊举进士第三。", []string{chunkLu}, nil, 1,
		fv(ns, schemas.ErrorKnowledge, schemas.RelJinshi, "进士第三", "陆文渊举进士第三", ev(chunkLu, textLu, "举嘉靖二十年进士第二")))
	r.Solver = solver.NameKnowledge
	out, err := h(context.Background(), pipelinetest.Input(r, asRepair))
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 1 || out[0].Topic != topology.Corrections {
		t.Fatalf("outputs %+v, want one correction", out)
	}
	c := out[0].Msg.(schemas.Correction)
	check(t, r, c, want{outcome: schemas.OutcomeCorrected, has: []string{"进士第二"}, gone: []string{"第三"}})
	if len(g.lookups) == 0 || g.lookups[0] != "t1/进士第三" {
		t.Errorf("glossary lookups %v, want the input's tenant", g.lookups)
	}
}

func TestHandlerErrors(t *testing.T) {
	r := placeRepair()
	r.Solver = solver.NameRegenerate
	for _, tc := range []struct {
		name      string
		s         solver.Solver
		refs      *fakeRefs
		msg       schemas.Message
		permanent bool
	}{
		{"not a repair", solver.NewAlias(solver.Config{}), &fakeRefs{set: yeRefs(false)}, r.Verdict, true},
		{"invalid repair", solver.NewRegenerate(solver.RegenerateConfig{}), &fakeRefs{set: yeRefs(false)}, schemas.Repair{Solver: "regenerate"}, true},
		{"routed to another solver", solver.NewAlias(solver.Config{}), &fakeRefs{set: yeRefs(false)}, r, true},
		{"no reference set", solver.NewRegenerate(solver.RegenerateConfig{}), &fakeRefs{}, r, true},
		{"memory unavailable", solver.NewRegenerate(solver.RegenerateConfig{}), &fakeRefs{err: errors.New("connection refused")}, r, false},
		{"model unavailable", solver.NewRegenerate(solver.RegenerateConfig{}, solver.WithModel(llmtest.Failing(errors.New("429")))), &fakeRefs{set: yeRefs(false)}, r, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := solver.Handler(tc.s, tc.refs, nil)(context.Background(), pipeline.Input{Msg: tc.msg})
			if err == nil {
				t.Fatal("no error")
			}
			if pipeline.IsPermanent(err) != tc.permanent {
				t.Errorf("err %v: permanent %v, want %v", err, pipeline.IsPermanent(err), tc.permanent)
			}
		})
	}
}

// Every solver has a name the routing table routes to, and every routed
// solver exists (the stage registry checks that each has its stage).
func TestSolverNamesMatchStages(t *testing.T) {
	solvers := []solver.Solver{solver.NewEra(solver.Config{}), solver.NewAlias(solver.Config{}), solver.NewRefConflict(solver.Config{}),
		solver.NewKnowledge(solver.Config{}), solver.NewRegenerate(solver.RegenerateConfig{})}
	var names []string
	for _, s := range solvers {
		names = append(names, s.Name())
	}
	if routed := topology.Solvers(); !reflect.DeepEqual(names, routed) {
		t.Errorf("solver names %v, solvers of the routing table %v", names, routed)
	}
}
