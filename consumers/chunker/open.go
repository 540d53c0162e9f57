package chunker

import (
	"slices"

	"github.com/annalist-dev/annalist/internal/text"
)

// The open mode of the liezhuan profile: the entries of a volume found on
// its text alone, without a listing (see liezhuan.go for the openings).

// openMarks are the entries of a volume without a listing: every opening
// that shows a person begins a chunk with a subject, either a main entry
// or, inside one, an attached person's (markSub with a subject). The
// evidence is the text's own:
//
//   - an opening shows a person when it starts a line and the words after
//     the name say so (o.person), or, inside a line after a lost paragraph
//     break, when they are the full formula;
//   - a name model learned from the volume's openings (learnNames) gives
//     the characters names begin with (surnames) and the lengths they
//     have;
//   - an opening is an attached person's when a main entry is open and
//     the name is written after a kinship or introducing word ("子琏",
//     "同邑刘俨"), is one character, is a given name the text has written
//     before after a surname of the model ("寿辉" after "徐寿辉"), says
//     whose relative the person is and that person belongs to the open
//     entry ("布善，武善弟"), is a weak opening (no strong evidence)
//     whose text runs short before the next person's, or is a person the
//     open entry has named before whose own text is under a fifth of the
//     entry's so far: a main entry is a biography, an attached person's a
//     paragraph.
func (er *entryRules) openMarks(rs []rune, ops []opening) []mark {
	var cands []opening
	for _, o := range ops {
		if len(o.name) == 0 || er.notName(o.name) {
			continue
		}
		if o.lineStart && o.person || o.evidence == evFull {
			cands = append(cands, o)
		}
	}
	m := er.learnNames(cands)
	var out []mark
	mainStart, mainName := -1, []rune(nil)
	for i, o := range cands {
		next := len(rs)
		if i+1 < len(cands) {
			next = cands[i+1].pos
		}
		name := o.name
		attached := false
		switch {
		case len(name) < 2, er.kinPrefixed(name), er.introduced(name) != nil, er.relativeName(name, mainName):
			attached = true
		case er.titled(name) != nil:
			name, attached = er.titled(name), true
		case o.kin && mainStart >= 0 && er.relativeOf(rs, o, mainStart):
			attached = true
		case !m.fits(name) && !er.compound(name) && !o.kin && name[len(name)-1] != '氏':
			attached = true
		case knownGiven(rs[:o.pos], name, m.surnames):
			attached = true
		case !o.strong && next-o.pos < shortEntry:
			attached = true
		case mainStart >= 0 && companionShare*(next-o.pos) < o.pos-mainStart && text.IndexRunes(rs[mainStart:o.pos], name, 0) >= 0:
			attached = true
		}
		if attached {
			if mainStart >= 0 {
				out = append(out, mark{pos: o.pos, kind: markSub, subject: string(name)})
			}
			continue
		}
		mainStart, mainName = o.pos, name
		out = append(out, mark{pos: o.pos, kind: markEntry, subject: string(name)})
	}
	return out
}

// nameModel is what a volume's confident openings say its names look
// like: the characters they begin with (surnames) and how many of them
// have each length.
type nameModel struct {
	surnames map[rune]bool
	lengths  map[int]int
	total    int
}

// learnNames learns the name model from the volume's openings at a line
// start whose name is not written after a kinship, introducing or office
// word: surnames from the names of three characters, lengths from the
// confident ones (strong evidence, and a clan, a banner or a compound
// surname for a name longer than three characters).
func (er *entryRules) learnNames(cands []opening) nameModel {
	m := nameModel{surnames: map[rune]bool{}, lengths: map[int]int{}}
	for _, o := range cands {
		if !o.lineStart || len(o.name) < 2 || er.kinPrefixed(o.name) || er.introduced(o.name) != nil || er.titled(o.name) != nil ||
			er.relativeName(o.name, nil) {
			continue
		}
		if len(o.name) == 3 {
			// A name of three characters is a surname and a given name:
			// two-character ones may be a given name alone.
			m.surnames[o.name[0]] = true
		}
		if !o.strong || len(o.name) > 3 && !o.clan && !er.compound(o.name) {
			continue
		}
		m.lengths[len(o.name)]++
		m.total++
	}
	return m
}

// fits reports whether a name has a length the model's names have: two
// or three characters always, or a compound surname; longer ones when at
// least a tenth of the confident names are as long.
func (m nameModel) fits(name []rune) bool {
	n := len(name)
	if n <= 3 {
		return true
	}
	return m.total > 0 && 10*m.lengths[n] >= m.total
}

// shortEntry is the length in characters below which the text an opening
// without strong evidence begins, up to the next person's opening, reads
// as a paragraph on an attached person rather than a biography of its
// own.
const shortEntry = 150

// compound reports a name that begins with a compound surname.
func (er *entryRules) compound(name []rune) bool {
	for _, c := range er.surnames {
		if hasPrefix(name, c) {
			return true
		}
	}
	return false
}

// titled returns the name written after an office title ("郎中胡琏",
// "锦衣指挥周彧": 胡琏, 周彧), nil if the name has none: a person the
// text brings in by office inside another's entry.
func (er *entryRules) titled(name []rune) []rune {
	for _, tr := range er.officeTerms {
		for q := text.IndexRunes(name, tr, 0); q >= 0; q = text.IndexRunes(name, tr, q+1) {
			if rest := name[q+len(tr):]; len(rest) >= 2 && len(rest) <= 3 {
				return rest
			}
		}
	}
	return nil
}

// relativeName reports a name written after a kinship word that says
// whose relative the person is ("季子铭", "曾孙应聘", or "汧子枋" after a
// name the open entry has: the entry's person's given name).
func (er *entryRules) relativeName(name, main []rune) bool {
	for _, kw := range er.subentryKinRunes {
		for q := text.IndexRunes(name, kw, 0); q >= 0; q = text.IndexRunes(name, kw, q+1) {
			rest := len(name) - q - len(kw)
			switch {
			case rest < 1:
			case q == 0 && len(kw) >= 2:
				return true
			case q > 0 && len(main) > q && slices.Equal(main[len(main)-q:], name[:q]):
				return true
			}
		}
	}
	return false
}

// companionShare: a person the open entry has already named, whose own
// text is under this share of the entry's text so far (one fifth), is a
// companion given a paragraph inside the entry, not a biography of
// their own.
const companionShare = 5

// introduced returns the word written before a name that introduces a
// person without kinship ("同邑刘俨", "又袁义"), nil if none.
func (er *entryRules) introduced(name []rune) []rune {
	for _, wr := range er.introducerRunes {
		if len(name) >= len(wr)+2 && slices.Equal(name[:len(wr)], wr) {
			return wr
		}
	}
	return nil
}

// relativeOf reports whether a kinship opening ("布善，武善弟",
// "米思翰，其长子也") names a relative of someone in the entry that opened
// at mainStart: the clause's person is "其" (his), or is written in that
// entry's text.
func (er *entryRules) relativeOf(rs []rune, o opening, mainStart int) bool {
	c := clauseAt(rs, o.end)
	if n := len(c); n >= 3 && c[n-1] == '也' {
		c = c[:n-1]
	}
	for _, w := range er.relationEnds {
		if hasSuffix(c, w) {
			c = c[:len(c)-len(w)]
			break
		}
	}
	if i := slices.Index(c, '第'); i >= 0 {
		c = c[:i]
	}
	for len(c) > 0 && er.isKin(c[len(c)-1]) {
		c = c[:len(c)-1]
	}
	if len(c) == 0 || c[0] == '其' {
		return true
	}
	return len(c) >= 2 && text.IndexRunes(rs[mainStart:o.pos], c, 0) >= 0
}

// knownGiven reports whether a two-character name that does not begin
// like the model's names (its first character is no surname of theirs)
// is written in before after one of their surnames: the opening then gives,
// by the given name alone, a person the text brought in before in full
// ("毕拱辰", then "拱辰，字星伯").
func knownGiven(before, name []rune, surnames map[rune]bool) bool {
	if len(name) != 2 || surnames[name[0]] {
		return false
	}
	for q := text.IndexRunes(before, name, 0); q >= 0; q = text.IndexRunes(before, name, q+1) {
		if q > 0 && surnames[before[q-1]] {
			return true
		}
	}
	return false
}
