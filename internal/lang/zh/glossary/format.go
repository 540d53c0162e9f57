package glossary

import (
	_ "embed"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/internal/lang/profile"
	"github.com/annalist-dev/annalist/schemas"
)

// Collection and Profile name glossary documents: a document of collection
// Collection, or naming profile Profile, is read in the format of the
// package doc.
const (
	Collection = "glossary"
	Profile    = profile.Glossary
)

// HeadType is the KG entity type of a glossary term, and RelCategory the
// relation from a term to its category.
const (
	HeadType    = "term"
	RelCategory = "category"
)

// Categories of the shipped glossary.
const (
	CategoryRank   = "rank"
	CategoryOffice = "office"
	CategoryPlace  = "place"
)

// Name is one name of an entry and where it is written, in rune offsets
// of the parsed text.
type Name struct {
	Text string
	Span schemas.Span
}

// Entry is one glossary line. Spans are rune offsets into the text given
// to Parse (into the line for ParseLine).
type Entry struct {
	// Names holds the term first, then its other names.
	Names      []Name
	Category   string
	Definition string
	// DefinitionSpan is where Definition is written.
	DefinitionSpan schemas.Span
	// Line is the entry's line, without its line break.
	Line schemas.Span
}

// Term is the entry's first name.
func (e Entry) Term() string {
	if len(e.Names) == 0 {
		return ""
	}
	return e.Names[0].Text
}

// Has reports whether name is one of the entry's names.
func (e Entry) Has(name string) bool {
	for _, n := range e.Names {
		if n.Text == name {
			return true
		}
	}
	return false
}

// ParseLine reads one line; ok is false when it is not an entry (a
// comment, a blank line, too few fields, an empty name or definition, a
// category that is not a lower-case word).
func ParseLine(line string) (Entry, bool) {
	es := Parse(line)
	if len(es) != 1 {
		return Entry{}, false
	}
	return es[0], true
}

// Parse returns the entries of a glossary text in order; lines that are
// not entries are skipped.
func Parse(text string) []Entry {
	var out []Entry
	pos := 0 // rune offset of the current line
	for _, line := range strings.SplitAfter(text, "\n") {
		body := strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
		if e, ok := parseLine(body, pos); ok {
			out = append(out, e)
		}
		pos += utf8.RuneCountInString(line)
	}
	return out
}

// parseLine parses line, which starts at rune offset base of the text.
func parseLine(line string, base int) (Entry, bool) {
	trimmed := strings.TrimLeftFunc(line, unicode.IsSpace)
	if trimmed == "" || strings.HasPrefix(trimmed, "#") {
		return Entry{}, false
	}
	// fields as rune spans of line
	type field struct {
		s          string
		start, end int
	}
	var fields []field
	start, n := 0, 0
	b := 0
	for i, r := range line {
		if r == '｜' || r == '|' {
			fields = append(fields, field{line[b:i], start, n})
			b, start = i+utf8.RuneLen(r), n+1
		}
		n++
	}
	fields = append(fields, field{line[b:], start, n})
	if len(fields) != 3 {
		return Entry{}, false
	}
	trim := func(f field) field {
		l := strings.TrimLeftFunc(f.s, unicode.IsSpace)
		f.start += utf8.RuneCountInString(f.s) - utf8.RuneCountInString(l)
		f.s = strings.TrimRightFunc(l, unicode.IsSpace)
		f.end = f.start + utf8.RuneCountInString(f.s)
		return f
	}
	names, cat, def := trim(fields[0]), trim(fields[1]), trim(fields[2])
	if def.s == "" || !category(cat.s) {
		return Entry{}, false
	}
	e := Entry{Category: cat.s, Definition: def.s,
		DefinitionSpan: schemas.Span{Start: base + def.start, End: base + def.end},
		Line:           schemas.Span{Start: base, End: base + n}}
	at := names.start
	for _, part := range strings.Split(names.s, "、") {
		nm := trim(field{part, at, at + utf8.RuneCountInString(part)})
		at += utf8.RuneCountInString(part) + 1
		if nm.s == "" {
			return Entry{}, false
		}
		e.Names = append(e.Names, Name{Text: nm.s, Span: schemas.Span{Start: base + nm.start, End: base + nm.end}})
	}
	return e, true
}

func category(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if (r < 'a' || r > 'z') && r != '_' {
			return false
		}
	}
	return true
}

//go:embed glossary.txt
var shipped string

// Text is the glossary the project ships.
func Text() string { return shipped }

// Document is the shipped glossary as a document to ingest. DocID is left
// empty: the producers derive it (producers.NewItem), as for any file.
func Document() schemas.Document {
	return schemas.Document{Source: "glossary/glossary.txt", Title: "术语表", Collection: Collection,
		Profile: Profile, Lang: "zh", Text: shipped}
}
