package segment

import (
	"cmp"
	"slices"
	"strings"

	"github.com/annalist-dev/annalist/internal/lang/text"
	"github.com/annalist-dev/annalist/internal/lang/zh/names"
)

// Mark starts a piece of a document. Subject is the entry's person as
// listed (MarkEntry), or the name that opens a sub-entry as written
// (MarkSub), empty when the opening is not surely a person.
type Mark struct {
	Pos     int // rune offset
	Kind    MarkKind
	Subject string
}

// MarkKind says what a mark starts.
type MarkKind int

const (
	// MarkOutside starts text that belongs to no entry: the volume header,
	// heading lines, the closing appraisal.
	MarkOutside MarkKind = iota
	// MarkEntry starts a person's entry.
	MarkEntry
	// MarkSub starts a continuation of the current entry: a relative's or
	// another person's sub-entry inside it.
	MarkSub
)

// Piece is the text from one mark to the next, read: Kind is the mark's
// (a sub-entry opening outside any entry is an entry of its own), Main
// the person whose entry the piece is in (empty outside entries), and
// Subject the person the piece opens: the entry's person for MarkEntry,
// the attached person, named in full where the volume shows the name, for
// MarkSub (empty when the text does not show a person).
type Piece struct {
	Start, End int // rune offsets
	Kind       MarkKind
	Subject    string
	Main       string
}

// Doc is a document prepared for reading: its runes and sentences, with
// what the rules read of it kept for the next reading. A Doc is not safe
// for concurrent use.
type Doc struct {
	rs        []rune
	sentences []text.Span
	// ops are the openings found with the rules opsOf, kept so that
	// detecting the profile and reading the entries find them once.
	ops   []opening
	opsOf *Rules
	// nd is the document read for name evidence with the words of ndOf.
	nd   *names.Doc
	ndOf *Rules
	// prose is rs with its listing and heading lines blanked out, nil
	// until asked for.
	prose []rune
}

// NewDoc prepares the text rs whose sentences are sentences
// (text.SentencesRunes(rs)).
func NewDoc(rs []rune, sentences []text.Span) *Doc {
	return &Doc{rs: rs, sentences: sentences}
}

// openings returns the openings of the document under er's rules.
func (d *Doc) openings(er *Rules) []opening {
	if d.opsOf != er {
		d.ops, d.opsOf = er.openings(d.rs, d.sentences), er
	}
	return d.ops
}

// proseText returns the document with the lines that list names run
// together (isListLine) blanked out, offsets kept: the text in which a
// name is written as prose writes it.
func (d *Doc) proseText() []rune {
	if d.prose == nil {
		d.prose = slices.Clone(d.rs)
		for _, sp := range lines(d.rs) {
			if isListLine(d.rs[sp.Start:sp.End]) {
				for i := sp.Start; i < sp.End; i++ {
					d.prose[i] = ' '
				}
			}
		}
	}
	return d.prose
}

// EntryOpenings counts the line starts of d that open with a name and an
// entry formula: the evidence that d is a volume of biographies.
func (er *Rules) EntryOpenings(d *Doc) int {
	return er.entryOpenings(d.openings(er))
}

// Structure marks the pieces of d that belong to no entry (each block of
// heading lines, the text after it up to the next entry, the closing
// appraisal) and returns the listing and heading lines, trimmed: what a
// reader of the volume is told besides its text.
func (er *Rules) Structure(d *Doc) ([]Mark, []string) {
	ls := lines(d.rs)
	list := make([]bool, len(ls))
	marks := er.structureMarks(d.rs, ls, list)
	var listing []string
	for i, sp := range ls {
		if list[i] {
			listing = append(listing, strings.TrimSpace(string(d.rs[sp.Start:sp.End])))
		}
	}
	return marks, listing
}

// Listed returns the parenthesised groups of d's listing (the relatives
// and attached people it names), nil when there are none.
func (er *Rules) Listed(d *Doc) []string {
	var out []string
	for _, g := range er.volumeListing(d.rs).groups {
		out = append(out, string(g))
	}
	return out
}

// Read orders marks (from Marks, or from another reader of the volume
// such as a model) into the pieces of d they start and names their
// people: the first piece starts at 0, one mark per position is kept (an
// entry over a sub-entry over an outside mark), and a sub-entry's person
// is named in full where the listing, a kinship word or the volume's text
// says what the name is.
func (er *Rules) Read(d *Doc, marks []Mark) []Piece {
	return read(er, d, marks, len(d.rs))
}

// Pieces orders marks into the pieces of a text of n runes as Read does,
// without naming anybody: for texts read without entry rules.
func Pieces(marks []Mark, n int) []Piece {
	return read(nil, nil, marks, n)
}

// read is Read with rules er, or Pieces when er is nil.
func read(er *Rules, d *Doc, marks []Mark, n int) []Piece {
	marks = normalise(marks, n)
	var groups [][]rune
	if er != nil {
		groups = er.volumeListing(d.rs).groups
	}
	out := make([]Piece, 0, len(marks))
	main, mainStart := "", 0
	for i, m := range marks {
		end := n
		if i+1 < len(marks) {
			end = marks[i+1].Pos
		}
		attached := ""
		if m.Kind == MarkSub && main == "" && m.Subject != "" && er != nil {
			// A person's opening outside any entry (before the first
			// listed one) begins an entry of its own.
			m.Kind, m.Subject = MarkEntry, er.subEntryName(er.namingAt(d, "", 0, m.Pos, end, groups), []rune(m.Subject))
		}
		switch m.Kind {
		case MarkEntry:
			main, mainStart = m.Subject, m.Pos
		case MarkOutside:
			main = ""
		case MarkSub:
			if main != "" && m.Subject != "" && er != nil {
				attached = er.subEntryName(er.namingAt(d, main, mainStart, m.Pos, end, groups), []rune(m.Subject))
			}
		}
		p := Piece{Start: m.Pos, End: end, Kind: m.Kind, Main: main}
		switch m.Kind {
		case MarkEntry:
			p.Subject = m.Subject
		case MarkSub:
			p.Subject = attached
		}
		out = append(out, p)
	}
	return out
}

// namingAt is what subEntryName reads for a sub-entry of entry's entry
// (which began at mainStart) that opens at pos and runs to end; the
// volume's text before it leaves out the listing lines.
func (er *Rules) namingAt(d *Doc, entry string, mainStart, pos, end int, groups [][]rune) naming {
	prose := d.proseText() // the listing lines write names run together
	n := naming{entry: entry, before: d.rs[mainStart:pos], earlier: prose[:pos], after: d.rs[pos:end], groups: groups}
	if er.judge != nil {
		n.nd = d.nameDoc(er)
	}
	return n
}

// normalise sorts marks by position, keeps one mark per position (an
// entry over a sub-entry over an outside mark), drops marks outside the
// text, and makes sure the first starts at 0.
func normalise(marks []Mark, n int) []Mark {
	out := make([]Mark, 0, len(marks)+1)
	out = append(out, Mark{Pos: 0, Kind: MarkOutside})
	for _, m := range marks {
		if m.Pos >= 0 && m.Pos < n {
			out = append(out, m)
		}
	}
	slices.SortStableFunc(out, func(a, b Mark) int {
		if a.Pos != b.Pos {
			return cmp.Compare(a.Pos, b.Pos)
		}
		return cmp.Compare(b.Kind, a.Kind)
	})
	return slices.CompactFunc(out, func(a, b Mark) bool { return a.Pos == b.Pos })
}
