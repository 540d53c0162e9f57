package discourse

import (
	"embed"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/internal/kit/goldentest"

	"github.com/annalist-dev/annalist/schemas"
)

// goldenFiles holds the rules' cases, one file per reading: each line is
// one JSON object with a "name" saying what the case shows, its input
// and its expected reading; blank lines and lines opening with "#" are
// comments. Adding a case is adding a line.
//
//go:embed testdata/*.jsonl
var goldenFiles embed.FS

// errorf reports a failed expectation of one golden case.
type errorf = goldentest.Fail

// runGolden runs check on every case of testdata/<file>
// (internal/kit/goldentest): a subtest per case, messages naming the file,
// the line and the case.
func runGolden[T any](t *testing.T, file string, check func(c T, fail errorf)) {
	t.Helper()
	goldentest.Run(t, goldenFiles, "testdata/"+file, func(_ *testing.T, c T, fail errorf) { check(c, fail) })
}

// discussionOf builds a discussion from paragraphs and turns (Person1 and
// Person2 alternating).
func discussionOf(paras []string, turns ...string) schemas.Discussion {
	d := schemas.Discussion{ID: "r"}
	for i, p := range paras {
		d.Background = append(d.Background, schemas.Paragraph{Index: i + 1, Text: p})
	}
	for i, u := range turns {
		d.Turns = append(d.Turns, schemas.Turn{Participant: []string{"Person1", "Person2"}[i%2], Utterance: u})
	}
	return d
}

// graphOf builds the graph of a discussion of paragraphs and turns.
func graphOf(turns []string, paras ...string) *Graph {
	return BuildGraph(discussionOf(paras, turns...))
}

var (
	kindNames   = map[string]Kind{"other": KindOther, "person": KindPerson, "organisation": KindOrganisation, "place": KindPlace, "event": KindEvent}
	genderNames = map[string]Gender{"unknown": GenderUnknown, "male": Male, "female": Female}
	// evidenceCounts are the counts of an entity's kind evidence a case
	// may require to be zero.
	evidenceCounts = map[string]func(evidence) int{
		"female":     func(v evidence) int { return v.female },
		"competitor": func(v evidence) int { return v.competitor },
	}
)

// entityCase: a background (and turns) and what the graph's Lookup
// finds for some names.
type entityCase struct {
	Name       string       `json:"name"`
	Background []string     `json:"background"`
	Turns      []string     `json:"turns"`
	Want       []entityWant `json:"want"`
}

// entityWant is what Lookup(Lookup) finds; a field left out is not
// checked.
type entityWant struct {
	Lookup string `json:"lookup"`
	// Absent: Lookup finds nothing. IfPresent: the other checks hold
	// only if it finds something.
	Absent    bool   `json:"absent"`
	IfPresent bool   `json:"if_present"`
	Name      string `json:"name"`
	Kind      string `json:"kind"`
	NotKind   string `json:"not_kind"`
	Gender    string `json:"gender"`
	Plural    *bool  `json:"plural"`
	// Roles it has, NotRoles it has not, RoleCount how many it has,
	// RoleOf the holder of a role ("" for none).
	Roles     []string          `json:"roles"`
	NotRoles  []string          `json:"not_roles"`
	RoleCount *int              `json:"role_count"`
	RoleOf    map[string]string `json:"role_of"`
	// Aliases are all its aliases; AliasesNotName: no alias repeats the
	// name.
	Aliases        []string `json:"aliases"`
	AliasesNotName bool     `json:"aliases_not_name"`
	// SameAs and NotSameAs name another lookup that finds the same entity
	// or another one.
	SameAs    string `json:"same_as"`
	NotSameAs string `json:"not_same_as"`
	// NoEvidence lists kind evidence it must have none of.
	NoEvidence []string `json:"no_evidence"`
}

// TestEntities reads testdata/entities.jsonl: the entities the graph
// builds from a background.
func TestEntities(t *testing.T) {
	runGolden(t, "entities.jsonl", func(c entityCase, fail errorf) {
		g := graphOf(c.Turns, c.Background...)
		for _, w := range c.Want {
			checkEntity(g, w, fail)
		}
	})
}

func checkEntity(g *Graph, w entityWant, fail errorf) {
	e := g.Lookup(w.Lookup)
	switch {
	case w.Absent:
		if e != nil {
			fail("Lookup(%q) = %q, want no entity", w.Lookup, e.Name)
		}
		return
	case e == nil && w.IfPresent:
		return
	case e == nil:
		fail("Lookup(%q) = nil, want an entity", w.Lookup)
		return
	}
	if w.Name != "" && e.Name != w.Name {
		fail("Lookup(%q) = %+v, want the name %q", w.Lookup, e, w.Name)
	}
	if w.Kind != "" {
		if k, ok := kindNames[w.Kind]; !ok {
			fail("unknown kind %q", w.Kind)
		} else if e.Kind != k {
			fail("Lookup(%q) = %+v, want kind %s", w.Lookup, e, w.Kind)
		}
	}
	if w.NotKind != "" {
		if k, ok := kindNames[w.NotKind]; !ok {
			fail("unknown kind %q", w.NotKind)
		} else if e.Kind == k {
			fail("Lookup(%q) = %+v, want no %s", w.Lookup, e, w.NotKind)
		}
	}
	if w.Gender != "" {
		if gd, ok := genderNames[w.Gender]; !ok {
			fail("unknown gender %q", w.Gender)
		} else if e.Gender != gd {
			fail("Lookup(%q) = %+v, want gender %s", w.Lookup, e, w.Gender)
		}
	}
	if w.Plural != nil && e.Plural != *w.Plural {
		fail("Lookup(%q) = %+v, want plural %v", w.Lookup, e, *w.Plural)
	}
	for _, r := range w.Roles {
		if !hasRole(e, r) {
			fail("Lookup(%q) = %+v, want the role %q", w.Lookup, e, r)
		}
	}
	for _, r := range w.NotRoles {
		if slices.Contains(e.Roles, r) {
			fail("Lookup(%q) has %q as a role", w.Lookup, r)
		}
	}
	if w.RoleCount != nil && len(e.Roles) != *w.RoleCount {
		fail("Lookup(%q) has the roles %q, want %d", w.Lookup, e.Roles, *w.RoleCount)
	}
	for r, of := range w.RoleOf {
		if e.RoleOf[r] != of {
			fail("Lookup(%q): RoleOf[%q] = %q, want %q", w.Lookup, r, e.RoleOf[r], of)
		}
	}
	if w.Aliases != nil && !slices.Equal(e.Aliases, w.Aliases) {
		fail("Lookup(%q): aliases %q, want %q", w.Lookup, e.Aliases, w.Aliases)
	}
	if w.AliasesNotName {
		for _, a := range e.Aliases {
			if normName(a) == normName(e.Name) {
				fail("Lookup(%q): alias %q repeats the name", w.Lookup, a)
			}
		}
	}
	if w.SameAs != "" {
		if o := g.Lookup(w.SameAs); o == nil || o != e {
			fail("Lookup(%q) = %+v, want the entity of %q", w.Lookup, e, w.SameAs)
		}
	}
	if w.NotSameAs != "" && g.Lookup(w.NotSameAs) == e {
		fail("Lookup(%q) = %+v, want an entity other than %q's", w.Lookup, e, w.NotSameAs)
	}
	for _, v := range w.NoEvidence {
		if n, ok := evidenceCounts[v]; !ok {
			fail("unknown evidence %q", v)
		} else if n(e.ev) > 0 {
			fail("Lookup(%q) = %+v, want no %s evidence", w.Lookup, e, v)
		}
	}
}

// opinionCase: a background and turns, and the opinion sentences of
// their summary: a reading of all sentences in order, and Groups, a
// reading of each participant's sentences in the summary's order.
type opinionCase struct {
	Name       string   `json:"name"`
	Background []string `json:"background"`
	Turns      []string `json:"turns"`
	reading
	Groups []reading `json:"groups"`
}

// reading is what a list of opinion sentences holds; a field left out
// is not checked.
type reading struct {
	// Count is the number of sentences; Sentences what the first ones are,
	// in order.
	Count     *int           `json:"count"`
	Sentences []sentenceWant `json:"sentences"`
	// Any: each is in some sentence; None: each is in no sentence.
	Any  []string `json:"any"`
	None []string `json:"none"`
}

// sentenceWant is one opinion sentence: its whole text, a part of it,
// and entities it names.
type sentenceWant struct {
	Is       string   `json:"is"`
	Contains string   `json:"contains"`
	Entities []string `json:"entities"`
}

// TestOpinions reads testdata/opinions.jsonl: the opinion sentences the
// summary writes for the turns.
func TestOpinions(t *testing.T) {
	runGolden(t, "opinions.jsonl", func(c opinionCase, fail errorf) {
		s := Summarize(discussionOf(c.Background, c.Turns...))
		var all []schemas.OpinionSentence
		for _, p := range s.Opinions {
			all = append(all, p.Sentences...)
		}
		checkReading(all, c.reading, "", fail)
		for i, w := range c.Groups {
			if i >= len(s.Opinions) {
				fail("no opinions of participant %d: %+v", i+1, s.Opinions)
				continue
			}
			checkReading(s.Opinions[i].Sentences, w, s.Opinions[i].Participant+"'s ", fail)
		}
	})
}

func checkReading(got []schemas.OpinionSentence, w reading, whose string, fail errorf) {
	texts := make([]string, len(got))
	for i, o := range got {
		texts[i] = o.Text
	}
	if w.Count != nil && len(got) != *w.Count {
		fail("%sopinions %q, want %d", whose, texts, *w.Count)
		return
	}
	for i, sw := range w.Sentences {
		if i >= len(got) {
			fail("%sopinions %q: no opinion %d", whose, texts, i)
			continue
		}
		if sw.Is != "" && texts[i] != sw.Is {
			fail("%sopinion %d = %q, want %q", whose, i, texts[i], sw.Is)
		}
		if !strings.Contains(texts[i], sw.Contains) {
			fail("%sopinion %d = %q, want it to contain %q", whose, i, texts[i], sw.Contains)
		}
		for _, e := range sw.Entities {
			if !slices.Contains(got[i].Entities, e) {
				fail("%sopinion %d names the entities %q, want %q", whose, i, got[i].Entities, e)
			}
		}
	}
	for _, a := range w.Any {
		if !slices.ContainsFunc(texts, func(x string) bool { return strings.Contains(x, a) }) {
			fail("%sopinions %q: none contains %q", whose, texts, a)
		}
	}
	for _, n := range w.None {
		for _, x := range texts {
			if strings.Contains(x, n) {
				fail("%sopinion %q contains %q", whose, x, n)
			}
		}
	}
}

// TestSentences reads testdata/sentences.jsonl: how SplitSentences cuts
// a text.
func TestSentences(t *testing.T) {
	runGolden(t, "sentences.jsonl", func(c struct {
		Name string   `json:"name"`
		Text string   `json:"text"`
		Want []string `json:"want"`
	}, fail errorf) {
		if got := SplitSentences(c.Text); !reflect.DeepEqual(got, c.Want) {
			fail("SplitSentences(%q) = %q, want %q", c.Text, got, c.Want)
		}
	})
}

// TestStatements reads testdata/statements.jsonl: the statements
// AtomicStatements finds in an utterance.
func TestStatements(t *testing.T) {
	runGolden(t, "statements.jsonl", func(c struct {
		Name      string   `json:"name"`
		Utterance string   `json:"utterance"`
		Want      []string `json:"want"`
	}, fail errorf) {
		if got := AtomicStatements(c.Utterance); !reflect.DeepEqual(got, c.Want) {
			fail("AtomicStatements(%q) = %q, want %q", c.Utterance, got, c.Want)
		}
	})
}

// TestFigures reads testdata/figures.jsonl: financial figures a text
// reports.
func TestFigures(t *testing.T) {
	runGolden(t, "figures.jsonl", func(c struct {
		Name string             `json:"name"`
		Text string             `json:"text"`
		Want map[string]float64 `json:"want"`
	}, fail errorf) {
		f := figures(c.Text)
		for k, v := range c.Want {
			if f[k] != v {
				fail("figures = %v, want %s = %v", f, k, v)
			}
		}
	})
}

// TestScopeTerms reads testdata/terms.jsonl: the terms a turn and its
// story are matched on.
func TestScopeTerms(t *testing.T) {
	runGolden(t, "terms.jsonl", func(c struct {
		Name     string   `json:"name"`
		Texts    []string `json:"texts"`
		Terms    []string `json:"terms"`
		NotTerms []string `json:"not_terms"`
	}, fail errorf) {
		for i, x := range c.Texts {
			terms := scopeTerms(x)
			for _, w := range c.Terms {
				if terms[w] == 0 {
					fail("term %q: 0 in text %d", w, i+1)
				}
			}
			for _, w := range c.NotTerms {
				if terms[w] != 0 {
					fail("term %q: %d in text %d, want none", w, terms[w], i+1)
				}
			}
		}
	})
}

// TestExchanges reads testdata/exchanges.jsonl: the exchange each turn
// belongs to.
func TestExchanges(t *testing.T) {
	runGolden(t, "exchanges.jsonl", func(c struct {
		Name  string   `json:"name"`
		Turns []string `json:"turns"`
		Want  []int    `json:"want"`
	}, fail errorf) {
		if got := exchanges(discussionOf(nil, c.Turns...).Turns); !reflect.DeepEqual(got, c.Want) {
			fail("exchanges = %v, want %v", got, c.Want)
		}
	})
}
