package segment

import (
	"slices"
	"strings"
	"unicode"

	"github.com/annalist-dev/annalist/internal/lang/text"
)

// The liezhuan profile reads a document as a volume of biographies in the
// manner of the official histories: an optional listing of the people the
// volume covers (its first line, or heading lines without sentence
// punctuation; names may be run together with "、"), then one entry per person, each opening with the person's name
// and a formula — "Name，字X，Place人。", "Name，Place人。", "Name，字X。",
// "Name者，…", "Name，X氏，世居Y", "Name，满洲正白旗人", "Name，武善弟",
// "Name字X，号Y" (the scholars' records). Relatives' and attached
// people's entries inside an entry open the same way, often with the given
// name alone ("琏，字孟藻").
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
//     given name alone). Only listed names begin main entries, so the
//     main entries of a volume spell its listing. Openings of
//     relatives named in the listing's parentheses, and of unlisted people
//     whose words show a person, begin attached persons' entries inside
//     the entry they sit in (an unlisted person before the first listed
//     entry begins an entry of their own): a piece never spans two people
//     the text introduces. A line start without a formula is aligned with
//     a listed name only when some line of the volume opens with strong
//     person evidence: a volume on countries lists places.
//   - open: no listing. Every line that opens with a name and person
//     evidence begins a piece with a subject, as does a sentence inside a
//     line that opens with the full "Name，字X，…人" formula (paragraph
//     breaks are sometimes lost in transcription); openMarks says which
//     are main entries and which attached, from the text alone. A "name"
//     beginning with a particle ("又董镛" without an introducing word, "时
//     有…") or that is a date ("二十九年春", "嘉靖间") is not one.
//
// In both modes heading lines and the historian's closing appraisal
// ("赞曰：") begin pieces that belong to no entry.

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
	// "Name者", or strong or kinship evidence after a longer name.
	person bool
	// strong says the words after the name are a formula only a person's
	// entry opens with: a courtesy or other name, an ancestry, a clan, a
	// banner, or the full formula.
	strong bool
	// kin says the words after the name are a kinship clause ending in a
	// relation ("布善，武善弟", "多铎，太祖第十五子").
	kin bool
	// clan says the words after the name are a clan or a banner.
	clan bool
	// identity says the first clause after the name is a short statement
	// closed by 也 ("穆宗朝内官监太监也"): who the person was.
	identity bool
	// end is the offset of the words after the name.
	end int
}

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
// sometimes ends in a stop: "(程济等。)"); names may be run together with
// "、" (the Draft History of Qing lists relatives so: "噶盖子武善、布善").
func isListLine(line []rune) bool {
	han, depth := 0, 0
	for _, r := range line {
		switch {
		case r == '(' || r == '（':
			depth++
		case r == ')' || r == '）':
			depth = max(0, depth-1)
		case r == '，' || r == ',' || isStop(r):
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
func (er *Rules) isMarker(r rune) bool {
	return slices.Contains(er.markers, r) || unicode.IsSpace(r)
}

// parseListing reads the listing lines of a volume; the "、" between
// names is kept: it says who is listed as a relative (listedRelative).
func (er *Rules) parseListing(rs []rune, ls []text.Span, list []bool) listing {
	var l listing
	for i, sp := range ls {
		if !list[i] {
			continue
		}
		depth := 0
		var cur []rune
		flush := func() {
			if len(cur) > 0 && !noteGroup(cur) {
				l.groups = append(l.groups, cur)
			}
			cur = nil
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

// noteGroup reports a parenthesised run that is a note rather than names
// ("(择善固执，正是从气质上拣择德性来，所以至精。)", "(看未发气象之说。)"): a
// stop, colon or semicolon before its last character, or a sentence
// closed by a stop. A relatives' group runs names on, with commas or
// without ("(附子善，孙德涵、德溥、德泳)"), and closes with a stop only
// after 等, "and others" ("(程济等。)", the one group of the History of
// Ming that ends in a stop).
func noteGroup(g []rune) bool {
	last := len(g) - 1
	return slices.ContainsFunc(g[:last], isStop) || isStop(g[last]) && (last == 0 || g[last-1] != '等')
}

// isStop reports the punctuation that ends a sentence or a clause within
// one: full stop, colon, semicolon, exclamation and question marks, full
// width or not. With the comma it is the sentence punctuation no listing
// line writes.
func isStop(r rune) bool { return strings.ContainsRune("。：；！？.:;!?", r) }

// IsNameRune reports the characters a name may contain: Han, private-use
// code points (rare characters in transcriptions), and the brackets that
// spell out a rare character by its components (刘季｛虎｝, 李国〈木普〉).
func IsNameRune(r rune) bool {
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

// maxTitledRunes bounds a name written with a title ("睿忠亲王多尔衮",
// "孝安皇后陈氏"): such a name opens an entry only before a kinship clause
// that says whose son the person is ("太祖第十四子"), or, for a woman
// named by title and clan, before person evidence ("通州人").
const maxTitledRunes = 8

// openings finds the sentence starts of rs that begin with a name: the
// name followed by "，", by "者，", by "、" and a second name (a joint
// entry), or by "。字" (a slip for "，字").
func (er *Rules) openings(rs []rune, sentences []text.Span) []opening {
	var out []opening
	for _, sp := range sentences {
		p := sp.Start
		for p < sp.End && unicode.IsSpace(rs[p]) {
			p++
		}
		if p >= sp.End {
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
		if o, ok := er.openingAt(rs, p, lineStart); ok {
			out = append(out, o)
		}
		// A person brought in inside a sentence, after a comma, with an
		// introducing word and a formula: "…部侍郎者，有王景，字景彰".
		for i := p; i+2 < sp.End; i++ {
			if rs[i] != '，' || !er.introducerStart(rs[i+1]) {
				continue
			}
			if o, ok := er.openingAt(rs, i+1, false); ok && er.introduced(o.name) != nil && (o.strong || o.person) {
				out = append(out, o)
			}
		}
	}
	return out
}

// openingAt reads the opening at p, a sentence or clause start: a name,
// then the words that say what the name is.
func (er *Rules) openingAt(rs []rune, p int, lineStart bool) (opening, bool) {
	if !IsNameRune(rs[p]) {
		return opening{}, false
	}
	e := p
	for e < len(rs) && e-p < 10 && IsNameRune(rs[e]) {
		e++
	}
	if e >= len(rs) || e == p {
		return opening{}, false
	}
	name := rs[p:e]
	titled := len(name) > maxNameRunes(name)
	if titled && len(name) > maxTitledRunes || timeName(name) {
		return opening{}, false
	}
	o := opening{pos: p, lineStart: lineStart, end: e + 1}
	switch {
	case rs[e] == '，' && courtesyRun(name) > 0:
		// "马理字伯循，号谿田": the courtesy name written on without a
		// comma, as the scholars' records (学案) open.
		k := courtesyRun(name)
		o.name, o.evidence, o.person, o.strong = name[:k], evFormula, true, true
		o.end = p + k
		titled = false
	case rs[e] == '，' && afterZhe(name) > 0:
		// "代之者刘璋，字廷信": the person after a clause that names
		// the post ("he who replaced him").
		k := afterZhe(name)
		o.name, o.evidence = name[k:], er.evidence(rs, e+1)
		c := clauseAt(rs, e+1)
		o.strong = o.evidence == evFull || len(c) > 0 && c[0] == '字' && len(c) <= 6
		o.person = o.strong
		titled = false
	case rs[e] == '，':
		if len(name) >= 3 && name[len(name)-1] == '者' {
			o.name, o.evidence = name[:len(name)-1], evFormula
			o.person = er.personEvidence(rs, e+1)
		} else {
			o.name, o.evidence = name, er.evidence(rs, e+1)
			c := clauseAt(rs, e+1)
			o.clan = er.clauseEnd(c)
			o.strong = o.evidence == evFull || len(c) > 0 && (c[0] == '字' && len(c) <= 6 || o.clan || er.formula(c))
			o.kin = er.relation(c)
			o.identity = len(c) >= 3 && len(c) <= 12 && c[len(c)-1] == '也'
			o.person = o.evidence == evFull || (len(name) <= 3 || name[len(name)-1] == '氏') && er.personEvidence(rs, e+1) || o.strong || o.kin
		}
	case rs[e] == '、':
		// A joint entry: "杨元杲、阮弘道，皆滁人".
		f := e + 1
		for f < len(rs) && f-e <= 5 && IsNameRune(rs[f]) {
			f++
		}
		if f < len(rs) && rs[f] == '，' && f-e >= 3 && er.evidence(rs, f+1) >= evFormula {
			o.name, o.evidence, o.person = name, evFormula, true
		}
	case rs[e] == '。' && e+1 < len(rs) && rs[e+1] == '字':
		o.name, o.evidence, o.person, o.strong = name, evFormula, true, true
	}
	if titled && !o.kin && !(len(o.name) > 0 && o.name[len(o.name)-1] == '氏' && o.person) {
		return opening{}, false
	}
	return o, o.name != nil
}

// afterZhe returns where the name starts in a run "X者Name" (a clause of
// one or more characters closed by 者, then a name of two or three), 0
// when the run is not one.
func afterZhe(run []rune) int {
	k := slices.Index(run, '者')
	if k < 1 || len(run)-k-1 < 2 || len(run)-k-1 > 3 {
		return 0
	}
	return k + 1
}

// courtesyRun returns the length of the name in a run "Name字X" (a name
// of two to four characters, 字, a courtesy name of one to three), 0 when
// the run is not one.
func courtesyRun(run []rune) int {
	for k := 2; k <= 4 && k < len(run); k++ {
		if run[k] == '字' && len(run)-k-1 >= 1 && len(run)-k-1 <= 3 {
			return k
		}
	}
	return 0
}

// notNameStart reports characters that begin sentences but (almost) never
// full names: particles and adverbs such as 有 (there was), 又 (also), 时
// (then), 初 (earlier), 其 (his). Common surnames are not in the list.
// Given names may start with them (时雍, 其休), so the list only guards
// volumes without a listing.
func (er *Rules) notNameStart(r rune) bool { return slices.Contains(er.notNameStarts, r) }

// introducerStart reports a character an introducing word begins with.
func (er *Rules) introducerStart(r rune) bool {
	for _, w := range er.introducerRunes {
		if w[0] == r {
			return true
		}
	}
	return false
}

// notName reports a "name" that begins with a particle, unless the
// particle is part of a word that introduces a person ("有吴敬者").
func (er *Rules) notName(name []rune) bool {
	return er.notNameStart(name[0]) && er.introduced(name) == nil
}

// kinPrefixed reports a name written with a kinship word before it ("子琏",
// "弟思道"): a relative's sub-entry, never a main entry. 孙, 叔 and 伯 are
// left out: they are surnames too.
func (er *Rules) kinPrefixed(name []rune) bool {
	return len(name) >= 2 && slices.Contains(er.prefixChars, name[0])
}

// evidence grades the words after "Name，" (from rs[i]) as an entry
// formula.
func (er *Rules) evidence(rs []rune, i int) int {
	clause := func(i int) []rune { return clauseAt(rs, i) }
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
	if native(c1) || er.formula(c1) || er.clauseEnd(c1) {
		return evFormula
	}
	if len(c1) <= 6 {
		for _, r := range c1 {
			if er.isKin(r) {
				return evRelation
			}
		}
	}
	if er.relation(c1) {
		return evRelation
	}
	return evNone
}

// clauseEnd reports a clause of a clan or a banner: a short clause ending
// with one of the profile's clause ends ("钮祜禄氏", "隶镶红旗" ends
// with 旗 too).
func (er *Rules) clauseEnd(c []rune) bool {
	if len(c) < 2 || len(c) > 7 || !nameRunesOnly(c) {
		return false
	}
	for _, w := range er.clauseEnds {
		if hasSuffix(c, w) && len(c) > len(w) {
			return true
		}
	}
	return false
}

// relation reports a kinship clause: a name or a title and a relation,
// perhaps a rank among siblings and a closing 也 ("武善弟", "太祖第十四子",
// "多铎第一子也").
func (er *Rules) relation(c []rune) bool {
	if n := len(c); n >= 3 && c[n-1] == '也' {
		c = c[:n-1]
	}
	if len(c) < 2 || len(c) > 10 || !nameRunesOnly(c) {
		return false
	}
	for _, w := range er.relationEnds {
		if hasSuffix(c, w) && len(c) > len(w) {
			// Whose relative: a name or a title, or 其 (his); no particle
			// ("光宗之子" is no entry's words, "待天子" no relation).
			for i, r := range c[:len(c)-len(w)] {
				if r == '之' || i > 0 && er.notNameStart(r) {
					return false
				}
			}
			return !er.isKin(c[0]) || len(c) > 3
		}
	}
	return false
}

func nameRunesOnly(c []rune) bool {
	for _, r := range c {
		if !IsNameRune(r) {
			return false
		}
	}
	return true
}

func hasSuffix(rs, w []rune) bool {
	return len(rs) >= len(w) && slices.Equal(rs[len(rs)-len(w):], w)
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
func (er *Rules) personEvidence(rs []rune, i int) bool {
	c := clauseAt(rs, i)
	switch {
	case len(c) == 0:
		return false
	case c[0] == '字' && len(c) <= 6:
		return true
	case native(c):
		return !slices.ContainsFunc(c, func(r rune) bool { return slices.Contains(er.appointment, r) })
	}
	return er.formula(c) || er.clauseEnd(c) || er.relation(c)
}

// formula reports whether a clause opens with one of the profile's entry
// formula words (名, 初名, 其先, 号 …).
func (er *Rules) formula(c []rune) bool {
	for _, p := range er.formulas {
		if len(c) >= len(p) && slices.Equal(c[:len(p)], p) {
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
func (er *Rules) isKin(r rune) bool { return slices.Contains(er.kinChars, r) }

// appraisal reports a line that opens the historian's closing judgement.
func (er *Rules) appraisal(line []rune) bool {
	for _, p := range er.appraisals {
		if hasPrefix(line, p) {
			return true
		}
	}
	return false
}

// Marks finds the pieces of a volume: the text outside entries (heading
// lines, the closing appraisal), the main entries with their persons as
// listed, and the sub-entries inside them with their names as written.
// Marks come in no particular order; Read orders and names them.
func (er *Rules) Marks(d *Doc) []Mark {
	ls := lines(d.rs)
	list := make([]bool, len(ls))
	marks := er.structureMarks(d.rs, ls, list)
	ops := d.openings(er)
	l := er.parseListing(d.rs, ls, list)
	if len(l.main) > 0 {
		marks = append(marks, er.listedMarks(d.rs, ops, l, func(o opening) bool { return er.named(d, o) })...)
		marks = append(marks, er.listedIntroductions(d.rs, ops, l, marks)...)
	} else {
		marks = append(marks, er.openMarks(d.rs, ops, func(o opening) bool { return er.named(d, o) })...)
	}
	return marks
}

// volumeListing is the listing of a volume: its heading lines read as
// parseListing does.
func (er *Rules) volumeListing(rs []rune) listing {
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
func (er *Rules) structureMarks(rs []rune, ls []text.Span, list []bool) []Mark {
	marks := []Mark{{Pos: 0, Kind: MarkOutside}}
	for i, sp := range ls {
		line := rs[sp.Start:sp.End]
		list[i] = isListLine(line)
		switch {
		case list[i] && (i == 0 || !list[i-1]):
			marks = append(marks, Mark{Pos: sp.Start, Kind: MarkOutside})
		case !list[i] && i > 0 && list[i-1]:
			marks = append(marks, Mark{Pos: sp.Start, Kind: MarkOutside})
		case er.appraisal(line):
			marks = append(marks, Mark{Pos: sp.Start, Kind: MarkOutside})
		}
	}
	return marks
}

// timeName reports a "name" that is a time: 年, 月 or 日 after a numeral
// or a word for which one ("二十九年春", "明年", "二月初一", "次日"), or
// a reign ending in 间 ("嘉靖间"; not 时, which ends names: 方逢时).
func timeName(name []rune) bool {
	for k := 1; k < len(name); k++ {
		switch name[k] {
		case '年', '月', '日':
			if strings.ContainsRune("一二三四五六七八九十廿元是明次其翌越逾末初数", name[k-1]) {
				return true
			}
		}
	}
	return len(name) >= 3 && name[len(name)-1] == '间'

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
// name as the listing writes it, so the main entries of a volume spell its
// listing whenever the text has every listed entry.
func (er *Rules) listedMarks(rs []rune, ops []opening, l listing, named func(opening) bool) []Mark {
	type cand struct {
		op    int // index in ops
		q, n  int // the listed name: l.main[q:q+n]
		score int
	}
	var cands []cand
	// A line start without a formula is taken for a listed name only in
	// a volume whose openings show people somewhere, or when its first
	// clause says who the person was ("李芳，穆宗朝内官监太监也"): a volume
	// on countries or tribes lists places.
	persons := slices.ContainsFunc(ops, func(o opening) bool { return o.lineStart && o.strong })
	for i, o := range ops {
		quality := 0
		titled := untitled(o.name)
		switch {
		case o.lineStart && o.evidence >= evFormula:
			quality = 5
		case o.lineStart && o.evidence == evRelation, !o.lineStart && o.evidence >= evFormula:
			quality = 3
		case o.lineStart && (persons || o.identity):
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
	var out []Mark
	for _, c := range chain {
		chosen[c.op] = true
		kind := MarkEntry
		if er.listedRelative(l.main, c.q) || er.kinPrefixed(ops[c.op].name) {
			// "刘体重子煦" lists 刘体重 and his son 煦: the son's text is
			// an attached person's.
			kind = MarkSub
		}
		out = append(out, Mark{Pos: ops[c.op].pos, Kind: kind, Subject: string(l.main[c.q : c.q+c.n])})
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
				out = append(out, Mark{Pos: o.pos, Kind: MarkEntry, Subject: string(run)})
				break
			}
		}
	}
	var ends []int
	for i, o := range ops {
		if chosen[i] {
			continue
		}
		introduced := !er.inGroups(o.name, l.groups) && er.listedSuffix(o.name, l.groups) != nil
		relative := (er.inGroups(o.name, l.groups) || introduced) &&
			(o.lineStart && o.evidence >= evRelation || o.evidence >= evFormula)
		if relative && introduced && !o.lineStart {
			// "…乃议招抚。参政洪云蒸，长沙人，…": brought in inside a
			// paragraph, the person's text is the rest of it.
			ends = append(ends, paragraphEnd(rs, o.pos))
		}
		// An unlisted "name" of four characters or more whose only
		// evidence is a kinship clause and which the volume never writes
		// again is a clause of the entry, not a person ("良玉少孤，育于
		// 叔父"); a name that long otherwise has a compound surname, a
		// prince's title or a clan ("安塞王秩炅", "王氏女娥").
		long := len(o.name) >= 4 && !er.compound(o.name) && untitled(o.name) == nil && !slices.Contains(o.name, '氏')
		unlisted := !er.notName(o.name) && (len(o.name) >= 2 && (o.lineStart && o.evidence >= evFormula || o.evidence == evFull) ||
			o.lineStart && o.person && (len(o.name) >= 2 || o.strong)) && !(long && er.unnamedKin(rs, o))
		if relative || unlisted {
			// A relative is a person the listing names; an unlisted opening
			// is one only when its words say so.
			m := Mark{Pos: o.pos, Kind: MarkSub}
			if relative || o.person && named(o) {
				m.Subject = string(o.name)
			}
			out = append(out, m)
		}
	}
	for _, e := range ends {
		if e < len(rs) && !slices.ContainsFunc(out, func(m Mark) bool { return m.Pos == e }) {
			out = append(out, Mark{Pos: e, Kind: MarkSub})
		}
	}
	return out
}

// listedRelative reports whether the listed name at main[q:] is listed as
// a relative in a listing that runs relatives on with "、" (the Draft
// History of Qing: "噶盖、噶盖子武善、布善" lists 噶盖 and, as his
// relatives, 武善 and 布善): the name follows a kinship character or a
// "、". Listings without "、" put relatives in parentheses instead.
func (er *Rules) listedRelative(main []rune, q int) bool {
	return q > 0 && slices.Contains(main, '、') && (main[q-1] == '、' || er.isKin(main[q-1]))
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

// inGroups reports whether name, without a word that introduces it ("有王
// 景"), is written in one of the parenthesised runs and is more than a
// kinship term.
func (er *Rules) inGroups(name []rune, groups [][]rune) bool {
	if w := er.introduced(name); w != nil {
		name = name[len(w):]
	}
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

// listedSuffix returns the name a group writes that ends name after words
// introducing it: a place, an office or "同邑" ("合肥陈文", "郎中胡琏",
// "卓同邑罗性": 陈文, 胡琏, 罗性); nil when name is itself written in a
// group, has a compound surname, or has no such ending. One character
// before the name is a surname, not an introduction, unless it is an
// introducing word ("又董镛").
func (er *Rules) listedSuffix(name []rune, groups [][]rune) []rune {
	if len(name) < 3 || er.compound(name) || inAnyGroup(name, groups) {
		return nil
	}
	for k := 1; k <= len(name)-2; k++ {
		pre, rest := name[:k], name[k:]
		if len(rest) > 4 || er.kinWritten(pre) || er.kinOnly(rest) || !inAnyGroup(rest, groups) {
			continue
		}
		if k >= 2 && er.introWords(pre) || er.introduced(name) != nil && len(er.introduced(name)) == k {
			return rest
		}
	}
	return nil
}

// entryOpenings counts the line starts that open with a name and an entry
// formula; EntryOpenings reports it.
func (er *Rules) entryOpenings(ops []opening) int {
	n := 0
	for _, o := range ops {
		if o.lineStart && len(o.name) >= 2 && (o.evidence >= evFormula || o.kin) && !er.notName(o.name) {
			n++
		}
	}
	return n
}
