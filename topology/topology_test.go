package topology_test

import (
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
)

func TestDeclarationIsConsistent(t *testing.T) {
	if err := topology.Validate(); err != nil {
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

func TestRenderNamesEveryStageAndGroup(t *testing.T) {
	out := topology.Render()
	for _, s := range topology.Stages() {
		if !strings.Contains(out, s.Group()) {
			t.Errorf("render lacks group %s", s.Group())
		}
	}
	if !strings.Contains(out, "producers --[documents]--> chunker") {
		t.Errorf("render lacks the producer edge:\n%s", out)
	}
	if _, err := topology.LookupStage("nope"); err == nil {
		t.Error("unknown stage must be an error")
	}
}
