package compose

import (
	"embed"
	"slices"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/internal/kit/goldentest"

	"github.com/annalist-dev/annalist/internal/lang/profile"
	"github.com/annalist-dev/annalist/internal/lang/zh/era"
)

// goldenFiles holds the rules' cases, one file per rule: each line is one
// JSON object with a "name" saying what the case shows, its input and its
// expected result; blank lines and lines opening with "#" are comments.
// Adding a case is adding a line.
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

// liezhuan is the profile of the History of Ming biographies, whose rules
// the cases read with.
func liezhuan(t *testing.T) *profile.Profile {
	t.Helper()
	p, ok := profile.Default().Get("liezhuan")
	if !ok {
		t.Fatal("no liezhuan profile")
	}
	return p
}

// reader is the reader of the liezhuan profile's texts.
func reader(t *testing.T) Reader { return NewReader(liezhuan(t), era.Default()) }

// examinationCase: a jinshi fact (its era date value, evidence and
// whether it has a rank) → the examination sentence about person.
type examinationCase struct {
	Name     string `json:"name"`
	Person   string `json:"person"`
	Value    string `json:"value"`
	Evidence string `json:"evidence"`
	Ranked   bool   `json:"ranked"`
	Want     string `json:"want"`
}

func TestExamination(t *testing.T) {
	tbl := era.Default()
	runGolden(t, "examination.jsonl", func(c examinationCase, fail errorf) {
		got := Examination(c.Person, c.Value, Gregorian(tbl, c.Value), ExamPhrase(c.Value, c.Evidence, c.Ranked))
		if got != c.Want {
			fail("got %q, want %q", got, c.Want)
		}
	})
}

// datesCase: the sentences of an entry, in order → the year each is
// dated to.
type datesCase struct {
	Name  string   `json:"name"`
	Texts []string `json:"texts"`
	Want  []int    `json:"want"`
}

func TestDates(t *testing.T) {
	r := reader(t)
	runGolden(t, "dates.jsonl", func(c datesCase, fail errorf) {
		if got := r.Dates(c.Texts); !slices.Equal(got, c.Want) {
			fail("got %v, want %v", got, c.Want)
		}
	})
}

// dateOfCase: a sentence of another document and the one before it →
// the year it is dated to.
type dateOfCase struct {
	Name   string `json:"name"`
	Before string `json:"before"`
	Text   string `json:"text"`
	Want   int    `json:"want"`
}

func TestDateOf(t *testing.T) {
	r := reader(t)
	runGolden(t, "date_of.jsonl", func(c dateOfCase, fail errorf) {
		if got := r.DateOf(c.Before, c.Text); got != c.Want {
			fail("got %d, want %d", got, c.Want)
		}
	})
}

// extractCase: a sentence of another document, the subject's names and
// the bound → the part a page copies ("" when none fits).
type extractCase struct {
	Name  string   `json:"name"`
	Text  string   `json:"text"`
	Names []string `json:"names"`
	Limit int      `json:"limit"`
	Want  string   `json:"want"`
}

func TestExtract(t *testing.T) {
	r := reader(t)
	runGolden(t, "extract.jsonl", func(c extractCase, fail errorf) {
		cut, ok := r.Extract(c.Text, c.Names, c.Limit)
		if !ok {
			cut.Text = ""
		}
		if cut.Text != c.Want {
			fail("got %q, want %q", cut.Text, c.Want)
		}
		if span := string([]rune(c.Text)[cut.Start:cut.End]); ok && !strings.HasPrefix(cut.Text, span) {
			fail("span [%d,%d) %q is not the cut's words %q", cut.Start, cut.End, span, cut.Text)
		}
	})
}

// topicalCase: a sentence and the subject's names → whether he is the
// topic of one of its clauses.
type topicalCase struct {
	Name  string   `json:"name"`
	Text  string   `json:"text"`
	Names []string `json:"names"`
	Want  bool     `json:"want"`
}

func TestTopical(t *testing.T) {
	r := reader(t)
	runGolden(t, "topical.jsonl", func(c topicalCase, fail errorf) {
		if got := r.Topical(c.Text, c.Names); got != c.Want {
			fail("got %v, want %v", got, c.Want)
		}
	})
}

// namesCase: a subject's name and aliases → the names a sentence may call
// him by.
type namesCase struct {
	Name    string   `json:"name"`
	Subject string   `json:"subject"`
	Aliases []string `json:"aliases"`
	Want    []string `json:"want"`
}

func TestSubjectNames(t *testing.T) {
	runGolden(t, "subject_names.jsonl", func(c namesCase, fail errorf) {
		if got := SubjectNames(c.Subject, c.Aliases); !slices.Equal(got, c.Want) {
			fail("got %q, want %q", got, c.Want)
		}
	})
}

// openingCase: a sentence and a subject → whether it opens with his name
// (opens) and whether it opens someone else's paragraph (sub_entry).
type openingCase struct {
	Name     string `json:"name"`
	Subject  string `json:"subject"`
	Text     string `json:"text"`
	Opens    bool   `json:"opens"`
	SubEntry bool   `json:"sub_entry"`
}

func TestOpenings(t *testing.T) {
	runGolden(t, "openings.jsonl", func(c openingCase, fail errorf) {
		names := SubjectNames(c.Subject, nil)
		if got := OpensWithName(c.Text, c.Subject, names); got != c.Opens {
			fail("opens with his name: got %v, want %v", got, c.Opens)
		}
		if got := SubEntry(c.Text, c.Subject, names); got != c.SubEntry {
			fail("sub-entry: got %v, want %v", got, c.SubEntry)
		}
	})
}

// posthumousCase: a sentence → the clause giving a posthumous name (""
// for none) and whether the sentence may not be copied for it.
type posthumousCase struct {
	Name   string `json:"name"`
	Text   string `json:"text"`
	Clause string `json:"clause"`
	Unfit  bool   `json:"unfit"`
}

func TestPosthumous(t *testing.T) {
	runGolden(t, "posthumous.jsonl", func(c posthumousCase, fail errorf) {
		clause := ""
		if at := PosthumousAt(c.Text); at >= 0 {
			var sentence string
			clause, sentence = PosthumousClause(c.Text, at)
			if sentence != clause+"。" {
				fail("sentence %q is not the clause %q closed", sentence, clause)
			}
		}
		if clause != c.Clause {
			fail("clause: got %q, want %q", clause, c.Clause)
		}
		if got := PosthumousUnfit(c.Text); got != c.Unfit {
			fail("unfit: got %v, want %v", got, c.Unfit)
		}
	})
}

// highestCase: the titles held, in order → the index of the highest (-1
// for none graded), and whether text names a higher office than it.
type highestCase struct {
	Name      string   `json:"name"`
	Titles    []string `json:"titles"`
	Want      int      `json:"want"`
	Text      string   `json:"text"`
	Outranked bool     `json:"outranked"`
}

func TestHighestOffice(t *testing.T) {
	o := liezhuan(t).Offices
	runGolden(t, "highest.jsonl", func(c highestCase, fail errorf) {
		got := HighestOffice(o, c.Titles)
		if got != c.Want {
			fail("got %d, want %d", got, c.Want)
			return
		}
		if got < 0 {
			return
		}
		g, _ := Grade(o, c.Titles[got])
		if out := Outranked(o, c.Text, g); out != c.Outranked {
			fail("outranked by %q: got %v, want %v", c.Text, out, c.Outranked)
		}
	})
}

// sentencesCase: a text → its sentences and whether each starts a line.
type sentencesCase struct {
	Name      string   `json:"name"`
	Text      string   `json:"text"`
	Want      []string `json:"want"`
	LineStart []bool   `json:"line_start"`
}

func TestSentences(t *testing.T) {
	runGolden(t, "sentences.jsonl", func(c sentencesCase, fail errorf) {
		var got []string
		var starts []bool
		rs := []rune(c.Text)
		for _, s := range Sentences(c.Text) {
			got = append(got, s.Text)
			starts = append(starts, s.LineStart)
			if string(rs[s.Start:s.End]) != s.Text {
				fail("span [%d,%d) is not %q", s.Start, s.End, s.Text)
			}
		}
		if !slices.Equal(got, c.Want) || !slices.Equal(starts, c.LineStart) {
			fail("got %q %v, want %q %v", got, starts, c.Want, c.LineStart)
		}
	})
}
