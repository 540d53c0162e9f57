package segment

import (
	"slices"
	"strings"

	"github.com/annalist-dev/annalist/internal/lang/text"
)

// The open mode of the liezhuan profile: the entries of a volume found on
// its text alone, without a listing (see liezhuan.go for the openings).

// openMarks are the entries of a volume without a listing: every opening
// that shows a person begins a piece with a subject, either a main entry
// or, inside one, an attached person's (MarkSub with a subject). The
// evidence is the text's own:
//
//   - an opening shows a person when it starts a line and the words after
//     the name say so (o.person), or, inside a line after a lost paragraph
//     break, when they are the full formula; a line that opens "Name，"
//     with a name the closing appraisal writes shows one too, whatever its
//     words ("蔡迁，不详其乡里"); a "name" whose only evidence is a
//     kinship-like clause and that the volume never writes again
//     ("久之还朝，进左庶子") does not;
//   - a name model learned from the volume's openings (learnNames) gives
//     the characters names begin with (surnames) and the lengths they
//     have;
//   - the first person of a volume, and a person the closing appraisal
//     names, open main entries unless the name is written as a
//     relative's or a companion's (below, up to the given name written
//     before);
//   - an opening is an attached person's when a main entry is open and
//     the name is written after a kinship or introducing word ("子琏",
//     "同邑刘俨"), is one character, is a given name the text has written
//     before after a surname of the model ("寿辉" after "徐寿辉") or that
//     its own text repeats whole (givenAlone; not a name given with a
//     clan or a banner, which is written in full), says whose relative the
//     person is and that person belongs to the open entry ("布善，武善弟"),
//     gives the native place by another person's ("亦江阴人", "国珍同县
//     人"), is a weak opening (no strong evidence) whose text runs short
//     before the next person's, or is a person the open entry has named
//     before whose own text (with the paragraphs of the relatives that
//     follow it, reaches) is under a fifth of the entry's so far: a main
//     entry is a biography, an attached person's a paragraph;
//   - an opening is an attached person's, too, when the line opens
//     "Name者，" and the closing appraisal does not name the person
//     ("徐学谟者，嘉定县人": the text points at someone it brings in), when
//     its first sentence gives no origin and the open entry has named the
//     person (placeless: "林公黼，字质夫。" after "大理评事长乐林公黼"), or
//     when the open entry lists the person next to a companion whose
//     paragraph came before and its text is shorter than the entry's so
//     far (namedWith: "廷声、钰及陈琳、潘镗", after 朱廷声's and 徐钰's).
func (er *Rules) openMarks(rs []rune, ops []opening, named func(opening) bool) []Mark {
	appraised := er.appraisedNames(rs)
	var cands []opening
	for _, o := range ops {
		if len(o.name) == 0 || er.notName(o.name) {
			continue
		}
		switch {
		case (o.lineStart && o.person || o.evidence == evFull) && !er.unnamedKin(rs, o) && named(o):
		case o.lineStart && appraised(o.name) && nameLen(o.name) <= 3 && !er.attachedByForm(o.name):
		default:
			continue
		}
		cands = append(cands, o)
	}
	m := er.learnNames(cands)
	reach := er.reaches(rs, cands)
	var out []Mark
	mainStart, mainName := -1, []rune(nil)
	var companions [][]rune
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
		case mainStart < 0, appraised(name):
		case o.lineStart && zheOpening(rs, o):
			attached = true
		case er.relativePlace(rs, o.end), !er.clanOpening(rs, o) && givenAlone(rs[o.end:reach[i]], name):
			attached = true
		case !o.strong && next-o.pos < shortEntry:
			attached = true
		case er.placeless(rs, o.end) && text.IndexRunes(rs[mainStart:o.pos], name, 0) >= 0:
			attached = true
		case reach[i]-o.pos < o.pos-mainStart && namedWith(rs[mainStart:o.pos], name, companions):
			attached = true
		case companionShare*(reach[i]-o.pos) < o.pos-mainStart && text.IndexRunes(rs[mainStart:o.pos], name, 0) >= 0:
			attached = true
		}
		if attached {
			if mainStart >= 0 {
				out = append(out, Mark{Pos: o.pos, Kind: MarkSub, Subject: string(name)})
				if !slices.Equal(name, mainName) {
					companions = append(companions, name)
				}
			}
			continue
		}
		companions = companions[:0]
		mainStart, mainName = o.pos, name
		out = append(out, Mark{Pos: o.pos, Kind: MarkEntry, Subject: string(name)})
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
func (er *Rules) learnNames(cands []opening) nameModel {
	m := nameModel{surnames: map[rune]bool{}, lengths: map[int]int{}}
	for _, o := range cands {
		if !o.lineStart || len(o.name) < 2 || er.kinPrefixed(o.name) || er.introduced(o.name) != nil || er.titled(o.name) != nil ||
			er.relativeName(o.name, nil) {
			continue
		}
		if nameLen(o.name) == 3 {
			// A name of three characters is a surname and a given name:
			// two-character ones may be a given name alone.
			m.surnames[o.name[0]] = true
		}
		if !o.strong || nameLen(o.name) > 3 && !o.clan && !er.compound(o.name) {
			continue
		}
		m.lengths[nameLen(o.name)]++
		m.total++
	}
	return m
}

// fits reports whether a name has a length the model's names have: two
// or three characters always, or a compound surname; longer ones when at
// least a tenth of the confident names are as long.
func (m nameModel) fits(name []rune) bool {
	n := nameLen(name)
	if n <= 3 {
		return true
	}
	return m.total > 0 && 10*m.lengths[n] >= m.total
}

// nameLen is the number of characters of a name, a rare character
// spelled out by its components (刘季｛虎｝, 李国〈木普〉) counting as one.
func nameLen(name []rune) int {
	n, depth := 0, 0
	for _, r := range name {
		switch r {
		case '｛', '〈':
			if depth == 0 {
				n++
			}
			depth++
		case '｝', '〉':
			depth = max(0, depth-1)
		default:
			if depth == 0 {
				n++
			}
		}
	}
	return n
}

// shortEntry is the length in characters below which the text an opening
// without strong evidence begins, up to the next person's opening, reads
// as a paragraph on an attached person rather than a biography of its
// own.
const shortEntry = 150

// compound reports a name that begins with a compound surname.
func (er *Rules) compound(name []rune) bool {
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
func (er *Rules) titled(name []rune) []rune {
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
func (er *Rules) relativeName(name, main []rune) bool {
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
func (er *Rules) introduced(name []rune) []rune {
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
func (er *Rules) relativeOf(rs []rune, o opening, mainStart int) bool {
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

// reaches returns, for each opening, where the text it begins ends for
// the length rules: at the next opening that may begin a main entry. The
// openings whose name alone says they are attached (one character, after
// a kinship, introducing or office word) are the main person's relatives
// and companions, and their paragraphs belong to the entry's length.
func (er *Rules) reaches(rs []rune, cands []opening) []int {
	out := make([]int, len(cands))
	next := len(rs)
	for i := len(cands) - 1; i >= 0; i-- {
		out[i] = next
		if !er.attachedByForm(cands[i].name) {
			next = cands[i].pos
		}
	}
	return out
}

// attachedByForm reports a name whose written form says it is an
// attached person's: one character (a given name alone), or written after
// a kinship, introducing or office word.
func (er *Rules) attachedByForm(name []rune) bool {
	return len(name) < 2 || er.kinPrefixed(name) || er.introduced(name) != nil || er.relativeName(name, nil) || er.titled(name) != nil
}

// relativePlace reports whether the words after an opening's name give
// the native place by someone else's: "亦江阴人" (also of Jiangyin, as
// the person before), "国珍同县人" (of Guozhen's county). The person is
// introduced by reference to another the text has named, as a companion
// in that person's entry is; a main entry states its person's own place.
func (er *Rules) relativePlace(rs []rune, i int) bool {
	for _, c := range clausesFrom(rs, i, 2, "，") {
		if native(c) {
			for _, w := range er.sharedPlaceLeads {
				if hasPrefix(c, w) {
					return true
				}
			}
			for _, w := range er.sharedPlace {
				if text.IndexRunes(c, []rune(w), 1) > 0 {
					return true
				}
			}
			return false
		}
	}
	return false
}

// clausesFrom returns the clauses of the sentence from rs[i], at most max
// of them (0: all), the sentence going on over the separators seps.
func clausesFrom(rs []rune, i, max int, seps string) [][]rune {
	var out [][]rune
	for i < len(rs) && (max == 0 || len(out) < max) {
		c := clauseAt(rs, i)
		out = append(out, c)
		i += len(c)
		if i >= len(rs) || !strings.ContainsRune(seps, rs[i]) {
			break
		}
		i++
	}
	return out
}

// unnamedKin reports an opening whose only evidence of a person is a
// kinship clause ("良玉少孤，育于叔父", "久之还朝，进左庶子") and whose
// "name" the volume never writes again, in full or, for a name of three
// characters, by the given name: a person's name recurs in the text about
// them, a run of words read as a name does not. A name written with an
// office or a prince's title ("锦衣指挥周彧，太后弟也", "武功郡王阿泰，
// 太祖第三子") has the title for evidence, and a clause naming a relative
// the text wrote before ("布泰，费扬古弟") the relative.
func (er *Rules) unnamedKin(rs []rune, o opening) bool {
	c := clauseAt(rs, o.end)
	if o.strong || o.evidence == evFull || !er.relation(c) || native(c) {
		return false
	}
	if er.titled(o.name) != nil || len(o.name) > maxNameRunes(o.name) || er.relativeOf(rs, o, 0) {
		return false
	}
	forms := [][]rune{o.name}
	if len(o.name) == 3 {
		forms = append(forms, o.name[1:])
	}
	for _, f := range forms {
		if text.IndexRunes(rs, f, o.end) >= 0 || text.IndexRunes(rs[:o.pos], f, 0) >= 0 {
			return false
		}
	}
	return true
}

// appraisedNames returns a test for the names the volume's closing
// appraisals (赞曰) write: the historian names there the people the
// volume is about, so a line that opens with such a name and a comma
// ("蔡迁，不详其乡里") opens that person's entry though its words give
// no formula, and such a person is a main entry's.
func (er *Rules) appraisedNames(rs []rune) func(name []rune) bool {
	var appr [][]rune
	for _, sp := range lines(rs) {
		if line := rs[sp.Start:sp.End]; er.appraisal(line) {
			appr = append(appr, line)
		}
	}
	return func(name []rune) bool {
		if nameLen(name) < 2 {
			return false
		}
		for _, a := range appr {
			if text.IndexRunes(a, name, 0) >= 0 {
				return true
			}
		}
		return false
	}
}

// givenAlone reports a name of two characters that its own text, text,
// repeats whole more often than it writes the second character alone (and
// at least twice): a biography calls its person by the given name, so
// the text of a full name "蔡迁" says "迁", while that of a given name
// written alone ("寿辉" for 徐寿辉) says "寿辉" again.
func givenAlone(text, name []rune) bool {
	if len(name) != 2 {
		return false
	}
	whole, alone := 0, 0
	for i, r := range text {
		switch {
		case r != name[1]:
		case i > 0 && text[i-1] == name[0]:
			whole++
		default:
			alone++
		}
	}
	return whole >= 2 && whole > alone
}

// clanOpening reports an opening whose first or second clause gives a
// clan or a banner ("珠满，瓜尔佳氏，隶满洲正白旗", "桑格，喜塔腊氏，满洲
// 正白旗人"): such a name is written in full however often the text
// repeats it, with no surname and given name to tell apart.
func (er *Rules) clanOpening(rs []rune, o opening) bool {
	for _, c := range clausesFrom(rs, o.end, 2, "，") {
		if er.clauseEnd(c) || len(c) > 1 && c[len(c)-1] == '人' && er.clauseEnd(c[:len(c)-1]) {
			return true
		}
	}
	return false
}

// placeless reports an opening whose first sentence (from rs[i], the
// words after the name) says nothing of where or whom the person comes
// from: no native place ("Place人", "其先Place人", "不知何许人"), no
// kinship ("尚书钺之子", "宪成弟"), no clan or banner, only a courtesy
// name and the person's doings ("林公黼，字质夫。父母丧…", "冯泾，字伯清，
// 与瀚皆正德九年进士"). A biography states its person's origin first; a
// companion the entry has already brought in with the place ("大理评事长
// 乐林公黼") is given a paragraph that does not repeat it.
func (er *Rules) placeless(rs []rune, i int) bool {
	for _, c := range clausesFrom(rs, i, 0, "，；") {
		n := len(c)
		switch {
		case n >= 2 && (c[n-1] == '人' || n >= 3 && c[n-2] == '人' && c[n-1] == '也'):
			return false
		case er.relation(c) || er.clauseEnd(c):
			return false
		case n >= 2 && c[n-1] == '也':
			return false
		}
	}
	return true
}

// zheOpening reports an opening "Name者，" ("徐学谟者，嘉定县人"): the
// text points at a person it brings in ("the one called…"), as it does
// for someone in another's story, not for the subject of a biography.
func zheOpening(rs []rune, o opening) bool {
	z := o.pos + len(o.name)
	return z+1 < len(rs) && rs[z] == '者' && rs[z+1] == '，'
}

// namedWith reports whether text, the open entry's, lists name next to a
// companion given a paragraph before it: in one enumeration ("、", "及"),
// the neighbouring item ends with the companion's name or is its given
// name ("指佑与廷声、钰及陈琳、潘镗等为奸党", then paragraphs on 朱廷声,
// 徐钰, 陈琳 and 潘镗; "与礼部主事万潮、太常博士陈九川连署"). The entry
// named its companions together, and their paragraphs follow one another.
func namedWith(t, name []rune, companions [][]rune) bool {
	for q := text.IndexRunes(t, name, 0); q >= 0; q = text.IndexRunes(t, name, q+1) {
		// The items before and after: runs of name characters up to an
		// enumeration word.
		b := q
		for b > 0 && q-b < 6 && IsNameRune(t[b-1]) && t[b-1] != '及' {
			b-- // a title written before the name: "太常博士陈九川"
		}
		if b > 0 && (t[b-1] == '、' || t[b-1] == '及') {
			a := b - 1
			for a > 0 && IsNameRune(t[a-1]) && t[a-1] != '及' {
				a--
			}
			if companionItem(t[a:b-1], companions) {
				return true
			}
		}
		e := q + len(name)
		if e < len(t) && (t[e] == '、' || t[e] == '及') {
			f := e + 1
			for f < len(t) && IsNameRune(t[f]) && t[f] != '及' {
				f++
			}
			if companionItem(t[e+1:f], companions) {
				return true
			}
		}
	}
	return false
}

// companionItem reports an item of an enumeration that gives one of the
// companions: it ends with the full name ("礼部主事万潮") or is the given
// name alone ("钰" for 徐钰).
func companionItem(item []rune, companions [][]rune) bool {
	for _, c := range companions {
		if len(c) >= 2 && (hasSuffix(item, c) || slices.Equal(item, c[1:])) {
			return true
		}
	}
	return false
}
