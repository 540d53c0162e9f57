package glossary_test

import (
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/internal/lang/text"
	"github.com/annalist-dev/annalist/internal/lang/zh/glossary"
)

func TestParseLine(t *testing.T) {
	for _, tt := range []struct {
		line     string
		ok       bool
		names    []string
		category string
		def      string
	}{
		{"进士｜rank｜殿试赐第者之称。", true, []string{"进士"}, "rank", "殿试赐第者之称。"},
		{"状元、廷试第一｜rank｜殿试第一名。", true, []string{"状元", "廷试第一"}, "rank", "殿试第一名。"},
		{" 知县 | office | 县之长官。 ", true, []string{"知县"}, "office", "县之长官。"},
		{"# 知县｜office｜注释行", false, nil, "", ""},
		{"", false, nil, "", ""},
		{"知县｜office", false, nil, "", ""},
		{"知县｜office｜", false, nil, "", ""},
		{"知县｜Office｜县之长官。", false, nil, "", ""},
		{"知县、｜office｜县之长官。", false, nil, "", ""},
		{"知县｜office｜县之长官｜多一栏", false, nil, "", ""},
		{"叶向高，字进卿，福清人。", false, nil, "", ""},
	} {
		e, ok := glossary.ParseLine(tt.line)
		if ok != tt.ok {
			t.Errorf("ParseLine(%q) ok = %v, want %v", tt.line, ok, tt.ok)
			continue
		}
		if !ok {
			continue
		}
		var names []string
		for _, n := range e.Names {
			names = append(names, n.Text)
			if got := text.Substr(tt.line, n.Span.Start, n.Span.End); got != n.Text {
				t.Errorf("ParseLine(%q): name %q spans %q", tt.line, n.Text, got)
			}
		}
		if !slices.Equal(names, tt.names) || e.Category != tt.category || e.Definition != tt.def {
			t.Errorf("ParseLine(%q) = %v %q %q, want %v %q %q", tt.line, names, e.Category, e.Definition, tt.names, tt.category, tt.def)
		}
		if got := text.Substr(tt.line, e.DefinitionSpan.Start, e.DefinitionSpan.End); got != tt.def {
			t.Errorf("ParseLine(%q): definition span gives %q", tt.line, got)
		}
		if e.Term() != tt.names[0] || !e.Has(tt.names[len(tt.names)-1]) || e.Has("无此名") {
			t.Errorf("ParseLine(%q): Term/Has disagree with names %v", tt.line, names)
		}
	}
}

// Spans from Parse are rune offsets into the whole text, across lines of
// mixed width and a CRLF line end.
func TestParseOffsets(t *testing.T) {
	doc := "# 术语表\r\n进士｜rank｜殿试赐第者。\r\n\n知县｜office｜县之长官。"
	es := glossary.Parse(doc)
	if len(es) != 2 {
		t.Fatalf("Parse found %d entries, want 2", len(es))
	}
	for _, e := range es {
		if got := text.Substr(doc, e.Names[0].Span.Start, e.Names[0].Span.End); got != e.Term() {
			t.Errorf("term %q spans %q", e.Term(), got)
		}
		if got := text.Substr(doc, e.DefinitionSpan.Start, e.DefinitionSpan.End); got != e.Definition {
			t.Errorf("definition %q spans %q", e.Definition, got)
		}
		line := text.Substr(doc, e.Line.Start, e.Line.End)
		if _, ok := glossary.ParseLine(line); !ok || utf8.RuneCountInString(line) != e.Line.End-e.Line.Start {
			t.Errorf("line span of %q gives %q", e.Term(), line)
		}
	}
}

// The shipped glossary is well formed: every content line is an entry,
// 30-80 entries, known categories, no name given to two entries.
func TestShippedGlossary(t *testing.T) {
	doc := glossary.Document()
	if doc.Collection != glossary.Collection || doc.Profile != glossary.Profile || doc.Text != glossary.Text() {
		t.Errorf("Document() = %+v, want the shipped text in the glossary collection", doc)
	}
	es := glossary.Parse(glossary.Text())
	if len(es) < 30 || len(es) > 80 {
		t.Errorf("shipped glossary has %d entries, want 30-80", len(es))
	}
	owner := map[string]string{}
	count := map[string]int{}
	for _, e := range es {
		count[e.Category]++
		for _, n := range e.Names {
			if prev, dup := owner[n.Text]; dup {
				t.Errorf("name %q belongs to %q and %q", n.Text, prev, e.Term())
			}
			owner[n.Text] = e.Term()
		}
	}
	for _, c := range []string{glossary.CategoryRank, glossary.CategoryOffice, glossary.CategoryPlace} {
		if count[c] == 0 {
			t.Errorf("no entry of category %s", c)
		}
	}
	if len(count) != 3 {
		t.Errorf("categories %v, want only rank, office, place", count)
	}
	for _, want := range []string{"进士", "状元", "编修", "大学士", "福清"} {
		if _, ok := owner[want]; !ok {
			t.Errorf("shipped glossary lacks %s", want)
		}
	}
}
