package eval_test

import (
	"testing"

	"github.com/annalist-dev/annalist/internal/evaluation/dataset/datasettest"
	"github.com/annalist-dev/annalist/internal/evaluation/eval"
	"github.com/annalist-dev/annalist/internal/lang/en/discourse"
)

// TestKGDSDev scores the offline discussion summaries on the KGDS
// development data and holds the background selection to the BSP floor it
// reaches there. Run it with -v to see every figure.
func TestKGDSDev(t *testing.T) {
	path := datasettest.Require(t, "kgds/dev.json")
	samples, err := eval.ReadKGDS(path)
	if err != nil {
		t.Fatal(err)
	}
	rep := eval.KGDS(samples, discourse.Summarize)
	for _, s := range []struct {
		name  string
		score eval.KGDSScore
		floor float64
	}{{"overall", rep.Overall, 0.60}, {"dev", rep.Dev, 0.60}, {"held_out", rep.HeldOut, 0.55}} {
		c := s.score
		t.Logf("%-8s %2d samples: BSP P %.2f R %.2f F1 %.2f (selected %.0f%%, gold %.0f%%); entity recall %.3f precision %.3f; pronoun share %.3f (gold %.3f) over %d opinion sentences",
			s.name, c.Samples, 100*c.BSPPrecision, 100*c.BSPRecall, 100*c.BSPF1, 100*c.SelectedShare, 100*c.GoldShare,
			c.EntityRecall, c.EntityPrecision, c.PronounShare, c.GoldPronounShare, c.OpinionSentences)
		if c.BSPF1 < s.floor {
			t.Errorf("%s: BSP F1 %.4f below %.2f", s.name, c.BSPF1, s.floor)
		}
		if c.OpinionSentences == 0 {
			t.Errorf("%s: no opinion sentence", s.name)
		}
	}
	if rep.Overall.Samples != len(samples) || rep.Dev.Samples+rep.HeldOut.Samples != len(samples) || rep.HeldOut.Samples == 0 {
		t.Errorf("splits: overall %d, dev %d, held out %d of %d samples", rep.Overall.Samples, rep.Dev.Samples, rep.HeldOut.Samples, len(samples))
	}
}
