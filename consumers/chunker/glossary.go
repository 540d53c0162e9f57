package chunker

import (
	"strings"

	"github.com/annalist-dev/annalist/internal/lang/zh/glossary"
	"github.com/annalist-dev/annalist/internal/lang/zh/segment"
	"github.com/annalist-dev/annalist/schemas"
)

// glossaryMinEntries and glossaryShare decide when a document that names
// no profile is a glossary by its content: at least this many entry lines,
// and entries make up this share of the lines that are not blank or
// comments.
const (
	glossaryMinEntries = 3
	glossaryShare      = 0.9
)

// isGlossary reports whether a document that names no profile is a
// glossary: it belongs to the glossary collection, or its lines are
// glossary entries.
func isGlossary(doc schemas.Document) bool {
	if doc.Collection == glossary.Collection {
		return true
	}
	if !strings.ContainsAny(doc.Text, "｜|") {
		return false
	}
	entries := len(glossary.Parse(doc.Text))
	if entries < glossaryMinEntries {
		return false
	}
	lines := 0
	for _, l := range strings.Split(doc.Text, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			lines++
		}
	}
	return float64(entries) >= glossaryShare*float64(lines)
}

// glossaryMarks starts a chunk at every entry line. Text before the first
// entry (a heading, comments) is a chunk of its own; blank and comment
// lines after an entry stay with it, so the chunks tile the text.
func glossaryMarks(d *docText) []segment.Mark {
	entries := glossary.Parse(string(d.rs))
	marks := make([]segment.Mark, 0, len(entries)+1)
	marks = append(marks, segment.Mark{Pos: 0, Kind: segment.MarkOutside})
	for _, e := range entries {
		marks = append(marks, segment.Mark{Pos: e.Line.Start, Kind: segment.MarkOutside})
	}
	return marks
}
