package eval_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/annalist-dev/annalist/consumers/chunker"
	"github.com/annalist-dev/annalist/internal/dataset"
	"github.com/annalist-dev/annalist/internal/eval"
)

// TestSegmentationMingshi scores the offline chunker on the History of Ming
// volumes and holds it to the acceptance thresholds. Run it with -v to see
// the report.
func TestSegmentationMingshi(t *testing.T) {
	dir := dataset.Require(t, "mingshi-liezhuan")
	c := chunker.New(chunker.Config{})
	rep, err := eval.Segmentation(context.Background(), dir, c.Chunk, nil)
	if err != nil {
		t.Fatal(err)
	}
	failures := rep.Failures
	rep.Failures = nil
	b, _ := json.MarshalIndent(rep, "", "  ")
	t.Logf("segmentation on %s:\n%s", dir, b)
	for _, f := range failures {
		t.Logf("%s named=%v missing=%q extra=%q unlisted=%q", f.File, f.Named, f.Missing, f.Extra, f.Unlisted)
	}
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
