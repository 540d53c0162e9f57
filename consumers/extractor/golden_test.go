package extractor_test

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/internal/kit/goldentest"

	"github.com/annalist-dev/annalist/consumers/extractor"
	"github.com/annalist-dev/annalist/schemas"
)

// A reading is one case of a golden file under testdata/: a chunk made of
// the inputs, read by the stage as it reads any chunk, and what its
// triplets must and must not hold. Facts are written as fact renders a
// triplet: "head relation tail {k=v …}" ("陆琮 mentions " for a mention).
//
// The chunk: with an entry, a liezhuan chunk that begins that person's
// entry and is about him (Subject is the entry) unless continues says it
// is a later chunk of the entry (no Subject) or attached that it opens the
// entry of the attached person sub inside the entry's (Subject and
// SubEntry are sub, Main the entry); sub alone is the sub-entry the chunk
// opens; subject, when written (even empty), replaces the Subject so
// made. Without an entry, a generic window outside entries. Profile and
// lang replace the chunk's profile and language.
type reading struct {
	// Name says what the case shows; it names the subtest.
	Name string `json:"name"`

	Entry     string   `json:"entry,omitempty"`
	Sub       string   `json:"sub,omitempty"`
	Subject   *string  `json:"subject,omitempty"`
	Continues bool     `json:"continues,omitempty"`
	Attached  bool     `json:"attached,omitempty"`
	Listed    []string `json:"listed,omitempty"`
	Profile   string   `json:"profile,omitempty"`
	Lang      string   `json:"lang,omitempty"`
	Text      string   `json:"text"`

	// Want are facts the triplets hold, Not facts they do not hold.
	Want []string `json:"want,omitempty"`
	Not  []string `json:"not,omitempty"`
	// Exact says the triplets hold no fact but those of Want;
	// ExactRelations says it of the facts of these relations only.
	Exact          bool     `json:"exact,omitempty"`
	ExactRelations []string `json:"exact_relations,omitempty"`
	// Evidence maps a fact to the text its triplet cites.
	Evidence map[string]string `json:"evidence,omitempty"`
	// People are names the triplets make a person of (a head, or a tail
	// of type person); NotPeople names they must not.
	People    []string `json:"people,omitempty"`
	NotPeople []string `json:"not_people,omitempty"`
	// Relations each have a triplet; NotRelations, NotHeads and NotTails
	// have none; no triplet's pattern begins with one of NotPatterns.
	Relations    []string `json:"relations,omitempty"`
	NotRelations []string `json:"not_relations,omitempty"`
	NotHeads     []string `json:"not_heads,omitempty"`
	NotTails     []string `json:"not_tails,omitempty"`
	NotPatterns  []string `json:"not_patterns,omitempty"`
}

// golden holds the golden files: one case a line, one JSON object
// each; lines starting with # are comments.
//
//go:embed testdata/*.jsonl
var golden embed.FS

// TestReadings reads every case of the golden files. A failure names the
// file, the line and the case.
func TestReadings(t *testing.T) {
	files, err := fs.Glob(golden, "testdata/*.jsonl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files in testdata: %v", err)
	}
	for _, file := range files {
		cases, err := loadReadings(file)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(strings.TrimSuffix(path.Base(file), ".jsonl"), func(t *testing.T) {
			for _, rc := range cases {
				t.Run(rc.Name, func(t *testing.T) { rc.check(t) })
			}
		})
	}
}

// placedReading is a reading and where it is written.
type placedReading struct {
	reading
	file string
	line int
}

// loadReadings parses a golden file (internal/kit/goldentest: unknown
// fields, trailing data, cases without a name and names written twice are
// refused) and rejects cases without a text or an assertion.
func loadReadings(file string) ([]placedReading, error) {
	cases, err := goldentest.Read[reading](golden, file)
	if err != nil {
		return nil, err
	}
	out := make([]placedReading, 0, len(cases))
	for _, c := range cases {
		if err := c.Value.validate(); err != nil {
			return nil, fmt.Errorf("%s:%d: %q: %w", c.File, c.Line, c.Name, err)
		}
		out = append(out, placedReading{reading: c.Value, file: c.File, line: c.Line})
	}
	return out, nil
}

// validate rejects a case that cannot be read or asserts nothing.
func (r reading) validate() error {
	switch {
	case r.Name == "":
		return errors.New("no name")
	case r.Text == "":
		return errors.New("no text")
	case r.Entry == "" && (r.Sub != "" || r.Subject != nil || r.Continues || r.Attached):
		return errors.New("sub, subject, continues and attached need an entry")
	case r.Attached && (r.Sub == "" || r.Continues):
		return errors.New("attached needs a sub and is no continuation")
	case r.Exact && len(r.ExactRelations) > 0:
		return errors.New("exact and exact_relations together")
	}
	if len(r.Want)+len(r.Not)+len(r.Evidence)+len(r.People)+len(r.NotPeople)+len(r.Relations)+
		len(r.NotRelations)+len(r.NotHeads)+len(r.NotTails)+len(r.NotPatterns) == 0 {
		return errors.New("asserts nothing")
	}
	return nil
}

// chunk is the chunk the case reads.
func (r reading) chunk() schemas.Chunk {
	c := schemas.Chunk{ChunkID: "c-1", DocID: "doc", Seq: 0, Total: 1, Listed: r.Listed, Lang: r.Lang,
		End: utf8.RuneCountInString(r.Text), Text: r.Text}
	if r.Entry == "" {
		c.Profile, c.Method = extractor.ProfileGeneric, "window"
	} else {
		c.Profile, c.Method = extractor.ProfileLiezhuan, "pattern"
		c.Entry, c.EntryChunk, c.SubEntry, c.Subject = r.Entry, "c-1", r.Sub, r.Entry
		if r.Continues || r.Attached {
			c.ChunkID, c.Seq, c.Total, c.Subject = "c-2", 1, 2, ""
		}
		if r.Attached {
			c.Subject, c.Attached, c.Main = r.Sub, true, r.Entry
		}
		if r.Subject != nil {
			c.Subject = *r.Subject
		}
	}
	if r.Profile != "" {
		c.Profile = r.Profile
	}
	return c
}

// check extracts the case's chunk and holds the triplets to the case.
func (r placedReading) check(t *testing.T) {
	fail := func(format string, args ...any) {
		t.Helper()
		t.Errorf("%s:%d: %s: %s", r.file, r.line, r.Name, fmt.Sprintf(format, args...))
	}
	ts := extract(t, r.chunk())
	got := facts(ts)
	for _, f := range r.Want {
		if _, ok := got[f]; !ok {
			fail("missing %q", f)
		}
	}
	for _, f := range r.Not {
		if _, ok := got[f]; ok {
			fail("unexpected %q", f)
		}
	}
	for _, f := range keys(got) {
		tr := got[f]
		if (r.Exact || slices.Contains(r.ExactRelations, tr.Relation)) && !slices.Contains(r.Want, f) {
			fail("unexpected %q (not wanted)", f)
		}
		if slices.Contains(r.NotHeads, tr.Head) {
			fail("fact about %s: %q", tr.Head, f)
		}
	}
	for _, f := range slices.Sorted(maps.Keys(r.Evidence)) {
		if ev := got[f].Evidence; ev != r.Evidence[f] {
			fail("%s: evidence %q, want %q", f, ev, r.Evidence[f])
		}
	}
	ps := persons(ts)
	for _, p := range r.People {
		if !slices.Contains(ps, p) {
			fail("no person %q in %v", p, ps)
		}
	}
	for _, p := range r.NotPeople {
		if slices.Contains(ps, p) {
			fail("%q made a person", p)
		}
	}
	for _, rel := range r.Relations {
		if !slices.ContainsFunc(ts, func(tr schemas.Triplet) bool { return tr.Relation == rel }) {
			fail("no %s triplet", rel)
		}
	}
	for _, tr := range ts {
		if slices.Contains(r.NotRelations, tr.Relation) {
			fail("unexpected relation: %s", fact(tr))
		}
		if slices.Contains(r.NotTails, tr.Tail) {
			fail("unexpected tail: %s", fact(tr))
		}
		if slices.ContainsFunc(r.NotPatterns, func(p string) bool { return strings.HasPrefix(tr.Pattern, p) }) {
			fail("unexpected pattern %s: %s", tr.Pattern, fact(tr))
		}
	}
	if t.Failed() {
		t.Logf("%s:%d: %s: got %s", r.file, r.line, r.Name, strings.Join(keys(got), "; "))
	}
}
