package discussion

import (
	"testing"

	"github.com/annalist-dev/annalist/schemas"
)

func graphOf(turns []string, paras ...string) *Graph {
	d := schemas.Discussion{ID: "g"}
	for i, p := range paras {
		d.Background = append(d.Background, schemas.Paragraph{Index: i + 1, Text: p})
	}
	for i, u := range turns {
		d.Turns = append(d.Turns, schemas.Turn{Participant: []string{"Person1", "Person2"}[i%2], Utterance: u})
	}
	return BuildGraph(d)
}

func TestGraphKindFromUsage(t *testing.T) {
	g := graphOf([]string{"I think the Harbour Fox deserved it."},
		"The Harbour Fox opened the season with three wins, and the Harbour Fox lost their next game.",
		"Rosa Lind scored twice for Kingsbury FC in the match between Kingsbury FC and Oldport Athletic. She was named player of the match.",
		"General Motors said its sales rose. Northgate Mining, a company based in Leeds, said it would hire.",
	)
	for _, tc := range []struct {
		name   string
		kind   Kind
		plural bool
	}{
		// "the" before the name and "their" after it: not a person
		{"Harbour Fox", KindOrganisation, true},
		// listed with a club
		{"Oldport Athletic", KindOrganisation, false},
		{"Kingsbury FC", KindOrganisation, false},
		// a title word that opens an organisation's name stays in it
		{"General Motors", KindOrganisation, false},
		{"Northgate Mining", KindOrganisation, false},
		{"Rosa Lind", KindPerson, false},
	} {
		e := g.Lookup(tc.name)
		if e == nil || e.Name != tc.name || e.Kind != tc.kind || e.Plural != tc.plural {
			t.Errorf("Lookup(%q) = %+v, want kind %d plural %v", tc.name, e, tc.kind, tc.plural)
		}
	}
	if e := g.Lookup("Rosa Lind"); e == nil || e.Gender != Female {
		t.Errorf("Rosa Lind: %+v, want female", e)
	}
	if e := g.Lookup("Motors"); e != nil && e.Name != "General Motors" {
		t.Errorf("Motors is its own entity: %+v", e)
	}
}

func TestGraphCommonWords(t *testing.T) {
	g := graphOf([]string{"Discrimination is everywhere, and the goal was lucky."},
		"Goals from Tom Baker and Ann Reed secured the win. Elsewhere, the Harbour Fox lost.",
		"Discrimination has no place in sport, Baker said.",
		"Wilmington beat Oldport on Sunday.",
	)
	for _, w := range []string{"Goals", "Elsewhere", "Discrimination"} {
		if e := g.Lookup(w); e != nil {
			t.Errorf("%q is a common word, got entity %+v", w, e)
		}
	}
	// a sentence-initial name the text gives no reason to doubt stays
	if g.Lookup("Wilmington") == nil {
		t.Errorf("Wilmington lost")
	}
	if e := g.Lookup("Baker"); e == nil || e.Name != "Tom Baker" {
		t.Errorf("Baker: %+v, want Tom Baker", e)
	}
}

func TestGraphRoles(t *testing.T) {
	g := graphOf([]string{"The president was right."},
		"FIFA president Gianni Infantino said the ban was fair. Kingsbury FC's captain Tom Baker agreed.",
		"Maria Costa, the coach of Kingsbury FC, said she was proud. Harbour Fox cut the lead, and Ann Reed saw Tom Baker score.",
		"Carla Stein, a lawyer, said she would appeal. Owen Hale, who scored twice, left early.",
	)
	for _, tc := range []struct {
		name, role, of string
	}{
		{"Gianni Infantino", "president", "FIFA"},
		{"Tom Baker", "captain", "Kingsbury FC"},
		{"Maria Costa", "coach", "Kingsbury FC"},
		{"Carla Stein", "lawyer", ""},
	} {
		e := g.Lookup(tc.name)
		if e == nil || !hasRole(e, tc.role) {
			t.Errorf("%s: %+v, want role %q", tc.name, e, tc.role)
			continue
		}
		if e.RoleOf[tc.role] != tc.of {
			t.Errorf("%s: RoleOf[%q] = %q, want %q", tc.name, tc.role, e.RoleOf[tc.role], tc.of)
		}
	}
	// verbs between names are not roles
	for _, name := range []string{"Tom Baker", "Ann Reed", "Harbour Fox", "Owen Hale"} {
		if e := g.Lookup(name); e != nil {
			for _, r := range e.Roles {
				if r == "saw" || r == "cut" || r == "scored" || r == "agreed" {
					t.Errorf("%s has the verb %q as a role", name, r)
				}
			}
		}
	}
	if e := g.Lookup("FIFA"); e == nil || e.Kind != KindOrganisation || len(e.Roles) > 0 {
		t.Errorf("FIFA: %+v, want an organisation without the president's role", e)
	}
}

func TestGraphAliasesDistinct(t *testing.T) {
	g := graphOf(nil,
		"The Tennis Integrity Board (TIB) fined Anna Brandt. The Tennis Integrity Board (TIB) said Brandt would appeal.",
	)
	e := g.Lookup("TIB")
	if e == nil || e.Name != "Tennis Integrity Board" {
		t.Fatalf("TIB: %+v", e)
	}
	if len(e.Aliases) != 1 || e.Aliases[0] != "TIB" {
		t.Errorf("aliases %q, want [TIB]", e.Aliases)
	}
	b := g.Lookup("Brandt")
	if b == nil {
		t.Fatal("Brandt missing")
	}
	for _, a := range b.Aliases {
		if normName(a) == normName(b.Name) {
			t.Errorf("alias %q repeats the name", a)
		}
	}
}

func TestGraphRoleInsideName(t *testing.T) {
	g := graphOf(nil, "Riverside Raiders QB Sam Hollis threw for 300 yards against the Oldport Owls.")
	e := g.Lookup("Sam Hollis")
	if e == nil || e.Name != "Sam Hollis" || !hasRole(e, "qb") || e.RoleOf["qb"] != "Riverside Raiders" {
		t.Errorf("Sam Hollis: %+v, want role qb of Riverside Raiders", e)
	}
	if r := g.Lookup("Riverside Raiders"); r == nil || r.Kind != KindOrganisation {
		t.Errorf("Riverside Raiders: %+v, want an organisation", r)
	}
}
