package discourse

import (
	"path/filepath"
	"testing"

	"github.com/annalist-dev/annalist/internal/evaluation/dataset/datasettest"
	"github.com/annalist-dev/annalist/internal/evaluation/eval"
)

// TestKGDSDev measures the opinion figures on KGDS dev with the rules of
// `annalist eval kgds` (internal/evaluation/eval): entity recall against the gold
// opinions' bold entities, entity precision, the share of opinion
// sentences with a bare third-person pronoun (ours and the gold's), and
// how many implicit references the resolver resolved or left as written.
// Dev excludes the held-out fifth (HeldOut), reported separately.
func TestKGDSDev(t *testing.T) {
	path := filepath.Join(datasettest.Require(t, "kgds"), "dev.json")
	samples, err := eval.ReadKGDS(path)
	if err != nil {
		t.Fatal(err)
	}
	rep := eval.KGDS(samples, Summarize)
	resolved := map[bool][2]int{}
	for _, s := range samples {
		r := NewResolver(BuildGraph(s.Discussion))
		r.Focus(SelectBackground(s.Discussion, r.g))
		Opinions(s.Discussion, r.g, r)
		c := resolved[HeldOut(s.ID)]
		for _, res := range r.Resolutions {
			if res.Entity != nil {
				c[0]++
			} else {
				c[1]++
			}
		}
		resolved[HeldOut(s.ID)] = c
	}
	for _, x := range []struct {
		name string
		s    eval.KGDSScore
		held bool
	}{{"dev", rep.Dev, false}, {"held-out", rep.HeldOut, true}} {
		t.Logf("%-8s n=%d entity recall %.3f precision %.3f pronoun share %.3f (gold %.3f) references resolved %d unresolved %d",
			x.name, x.s.Samples, x.s.EntityRecall, x.s.EntityPrecision, x.s.PronounShare, x.s.GoldPronounShare,
			resolved[x.held][0], resolved[x.held][1])
	}
	// the floors reached so far, below the targets (recall 0.85,
	// precision 0.70, pronoun share 0.10)
	d := rep.Dev
	if d.EntityRecall < 0.65 || d.EntityPrecision < 0.70 || d.PronounShare > 0.10 {
		t.Errorf("dev figures below the floors: recall %.3f precision %.3f pronoun share %.3f", d.EntityRecall, d.EntityPrecision, d.PronounShare)
	}
}
