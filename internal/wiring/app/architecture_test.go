package app_test

import (
	"os"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/internal/wiring/app"
	"github.com/annalist-dev/annalist/topology"
)

// ARCHITECTURE.md's picture of the stage graph is the registry's: a stage
// added, removed or rewired without redrawing it fails here. Redraw with
// `annalist topology --mermaid`.
func TestArchitectureDrawsTheDefaultStages(t *testing.T) {
	b, err := os.ReadFile("../../../ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "<!-- BEGIN topology --mermaid -->\n```mermaid\n", "```\n<!-- END topology --mermaid -->"
	doc := string(b)
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("ARCHITECTURE.md has no %q … %q block", begin, end)
	}
	got := doc[i+len(begin) : j]
	if want := topology.Mermaid(app.DefaultStages().Graph()); got != want {
		t.Errorf("ARCHITECTURE.md draws another graph than the registry; redraw it with `annalist topology --mermaid`:\n%s", want)
	}
}
