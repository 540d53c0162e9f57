package eval_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/internal/dataset/datasettest"

	"github.com/annalist-dev/annalist/consumers/chunker"
	"github.com/annalist-dev/annalist/internal/eval"
	"github.com/annalist-dev/annalist/schemas"
)

// TestSegmentationMingshi scores the offline chunker on the History of Ming
// volumes and holds it to the acceptance thresholds. Run it with -v to see
// the report and the volumes that are not exact.
func TestSegmentationMingshi(t *testing.T) {
	dir := datasettest.Require(t, "mingshi-liezhuan")
	c := chunker.New(chunker.Config{})
	rep := segmentation(t, dir, c.Chunk)
	if rep.NameRecall < 0.97 {
		t.Errorf("name_recall %.4f < 0.97", rep.NameRecall)
	}
	if rep.NamePrecision < 0.95 {
		t.Errorf("name_precision %.4f < 0.95", rep.NamePrecision)
	}
	if rep.VolumesExact*100 < 95*rep.VolumesNamed {
		t.Errorf("volumes_exact %d of %d named volumes, want ≥ 95%%", rep.VolumesExact, rep.VolumesNamed)
	}
}

// TestSegmentationMingshiWithoutListing measures the entry pattern alone:
// the chunker sees each volume without its heading lines, so it cannot
// align with a listing (the scoring still uses the listing). Relatives and
// people introduced inside entries then become entry chunks, which costs
// exactness and precision; recall shows that the pattern itself finds the
// listed people.
func TestSegmentationMingshiWithoutListing(t *testing.T) {
	dir := datasettest.Require(t, "mingshi-liezhuan")
	c := chunker.New(chunker.Config{})
	rep := segmentation(t, dir, func(ctx context.Context, doc schemas.Document) ([]schemas.Chunk, error) {
		var prose []string
		for _, line := range strings.Split(doc.Text, "\n") {
			if line == "" || strings.ContainsAny(line, "，。") {
				prose = append(prose, line)
			}
		}
		doc.Text = strings.Join(prose, "\n")
		return c.Chunk(ctx, doc)
	})
	if rep.NameRecall < 0.95 {
		t.Errorf("name_recall without listing %.4f < 0.95", rep.NameRecall)
	}
	if rep.NamePrecision < 0.75 {
		t.Errorf("name_precision without listing %.4f < 0.75", rep.NamePrecision)
	}
}

func segmentation(t *testing.T, dir string, chunk eval.ChunkFunc) eval.SegmentationReport {
	t.Helper()
	rep, err := eval.Segmentation(context.Background(), dir, chunk, nil)
	if err != nil {
		t.Fatal(err)
	}
	failures := rep.Failures
	rep.Failures = nil
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("segmentation of %s:\n%s", dir, b)
	for i, f := range failures {
		if i == 20 {
			t.Logf("… %d more volumes with failures", len(failures)-i)
			break
		}
		t.Logf("%s named=%v missing=%q extra=%q unlisted=%q", f.File, f.Named, f.Missing, f.Extra, f.Unlisted)
	}
	return rep
}
