package quotes

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestCheckRefusesWithTheReason(t *testing.T) {
	for _, tc := range []struct {
		r    Record
		want string
	}{
		{Record{ID: "x", Content: " ", Author: "A"}, "no content"},
		{Record{ID: "x", Content: "Words.", Author: " "}, "no author"},
		{Record{ID: "x", Content: "Words.", Author: "A", Tags: []string{"a" + TagSeparator + "b"}}, "tag"},
		{Record{ID: "x", Content: "Words.", Author: "A", Tags: []string{""}}, "tag"},
	} {
		err := tc.r.Check()
		if !errors.Is(err, ErrRecord) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.r, err, tc.want)
		}
	}
	if err := (Record{Content: "Words.", Author: "A", Tags: []string{"Life"}}).Check(); err != nil {
		t.Errorf("a good record: %v", err)
	}
}

func TestTitleCarriesTheTags(t *testing.T) {
	tags := []string{"Famous Quotes", "Life"}
	title := Title("Ann Lee", tags)
	if title != "Ann Lee: Famous Quotes · Life" || !slices.Equal(TagsOf("Ann Lee", title), tags) {
		t.Errorf("title %q, tags back %q", title, TagsOf("Ann Lee", title))
	}
	if TagsOf("Bo Ray", title) != nil || TagsOf("Ann Lee", Title("Ann Lee", nil)) != nil {
		t.Error("tags read from another author's title or an untagged one")
	}
}

func TestParseWantsAnArray(t *testing.T) {
	if _, err := Parse(strings.NewReader(`{"content": "x"}`)); err == nil {
		t.Error("an object was read as a collection")
	}
	if _, err := Parse(strings.NewReader(`[] []`)); err == nil {
		t.Error("text after the array was accepted")
	}
	recs, err := Parse(strings.NewReader(`[{"_id": "i", "content": "c", "author": "a", "tags": ["t"]}]`))
	if err != nil || len(recs) != 1 || recs[0].ID != "i" || recs[0].Tags[0] != "t" {
		t.Errorf("%+v %v", recs, err)
	}
}

func TestQueryMatchesTagsByContentWords(t *testing.T) {
	q := NewQuery("the friendships of old age")
	if q.TagMatch("Friendship") != 1 || q.TagMatch("Famous Quotes") != 0 || q.TagMatch("Old Age") != 1 {
		t.Errorf("friendship %v, famous quotes %v, old age %v", q.TagMatch("Friendship"), q.TagMatch("Famous Quotes"), q.TagMatch("Old Age"))
	}
}

func TestShippedModelReads(t *testing.T) {
	m, err := DefaultModel()
	if err != nil {
		t.Fatal(err)
	}
	back, err := ReadModel(m.Write())
	if err != nil || !slices.Equal(back.Weights, m.Weights) || back.Lambda != m.Lambda || back.Cut != m.Cut || len(back.Header) == 0 {
		t.Errorf("write and read again: %+v %v", back, err)
	}
	if _, err := ReadModel([]byte("bias\t0\nlambda\t0.5\n")); err == nil {
		t.Error("a model without features was read")
	}
	if _, err := ReadModel([]byte("bias\t0\nlambda\t2\ntag\t1\nlexical\t1\nvector\t1\nauthor_quotes\t0\nauthor_topic\t0\ncut\t0.5\nexpansion\t0\ntagged\t0\n")); err == nil {
		t.Error("lambda 2 was read")
	}
}

// Ranking returns each text once and, with novelty weighed, prefers a
// different quotation to a near copy of the first.
func TestRankKeepsNearCopiesOut(t *testing.T) {
	m := Model{Weights: []float64{0, 4, 0, 0, 0}, Lambda: 0.5}
	q := NewQuery("river stone")
	cands := []Candidate{
		{ChunkID: "1", Text: "The river shapes the stone by patience."},
		{ChunkID: "2", Text: "The river shapes the stone by patience!"},
		{ChunkID: "3", Text: "The river shapes the stone by patience."},
		{ChunkID: "4", Text: "A stone remembers every hand."},
	}
	got := m.Rank(q, cands, 3)
	if len(got) != 3 || got[0].ChunkID != "1" || got[1].ChunkID != "4" {
		t.Errorf("ranked %v; want 1, then 4 before the near copy 2, and 3 (the same text) never", got)
	}
	m.Lambda = 1
	if got := m.Rank(q, cands, 2); got[1].ChunkID != "2" {
		t.Errorf("without novelty the near copy comes second, got %v", got)
	}
}

// Fitting learns a positive weight for a feature that separates the
// fitting examples and a small one for noise.
func TestFitLearnsTheSeparatingFeature(t *testing.T) {
	var ex []Example
	for i := range 200 {
		fits := i%4 == 0
		x := make([]float64, len(FeatureNames))
		x[1] = float64(i%7) / 7
		if fits {
			x[0] = 1
		}
		ex = append(ex, Example{X: x, Fits: fits})
	}
	m := Fit(ex, 1e-3, 0.7)
	if m.Weights[0] < 2 || m.Weights[0] < 5*abs(m.Weights[1]) {
		t.Errorf("weights %v", m.Weights)
	}
	if LogLoss(m, ex) > 0.2 {
		t.Errorf("log loss %v on separable data", LogLoss(m, ex))
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
