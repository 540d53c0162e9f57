package router_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/annalist-dev/annalist/consumers/router"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
)

func verdict(status, errType string, facts ...schemas.FactVerdict) schemas.Verdict {
	return schemas.Verdict{RequestID: "req-1", Kind: schemas.KindBiography, Subject: "叶向高", Index: 2,
		Attempt: 1, Status: status, ErrorType: errType, Facts: facts,
		Draft: schemas.Draft{RequestID: "req-1", Subject: "叶向高", Index: 2, Attempt: 1, Text: "万历十一年（1583年），叶向高举进士。"}}
}

func TestRoute(t *testing.T) {
	for _, tt := range []struct {
		name          string
		v             schemas.Verdict
		topic, solver string
	}{
		{"supported", verdict(schemas.StatusSupported, ""), "", ""},
		{"not included", verdict(schemas.StatusNotIncluded, ""), topology.RepairRegenerate, topology.SolverRegenerate},
		{"era", verdict(schemas.StatusNotSupported, schemas.ErrorEra), topology.RepairEra, topology.SolverEra},
		{"alias", verdict(schemas.StatusNotSupported, schemas.ErrorAlias), topology.RepairAlias, topology.SolverAlias},
		{"ref conflict", verdict(schemas.StatusNotSupported, schemas.ErrorRefConflict), topology.RepairRefConfl, topology.SolverRefConflict},
		{"knowledge", verdict(schemas.StatusNotSupported, schemas.ErrorKnowledge), topology.RepairKnowledge, topology.SolverKnowledge},
		{"other", verdict(schemas.StatusNotSupported, schemas.ErrorOther), topology.RepairOther, topology.SolverRegenerate},
		{"unknown type", verdict(schemas.StatusNotSupported, "calendar"), topology.RepairOther, topology.SolverRegenerate},
		{"type from the first unsupported fact", verdict(schemas.StatusNotSupported, "",
			schemas.FactVerdict{Status: schemas.StatusSupported, ErrorType: schemas.ErrorAlias},
			schemas.FactVerdict{Status: schemas.StatusNotSupported, ErrorType: schemas.ErrorEra},
			schemas.FactVerdict{Status: schemas.StatusNotSupported, ErrorType: schemas.ErrorAlias}),
			topology.RepairEra, topology.SolverEra},
		{"no type anywhere", verdict(schemas.StatusNotSupported, ""), topology.RepairOther, topology.SolverRegenerate},
	} {
		t.Run(tt.name, func(t *testing.T) {
			topic, solver := topology.RouteVerdict(tt.v)
			if topic != tt.topic || solver != tt.solver {
				t.Errorf("Route = (%q, %q), want (%q, %q)", topic, solver, tt.topic, tt.solver)
			}
		})
	}
}

// Every verdict routes to a repairs topic of the routing table and a solver
// it names. That the router stage writes exactly those topics and that
// every solver has a stage reading them is checked where the stages are
// declared (internal/wiring/app's registry test).
func TestRoutesAreDeclared(t *testing.T) {
	topics := topology.RepairTopics("")
	solvers := topology.Solvers()
	for _, s := range []string{schemas.StatusNotIncluded, schemas.StatusNotSupported} {
		for _, e := range []string{"", schemas.ErrorEra, schemas.ErrorAlias, schemas.ErrorRefConflict, schemas.ErrorKnowledge, schemas.ErrorOther} {
			topic, solver := topology.RouteVerdict(verdict(s, e))
			if !slices.Contains(topics, topic) {
				t.Errorf("%s/%s routes to %q, which the routing table does not name", s, e, topic)
			}
			if !slices.Contains(solvers, solver) {
				t.Errorf("%s/%s routes to solver %q, which the routing table does not name", s, e, solver)
			}
			if _, ok := topology.LookupTopic(topic); !ok {
				t.Errorf("%s/%s routes to %q, an undeclared topic", s, e, topic)
			}
		}
	}
}

func TestHandler(t *testing.T) {
	h := router.Handler()
	ctx := context.Background()

	v := verdict(schemas.StatusNotSupported, schemas.ErrorAlias)
	for _, msg := range []schemas.Message{v, &v} {
		out, err := h(ctx, pipeline.Input{Msg: msg})
		if err != nil {
			t.Fatal(err)
		}
		if len(out) != 1 || out[0].Topic != topology.RepairAlias {
			t.Fatalf("outputs %+v, want one on %s", out, topology.RepairAlias)
		}
		r, ok := out[0].Msg.(schemas.Repair)
		if !ok {
			t.Fatalf("output is %T, want schemas.Repair", out[0].Msg)
		}
		if err := r.Validate(); err != nil {
			t.Fatal(err)
		}
		if r.RequestID != v.RequestID || r.Solver != topology.SolverAlias || r.Verdict.Draft.Text != v.Draft.Text {
			t.Errorf("repair %+v does not carry the verdict", r)
		}
	}

	out, err := h(ctx, pipeline.Input{Msg: verdict(schemas.StatusSupported, "")})
	if err != nil || len(out) != 0 {
		t.Errorf("supported verdict: outputs %v, err %v; want none", out, err)
	}

	for _, bad := range []schemas.Message{schemas.Draft{RequestID: "r"}, schemas.Verdict{RequestID: "r", Status: "maybe"}} {
		if _, err := h(ctx, pipeline.Input{Msg: bad}); !errors.Is(err, pipeline.ErrPermanent) {
			t.Errorf("input %T: err %v, want permanent", bad, err)
		}
	}
}
