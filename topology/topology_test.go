package topology_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
)

func TestTopicsAreConsistent(t *testing.T) {
	if err := topology.Validate(nil); err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, typ := range schemas.Types() {
		known[typ] = true
	}
	carried := map[string]bool{}
	for _, tp := range topology.Topics() {
		if !known[tp.Message] {
			t.Errorf("topic %s carries unknown type %q", tp.Name, tp.Message)
		}
		carried[tp.Message] = true
	}
	for typ := range known {
		if !carried[typ] {
			t.Errorf("message type %s travels on no topic", typ)
		}
	}
	if got := len(topology.AllTopics()); got != 2*len(topology.Topics()) {
		t.Errorf("AllTopics has %d names, want every topic and its DLT", got)
	}
}

// graph is a small stage list in the shape the registry gives.
func graph() []topology.Stage {
	return []topology.Stage{
		{Name: "chunker", Reads: []string{topology.Documents}, Writes: []string{topology.Chunks}},
		{Name: "embedder", Reads: []string{topology.Chunks}},
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		stages []topology.Stage
		bad    string
	}{
		{"valid", graph(), ""},
		{"repeated name", append(graph(), topology.Stage{Name: "chunker", Reads: []string{topology.Pages}}), "declared twice"},
		{"no name", append(graph(), topology.Stage{Reads: []string{topology.Pages}}), "no name"},
		{"reads nothing", append(graph(), topology.Stage{Name: "idle"}), "reads nothing"},
		{"undeclared read", append(graph(), topology.Stage{Name: "x", Reads: []string{"nowhere"}}), `undeclared topic "nowhere"`},
		{"undeclared write", append(graph(), topology.Stage{Name: "x", Reads: []string{topology.Pages}, Writes: []string{"elsewhere"}}), `undeclared topic "elsewhere"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := topology.Validate(tc.stages)
			if tc.bad == "" && err != nil {
				t.Fatal(err)
			}
			if tc.bad != "" && (err == nil || !strings.Contains(err.Error(), tc.bad)) {
				t.Fatalf("Validate = %v, want an error saying %q", err, tc.bad)
			}
		})
	}
}

func TestRenderNamesEveryStageGroupAndEdge(t *testing.T) {
	stages := graph()
	out := topology.Render(stages)
	for _, s := range stages {
		if !strings.Contains(out, s.Group()) {
			t.Errorf("render lacks group %s", s.Group())
		}
	}
	for _, edge := range []string{"producers --[documents]--> chunker", "chunker --[chunks]--> embedder"} {
		if !strings.Contains(out, edge) {
			t.Errorf("render lacks the edge %q:\n%s", edge, out)
		}
	}
	if !strings.Contains(out, "chunks.dlt") && !strings.Contains(out, "<topic>.dlt") {
		t.Errorf("render does not mention the dead-letter topics:\n%s", out)
	}
}

func TestRoutingTableHelpers(t *testing.T) {
	if got, want := topology.Solvers(), []string{"era", "alias", "refconflict", "knowledge", "regenerate"}; !slices.Equal(got, want) {
		t.Errorf("Solvers = %v, want %v", got, want)
	}
	if got, want := topology.RepairTopics(topology.SolverRegenerate), []string{topology.RepairRegenerate, topology.RepairOther}; !slices.Equal(got, want) {
		t.Errorf("topics of the regenerate solver = %v, want %v", got, want)
	}
	all := topology.RepairTopics("")
	for _, r := range topology.Routes() {
		if !slices.Contains(all, r.Topic) {
			t.Errorf("RepairTopics lacks %s", r.Topic)
		}
		if tp, ok := topology.LookupTopic(r.Topic); !ok || tp.Message != schemas.TypeRepair {
			t.Errorf("route to %s: not a declared topic of repairs", r.Topic)
		}
	}
	if s := topology.SolverStage("era"); s != topology.StageSolverEra || topology.Solver(s) != "era" {
		t.Errorf("SolverStage/Solver do not round-trip: %q", s)
	}
}
