package chunker

import (
	"slices"
	"strings"
	"unicode"

	"github.com/annalist-dev/annalist/internal/text"
)

// The liezhuan profile reads a document as a volume of biographies in the
// manner of the official histories: an optional listing of the people the
// volume covers (its first line, or heading lines without sentence
// punctuation), then one entry per person, each opening with the person's
// name and a formula — "Name，字X，Place人。", "Name，Place人。",
// "Name，字X。", "Name者，…". Relatives' sub-entries inside an entry open the
// same way, often with the given name alone ("琏，字孟藻").
//
// Entry detection has two modes:
//
//   - listed: the volume has a listing. The listing's main names (run
//     together, without their parenthesised relatives) are aligned, in
//     order, with the sentence starts of the text that open with one of them
//     followed by "，", "者，" or "、" (a prince's opening "秦愍王樉" counts
//     as the listed "秦王樉": listings leave out the posthumous epithet, and
//     "晋恭王" as "晋王"): a dynamic programme picks the
//     increasing chain that covers the most listing characters, preferring
//     openings at a line start and followed by an entry formula; a one-name
//     gap the chain leaves between two aligned names is then filled by the
//     entry that writes the name differently (a variant character, the
//     given name alone). Only listed names begin entry chunks, so the entry
//     chunks of a volume spell its listing. Openings of relatives named in
//     the listing's parentheses, and of unlisted people with a formula at a
//     line start, start continuation chunks of the entry they sit in: a
//     chunk never spans two people the text introduces.
//   - open: no listing. A line that opens with a 2–5 character name and an
//     entry formula begins an entry, as does a sentence inside a line that
//     opens with the full "Name，字X，…人" formula (paragraph breaks are
//     sometimes lost in transcription). A "name" beginning with a particle
//     ("又董镛", "时有凌汉") is not one; a name written after a kinship
//     word ("子琏，字孟璞") begins a relative's continuation chunk instead.
//
// In both modes heading lines and the historian's closing appraisal
// ("赞曰：") begin chunks that belong to no entry.

// Evidence that a sentence start opens an entry, from the words after the
// name.
const (
	evNone     = iota // anything else ("Name，…" in running text)
	evRelation        // a short kinship clause: "存道，溢长子"
	evFormula         // one formula: 字…, …人, 名…, 其先…, "Name者，"
	evFull            // courtesy name and native place both: "Name，字X，Place人"
)

// opening is a sentence start that begins with a name.
type opening struct {
	pos       int    // rune offset of the name
	name      []rune // the name as written
	lineStart bool
	evidence  int
	// person says the words after the name show it names a person, not a
	// place or a topic ("互市者，和亲别名也"): the full formula, or
	// personEvidence after a name of at most three characters or after
	// "Name者".
	person bool
}

// mark starts a piece of the document. subject is the entry's person as
// listed (markEntry), or the name that opens a sub-entry as written
// (markSub), empty when the opening is not surely a person.
type mark struct {
	pos     int
	kind    markKind
	subject string
}

type markKind int

const (
	// markOutside starts text that belongs to no entry: the volume header,
	// heading lines, the closing appraisal.
	markOutside markKind = iota
	// markEntry starts a person's entry.
	markEntry
	// markSub starts a continuation of the current entry: a relative's or
	// another person's sub-entry inside it.
	markSub
)

// listing is what a volume's heading lines say about whom it covers.
type listing struct {
	main   []rune   // main names run together, parentheses and markers removed
	groups [][]rune // parenthesised runs, one per run of text between parentheses
}

// lines returns the spans of the lines of rs, without their line breaks.
func lines(rs []rune) []text.Span {
	var out []text.Span
	s := 0
	for i, r := range rs {
		if r == '\n' {
			out = append(out, text.Span{Start: s, End: i})
			s = i + 1
		}
	}
	if s < len(rs) {
		out = append(out, text.Span{Start: s, End: len(rs)})
	}
	return out
}

// isListLine reports whether a line is a listing or heading line: Chinese
// text with no sentence punctuation outside parentheses (a relatives' group
// sometimes ends in a stop: "(程济等。)").
func isListLine(line []rune) bool {
	han, depth := 0, 0
	for _, r := range line {
		switch r {
		case '(', '（':
			depth++
		case ')', '）':
			depth = max(0, depth-1)
		case '，', '。', '：', '；', '！', '？', ',', '.', ':', ';', '!', '?', '、':
			if depth == 0 {
				return false
			}
		}
		if text.IsHan(r) {
			han++
		}
	}
	return han > 0
}

// isMarker reports the symbols the histories put before headings.
func (er *entryRules) isMarker(r rune) bool {
	return slices.Contains(er.markers, r) || unicode.IsSpace(r)
}

// parseListing reads the listing lines of a volume.
func (er *entryRules) parseListing(rs []rune, ls []text.Span, list []bool) listing {
	var l listing
	for i, sp := range ls {
		if !list[i] {
			continue
		}
		depth := 0
		var cur []rune
		flush := func() {
			if len(cur) > 0 {
				l.groups = append(l.groups, cur)
				cur = nil
			}
		}
		for _, r := range rs[sp.Start:sp.End] {
			switch {
			case r == '(' || r == '（':
				flush()
				depth++
			case r == ')' || r == '）':
				flush()
				if depth > 0 {
					depth--
				}
			case er.isMarker(r):
			case depth > 0:
				cur = append(cur, r)
			default:
				l.main = append(l.main, r)
			}
		}
		flush()
	}
	return l
}

// isNameRune reports the characters a name may contain: Han, private-use
// code points (rare characters in transcriptions), and the brackets that
// spell out a rare character by its components (刘季｛虎｝, 李国〈木普〉).
func isNameRune(r rune) bool {
	return text.IsHan(r) || r >= 0xE000 && r <= 0xF8FF || r == '｛' || r == '｝' || r == '〈' || r == '〉'
}

// maxNameRunes bounds a name; component spellings make some longer.
func maxNameRunes(name []rune) int {
	for _, r := range name {
		if r == '｛' || r == '〈' {
			return 9
		}
	}
	return 5
}

// openings finds the sentence starts of rs that begin with a name: the
// name followed by "，", by "者，", by "、" and a second name (a joint
// entry), or by "。字" (a slip for "，字").
func (er *entryRules) openings(rs []rune, sentences []text.Span) []opening {
	var out []opening
	for _, sp := range sentences {
		p := sp.Start
		for p < sp.End && unicode.IsSpace(rs[p]) {
			p++
		}
		if p >= sp.End || !isNameRune(rs[p]) {
			continue
		}
		lineStart := true
		for j := p - 1; j >= 0; j-- {
			if rs[j] == '\n' {
				break
			}
			if !unicode.IsSpace(rs[j]) {
				lineStart = false
				break
			}
		}
		e := p
		for e < len(rs) && e-p < 10 && isNameRune(rs[e]) {
			e++
		}
		if e >= len(rs) || e == p {
			continue
		}
		name := rs[p:e]
		if len(name) > maxNameRunes(name) {
			continue
		}
		o := opening{pos: p, lineStart: lineStart}
		switch {
		case rs[e] == '，':
			if len(name) >= 3 && name[len(name)-1] == '者' {
				o.name, o.evidence = name[:len(name)-1], evFormula
				o.person = er.personEvidence(rs, e+1)
			} else {
				o.name, o.evidence = name, er.evidence(rs, e+1)
				o.person = o.evidence == evFull || len(name) <= 3 && er.personEvidence(rs, e+1)
			}
		case rs[e] == '、':
			// A joint entry: "杨元杲、阮弘道，皆滁人".
			f := e + 1
			for f < len(rs) && f-e <= 5 && isNameRune(rs[f]) {
				f++
			}
			if f < len(rs) && rs[f] == '，' && f-e >= 3 && er.evidence(rs, f+1) >= evFormula {
				o.name, o.evidence = name, evFormula
			}
		case rs[e] == '。' && e+1 < len(rs) && rs[e+1] == '字':
			o.name, o.evidence, o.person = name, evFormula, true
		}
		if o.name != nil {
			out = append(out, o)
		}
	}
	return out
}

// notNameStart reports characters that begin sentences but (almost) never
// full names: particles and adverbs such as 有 (there was), 又 (also), 时
// (then), 初 (earlier), 其 (his). Common surnames are not in the list.
// Given names may start with them (时雍, 其休), so the list only guards
// volumes without a listing.
func (er *entryRules) notNameStart(r rune) bool { return slices.Contains(er.notNameStarts, r) }

// kinPrefixed reports a name written with a kinship word before it ("子琏",
// "弟思道"): a relative's sub-entry, never a main entry. 孙, 叔 and 伯 are
// left out: they are surnames too.
func (er *entryRules) kinPrefixed(name []rune) bool {
	return len(name) >= 2 && slices.Contains(er.prefixChars, name[0])
}

// evidence grades the words after "Name，" (from rs[i]) as an entry
// formula.
func (er *entryRules) evidence(rs []rune, i int) int {
	clause := func(i int) []rune { return clauseAt(rs, i) }
	native := native
	c1 := clause(i)
	if len(c1) == 0 {
		return evNone
	}
	if c1[0] == '字' && len(c1) <= 6 {
		// "字X，Place人" is the full formula.
		j := i + len(c1)
		if j < len(rs) && rs[j] == '，' && native(clause(j+1)) {
			return evFull
		}
		return evFormula
	}
	if native(c1) || er.formula(c1) {
		return evFormula
	}
	if len(c1) <= 6 {
		for _, r := range c1 {
			if er.isKin(r) {
				return evRelation
			}
		}
	}
	return evNone
}

// clauseAt is the clause of rs from i to the next clause end, at most 16
// characters.
func clauseAt(rs []rune, i int) []rune {
	j := i
	for j < len(rs) && j-i < 16 {
		switch rs[j] {
		case '，', '。', '；', '：', '\n':
			return rs[i:j]
		}
		j++
	}
	return rs[i:j]
}

// native reports a native-place clause: "Place人" or "Place人也", or the
// formula for an unknown origin ("不知何许人"); not a phrase that merely
// ends in 人 ("在于得人", "坐诛者数百人").
func native(c []rune) bool {
	n := len(c)
	if n < 2 || n > 14 || !(c[n-1] == '人' || n >= 3 && c[n-2] == '人' && c[n-1] == '也') {
		return false
	}
	if text.IndexRunes(c, []rune("何许人"), 0) >= 0 {
		return true
	}
	if c[n-1] == '也' {
		n--
	}
	if n >= 2 && strings.ContainsRune("一二三四五六七八九十百千万数余两几", c[n-2]) {
		return false
	}
	for _, r := range c {
		switch r {
		case '于', '得', '所', '为', '以', '而', '者', '不', '有', '其', '何', '可', '使', '用':
			return false
		}
	}
	return true
}

// personEvidence reports whether the words after "Name，" (from rs[i])
// show that Name is a person: a courtesy name, another name, an ancestry,
// or a native place that is not an appointment ("世宗立，侃授行人": 行人
// is an office).
func (er *entryRules) personEvidence(rs []rune, i int) bool {
	c := clauseAt(rs, i)
	switch {
	case len(c) == 0:
		return false
	case c[0] == '字' && len(c) <= 6:
		return true
	case native(c):
		return !slices.ContainsFunc(c, func(r rune) bool { return slices.Contains(er.appointment, r) })
	}
	return er.formula(c)
}

// formula reports whether a clause opens with one of the profile's entry
// formula words (名, 初名, 其先, 号 …).
func (er *entryRules) formula(c []rune) bool {
	for _, p := range er.formulas {
		if hasPrefix(c, p) {
			return true
		}
	}
	return false
}

func hasPrefix(rs []rune, p string) bool {
	i := 0
	for _, r := range p {
		if i >= len(rs) || rs[i] != r {
			return false
		}
		i++
	}
	return true
}

// isKin reports the characters of kinship terms (子 son, 弟 younger brother,
// 孙 grandson …); listings prefix relatives with them: (子琏璟), (兄国用).
func (er *entryRules) isKin(r rune) bool { return slices.Contains(er.kinChars, r) }

// appraisal reports a line that opens the historian's closing judgement.
func (er *entryRules) appraisal(line []rune) bool {
	for _, p := range er.appraisals {
		if hasPrefix(line, p) {
			return true
		}
	}
	return false
}

// liezhuanMarks finds the pieces of a liezhuan volume.
func (er *entryRules) liezhuanMarks(d *docText) []mark {
	ls := lines(d.rs)
	list := make([]bool, len(ls))
	marks := er.structureMarks(d.rs, ls, list)
	ops := er.openings(d.rs, d.sentences)
	l := er.parseListing(d.rs, ls, list)
	if len(l.main) > 0 {
		marks = append(marks, er.listedMarks(ops, l)...)
	} else {
		marks = append(marks, er.openMarks(ops)...)
	}
	return marks
}

// volumeListing is the listing of a volume: its heading lines read as
// parseListing does.
func (er *entryRules) volumeListing(rs []rune) listing {
	ls := lines(rs)
	list := make([]bool, len(ls))
	for i, sp := range ls {
		list[i] = isListLine(rs[sp.Start:sp.End])
	}
	return er.parseListing(rs, ls, list)
}

// structureMarks classifies the lines (list[i] reports whether line i is a
// listing or heading line) and marks the pieces that belong to no entry:
// each block of heading lines, the text after it up to the next entry (a
// category volume's introduction), and the closing appraisal.
func (er *entryRules) structureMarks(rs []rune, ls []text.Span, list []bool) []mark {
	marks := []mark{{pos: 0, kind: markOutside}}
	for i, sp := range ls {
		line := rs[sp.Start:sp.End]
		list[i] = isListLine(line)
		switch {
		case list[i] && (i == 0 || !list[i-1]):
			marks = append(marks, mark{pos: sp.Start, kind: markOutside})
		case !list[i] && i > 0 && list[i-1]:
			marks = append(marks, mark{pos: sp.Start, kind: markOutside})
		case er.appraisal(line):
			marks = append(marks, mark{pos: sp.Start, kind: markOutside})
		}
	}
	return marks
}

// openMarks are the entries of a volume without a listing.
func (er *entryRules) openMarks(ops []opening) []mark {
	var out []mark
	for _, o := range ops {
		if len(o.name) < 2 || er.notNameStart(o.name[0]) || !(o.lineStart && o.evidence >= evFormula || o.evidence == evFull) {
			continue
		}
		if er.kinPrefixed(o.name) {
			// The evidence test above makes the opening a formula, so a
			// person.
			out = append(out, mark{pos: o.pos, kind: markSub, subject: string(o.name)})
			continue
		}
		out = append(out, mark{pos: o.pos, kind: markEntry, subject: string(o.name)})
	}
	return out
}

// listedMarks aligns the openings with the listing: entries for the chain
// of listed main names that covers most of the listing, sub-entry marks for
// relatives and unlisted people.
//
// The alignment has two passes. First, a dynamic programme picks the
// increasing chain of openings that are listed main names, verbatim or as
// a prince's title without his posthumous epithet (untitled), and cover
// the most listing characters, preferring openings at a line start and
// with an entry formula. Second, each run of two to four listing
// characters left between two aligned names (one person's name) is filled
// with the first opening between those two entries that has a line start,
// an entry formula, and either the run's surname and about its length, or
// the run's given name alone: the name then differs from the listing by
// a variant or garbled character (叶应骢 for 叶应聪), or the entry gives
// the given name only (濂 for 王濂). The subject of an aligned entry is the
// name as the listing writes it, so the entry chunks of a volume spell its
// listing whenever the text has every listed entry.
func (er *entryRules) listedMarks(ops []opening, l listing) []mark {
	type cand struct {
		op    int // index in ops
		q, n  int // the listed name: l.main[q:q+n]
		score int
	}
	var cands []cand
	for i, o := range ops {
		quality := 0
		titled := untitled(o.name)
		switch {
		case o.lineStart && o.evidence >= evFormula:
			quality = 5
		case o.lineStart && o.evidence == evRelation, !o.lineStart && o.evidence >= evFormula:
			quality = 3
		case o.lineStart:
			quality = 1
		case titled != nil && o.evidence == evRelation:
			// "晋恭王，太祖第三子也" inside a line: a prince's entry after a
			// lost paragraph break.
			quality = 2
		default:
			continue
		}
		if k := len(o.name); k >= 2 {
			for q := text.IndexRunes(l.main, o.name, 0); q >= 0; q = text.IndexRunes(l.main, o.name, q+1) {
				cands = append(cands, cand{op: i, q: q, n: k, score: 10*k + quality})
			}
		}
		for _, n := range titled {
			for q := text.IndexRunes(l.main, n, 0); q >= 0; q = text.IndexRunes(l.main, n, q+1) {
				cands = append(cands, cand{op: i, q: q, n: len(n), score: 10*len(n) + quality - 1})
			}
		}
	}
	// best[i]: the best chain ending with cands[i]; cands are in text order
	// because ops are.
	best := make([]int, len(cands))
	prev := make([]int, len(cands))
	top := -1
	for i, c := range cands {
		best[i], prev[i] = c.score, -1
		for j := 0; j < i; j++ {
			b := cands[j]
			if ops[b.op].pos < ops[c.op].pos && b.q+b.n <= c.q && best[j]+c.score > best[i] {
				best[i], prev[i] = best[j]+c.score, j
			}
		}
		if top < 0 || best[i] > best[top] {
			top = i
		}
	}
	var chain []cand
	for i := top; i >= 0; i = prev[i] {
		chain = append(chain, cands[i])
	}
	slices.Reverse(chain)

	chosen := map[int]bool{}
	var out []mark
	for _, c := range chain {
		chosen[c.op] = true
		out = append(out, mark{pos: ops[c.op].pos, kind: markEntry, subject: string(l.main[c.q : c.q+c.n])})
	}
	// Fill the one-name runs the chain leaves.
	for k := 0; k <= len(chain); k++ {
		q0, q1, op0, op1 := 0, len(l.main), -1, len(ops)
		if k > 0 {
			q0, op0 = chain[k-1].q+chain[k-1].n, chain[k-1].op
		}
		if k < len(chain) {
			q1, op1 = chain[k].q, chain[k].op
		}
		run := l.main[q0:q1]
		if len(run) < 2 || len(run) > 4 {
			continue
		}
		for i := op0 + 1; i < op1; i++ {
			o := ops[i]
			if chosen[i] || !o.lineStart || o.evidence < evFormula {
				continue
			}
			sameSurname := o.name[0] == run[0] && len(o.name) >= 2 && abs(len(o.name)-len(run)) <= 1
			givenOnly := len(o.name) < len(run) && slices.Equal(run[len(run)-len(o.name):], o.name)
			if sameSurname || givenOnly {
				chosen[i] = true
				out = append(out, mark{pos: o.pos, kind: markEntry, subject: string(run)})
				break
			}
		}
	}
	for i, o := range ops {
		if chosen[i] {
			continue
		}
		relative := er.inGroups(o.name, l.groups) &&
			(o.lineStart && o.evidence >= evRelation || o.evidence >= evFormula)
		unlisted := len(o.name) >= 2 && (o.lineStart && o.evidence >= evFormula || o.evidence == evFull)
		if relative || unlisted {
			// A relative is a person the listing names; an unlisted opening
			// is one only when its words say so.
			m := mark{pos: o.pos, kind: markSub}
			if relative || o.person {
				m.subject = string(o.name)
			}
			out = append(out, m)
		}
	}
	return out
}

// untitled returns the forms a listing gives a prince written with his
// posthumous epithet: the text opens "秦愍王樉" (fief, epithet, 王, given
// name) where the listing writes "秦王樉", or "晋恭王棡" where it writes
// "晋王". Nil for a name without a fief title.
func untitled(name []rune) [][]rune {
	i := slices.Index(name, '王')
	if i < 2 || i > 3 {
		return nil
	}
	short := slices.Concat(name[:i-1], name[i:])
	if i+1 == len(name) {
		return [][]rune{short}
	}
	return [][]rune{short, short[:i]}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// inGroups reports whether name is written in one of the parenthesised
// runs and is more than a kinship term.
func (er *entryRules) inGroups(name []rune, groups [][]rune) bool {
	kinOnly := true
	for _, r := range name {
		if !er.isKin(r) {
			kinOnly = false
		}
	}
	if kinOnly {
		return false
	}
	for _, g := range groups {
		if text.IndexRunes(g, name, 0) >= 0 {
			return true
		}
	}
	return false
}

// entryOpenings counts the line starts that open with a name and an entry
// formula; Detect uses it.
func (er *entryRules) entryOpenings(ops []opening) int {
	n := 0
	for _, o := range ops {
		if o.lineStart && len(o.name) >= 2 && o.evidence >= evFormula {
			n++
		}
	}
	return n
}
