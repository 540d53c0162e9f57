package discourse

import (
	"testing"

	"github.com/annalist-dev/annalist/schemas"
)

// The rules' cases of one input and one reading are the golden files of
// testdata, read by golden_test.go; the tests here look inside the
// resolver or the verifier.

// TestTurnGenderWeighsTheStory: a turn that says "he" and names nobody is
// about a story with a man in it.
func TestTurnGenderWeighsTheStory(t *testing.T) {
	g := graphOf(nil,
		"Anna Brandt won the final. Brandt said she was proud.",
		"Peter Holm lost the final. Holm said he was tired.")
	r := NewResolver(g)
	if got := r.turnGender("I think he played the final tired.", nil); got != Male {
		t.Errorf("turnGender = %v, want male", got)
	}
	if got := r.turnGender("I think he and she played well.", nil); got != GenderUnknown {
		t.Errorf("turnGender with both = %v, want unknown", got)
	}
	if got := r.turnGender("Holm said he was tired.", []*Entity{g.Lookup("Holm")}); got != GenderUnknown {
		t.Errorf("turnGender naming a man = %v, want unknown", got)
	}
}

// TestSurnameLike: a single letter or a generational suffix is no
// surname.
func TestSurnameLike(t *testing.T) {
	for w, want := range map[string]bool{"Hug": true, "A": false, "Jr": false, "Jr.": false, "2": false, "III": false} {
		if surnameLike(w) != want {
			t.Errorf("surnameLike(%q) = %v, want %v", w, !want, want)
		}
	}
}

// TestLocalityIsNoCountry: "X, Y" makes X a locality, which "this
// country" never denotes and "this area" may.
func TestLocalityIsNoCountry(t *testing.T) {
	g := graphOf(nil,
		"A woman has died following a crash in Cornwall.",
		"Residents in northeastern British Columbia were evacuated.",
		"The man was arrested by officers in Gourock, Inverclyde.")
	e := g.Lookup("Gourock")
	if _, ok := compatible(e, notPronoun, "country"); ok {
		t.Error("a locality is compatible with \"this country\"")
	}
	if _, ok := compatible(e, notPronoun, "area"); !ok {
		t.Error("a locality is not compatible with \"this area\"")
	}
}

// TestTypedOrganisationHeads: "the government" is no court; "the court"
// is one whose name says so.
func TestTypedOrganisationHeads(t *testing.T) {
	g := graphOf(nil, "The Supreme Court overturned the verdict. The court said its ruling was final.")
	e := g.Lookup("Supreme Court")
	if e == nil {
		t.Fatal("no Supreme Court")
	}
	if _, ok := compatible(e, notPronoun, "government"); ok {
		t.Error("a court is compatible with \"the government\"")
	}
	if _, ok := compatible(e, notPronoun, "court"); !ok {
		t.Error("a court is not compatible with \"the court\"")
	}
}

// TestAlignRepeatedWords: a word the turn repeats ("performance … in
// this game", twice) is aligned where its neighbours match, so the name
// written for "the other two players" stands where the turn has that
// group.
func TestAlignRepeatedWords(t *testing.T) {
	d := discussionOf([]string{
		"The Connecticut Sun beat the Indiana Fever 87-81. Alyssa Thomas finished with 12 points and 13 assists.",
		"Marina Mabrey and DeWanna Bonner also stood out for the Sun.",
	},
		"I think she was the key to the win.",
		"Yes, her performance in this game was indeed standout. Moreover, the performances of the other two players in this game are also worthy of praise.")
	g := BuildGraph(d)
	s := schemas.OpinionSentence{
		Text:      "Person2 thinks that the performances of Marina Mabrey in the game between the Connecticut Sun and the Indiana Fever are also worthy of praise.",
		Citations: []schemas.TurnCitation{{Turn: 1}},
	}
	if v := VerifyOpinion(d, g, s); v.Status != "supported" {
		t.Fatalf("verdict %+v, want supported", v)
	}
}

// A turn meets its story through an irregular past ("came" and
// "coming"), the American "-ize" ("equalize", "equalising").
func TestScopeStemFoldsForms(t *testing.T) {
	for _, p := range [][2]string{{"came", "coming"}, {"come", "coming"}, {"equalize", "equalising"}, {"won", "winning"}} {
		if a, b := scopeStem(p[0]), scopeStem(p[1]); a != b {
			t.Errorf("scopeStem(%q) = %q, scopeStem(%q) = %q", p[0], a, p[1], b)
		}
	}
}

// A scorer is no side of a contest: "Kylie Chindavong scored on a penalty
// kick against Robbinsdale Armstrong" pairs nobody.
func TestScorerIsNoContestSide(t *testing.T) {
	g := graphOf(nil,
		"Junior Kylie Chindavong scored on a penalty kick against Robbinsdale Armstrong.",
		"Junior Reese Ruska also scored.")
	r := NewResolver(g)
	for _, l := range r.contestIn(nil) {
		if containsEntity(l.es, g.Lookup("Kylie Chindavong")) {
			t.Errorf("contest %v holds the scorer", l.es)
		}
	}
}

// A contest word does not join two names across a clause break: in "a
// shock lead against the champions when Romain del Castillo converted",
// the scorer is in no contest.
func TestContestStopsAtAClauseBreak(t *testing.T) {
	g := graphOf(nil,
		"Ousmane Dembele scored twice as Paris St-Germain beat Brest 3-1.",
		"Brest took a shock lead against the champions when Romain del Castillo converted from the spot.")
	r := NewResolver(g)
	for _, l := range r.contestIn(nil) {
		if containsEntity(l.es, g.Lookup("Romain del Castillo")) {
			t.Errorf("contest %v holds the scorer", l.es)
		}
	}
}
