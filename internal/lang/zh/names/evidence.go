package names

import (
	"math"
	"slices"
	"strings"

	"github.com/annalist-dev/annalist/internal/lang/profile"
	"github.com/annalist-dev/annalist/internal/lang/text"
)

// Besides its characters, the document says whether a run is a name:
//
//   - a name recurs in the text about its person, whole or, for a name of
//     three characters, by the given name alone; a run of words read as a
//     name seldom does;
//   - a run that begins with the name of a person the document presents
//     elsewhere ("Name，字…", "Name，Place人", "Name，X氏") is that person
//     and what he did: "宪成既废" is 宪成 and his dismissal;
//   - every character of a name is one the listings of the corpus write
//     in names (Lexicon); a clause holds some they never do.

// The judge's features, in the order of a feature vector.
const (
	fChars   = iota // the character model's score, bounded by maxChars
	fRecur          // log(1 + other times the document writes the run)
	fGiven          // log(1 + times it writes a three-character run's given name alone)
	fFull           // log(1 + times it writes the run as a given name: "长子辉祖", "徐辉祖")
	fPrefix         // 1 when the run begins with a name the document presents
	fLexicon        // log(1 + times the listings write the run's rarest character)
	nFeatures
)

// featureNames name the features in the model file.
var featureNames = [nFeatures]string{"chars", "recur", "given", "full", "prefix", "lexicon"}

// Words are a profile's words that say what the clause after a name is:
// its entry formulas, the ends of clan, banner and kinship clauses, the
// examination degrees; its compound surnames, the words that introduce
// a person, the kinship characters written before a relative's name, and
// its offices of two characters or more.
type Words struct {
	formulas, clauseEnds, relationEnds, degrees, compound, introducers, offices [][]rune
	kinPrefix                                                                   []rune
}

// WordsOf returns the words of profile p.
func WordsOf(p *profile.Profile) *Words {
	rs := func(ws []string) [][]rune {
		out := make([][]rune, len(ws))
		for i, w := range ws {
			out[i] = []rune(w)
		}
		return out
	}
	var degrees []string
	for _, t := range p.Exams.Terms {
		if t.Kind == profile.KindDegree {
			degrees = append(degrees, t.Term)
		}
	}
	var offices []string
	for _, o := range p.Offices.Terms {
		if len([]rune(o.Term)) >= 2 {
			offices = append(offices, o.Term)
		}
	}
	return &Words{offices: rs(offices), formulas: rs(p.Entry.Formulas), clauseEnds: rs(p.Entry.ClauseEnds), relationEnds: rs(p.Entry.RelationEnds),
		degrees: rs(degrees), compound: rs(p.Names.CompoundSurnames), introducers: rs(p.Names.Introducers), kinPrefix: p.Kin.PrefixChars}
}

// lineStart reports whether p begins a line, spaces before it aside.
func lineStart(rs []rune, p int) bool {
	for j := p - 1; j >= 0; j-- {
		switch rs[j] {
		case '\n':
			return true
		case ' ', '　', '\t':
		default:
			return false
		}
	}
	return true
}

// Doc is a document read for name evidence: its text and the names it
// presents, with their given names.
type Doc struct {
	rs        []rune
	words     *Words
	presented map[string]bool
}

// NewDoc reads rs with the words of a profile.
func NewDoc(rs []rune, words *Words) *Doc {
	d := &Doc{rs: rs, words: words, presented: map[string]bool{}}
	for _, s := range sentenceStarts(rs, 0) {
		run, e := d.runAt(s)
		if len(run) > 0 && lineStart(rs, s) && d.presents(e) {
			d.presented[string(run)] = true
			if g := d.given(run); len(g) > 0 {
				d.presented[string(g)] = true
			}
		}
	}
	return d
}

// Presents reports whether the document presents run as a person's name
// (a line that opens with it and words that say who a person is:
// presents), whole or as the given name of such a name.
func (d *Doc) Presents(run []rune) bool { return d.presented[string(run)] }

// runAt reads the run of name characters at p closed by "，" or "者，";
// e is the offset after the run (of "，" or "者").
func (d *Doc) runAt(p int) (run []rune, e int) {
	e = p
	for e < len(d.rs) && e-p <= maxRun && IsNameRune(d.rs[e]) {
		e++
	}
	if e == p || e-p > maxRun || e >= len(d.rs) || d.rs[e] != '，' {
		return nil, 0
	}
	if e-p >= 2 && d.rs[e-1] == '者' {
		return d.rs[p : e-1], e - 1
	}
	return d.rs[p:e], e
}

// given is the given name of a full name: the name without its surname
// (one character, or a compound surname of the profile), for a name of
// two or three characters; nil otherwise.
func (d *Doc) given(run []rune) []rune {
	for _, c := range d.words.compound {
		if len(run) > len(c) && hasPrefixRunes(run, c) {
			return run[len(c):]
		}
	}
	if len(run) < 2 || len(run) > 3 {
		return nil
	}
	return run[1:]
}

// Surnames counts into into the surnames a volume writes: the first
// characters of the names of two or three characters its listing writes
// (as a listed name or inside a group) that its text writes right after
// an office ("知县孙自一" for "(…孙自一)"), an office being written before
// a full name.
func (w *Words) Surnames(volume string, into Lexicon) {
	rs := []rune(volume)
	main, groups, end := headings(rs)
	if len(main) == 0 {
		return
	}
	lists := append([][]rune{main}, groups...)
	for _, o := range w.offices {
		for q := text.IndexRunes(rs, o, end); q >= 0; q = text.IndexRunes(rs, o, q+1) {
			p := q + len(o)
			for n := 3; n >= 2; n-- {
				if p+n > len(rs) || !nameRunes(rs[p:p+n]) {
					continue
				}
				if slices.ContainsFunc(lists, func(l []rune) bool { return text.IndexRunes(l, rs[p:p+n], 0) >= 0 }) {
					into[rs[p]]++
					break
				}
			}
		}
	}
}

// compound reports a run that opens with a compound surname.
func (d *Doc) compound(run []rune) bool {
	for _, c := range d.words.compound {
		if len(run) > len(c) && hasPrefixRunes(run, c) {
			return true
		}
	}
	return false
}

func hasPrefixRunes(s, p []rune) bool { return len(s) >= len(p) && slices.Equal(s[:len(p)], p) }

func hasSuffixRunes(s, p []rune) bool {
	return len(s) >= len(p) && slices.Equal(s[len(s)-len(p):], p)
}

// introduced reports a run written with words before the name: an
// introducing word of the profile ("有王涣", "同邑刘俨"), or a kinship
// character before a name ("子嘉铨", "从子贽") or after a name the
// document presents, whole or by the given name ("阶弟陟", "锡爵弟
// 鼎爵"). The run is no name as written, nor anything but one.
func (d *Doc) introduced(run []rune) bool {
	if len(run) >= 2 && slices.Contains(d.words.kinPrefix, run[0]) {
		return true
	}
	for _, w := range d.words.introducers {
		if len(run) >= len(w)+2 && hasPrefixRunes(run, w) {
			return true
		}
	}
	for q := 1; q+1 < len(run); q++ {
		if slices.Contains(d.words.kinPrefix, run[q]) || run[q] == '孙' {
			if d.presented[string(run[:q])] {
				return true
			}
		}
	}
	return false
}

// presents reports whether the words after a run that ends at e (at "，"
// or "者") say who a person is, as an entry opens: the first clause
// opens with a courtesy or art name (字, 号) or gives a native place
// (…人), a clan or a banner (the profile's clause ends: …氏, …旗), or
// the first gives a courtesy name and the second a native place.
func (d *Doc) presents(e int) bool {
	rs := d.rs
	if e < len(rs) && rs[e] == '者' {
		e++
	}
	if e >= len(rs) || rs[e] != '，' {
		return false
	}
	c1 := clauseAt(rs, e+1)
	if len(c1) > 0 && len(c1) <= 6 && (c1[0] == '字' || c1[0] == '号') {
		return true
	}
	if nativePlace(c1) {
		return true
	}
	for _, w := range d.words.clauseEnds {
		if len(c1) > len(w) && len(c1) <= 7 && hasSuffixRunes(c1, w) && nameRunes(c1) {
			return true
		}
	}
	return false
}

// Contexts: what the words after a run say, the first that holds in this
// order. The judge's prior that a run is a name differs by context.
const (
	ctxCourtesy = iota // 字… or 号…
	ctxPresents        // presents otherwise: …人, …氏
	ctxFormula         // another entry formula of the profile: 名…, 其先…, 世居…
	ctxKin             // a kinship clause without particles: 武善弟, 太祖第十四子也
	ctxExam            // an examination degree: 天顺元年进士
	ctxIdentity        // a short clause closed by 也: 御马监奉御也
	ctxWho             // "Name者，" and none of the above
	ctxNone
	nContexts
)

// contextNames name the contexts in the model file.
var contextNames = [nContexts]string{"courtesy", "presents", "formula", "kin", "exam", "identity", "who", "none"}

// context classifies the words after a run that ends at e: at "，", at
// "者，", at "、" and more names closed by "，" (a joint entry), or at a
// courtesy name written without a comma ("马理字伯循", "萧鎡。字孟勤").
func (d *Doc) context(e int) int {
	rs := d.rs
	for e < len(rs) && rs[e] == '、' {
		e++
		for e < len(rs) && IsNameRune(rs[e]) {
			e++
		}
	}
	if e+1 < len(rs) && (rs[e] == '字' || rs[e] == '号' || rs[e] == '。' && rs[e+1] == '字') {
		return ctxCourtesy
	}
	if d.presents(e) {
		if c := clauseAt(rs, e+1+b2i(rs[e] == '者')); len(c) > 0 && (c[0] == '字' || c[0] == '号') {
			return ctxCourtesy
		}
		return ctxPresents
	}
	who := e < len(rs) && rs[e] == '者'
	if who {
		e++
	}
	if e >= len(rs) || rs[e] != '，' {
		return ctxNone
	}
	c1 := clauseAt(rs, e+1)
	for _, w := range d.words.formulas {
		if hasPrefixRunes(c1, w) {
			return ctxFormula
		}
	}
	k := c1
	if n := len(k); n >= 3 && k[n-1] == '也' {
		k = k[:n-1]
	}
	for _, w := range d.words.relationEnds {
		if len(k) > len(w) && len(k) <= 10 && hasSuffixRunes(k, w) && !slices.ContainsFunc(k, particle) {
			return ctxKin
		}
	}
	for _, w := range d.words.degrees {
		if text.IndexRunes(c1, w, 0) >= 0 {
			return ctxExam
		}
	}
	if n := len(c1); n >= 2 && n <= 12 && c1[n-1] == '也' {
		return ctxIdentity
	}
	if who {
		return ctxWho
	}
	return ctxNone
}

// particle reports the characters that make a clause ending in a kinship
// word something else than whose relative a person is ("鞠于祖母").
func particle(r rune) bool { return strings.ContainsRune("之于於以而所为其与及", r) }

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func nameRunes(c []rune) bool {
	return !slices.ContainsFunc(c, func(r rune) bool { return !IsNameRune(r) })
}

// nativePlace reports a clause "Place人" or "Place人也" (or "不知何许人",
// an unknown origin) that is no count ("数百人") and no phrase with a verb
// or particle ending in 人.
func nativePlace(c []rune) bool {
	n := len(c)
	if n >= 3 && c[n-1] == '也' {
		n--
	}
	if n < 2 || n > 12 || c[n-1] != '人' {
		return false
	}
	if text.IndexRunes(c, []rune("何许人"), 0) >= 0 {
		return true
	}
	if strings.ContainsRune("一二三四五六七八九十百千万数余两几多众", c[n-2]) {
		return false
	}
	return !slices.ContainsFunc(c[:n-1], func(r rune) bool {
		return strings.ContainsRune("之于於得所为以而者不有其可使用令将与皆乃授擢迁拜是自至若此", r)
	})
}

// features are the judge's features of run, written at p, with chars the
// character model and lex the listings' characters.
func (d *Doc) features(run []rune, p int, chars *Model, lex Lexicon) [nFeatures]float64 {
	var f [nFeatures]float64
	f[fChars] = clip(chars.Score(run))
	least := -1
	for _, r := range run {
		if n := lex[r]; least < 0 || n < least {
			least = n
		}
	}
	f[fLexicon] = math.Log1p(float64(max(least, 0)))
	f[fRecur] = math.Log1p(float64(d.count(run, p, 0)))
	if len(run) == 3 {
		f[fGiven] = math.Log1p(float64(d.count(run[1:], p+1, run[0])))
	}
	f[fFull] = math.Log1p(float64(d.asGiven(run, p, chars)))
	for k := len(run) - 1; k >= 1; k-- {
		if d.presented[string(run[:k])] {
			f[fPrefix] = 1
			break
		}
	}
	return f
}

// asGiven counts the places other than p where the document writes run
// as a given name: after a kinship character ("长子辉祖"), or after one
// character that makes, with it, a full name the character model scores
// as a name and above run alone ("徐辉祖").
func (d *Doc) asGiven(run []rune, p int, chars *Model) int {
	alone := chars.Score(run)
	n := 0
	full := make([]rune, len(run)+1)
	copy(full[1:], run)
	for q := text.IndexRunes(d.rs, run, 1); q >= 0; q = text.IndexRunes(d.rs, run, q+1) {
		if q == p || !IsNameRune(d.rs[q-1]) {
			continue
		}
		if slices.Contains(d.words.kinPrefix, d.rs[q-1]) {
			n++
			continue
		}
		full[0] = d.rs[q-1]
		if s := chars.Score(full); s > 0 && s > alone {
			n++
		}
	}
	return n
}

// count is how often the document writes w elsewhere than at p, not right
// after the character not (0: any).
func (d *Doc) count(w []rune, p int, not rune) int {
	n := 0
	for q := text.IndexRunes(d.rs, w, 0); q >= 0; q = text.IndexRunes(d.rs, w, q+1) {
		if q != p && (not == 0 || q == 0 || d.rs[q-1] != not) {
			n++
		}
	}
	return n
}
