package discourse

import (
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/schemas"
)

// contestFixture: a story about a contest between two teams, with two
// scorers named together, and a second story the discussion is not about.
func contestFixture(turns ...string) schemas.Discussion {
	d := schemas.Discussion{ID: "g", Background: []schemas.Paragraph{
		{Index: 1, Text: "The Harbour Rovers beat the Valley Wanderers 2-1 in the cup final on Sunday."},
		{Index: 2, Text: "Goals from Tom Reid and Sam Okafor sealed the win for the Rovers."},
		{Index: 3, Text: "Elsewhere, the Lakeside Rowing Club said it would move."},
	}}
	for i, u := range turns {
		d.Turns = append(d.Turns, schemas.Turn{Participant: []string{"Person1", "Person2"}[i%2], Utterance: u})
	}
	return d
}

func TestGroupReferences(t *testing.T) {
	for _, tc := range []struct {
		name  string
		turns []string
		want  []string
		ents  []string // entities of the first opinion
	}{
		{"two teams", []string{"I think the two teams played well."},
			[]string{"Person1 thinks that the Harbour Rovers played well.", "Person1 thinks that the Valley Wanderers played well."},
			[]string{"Harbour Rovers"}},
		{"two players", []string{"These two players were brilliant."},
			[]string{"Tom Reid was brilliant", "Sam Okafor was brilliant"},
			[]string{"Tom Reid"}},
		{"they for the group", []string{"These two players were brilliant.", "They deserve praise for their work."},
			[]string{"Tom Reid was brilliant", "Sam Okafor was brilliant", "Tom Reid deserves praise for their work", "Sam Okafor deserves praise"},
			[]string{"Tom Reid"}},
		{"this match", []string{"This match was exciting."},
			[]string{"the match between the Harbour Rovers and the Valley Wanderers was exciting"},
			[]string{"Harbour Rovers", "Valley Wanderers"}},
		{"opponent", []string{"I think the Rovers deserved the win over the opponent."},
			[]string{"the Harbour Rovers deserved the win over the Valley Wanderers"},
			[]string{"Harbour Rovers", "Valley Wanderers"}},
		{"no list of that size", []string{"I think these three players were brilliant."},
			[]string{"these three players were brilliant"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Summarize(contestFixture(tc.turns...))
			var got []string
			var first []string
			for _, p := range s.Opinions {
				for _, o := range p.Sentences {
					if got == nil {
						first = o.Entities
					}
					got = append(got, o.Text)
				}
			}
			if len(got) != len(tc.want) {
				t.Fatalf("opinions %q, want %d", got, len(tc.want))
			}
			for i, w := range tc.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("opinion %d = %q, want it to contain %q", i, got[i], w)
				}
			}
			for _, e := range tc.ents {
				if !containsString(first, e) {
					t.Errorf("entities %q, want %q", first, e)
				}
			}
		})
	}
}

func containsString(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func TestPossessiveAfterResolvedName(t *testing.T) {
	got := opinionTexts(contestFixture("I think the team's defence was solid."))
	if len(got) != 1 || strings.Contains(got[0], "s's") {
		t.Errorf("opinions %q: a plural name's possessive is written with an apostrophe alone", got)
	}
}

func TestGroupOfCompanies(t *testing.T) {
	d := schemas.Discussion{ID: "c", Background: []schemas.Paragraph{
		{Index: 1, Text: "Northgate Mining Corp and Eastfield Steel Inc reported higher profits on Monday."},
		{Index: 2, Text: "Both listed their shares in London last year."},
	}, Turns: []schemas.Turn{{Participant: "Person1", Utterance: "I think these two companies are well run."}}}
	s := Summarize(d)
	o := s.Opinions[0].Sentences[0]
	if len(s.Opinions[0].Sentences) != 2 {
		t.Fatalf("opinions %+v, want one per company", s.Opinions[0].Sentences)
	}
	o2 := s.Opinions[0].Sentences[1]
	if !strings.Contains(o.Text, "Northgate Mining Corp is well run") || !containsString(o.Entities, "Northgate Mining Corp") ||
		!strings.Contains(o2.Text, "Eastfield Steel Inc is well run") || !containsString(o2.Entities, "Eastfield Steel Inc") {
		t.Errorf("opinions %+v", s.Opinions[0].Sentences)
	}
}

// TestGroupByFigure: companies reported one per paragraph are told apart
// by the statement's criterion; a count that does not match leaves the
// reference as written.
func TestGroupByFigure(t *testing.T) {
	d := schemas.Discussion{ID: "f", Background: []schemas.Paragraph{
		{Index: 1, Text: "Northgate Mining Corp, listed on Nasdaq, reported a revenue of $10.0 billion and a net income of $3.0 billion, with a market capitalization of $40 billion."},
		{Index: 2, Text: "Eastfield Steel Inc, listed on the New York Stock Exchange, reported a revenue of $20.0 billion and a net income of $1.0 billion, with a market capitalization of $8 billion."},
		{Index: 3, Text: "Westbrook Energy Corp, traded on Nasdaq, reported a revenue of $500 million and a net income of $200 million, with a market capitalization of $2.5 billion."},
	}, Turns: []schemas.Turn{
		{Participant: "Person1", Utterance: "I think these two companies are worth buying because their profit margins exceed 25%."},
		{Participant: "Person2", Utterance: "I think these two companies are cheap because their price-to-sales ratios are below 1."},
	}}
	s := Summarize(d)
	var p1 []string
	for _, o := range s.Opinions[0].Sentences {
		p1 = append(p1, o.Text)
	}
	want := []string{
		"Person1 thinks that Northgate Mining Corp is worth buying because its profit margins exceed 25%.",
		"Person1 thinks that Westbrook Energy Corp is worth buying because its profit margins exceed 25%.",
	}
	if len(p1) != 2 || p1[0] != want[0] || p1[1] != want[1] {
		t.Errorf("Person1's opinions %q, want %q", p1, want)
	}
	// only Eastfield Steel Inc has a price-to-sales ratio below 1
	if o := s.Opinions[1].Sentences; len(o) != 1 || !strings.Contains(o[0].Text, "these two companies are cheap") {
		t.Errorf("Person2's opinions %+v, want the reference left as written", o)
	}
}
