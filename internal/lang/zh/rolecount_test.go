package zh

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/internal/evaluation/dataset/datasettest"
)

var updateRoles = flag.Bool("update-roles", false, "rewrite data/clause_roles.tsv from the development volumes")

// TestClauseRolesTable checks that data/clause_roles.tsv
// holds the counts of the development volumes: the Ming volumes whose
// number is not a multiple of 5 and the Qing volumes whose number is not
// a multiple of 3 (the others are held out). -update-roles rewrites it.
func TestClauseRolesTable(t *testing.T) {
	texts := devVolumes(t)
	listings := make([]string, len(texts))
	for i, v := range texts {
		listings[i], _, _ = strings.Cut(v, "\n")
	}
	want := golden(t, ClauseRolesFile, ClauseRoleCounts(texts, listings), *updateRoles, "-update-roles")
	tab, err := parseAgents(want)
	if err != nil {
		t.Fatal(err)
	}
	if tab.baseN == 0 || tab.followN == 0 || tab.name3N == 0 {
		t.Fatalf("empty counts: %+v", tab)
	}
}

// devVolumes returns the development volumes: the Ming volumes whose
// number is not a multiple of 5 and the Qing volumes whose number is not
// a multiple of 3 (the others are held out). It skips the test when the
// evaluation data is absent.
func devVolumes(t *testing.T) []string {
	t.Helper()
	ming := datasettest.Require(t, "mingshi-liezhuan")
	qing := datasettest.Require(t, "qingshigao-liezhuan")
	var out []string
	for _, d := range []struct {
		dir     string
		heldOut int
	}{{ming, 5}, {qing, 3}} {
		files, err := filepath.Glob(filepath.Join(d.dir, "*.txt"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no volumes in %s: %v", d.dir, err)
		}
		for _, f := range files {
			n, err := strconv.Atoi(strings.TrimSuffix(filepath.Base(f), ".txt"))
			if err != nil || n%d.heldOut == 0 {
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, string(b))
		}
	}
	return out
}

// golden checks that data/file holds got, the counts of the development
// volumes, after writing it there when update is set (the test's flag
// named flagName), and returns the file's bytes.
func golden(t *testing.T, file string, got []byte, update bool, flagName string) []byte {
	t.Helper()
	path := filepath.Join("data", file)
	if update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the counts of the development volumes; rerun with %s", path, flagName)
	}
	return want
}
