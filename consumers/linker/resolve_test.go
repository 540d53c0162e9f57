package linker

import (
	"math"
	"testing"

	"github.com/annalist-dev/annalist/internal/graph"
)

// TestPosteriors: one candidate's probability is the logistic of its
// odds; several candidates share the prior odds of a name, and evidence
// for one moves probability from the others to it.
func TestPosteriors(t *testing.T) {
	p := posteriors([]float64{2})
	if math.Abs(p[0]-sigmoid(2)) > 1e-9 {
		t.Errorf("one candidate at odds 2: %v, want %v", p[0], sigmoid(2))
	}
	even := posteriors([]float64{3, 3})
	if math.Abs(even[0]-even[1]) > 1e-9 || even[0] >= 0.5 {
		t.Errorf("two candidates, no evidence between them: %v, want equal and below one half", even)
	}
	if got := even[0] + even[1]; math.Abs(got-sigmoid(3)) > 1e-9 {
		t.Errorf("two candidates keep the name's probability: sum %v, want %v", got, sigmoid(3))
	}
	lead := posteriors([]float64{3 + wEntry, 3})
	if lead[0] < linkAt || lead[1] > 0.1 {
		t.Errorf("own entry's evidence: %v, want the first to reach %v", lead, linkAt)
	}
	if p := posteriors([]float64{800, -800}); math.IsNaN(p[0]) || math.Abs(p[0]-1) > 1e-9 {
		t.Errorf("extreme odds: %v", p)
	}
}

// TestLinkPrior: a surface never counted takes the share over every
// surface; one counted often takes its own share, one counted once moves
// only part of the way.
func TestLinkPrior(t *testing.T) {
	total := graph.SurfaceStat{Occurrences: 1000, NamedMilli: 800_000}
	if got := linkPrior(graph.SurfaceStat{}, total); math.Abs(got-0.8) > 1e-9 {
		t.Errorf("unseen surface: %v, want the overall 0.8", got)
	}
	if got := linkPrior(graph.SurfaceStat{}, graph.SurfaceStat{}); got != neutralPrior {
		t.Errorf("nothing counted: %v, want %v", got, neutralPrior)
	}
	word := linkPrior(graph.SurfaceStat{Occurrences: 200, NamedMilli: 10_000}, total)
	if word > 0.1 {
		t.Errorf("a surface read as a name 10 times in 200: %v, want near 0.05", word)
	}
	once := linkPrior(graph.SurfaceStat{Occurrences: 1, NamedMilli: 0}, total)
	if once < 0.4 || once > 0.8 {
		t.Errorf("one occurrence read as no name: %v, want between the overall share and 0", once)
	}
}

// TestDecide: the best candidate is linked at linkAt; an undecided
// mention goes to review when it is likely a name.
func TestDecide(t *testing.T) {
	for _, tc := range []struct {
		name   string
		cands  []Candidate
		want   string
		review bool
	}{
		{"one likely", []Candidate{{"a", 0.9}}, "a", false},
		{"one unlikely", []Candidate{{"a", 0.2}}, "", false},
		{"two split", []Candidate{{"a", 0.45}, {"b", 0.44}}, "", true},
		{"two, a lead", []Candidate{{"a", 0.8}, {"b", 0.1}}, "a", false},
		{"two, no name", []Candidate{{"a", 0.1}, {"b", 0.1}}, "", false},
		{"none", nil, "", false},
	} {
		got, _, review := decide(tc.cands)
		if got != tc.want || review != tc.review {
			t.Errorf("%s: resolved %q review %v, want %q review %v", tc.name, got, review, tc.want, tc.review)
		}
	}
}
