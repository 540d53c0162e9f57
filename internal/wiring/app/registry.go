package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/annalist-dev/annalist/consumers/solver"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/topology"
)

// Part names a group of stages that `annalist consume` (and the embedded
// commands) run together.
type Part string

const (
	// PartIngest is the ingestion half: documents to chunks, triplets, the
	// knowledge graph and vectors.
	PartIngest Part = "ingest"
	// PartGenerate is the generation half: requests to drafts, verdicts,
	// repairs, corrections and pages.
	PartGenerate Part = "generate"
)

// PartAll is the group name of every stage of a registry.
const PartAll = "all"

// Stage is the one declaration of a stage: what it is to the streaming
// graph (name, topics, doc), which group it belongs to, what it needs, and
// how it is built. Everything that lists stages reads these declarations:
// `annalist topology` (Render, Validate, apply), `annalist consume` and its
// groups, NeedsFor, the compose check, the pipeline dashboard and the
// metrics' lag series.
type Stage struct {
	// Stage is the graph node: Name, Reads, Writes, Doc; its consumer group
	// is Group(). Its topics must be declared in topology.
	topology.Stage
	// Part is the group the stage belongs to; empty for a stage that only
	// "all" runs.
	Part Part
	// Needs are the services the stage needs besides the broker and Redis,
	// which every stage has (the runtime keeps the seen: markers in Redis).
	Needs Needs
	// Progress makes the stage record, in a document's hash, when it has
	// finished the document (the progress GET /v1/documents/{id} shows).
	Progress bool
	// Solver and NewSolver, for a solver stage: the solver's name in the
	// routing table (topology.Routes) and how the app builds it. App.Solver
	// finds solvers here, for the stage and for `annalist verify` alike.
	Solver    string
	NewSolver func(a *App) solver.Solver
	// Build returns the stage's handler from the app's services; it fails
	// when a service the stage needs is missing. The runtime wraps it in
	// the middleware chain (pipeline/middleware).
	Build func(a *App) (pipeline.BatchHandler, error)
	// Background, when set, is work the stage does besides its handler
	// (the scheduler emits the regenerations that fall due): RunStages
	// runs it beside the stage's consumer, with the same context, and a
	// failure of either stops the process's stages. It must return when
	// ctx is cancelled. Several replicas run it at once, so it coordinates
	// through Redis.
	Background func(a *App) (func(ctx context.Context) error, error)
}

// Registry is the list of stages a process knows, in graph order. It is a
// value: DefaultStages returns the application's, a test adds its own
// stage with With, and the app, the CLI and the dashboard are given one.
type Registry []Stage

// With returns a copy of r with stages appended.
func (r Registry) With(stages ...Stage) Registry {
	return append(slices.Clone(r), stages...)
}

// Graph returns the stages as the topology sees them, for Validate,
// Render and the runtime.
func (r Registry) Graph() []topology.Stage {
	out := make([]topology.Stage, len(r))
	for i, s := range r {
		out[i] = s.Stage
	}
	return out
}

// Validate checks the declarations: the graph is valid (topology.Validate),
// every stage can be built, parts are known, and each solver is declared by
// one stage with its constructor.
func (r Registry) Validate() error {
	if err := topology.Validate(r.Graph()); err != nil {
		return err
	}
	solvers := map[string]string{}
	for _, s := range r {
		if s.Build == nil {
			return fmt.Errorf("stage %q has no Build", s.Name)
		}
		switch s.Part {
		case "", PartIngest, PartGenerate:
		default:
			return fmt.Errorf("stage %q: unknown part %q", s.Name, s.Part)
		}
		if (s.Solver == "") != (s.NewSolver == nil) {
			return fmt.Errorf("stage %q: a solver stage declares both Solver and NewSolver", s.Name)
		}
		if s.Solver == "" {
			continue
		}
		if other, ok := solvers[s.Solver]; ok {
			return fmt.Errorf("solver %q declared by stages %q and %q", s.Solver, other, s.Name)
		}
		solvers[s.Solver] = s.Name
	}
	return nil
}

// Names lists every stage, in graph order.
func (r Registry) Names() []string {
	out := make([]string, len(r))
	for i, s := range r {
		out[i] = s.Name
	}
	return out
}

// Part lists the stages of part p, in graph order.
func (r Registry) Part(p Part) []string {
	var out []string
	for _, s := range r {
		if s.Part == p {
			out = append(out, s.Name)
		}
	}
	return out
}

// Lookup finds a stage by name; the error lists the stages there are.
func (r Registry) Lookup(name string) (Stage, error) {
	for _, s := range r {
		if s.Name == name {
			return s, nil
		}
	}
	return Stage{}, fmt.Errorf("unknown stage %q (stages: %s)", name, strings.Join(r.Names(), ", "))
}

// Resolve expands command-line arguments into stage names: a stage name,
// or a group (ingest, generate, all). A stage named twice runs once, where
// it is first named.
func (r Registry) Resolve(args []string) ([]string, error) {
	var out []string
	add := func(names ...string) {
		for _, n := range names {
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	for _, arg := range args {
		switch Part(arg) {
		case PartAll:
			add(r.Names()...)
		case PartIngest, PartGenerate:
			add(r.Part(Part(arg))...)
		default:
			if _, err := r.Lookup(arg); err != nil {
				return nil, fmt.Errorf("%w, or a group: %s, %s, %s", err, PartIngest, PartGenerate, PartAll)
			}
			add(arg)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no stage named")
	}
	return out, nil
}

// Needs says which services running the named stages takes: the broker
// and Redis always, and what each stage declares. Unknown names add
// nothing (running them fails later, with the list of stages).
func (r Registry) Needs(names []string) Needs {
	n := Needs{Broker: true, Redis: true}
	for _, s := range r {
		if slices.Contains(names, s.Name) {
			n.Vectors = n.Vectors || s.Needs.Vectors
		}
	}
	return n
}

// solverStage finds the stage that runs the solver name.
func (r Registry) solverStage(name string) (Stage, error) {
	var names []string
	for _, s := range r {
		if s.Solver == name {
			return s, nil
		}
		if s.Solver != "" {
			names = append(names, s.Solver)
		}
	}
	return Stage{}, fmt.Errorf("unknown solver %q (solvers: %s)", name, strings.Join(names, ", "))
}

// Stages is the registry of the app: Config.Stages, or DefaultStages when
// none was given.
func (a *App) Stages() Registry { return a.Config.stages() }

func (c Config) stages() Registry {
	if c.Stages == nil {
		return DefaultStages()
	}
	return c.Stages
}

// NeedsFor says which services running the named stages of DefaultStages
// requires.
func NeedsFor(stages []string) Needs { return DefaultStages().Needs(stages) }

// IngestStages are the ingestion stages of DefaultStages, in graph order.
func IngestStages() []string { return DefaultStages().Part(PartIngest) }

// GenerateStages are the generation stages of DefaultStages, in graph
// order.
func GenerateStages() []string { return DefaultStages().Part(PartGenerate) }

// AllStages are every stage of DefaultStages, in graph order.
func AllStages() []string { return DefaultStages().Names() }
