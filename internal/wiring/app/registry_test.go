package app_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/annalist-dev/annalist/internal/wiring/app"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/topology"
)

func TestDefaultStagesAreValid(t *testing.T) {
	reg := app.DefaultStages()
	if err := reg.Validate(); err != nil {
		t.Fatal(err)
	}
	out := topology.Render(reg.Graph())
	for _, s := range reg {
		if !strings.Contains(out, s.Group()) {
			t.Errorf("render lacks group %s", s.Group())
		}
	}
	// Documents come from the producers and from the discussions stage (a
	// discussion's paragraphs), requests from the edge and the scheduler:
	// both sources are drawn.
	for _, edge := range []string{"producers --[discussions]--> discussions", "discussions --[documents]--> chunker",
		"producers --[documents]--> chunker", "producers --[requests]--> writer", "scheduler --[requests]--> writer",
		"producers --[retractions]--> retractor"} {
		if !strings.Contains(out, edge) {
			t.Errorf("render lacks the edge %s:\n%s", edge, out)
		}
	}
	if got := append(app.IngestStages(), app.GenerateStages()...); !slices.Equal(got, app.AllStages()) {
		t.Errorf("ingest + generate = %v, all = %v: every stage belongs to one half", got, app.AllStages())
	}
}

// Every solver the routing table names has exactly one stage, which reads
// exactly its repairs topics and builds a solver of that name; every
// solver stage is in the routing table; the router writes every topic the
// table names.
func TestRoutedSolversAndSolverStagesMatch(t *testing.T) {
	reg := app.DefaultStages()
	routed := topology.Solvers()
	for _, name := range routed {
		var stages []app.Stage
		for _, s := range reg {
			if s.Solver == name {
				stages = append(stages, s)
			}
		}
		if len(stages) != 1 {
			t.Errorf("solver %s is run by %d stages, want 1", name, len(stages))
			continue
		}
		st := stages[0]
		if !slices.Equal(st.Reads, topology.RepairTopics(name)) {
			t.Errorf("stage %s reads %v, the routing table sends %v", st.Name, st.Reads, topology.RepairTopics(name))
		}
		if got := st.NewSolver(&app.App{}).Name(); got != name {
			t.Errorf("stage %s builds solver %q, want %q", st.Name, got, name)
		}
	}
	for _, s := range reg {
		if s.Solver != "" && !slices.Contains(routed, s.Solver) {
			t.Errorf("stage %s runs solver %q, to which nothing routes", s.Name, s.Solver)
		}
	}
	r, err := reg.Lookup(topology.StageRouter)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.Writes, topology.RepairTopics("")) {
		t.Errorf("router writes %v, the routing table names %v", r.Writes, topology.RepairTopics(""))
	}
	if _, err := (&app.App{}).Solver("nonesuch"); err == nil || !strings.Contains(err.Error(), "era") {
		t.Errorf("an unknown solver: %v, want an error listing the solvers", err)
	}
}

func nothing(*app.App) (pipeline.BatchHandler, error) {
	return pipeline.Batch(func(context.Context, pipeline.Input) ([]pipeline.Output, error) { return nil, nil }), nil
}

func TestRegistryValidate(t *testing.T) {
	tap := app.Stage{Stage: topology.Stage{Name: "tap", Reads: []string{topology.Pages}}, Build: nothing}
	with := func(f func(*app.Stage)) app.Registry {
		s := tap
		f(&s)
		return app.DefaultStages().With(s)
	}
	for _, tc := range []struct {
		name string
		reg  app.Registry
		bad  string
	}{
		{"a stage of its own", app.DefaultStages().With(tap), ""},
		{"a name taken", with(func(s *app.Stage) { s.Name = topology.StageRouter }), "declared twice"},
		{"no build", with(func(s *app.Stage) { s.Build = nil }), "no Build"},
		{"unknown part", with(func(s *app.Stage) { s.Part = "sometimes" }), "unknown part"},
		{"undeclared topic", with(func(s *app.Stage) { s.Writes = []string{"elsewhere"} }), "undeclared topic"},
		{"solver without constructor", with(func(s *app.Stage) { s.Solver = "tea" }), "both Solver and NewSolver"},
		{"a solver declared twice", with(func(s *app.Stage) {
			era, _ := app.DefaultStages().Lookup(topology.StageSolverEra)
			s.Solver, s.NewSolver = era.Solver, era.NewSolver
		}), "declared by stages"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.reg.Validate()
			if tc.bad == "" && err != nil {
				t.Fatal(err)
			}
			if tc.bad != "" && (err == nil || !strings.Contains(err.Error(), tc.bad)) {
				t.Fatalf("Validate = %v, want an error saying %q", err, tc.bad)
			}
		})
	}
}

func TestRegistryResolveAndNeeds(t *testing.T) {
	reg := app.DefaultStages().With(app.Stage{Stage: topology.Stage{Name: "tap", Reads: []string{topology.Pages}}, Build: nothing})
	for _, tc := range []struct {
		args []string
		want []string
		bad  bool
	}{
		{[]string{"ingest"}, reg.Part(app.PartIngest), false},
		{[]string{"router", "generate"}, append([]string{"router"}, slices.DeleteFunc(reg.Part(app.PartGenerate), func(s string) bool { return s == "router" })...), false},
		{[]string{"all"}, reg.Names(), false},
		{[]string{"tap", "tap"}, []string{"tap"}, false},
		{[]string{"nope"}, nil, true},
		{nil, nil, true},
	} {
		got, err := reg.Resolve(tc.args)
		if (err != nil) != tc.bad || !slices.Equal(got, tc.want) {
			t.Errorf("Resolve(%v) = %v, %v; want %v (error: %v)", tc.args, got, err, tc.want, tc.bad)
		}
	}
	if !slices.Contains(reg.Names(), "tap") || slices.Contains(reg.Part(app.PartIngest), "tap") || slices.Contains(reg.Part(app.PartGenerate), "tap") {
		t.Error("a stage without a part is in all only")
	}
	if _, err := reg.Resolve([]string{"nope"}); err == nil || !strings.Contains(err.Error(), "generate") {
		t.Errorf("an unknown stage: %v, want an error naming the groups", err)
	}
	for _, tc := range []struct {
		stages  []string
		vectors bool
	}{
		{[]string{"chunker", "extractor", "kg-writer"}, false},
		{[]string{"embedder"}, true},
		{app.IngestStages(), true},
		{app.GenerateStages(), true}, // the writer: a free-text topic's vector seeds
		{[]string{"verifier", "assembler"}, false},
		{[]string{"tap"}, false},
	} {
		n := reg.Needs(tc.stages)
		if !n.Broker || !n.Redis || n.Vectors != tc.vectors {
			t.Errorf("Needs(%v) = %+v, want broker, redis and vectors=%v", tc.stages, n, tc.vectors)
		}
	}
}

// The compose file runs every declared stage as a service of its own name,
// `annalist consume <stage>`, and no service names a stage the registry
// does not declare; a stage that needs the vector store waits for Milvus.
// (CI validates the file itself with `docker-compose config -q`.)
func TestComposeRunsEveryStage(t *testing.T) {
	raw, err := os.ReadFile("../../../docker-compose.yml")
	if err != nil {
		t.Fatal(err)
	}
	var compose struct {
		Services map[string]struct {
			Command   any `yaml:"command"`
			DependsOn any `yaml:"depends_on"`
		} `yaml:"services"`
	}
	if err := yaml.Unmarshal(raw, &compose); err != nil {
		t.Fatalf("parse docker-compose.yml: %v", err)
	}
	reg := app.DefaultStages()
	runBy := map[string][]string{}
	for svc, s := range compose.Services {
		args := words(s.Command)
		if len(args) == 0 || args[0] != "consume" {
			continue
		}
		stages, err := reg.Resolve(args[1:])
		if err != nil {
			t.Errorf("service %s runs %v: %v", svc, args, err)
			continue
		}
		for _, st := range stages {
			runBy[st] = append(runBy[st], svc)
			decl, _ := reg.Lookup(st)
			if decl.Needs.Vectors && !slices.Contains(words(s.DependsOn), "milvus") {
				t.Errorf("service %s runs %s, which needs the vector store, but does not depend on milvus", svc, st)
			}
		}
	}
	for _, st := range reg.Names() {
		if svcs := runBy[st]; len(svcs) != 1 || svcs[0] != st {
			t.Errorf("stage %s is run by services %v, want one service named %s", st, svcs, st)
		}
	}
}

// words reads a compose value that may be a string, a list or a map (the
// keys, as depends_on with conditions).
func words(v any) []string {
	switch v := v.(type) {
	case string:
		return strings.Fields(v)
	case []any:
		var out []string
		for _, x := range v {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	case map[string]any:
		var out []string
		for k := range v {
			out = append(out, k)
		}
		slices.Sort(out)
		return out
	}
	return nil
}
