package discourse

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

func TestGraphTeamsFromUsage(t *testing.T) {
	g := graphOf(nil,
		"Castel Verano are two points clear after beating the Harbour Fox 4-1.",
		"Marlow Vale's fans sang all night. Porto Lenzi's comfortable 3-1 victory over Kingsbury FC was deserved.",
		"The Oldport Owls, Tilden Marsh and Corvo Sands share the lead with a 30-12 record.",
		"Sam Reid took charge at Monte Verra in May. He watched Dan Kerr throw three touchdowns in his debut as Westbrook Hawks QB.",
		"Rosa Lind and Tom Baker were praised. She scored twice and he scored once.",
	)
	for _, name := range []string{"Castel Verano", "Marlow Vale", "Porto Lenzi", "Tilden Marsh", "Corvo Sands", "Monte Verra", "Westbrook Hawks"} {
		if e := g.Lookup(name); e == nil || e.Kind != KindOrganisation {
			t.Errorf("%s: %+v, want an organisation", name, e)
		}
	}
	if e := g.Lookup("Castel Verano"); e == nil || !e.Plural {
		t.Errorf("Castel Verano: %+v, want plural (\"are\")", e)
	}
	for _, name := range []string{"Rosa Lind", "Tom Baker", "Sam Reid", "Dan Kerr"} {
		if e := g.Lookup(name); e == nil || e.Kind != KindPerson {
			t.Errorf("%s: %+v, want a person", name, e)
		}
	}
}

func TestGraphPlacesHaveNoGender(t *testing.T) {
	g := graphOf(nil, "North Elmsby topped the medal table as Claire Moss took her first title. Her coach was pleased.")
	if e := g.Lookup("North Elmsby"); e == nil || e.Kind != KindPlace || e.Gender != GenderUnknown {
		t.Errorf("North Elmsby: %+v, want a place without gender", e)
	}
	if e := g.Lookup("Claire Moss"); e == nil || e.Kind != KindPerson || e.Gender != Female {
		t.Errorf("Claire Moss: %+v, want a woman", e)
	}
}

func TestGraphConnectedNames(t *testing.T) {
	g := graphOf(nil,
		"Tom Reid scored twice. Coaches praised Reid for Castelora after the game. Castelora won the match.",
		"The veteran Anna Koval of Vestria finished fifth in the sprint.",
		"The Bank of Elmore raised rates in Elmore.",
	)
	for _, tc := range []struct{ lookup, name string }{
		{"Castelora", "Castelora"},
		{"Reid", "Tom Reid"},
		{"Anna Koval", "Anna Koval"},
		{"Vestria", "Vestria"},
		{"Bank of Elmore", "Bank of Elmore"},
		{"Elmore", "Elmore"},
	} {
		if e := g.Lookup(tc.lookup); e == nil || e.Name != tc.name {
			t.Errorf("Lookup(%q) = %+v, want %q", tc.lookup, e, tc.name)
		}
	}
	for _, bad := range []string{"Reid for Castelora", "Anna Koval of Vestria"} {
		if e := g.Lookup(bad); e != nil {
			t.Errorf("%q is one name: %+v", bad, e)
		}
	}
}

func TestGraphFirstWordStandsAlone(t *testing.T) {
	g := graphOf(nil,
		"Vestria trade minister Vestria Holm rejected the tariff.",
		"The tariff was opposed by Arland, Vestria and Pellmark. Holm called it unfair.",
		"Rhys Owen met Owen Price. Owen said the talks went well.",
	)
	holm := g.Lookup("Vestria Holm")
	if holm == nil || holm.Kind != KindPerson {
		t.Fatalf("Vestria Holm: %+v", holm)
	}
	if e := g.Lookup("Vestria"); e == nil || e == holm {
		t.Errorf("Vestria: %+v, want its own entity", e)
	}
	if e := g.Lookup("Holm"); e != holm {
		t.Errorf("Holm: %+v, want Vestria Holm", e)
	}
	// a surname wins over a given name
	if e := g.Lookup("Owen"); e == nil || e.Name != "Rhys Owen" {
		t.Errorf("Owen: %+v, want Rhys Owen", e)
	}
}

func TestGraphCompanyAndPossessiveNames(t *testing.T) {
	g := graphOf(nil,
		"Kessler Motor Co. Ltd. (KMC) reported a profit. Kessler Motor Co. Ltd. said sales rose.",
		"Two patients were moved to Elmford Children's Hospital overnight.",
	)
	if e := g.Lookup("KMC"); e == nil || e.Name != "Kessler Motor Co. Ltd." || e.Kind != KindOrganisation {
		t.Errorf("KMC: %+v, want Kessler Motor Co. Ltd.", e)
	}
	if e := g.Lookup("Elmford Children's Hospital"); e == nil || e.Kind == KindPerson {
		t.Errorf("Elmford Children's Hospital: %+v", e)
	}
	if e := g.Lookup("Elmford Children"); e != nil {
		t.Errorf("possessive cut the name: %+v", e)
	}
}

func TestGraphRoleOfDescribedHolder(t *testing.T) {
	g := graphOf(nil, "Mara Quint, chair of the region's rowing body ERF, said she would resign.")
	e := g.Lookup("Mara Quint")
	if e == nil || e.RoleOf["chair"] != "ERF" {
		t.Errorf("Mara Quint: %+v, want chair of ERF", e)
	}
}

func TestGraphSpeakerIsPerson(t *testing.T) {
	g := graphOf(nil,
		"Norvex has closed its northern depot. Norvex said the closure was temporary.",
		"Quint said the budget would balance next year.",
	)
	if e := g.Lookup("Quint"); e == nil || e.Kind != KindPerson {
		t.Errorf("Quint: %+v, want a person", e)
	}
	if e := g.Lookup("Norvex"); e == nil || e.Kind == KindPerson {
		t.Errorf("Norvex: %+v, want not a person", e)
	}
}
