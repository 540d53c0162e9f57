package discourse

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

// TestTurnScope: a background with two stories; a turn about the second
// one means its people, not the more salient lead story's.
func TestTurnScope(t *testing.T) {
	d := schemas.Discussion{ID: "s", Background: []schemas.Paragraph{
		{Index: 1, Text: "Maria Lindqvist won the Harbour Open on Sunday. Lindqvist said she was proud of her serve."},
		{Index: 2, Text: "Lindqvist thanked her coach and said she would rest before the grass season."},
		{Index: 3, Text: "The organisers of the Harbour Open said the tournament would move to a new venue next year."},
		{Index: 4, Text: "In the city marathon, Rosa Kettunen set a new course record. Kettunen said she had trained at altitude for months."},
	}, Turns: []schemas.Turn{
		{Participant: "Person1", Utterance: "I think the course record she set in the marathon shows the altitude training paid off."},
	}}
	got := opinionTexts(d)
	want := []string{"the course record Rosa Kettunen set"}
	if len(got) != len(want) {
		t.Fatalf("opinions %q, want %d", got, len(want))
	}
	for i, w := range want {
		if !strings.Contains(got[i], w) {
			t.Errorf("opinion %d = %q, want it to contain %q", i, got[i], w)
		}
	}
}

// TestRoleHolder: a role the graph ties to an organisation is written
// with it, for a role phrase and for "as the <role>".
func TestRoleHolder(t *testing.T) {
	g := BuildGraph(schemas.Discussion{ID: "h", Background: []schemas.Paragraph{
		{Index: 1, Text: "Jan Novak, the president of the Harbour League, said he would not resign."},
	}})
	e := g.Lookup("Jan Novak")
	if e == nil || e.RoleOf["president"] == "" {
		t.Skipf("the graph does not tie the role to its organisation: %+v", e)
	}
	r := NewResolver(g)
	got := render(r.Resolve(tokenize("As the president, he should resign"), 0, "Person1"))
	if !strings.Contains(got, "As the president of the Harbour League, Jan Novak should resign") {
		t.Errorf("got %q", got)
	}
	got = render(r.Resolve(tokenize("The president should resign"), 1, "Person2"))
	if !strings.Contains(got, "the Harbour League president Jan Novak should resign") {
		t.Errorf("got %q", got)
	}
}

// TestTeamOfThePerson: "the team" after a person is that person's team,
// not the background's most salient one.
func TestTeamOfThePerson(t *testing.T) {
	d := schemas.Discussion{ID: "a", Background: []schemas.Paragraph{
		{Index: 1, Text: "Harbour City beat Valley Town 2-1 on Sunday. Harbour City stay top, and Harbour City fans celebrated."},
		{Index: 2, Text: "Elsewhere, Lakeside United striker Tom Reid scored twice. Reid said he was delighted."},
	}, Turns: []schemas.Turn{{Participant: "Person1", Utterance: "I think Reid deserves the credit for the team's win."}}}
	got := opinionTexts(d)
	if len(got) != 1 || !strings.Contains(got[0], "Tom Reid deserves the credit for Lakeside United's win") {
		t.Errorf("opinions %q", got)
	}
}

// TestThisArea: "this area" is the story's place, not a street in it;
// "the area" is left as written.
func TestThisArea(t *testing.T) {
	d := schemas.Discussion{ID: "p", Background: []schemas.Paragraph{
		{Index: 1, Text: "Police in Harbour County said three armed robberies took place on Mill Road this week."},
	}, Turns: []schemas.Turn{
		{Participant: "Person1", Utterance: "I think the security situation in this area is getting worse."},
		{Participant: "Person2", Utterance: "I think the area is safe enough."},
	}}
	got := opinionTexts(d)
	want := []string{"the security situation in Harbour County is getting worse", "the area is safe enough"}
	if len(got) != len(want) {
		t.Fatalf("opinions %q", got)
	}
	for i, w := range want {
		if !strings.Contains(got[i], w) {
			t.Errorf("opinion %d = %q, want it to contain %q", i, got[i], w)
		}
	}
}

// A definite description that is no role ("this airport", "that
// event") denotes the one entity whose name ends in its head noun, or
// the one event; with two candidates, or an organisation whose name only
// ends in the noun, it stays as written.
func TestDescribed(t *testing.T) {
	bg := func(texts ...string) schemas.Discussion {
		d := schemas.Discussion{ID: "d"}
		for i, x := range texts {
			d.Background = append(d.Background, schemas.Paragraph{Index: i + 1, Text: x})
		}
		return d
	}
	for _, tc := range []struct {
		name string
		d    schemas.Discussion
		turn string
		want string
	}{
		{"head noun", bg("Flights resumed at Kestrel Airport on Monday after a power cut hit the region.",
			"Engineers worked through the night to restore the supply."),
			"I think this airport handled the outage badly.", "Person1 thinks that Kestrel Airport handled the outage badly."},
		{"two candidates", bg("Flights resumed at Kestrel Airport and at Lowmoor Airport on Monday.",
			"Engineers worked through the night."),
			"I think this airport handled the outage badly.", "Person1 thinks that this airport handled the outage badly."},
		{"organisation name", bg("Jon Ekholm told Northwind Sport that he would retire after the season.",
			"He played for twelve years."),
			"I think this sport needs players like him.", "Person1 thinks that this sport needs players like Jon Ekholm."},
		{"modifier before the head", bg("Flights resumed at Kestrel Airport on Monday.", "Engineers worked through the night."),
			"I think that the busy airport staff did well.", "Person1 thinks that the busy airport staff did well."},
	} {
		d := tc.d
		d.Turns = []schemas.Turn{{Participant: "Person1", Utterance: tc.turn}}
		got := opinionTexts(d)
		if len(got) != 1 || got[0] != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
