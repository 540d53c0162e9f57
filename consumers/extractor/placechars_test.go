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

var updatePlaceChars = flag.Bool("update-place-chars", false, "rewrite data/place_chars.tsv from the development volumes")

// TestPlaceCharsTable checks that data/place_chars.tsv holds the counts
// of the development volumes: the Ming volumes whose number is not a
// multiple of 5 and the Qing volumes whose number is not a multiple of 3
// (the others are held out). -update-place-chars rewrites it.
func TestPlaceCharsTable(t *testing.T) {
	ming := datasettest.Require(t, "mingshi-liezhuan")
	qing := datasettest.Require(t, "qingshigao-liezhuan")
	var volumes []string
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
			volumes = append(volumes, string(b))
		}
	}
	got := NativePlaceChars(volumes)
	path := filepath.Join("data", PlaceCharsFile)
	if *updatePlaceChars {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the counts of the development volumes; rerun with -update-place-chars", path)
	}
	chars, err := parsePlaceChars(want)
	if err != nil {
		t.Fatal(err)
	}
	// The counts read places as places, and clauses as no places.
	hz := &han{placeChars: chars}
	for _, p := range []string{"福清", "常熟", "江西", "浙江建德", "河南永城"} {
		if !hz.placeWritten(p) {
			t.Errorf("%s, a native place of the corpus, does not read as one", p)
		}
	}
}
