package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// The dependency rules of ARCHITECTURE.md ("Layers"), checked on what `go
// list` reports, so that a new import that breaks them fails here.

const module = "github.com/annalist-dev/annalist"

type listed struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

func goList(t *testing.T, args ...string) []listed {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH")
	}
	out, err := exec.Command("go", append([]string{"list", "-json"}, args...)...).Output()
	if err != nil {
		t.Fatalf("go list %v: %v", args, err)
	}
	var pkgs []listed
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listed
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("decode go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) == 0 {
		t.Fatal("go list reported no packages")
	}
	return pkgs
}

// rank is the layer of a package of the module: a package may import
// packages of its own layer or below, never above (consumers, infra and
// evaluation have further rules below). Layer 2 is ordered inside by
// its folders: ports (2.0) below language (2.1) below kit (2.2). ok is
// false for a package no layer names, which fails the test: a new
// package must be placed.
func rank(rel string) (r int, ok bool) {
	first, rest, _ := strings.Cut(rel, "/")
	switch first {
	case "schemas":
		return 0, true
	case "topology", "pipeline":
		return 10, true
	case "consumers", "producers":
		return 30, true
	case "infra":
		return 40, true
	case "internal":
		folder, rest, _ := strings.Cut(rest, "/")
		name, _, _ := strings.Cut(rest, "/")
		switch folder {
		case "ports":
			return 20, true
		case "lang":
			return 21, true
		case "kit":
			return 22, true
		case "evaluation":
			return 45, true
		case "wiring":
			switch name {
			case "app", "appsystem":
				return 50, true
			case "api", "web", "demo":
				return 60, true
			case "cli":
				return 70, true
			}
		}
		return 0, false
	case "":
		return 80, true // package main
	}
	return 0, false
}

// evaluation reports whether a package is the evaluation layer
// (internal/evaluation: the evals, error injection, the datasets). It is a
// client of the system: it defines what it measures as interfaces, and
// only the commands (internal/wiring/cli) and the adapter that presents a
// running app to it (internal/wiring/appsystem) link it.
func evaluation(rel string) bool {
	return rel == "internal/evaluation" || strings.HasPrefix(rel, "internal/evaluation/")
}

// stage is the stage a package belongs to, "" outside consumers/.
func stage(rel string) string {
	if rest, ok := strings.CutPrefix(rel, "consumers/"); ok {
		name, _, _ := strings.Cut(rest, "/")
		return name
	}
	return ""
}

func rel(path string) (string, bool) {
	if path == module {
		return "", true
	}
	r, ok := strings.CutPrefix(path, module+"/")
	return r, ok
}

// sdks are the modules only infra/* may import.
var sdks = []string{
	"github.com/segmentio/kafka-go",
	"github.com/redis/go-redis",
	"github.com/milvus-io/",
	"github.com/twmb/franz-go",
	"github.com/alicebob/miniredis",
	"google.golang.org/grpc",
	"github.com/cloudwego/eino-ext",
}

// violation says which rule an import of package to by package from (both
// relative to the module) breaks, "" when none.
func violation(from, to string) string {
	fr, _ := rank(from)
	tr, _ := rank(to)
	switch {
	case from == "schemas":
		return "schemas imports " + to + ": it imports nothing of the project"
	case tr > fr:
		return from + " imports " + to + ", a layer above it: dependencies point inward"
	case stage(from) != "" && stage(to) != "" && stage(from) != stage(to):
		return "stage " + from + " imports stage " + to + ": stages share ports, not code"
	case strings.HasPrefix(from, "infra/") && strings.HasPrefix(to, "consumers/"):
		return "adapter " + from + " imports stage " + to + ": adapters implement ports"
	case evaluation(to) && !evaluation(from) && from != "internal/wiring/cli" && from != "internal/wiring/appsystem":
		return from + " imports the evaluation package " + to + ": evaluation is a client of the system, only the commands and its adapter link it"
	}
	return ""
}

func TestViolation(t *testing.T) {
	for _, tt := range []struct {
		from, to string
		bad      bool
	}{
		{"infra/hnsw", "consumers/embedder", true},
		{"consumers/solver", "consumers/router", true},
		{"consumers/assembler", "consumers/writer", true},
		{"consumers/writer/biography", "consumers/writer", false},
		{"consumers/writer", "internal/wiring/app", true},
		{"internal/wiring/api", "internal/wiring/cli", true},
		{"pipeline", "internal/lang/text", true},
		{"schemas", "topology", true},
		{"topology", "schemas", false},
		{"infra/memory", "internal/ports/genmem", false},
		{"internal/wiring/cli", "internal/wiring/app", false},
		{"internal/wiring/app", "consumers/writer", false},
		{"internal/wiring/app", "internal/evaluation/eval", true},
		{"internal/wiring/api", "internal/evaluation/eval", true},
		{"consumers/verifier", "internal/evaluation/inject", true},
		{"infra/kg", "internal/evaluation/dataset", true},
		{"pipeline/middleware", "internal/evaluation/inject", true},
		{"internal/wiring/cli", "internal/evaluation/eval", false},
		{"internal/evaluation/eval", "internal/evaluation/inject", false},
		{"internal/evaluation/eval", "internal/wiring/app", true},
		{"internal/wiring/appsystem", "internal/evaluation/eval", false},
		{"internal/wiring/appsystem", "internal/wiring/app", false},
		{"internal/evaluation/eval", "consumers/writer", false},
		{"internal/lang/zh/glossary", "internal/ports/graph", false},
		{"internal/ports/graph", "internal/lang/text", true},
		{"internal/lang/text", "internal/kit/backoff", true},
		{"internal/kit/kgview", "internal/ports/graph", false},
	} {
		if got := violation(tt.from, tt.to) != ""; got != tt.bad {
			t.Errorf("violation(%s → %s) = %v, want %v", tt.from, tt.to, got, tt.bad)
		}
	}
}

// testSupport reports whether a package exists only for tests (its name
// ends in "test": redistest, datasettest, vectortest, llmtest, …). Such a
// package may import across layers (a fixture needs a real store), which is
// safe because TestBinaryLinksNoTesting keeps every one of them out of the
// binary.
func testSupport(path string) bool {
	return strings.HasSuffix(path[strings.LastIndex(path, "/")+1:], "test")
}

func TestLayers(t *testing.T) {
	for _, p := range goList(t, "./...") {
		if testSupport(p.ImportPath) {
			continue
		}
		from, _ := rel(p.ImportPath)
		_, ok := rank(from)
		if !ok {
			t.Errorf("%s: no layer names this package (see rank)", from)
			continue
		}
		for _, imp := range p.Imports {
			to, ours := rel(imp)
			if !ours {
				if stage(from) != "" || strings.HasPrefix(from, "schemas") {
					for _, s := range sdks {
						if strings.HasPrefix(imp, s) {
							t.Errorf("%s imports the SDK %s: only infra/* may", from, imp)
						}
					}
				}
				continue
			}
			if v := violation(from, to); v != "" {
				t.Error(v)
			}
		}
	}
}

// knownTesting are the packages outside the module that link the testing
// package into any binary that uses them, each with the reason it is
// tolerated. Milvus's hardware package ships container_test_linux.go, a
// file the go tool builds (its name does not end in _test.go) and that
// imports testing; the Milvus client reaches it through its parameter
// table.
var knownTesting = []string{
	"github.com/milvus-io/milvus/pkg/v2/util/hardware",
}

// The binary links no testing code of the project: test helpers live in
// *test packages (redistest, datasettest, vectortest) that only tests
// import.
func TestBinaryLinksNoTesting(t *testing.T) {
	for _, p := range goList(t, "-deps", ".") {
		if _, ours := rel(p.ImportPath); ours && testSupport(p.ImportPath) {
			t.Errorf("the test-support package %s is linked into the binary", p.ImportPath)
		}
		if !slices.Contains(p.Imports, "testing") {
			continue
		}
		if slices.Contains(knownTesting, p.ImportPath) {
			continue
		}
		t.Errorf("%s imports testing and is linked into the binary", p.ImportPath)
	}
}
