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
