package discussion

import (
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/schemas"
)

// fixture: a background with two women, a man, a plural team and an
// institution; turns supplied per test.
func fixture(turns ...string) schemas.Discussion {
	d := schemas.Discussion{ID: "t", Background: []schemas.Paragraph{
		{Index: 1, Text: "Maria Lindqvist beat Anna Brandt in the final of the Harbour Open on Sunday. Lindqvist said she was proud of her serve."},
		{Index: 2, Text: "Brandt, the defending champion, said she would appeal. Her coach Peter Holm said he was disappointed with the umpire."},
		{Index: 3, Text: "The Tennis Integrity Board (TIB) fined the Harbour Rovers after their fans invaded the court. The board said its decision was final."},
	}}
	for i, u := range turns {
		d.Turns = append(d.Turns, schemas.Turn{Participant: []string{"Person1", "Person2"}[i%2], Utterance: u})
	}
	return d
}

func opinionTexts(d schemas.Discussion) []string {
	var out []string
	for _, p := range Summarize(d).Opinions {
		for _, s := range p.Sentences {
			out = append(out, s.Text)
		}
	}
	return out
}

func TestGraph(t *testing.T) {
	g := BuildGraph(fixture("x"))
	for _, tc := range []struct {
		alias, name string
		gender      Gender
		kind        Kind
	}{
		{"Lindqvist", "Maria Lindqvist", Female, KindPerson},
		{"Brandt", "Anna Brandt", Female, KindPerson},
		{"Holm", "Peter Holm", Male, KindPerson},
		{"TIB", "Tennis Integrity Board", GenderUnknown, KindOrganisation},
	} {
		e := g.Lookup(tc.alias)
		if e == nil || e.Name != tc.name || e.Gender != tc.gender || e.Kind != tc.kind {
			t.Errorf("Lookup(%q) = %+v, want %s gender %d kind %d", tc.alias, e, tc.name, tc.gender, tc.kind)
		}
	}
	if e := g.Lookup("Harbour Rovers"); e == nil || !e.Plural {
		t.Errorf("Harbour Rovers: %+v, want a plural organisation", e)
	}
	if e := g.Lookup("Peter Holm"); e == nil || !hasRole(e, "coach") {
		t.Errorf("Peter Holm's roles: %+v, want coach", e)
	}
}

func TestResolve(t *testing.T) {
	for _, tc := range []struct {
		name  string
		turns []string
		want  []string // substrings, one per expected opinion sentence in order
	}{
		{"gender", []string{"I think he was unfair to Brandt."},
			[]string{"Person1 thinks that Peter Holm was unfair to Anna Brandt."}},
		{"recency", []string{"Brandt played badly.", "No, I think she was unlucky."},
			[]string{"Anna Brandt played badly", "Person2 thinks that Anna Brandt was unlucky."}},
		{"binding", []string{"Brandt served well.", "I think she was beaten by her anyway."},
			[]string{"Anna Brandt served well", "Anna Brandt was beaten by Maria Lindqvist"}},
		{"number", []string{"The Harbour Rovers were fined by the board.", "I think their fans deserved the fine."},
			[]string{"the Harbour Rovers were fined", "the Harbour Rovers' fans deserved the fine"}},
		{"role", []string{"I believe this institution was too harsh.", "The coach was right to complain."},
			[]string{"the Tennis Integrity Board was too harsh", "Peter Holm was right to complain"}},
		{"expletive it", []string{"It is hard to say who was better."},
			[]string{"it is hard to say who was better"}},
		{"unresolvable", []string{"I think the referee should have stayed home."},
			[]string{"the referee should have stayed home"}},
		{"first person", []string{"I hope Lindqvist wins again."},
			[]string{"Person1 hopes Maria Lindqvist wins again."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := opinionTexts(fixture(tc.turns...))
			if len(got) != len(tc.want) {
				t.Fatalf("opinions %q, want %d", got, len(tc.want))
			}
			for i, w := range tc.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("opinion %d = %q, want it to contain %q", i, got[i], w)
				}
			}
		})
	}
}

func TestSummarizeCitesTurnsAndNamesEntities(t *testing.T) {
	d := fixture("I think she was brilliant.", "No, I think Brandt deserved the title.")
	s := Summarize(d)
	if len(s.Opinions) != 2 || s.Opinions[0].Participant != "Person1" {
		t.Fatalf("opinions %+v", s.Opinions)
	}
	o := s.Opinions[1].Sentences[0]
	if o.Citations[0].Turn != 1 || len(o.Entities) != 1 || o.Entities[0] != "Anna Brandt" {
		t.Errorf("Person2's opinion %+v: want turn 1, entity Anna Brandt", o)
	}
	if !strings.HasPrefix(s.Opinions[0].Sentences[0].Text, "Person1 thinks that ") {
		t.Errorf("%q", s.Opinions[0].Sentences[0].Text)
	}
}
