package linker

import (
	"math"
	"testing"

	"github.com/annalist-dev/annalist/internal/ports/graph"
	"github.com/annalist-dev/annalist/schemas"
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

// bins counts occurrences read at each log-likelihood ratio given.
func bins(at map[float64]int64) graph.SurfaceStat {
	var st graph.SurfaceStat
	for llr, n := range at {
		st.Bins[binOf(llr)] += n
	}
	return st
}

// TestLinkPrior: a surface never counted takes the prior share; one whose
// occurrences read as names takes a high share, one whose occurrences
// read as parts of something else a low one, and one counted once moves
// only part of the way.
func TestLinkPrior(t *testing.T) {
	const prior = 0.9
	if got := sigmoid(linkPrior(graph.SurfaceStat{}, prior)); math.Abs(got-prior) > 1e-9 {
		t.Errorf("unseen surface: %v, want the prior %v", got, prior)
	}
	if name := sigmoid(linkPrior(bins(map[float64]int64{2.5: 30, 0.5: 10}), prior)); name < 0.9 {
		t.Errorf("a surface read as a name: %v, want above 0.9", name)
	}
	if word := sigmoid(linkPrior(bins(map[float64]int64{-2.5: 150, -0.5: 40, 1.5: 10}), prior)); word > 0.15 {
		t.Errorf("a surface read as part of something else: %v, want below 0.15", word)
	}
	once := sigmoid(linkPrior(bins(map[float64]int64{-2.5: 1}), prior))
	if once >= prior || once < 0.5 {
		t.Errorf("one occurrence read as no name: %v, want between 0.5 and the prior", once)
	}
	if got := NameShare(bins(map[float64]int64{2.5: 30})); got < 0.95 {
		t.Errorf("share of a surface read as a name 30 times: %v", got)
	}
	if got := NameShare(graph.SurfaceStat{}); got != 0 {
		t.Errorf("share of a surface never counted: %v", got)
	}
	if binOf(-100) != 0 || binOf(100) != graph.LLRBins-1 || binOf(0.2) != graph.LLRBins/2 {
		t.Errorf("bins of -100, 100, 0.2: %d %d %d", binOf(-100), binOf(100), binOf(0.2))
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

// TestDecideSame: two persons of one name the graph holds apart, whose
// places and lifetimes do not disagree, win together and the mention goes
// to the better attested; two whose places disagree stay apart.
func TestDecideSame(t *testing.T) {
	a := &profile{id: "person:牛金星@1", name: "牛金星", facts: 1, places: []string{"宝丰"}}
	b := &profile{id: "person:牛金星@2", name: "牛金星", facts: 3}
	c := &profile{id: "person:牛金星@3", name: "牛金星", facts: 2, places: []string{"福清"}}
	profiles := map[string]*profile{a.id: a, b.id: b, c.id: c}
	split := []Candidate{{a.id, 0.45}, {b.id, 0.44}}
	if got, sc, review := decideSame("牛金星", split, profiles, "", 0.45, true); got != b.id || review || sc < 0.89 {
		t.Errorf("one man held twice: %q %v review %v, want %s", got, sc, review, b.id)
	}
	apart := []Candidate{{a.id, 0.45}, {c.id, 0.44}}
	if got, _, review := decideSame("牛金星", apart, profiles, "", 0.45, true); got != "" || !review {
		t.Errorf("two men of different places: linked %q, review %v", got, review)
	}
	if got, _, _ := decideSame("金星", split, profiles, "", 0.45, true); got != "" {
		t.Errorf("a surface that is no one's own name: linked %q", got)
	}
}

// TestSamePlace: a native place written with more or fewer levels above
// the county is one place; two counties are two, however their provinces
// are written.
func TestSamePlace(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"晋江", "福建泉州晋江", true},
		{"浙江山阴", "浙江绍兴山阴", true},
		{"宝丰", "宝丰", true},
		{"浙江山阴", "浙江江阴", false},
		{"福建晋江", "福建福清", false},
		{"宝丰", "丰", false},
	} {
		if got := samePlace(c.a, c.b); got != c.want {
			t.Errorf("samePlace(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
	a := &profile{places: []string{"晋江"}}
	b := &profile{places: []string{"福建泉州晋江"}}
	if !compatible(a, b) {
		t.Error("晋江 and 福建泉州晋江: incompatible, want one place")
	}
}

// TestKinOfAnotherIsAFact: a person the graph knows only as another's
// kin (父开 in 解缙's entry: 解开) has a fact of his life, as a person
// with his own native place has; a name that only appears in another
// entity's facts in some other way (an office's holder) does not.
func TestKinOfAnotherIsAFact(t *testing.T) {
	son := "person:解缙@1"
	father := graph.Entity{Node: graph.Node{ID: "person:解开@2", Name: "解开"},
		Incoming: []graph.Edge{{HeadID: son, Relation: schemas.RelRelative, Tail: "开", TailID: "person:解开@2"}}}
	if p := newProfile(father, nil); p.facts != 1 {
		t.Errorf("another's kin: %d facts, want 1", p.facts)
	}
	state := graph.Entity{Node: graph.Node{ID: "person:火剌札@3", Name: "火剌札"},
		Incoming: []graph.Edge{{HeadID: "office:使臣", Relation: schemas.RelOffice, TailID: "person:火剌札@3"}}}
	if p := newProfile(state, nil); p.facts != 0 {
		t.Errorf("named in an office's fact: %d facts, want 0", p.facts)
	}
}
