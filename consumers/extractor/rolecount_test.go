package extractor

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/internal/dataset/datasettest"
)

var updateRoles = flag.Bool("update-roles", false, "rewrite data/clause_roles.tsv from the development volumes")

// TestClauseRolesTable checks that data/clause_roles.tsv
// holds the counts of the development volumes: the Ming volumes whose
// number is not a multiple of 5 and the Qing volumes whose number is not
// a multiple of 3 (the others are held out). -update-roles rewrites it.
func TestClauseRolesTable(t *testing.T) {
	ming := datasettest.Require(t, "mingshi-liezhuan")
	qing := datasettest.Require(t, "qingshigao-liezhuan")
	var texts, listings []string
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
			first, _, _ := strings.Cut(string(b), "\n")
			texts, listings = append(texts, string(b)), append(listings, first)
		}
	}
	got := ClauseRoleCounts(texts, listings)
	path := filepath.Join("data", ClauseRolesFile)
	if *updateRoles {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the counts of the development volumes; rerun with -update-roles", path)
	}
	tab, err := parseAgents(want)
	if err != nil {
		t.Fatal(err)
	}
	if tab.baseN == 0 || tab.followN == 0 || tab.name3N == 0 {
		t.Fatalf("empty counts: %+v", tab)
	}
}
