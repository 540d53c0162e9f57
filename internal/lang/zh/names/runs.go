package names

import (
	"strings"

	"github.com/annalist-dev/annalist/internal/lang/text"
)

// maxRun bounds the runs read: a titled or clan name reaches eight
// characters.
const maxRun = 8

// Label says what the corpus says of a run, for free.
type Label int

// Labels of a run.
const (
	Unknown Label = iota
	Name
	Other
)

// Run is a run of name characters that opens a sentence of a volume,
// closed by "，" or "者，", with its label.
type Run struct {
	Doc *Doc
	Run []rune
	// At is the offset of the run, End that of the "，" or "者" after it.
	At, End int
	// Listed says the listing writes the run, Main that it writes it
	// among the main names (outside parentheses).
	Listed, Main bool
	Label        Label
	Group        string
}

// Runs returns the runs that open the lines of a volume of biographies
// whose first lines list the people it covers (names run together,
// relatives in parentheses: headings), and those that open sentences inside a line with words
// that present a person (where an entry may open after a lost paragraph
// break): the runs an entry may open with. They are labelled by the
// listing and by the entry openings:
//
//   - Name: the listing writes the run (a run of one character only in a
//     parenthesised group, where given names are run together after a
//     kinship word: "(子琏璟)"), or it opens a line and the words after
//     it present a person (字…, …人, …氏): an entry opening.
//   - Other: the listing lines hold none of the run and the words after
//     it present no one: "帝怒，", "久之，", "道周遂移疾乞休，".
//   - Unknown: anything else, as a run inside a line followed by such
//     words (a person brought in, or a clause before a phrase that reads
//     like a native place), or a run written with words before the name
//     (Doc.introduced: "有王涣", "子嘉铨", "阶弟陟"): a kinship word is no
//     part of a name, and what follows it is one.
//
// A volume without a listing gives no runs.
func Runs(volume, group string, words *Words) []Run {
	rs := []rune(volume)
	main, groups, end := headings(rs)
	if len(main) == 0 {
		return nil
	}
	head := rs[:end]
	listed := func(run []rune) bool {
		if len(run) >= 2 && text.IndexRunes(main, run, 0) >= 0 {
			return true
		}
		for _, g := range groups {
			if text.IndexRunes(g, run, 0) >= 0 {
				return true
			}
		}
		return false
	}
	d := NewDoc(rs, words)
	var out []Run
	for _, s := range sentenceStarts(rs, end) {
		run, e := d.runAt(s)
		if len(run) == 0 || !lineStart(rs, s) && !d.presents(e) {
			continue
		}
		r := Run{Doc: d, Run: run, At: s, End: e, Listed: listed(run), Group: group,
			Main: len(run) >= 2 && text.IndexRunes(main, run, 0) >= 0}
		switch {
		case d.introduced(run):
		case r.Listed || lineStart(rs, s) && d.presents(e):
			r.Label = Name
		case text.IndexRunes(head, run, 0) < 0 && !d.presents(e):
			r.Label = Other
		}
		out = append(out, r)
	}
	return out
}

// Examples are the labelled runs as examples for the character model.
func Examples(runs []Run) []Example {
	var out []Example
	for _, r := range runs {
		if r.Label != Unknown {
			out = append(out, Example{Run: r.Run, Name: r.Label == Name, Group: r.Group})
		}
	}
	return out
}

// clauseAt is the clause of rs from i up to the next clause end.
func clauseAt(rs []rune, i int) []rune {
	j := i
	for j < len(rs) && !clauseEnd(rs[j]) {
		j++
	}
	return rs[i:j]
}

func clauseEnd(r rune) bool {
	switch r {
	case '，', '。', '；', '：', '！', '？', '\n':
		return true
	}
	return false
}

// sentenceStarts are the offsets from from on where a sentence starts: a
// line start or after 。！？；, spaces skipped.
func sentenceStarts(rs []rune, from int) []int {
	var out []int
	start := true
	for i := from; i < len(rs); i++ {
		switch r := rs[i]; {
		case r == '。' || r == '！' || r == '？' || r == '；' || r == '\n':
			start = true
		case start && (r == ' ' || r == '　' || r == '\t'):
		case start:
			out = append(out, i)
			start = false
		}
	}
	return out
}

// headings reads the listing of a volume: its first lines while they are
// listing lines (parseListing), a title line among them ("列女一") adding
// nothing that matters; end is the offset after them. No main names when
// line 1 is no listing line.
func headings(rs []rune) (main []rune, groups [][]rune, end int) {
	for end < len(rs) {
		e := end
		for e < len(rs) && rs[e] != '\n' {
			e++
		}
		m, g, ok := parseListing(rs[end:e])
		if !ok {
			break
		}
		main, groups = append(main, m...), append(groups, g...)
		end = min(e+1, len(rs))
	}
	return main, groups, end
}

// Lexicon counts the characters the listings of volumes write: how often
// each is part of a name.
type Lexicon map[rune]int

// Add counts the characters of the listing of a volume.
func (l Lexicon) Add(volume string) {
	main, groups, _ := headings([]rune(volume))
	for _, r := range main {
		l[r]++
	}
	for _, g := range groups {
		for _, r := range g {
			l[r]++
		}
	}
}

// parseListing reads line 1 as a listing: the names outside parentheses
// run together (main) and the text of each parenthesised run (groups).
// ok is false for a line that is no listing: sentence punctuation
// outside parentheses, a heading marker first ("◎循吏"), or markup
// ("<strong>诸王四</strong>").
func parseListing(line []rune) (main []rune, groups [][]rune, ok bool) {
	depth := 0
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			groups = append(groups, cur)
			cur = nil
		}
	}
	for i, r := range line {
		switch {
		case r == '(' || r == '（':
			flush()
			depth++
		case r == ')' || r == '）':
			flush()
			depth = max(0, depth-1)
		case depth == 0 && strings.ContainsRune("，。：；！？", r):
			return nil, nil, false
		case i == 0 && strings.ContainsRune("◎○△▲●■□", r), r == '<':
			return nil, nil, false
		case !IsNameRune(r):
		case depth > 0:
			cur = append(cur, r)
		default:
			main = append(main, r)
		}
	}
	flush()
	return main, groups, len(main) > 0
}

// IsNameRune reports the characters a name may hold: Han, and private-use
// code points (rare characters in transcriptions).
func IsNameRune(r rune) bool { return text.IsHan(r) || r >= 0xE000 && r <= 0xF8FF }
