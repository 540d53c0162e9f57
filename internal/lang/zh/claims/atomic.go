package claims

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/annalist-dev/annalist/internal/lang/profile"
	"github.com/annalist-dev/annalist/internal/lang/text"
	"github.com/annalist-dev/annalist/internal/lang/zh/era"
	"github.com/annalist-dev/annalist/schemas"
)

// Relations Atomic gives besides the schemas relations: a date standing as
// a fact of its own, and a clause with no recognised relation. The subject's
// name opening an identity sentence has schemas.RelAlias.
const (
	RelDate = "date"
	RelText = "text"
)

// Atomic splits a sentence into atomic facts, in the order of the text.
//
// Chinese: the sentence is cut into clauses at ，；：、 (never inside
// brackets); each date in a clause (an era date, a year, month or day, a
// Gregorian year) is a fact of its own with Relation "date" and the date
// as Value (a Gregorian year's Value is its digits); a clause that is more
// than its dates is a fact too, with its Gregorian years left out of Text,
// and comes before the dates written inside it.
// Recognised clauses get a Relation and Value: the name opening an identity
// sentence (alias, the name), 字X (courtesy_name, X), 号Y (art_name, Y), X人
// after them (native_place, X), an examination (jinshi, the degree and rank
// as written: 进士, 进士第一, 举人), an office after an appointment verb or
// in a list that one opens (office, the title), a death (death, the time or
// age), a birth (birth); any other clause is "text" with no Value.
//
// English: the sentence is cut at semicolons, commas and "and" between
// clauses; years are date facts; "courtesy name X", "art name X", "a native
// of X", "passed the jinshi", "appointed X", "died" and "born" are
// recognised.
//
// Atomic has no reference set to take a profile from: it reads the
// sentence with the generic profile in the sentence's language. It reads
// the embedded era table (era.Default) on each call; a checker keeps its
// own table and reads each sentence with its reference set's profile
// (Read).
func Atomic(sentence string) []schemas.Fact {
	return Read(era.Default(), NewLexicon(profile.Default().For(profile.Generic, text.Lang(sentence))), sentence).Facts()
}

// atom is a fact with its place in the sentence.
type atom struct {
	fact       schemas.Fact
	start, end int       // rune span of the clause (or date) in the sentence
	date       *dateSpan // set for date facts
	// parts are the rune spans of the sentence the fact's Text is made
	// of (the clause without its Gregorian years).
	parts [][2]int
}

// clause is a piece of a sentence between separators.
type clause struct {
	start, end int
	sep        rune // the separator before it; 0 for the first
}

// atomize is Atomic with a given era table, reading the sentence with
// lex: English clauses under an English profile, classical-Chinese ones
// otherwise, whatever characters the sentence holds.
func atomize(tab *era.Table, lex *Lexicon, sentence string) []atom {
	if lex.english {
		return atomizeEnglish(tab, sentence)
	}
	rs := []rune(sentence)
	dates := findDates(tab, sentence)
	cls := splitClauses(rs)
	var out []atom
	identity := true // every clause so far is a name, 字 or 号
	prevRel := ""
	for ci, cl := range cls {
		var inClause []dateSpan
		for _, d := range dates {
			if d.start >= cl.start && d.end <= cl.end {
				inClause = append(inClause, d)
			}
		}
		var dateAtoms []atom
		for i := range inClause {
			d := inClause[i]
			val := d.text
			if d.kind == dateGregorian {
				val = strconv.Itoa(d.gregorian)
			}
			dateAtoms = append(dateAtoms, atom{
				fact:  schemas.Fact{Text: strings.TrimSpace(d.text), Relation: RelDate, Value: val},
				start: d.start, end: d.end, date: &inClause[i], parts: [][2]int{{d.start, d.end}},
			})
		}
		// The clause's own text: without Gregorian years (never in the
		// sources) and without brackets left empty by them.
		var parts [][2]int
		pos := cl.start
		for _, d := range inClause {
			if d.kind != dateGregorian {
				continue
			}
			if d.start > pos {
				parts = append(parts, [2]int{pos, d.start})
			}
			pos = d.end
		}
		if pos < cl.end {
			parts = append(parts, [2]int{pos, cl.end})
		}
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(string(rs[p[0]:p[1]]))
		}
		ctext := trimClause(b.String())
		if !hasContentBeyondDates(rs, cl, inClause) {
			out = append(out, dateAtoms...)
			identity = false
			prevRel = RelDate
			continue
		}
		rel, val := recogniseClause(lex, ctext, ci, cls, rs, identity, prevRel, cl.sep)
		switch rel {
		case schemas.RelAlias, schemas.RelCourtesyName, schemas.RelArtName:
		default:
			identity = false
		}
		prevRel = rel
		// The clause comes before the dates written inside it: what the
		// clause states is its first fact (举万历十一年进士 is an
		// examination before it is a date).
		out = append(out, atom{
			fact:  schemas.Fact{Text: ctext, Relation: rel, Value: val},
			start: cl.start, end: cl.end, parts: parts,
		})
		out = append(out, dateAtoms...)
	}
	return out
}

// splitClauses cuts rs at clause separators outside brackets, dropping the
// sentence's final stop.
func splitClauses(rs []rune) []clause {
	end := len(rs)
	for end > 0 && (punct(rs[end-1]) && !isCloserBracket(rs[end-1])) {
		end--
	}
	var out []clause
	depth := 0
	start := 0
	var sep rune
	for i := 0; i < end; i++ {
		r := rs[i]
		switch {
		case r == '（' || r == '(' || r == '《' || r == '〈' || r == '[' || r == '【':
			depth++
		case r == '）' || r == ')' || r == '》' || r == '〉' || r == ']' || r == '】':
			if depth > 0 {
				depth--
			}
		case depth == 0 && isClauseSep(r):
			if i > start {
				out = append(out, clause{start: start, end: i, sep: sep})
			}
			start, sep = i+1, r
		}
	}
	if end > start {
		out = append(out, clause{start: start, end: end, sep: sep})
	}
	// Trim leading and trailing spaces and quotes of each clause.
	for i := range out {
		for out[i].start < out[i].end && trimmable(rs[out[i].start]) {
			out[i].start++
		}
		for out[i].end > out[i].start && trimmable(rs[out[i].end-1]) {
			out[i].end--
		}
	}
	kept := out[:0]
	for _, c := range out {
		if c.end > c.start {
			kept = append(kept, c)
		}
	}
	return kept
}

func isClauseSep(r rune) bool {
	switch r {
	case '，', '；', '：', '、', '。', '！', '？', ',', ';', ':':
		return true
	}
	return false
}

func isCloserBracket(r rune) bool {
	return r == '）' || r == ')' || r == '》' || r == '」' || r == '”'
}

func trimmable(r rune) bool {
	switch r {
	case '「', '」', '『', '』', '“', '”', '"', '\'', '‘', '’':
		return true
	}
	return unicode.IsSpace(r)
}

func trimClause(s string) string {
	s = strings.TrimSpace(s)
	s = strings.TrimFunc(s, trimmable)
	// Brackets a removed Gregorian year left empty.
	s = strings.ReplaceAll(s, "（）", "")
	s = strings.ReplaceAll(s, "()", "")
	return strings.TrimSpace(s)
}

// hasContentBeyondDates reports whether the clause holds letters other
// than its dates and the brackets and 年 around them.
func hasContentBeyondDates(rs []rune, cl clause, ds []dateSpan) bool {
	in := make([]bool, cl.end-cl.start)
	for _, d := range ds {
		for i := d.start; i < d.end; i++ {
			in[i-cl.start] = true
		}
	}
	for i := cl.start; i < cl.end; i++ {
		if in[i-cl.start] || punct(rs[i]) {
			continue
		}
		return true
	}
	return false
}

var (
	reNameClause = regexp.MustCompile(`^\p{Han}{1,4}$`)
	reNative     = regexp.MustCompile(`^(\p{Han}{1,8})人$`)
	reAge        = regexp.MustCompile(`^年([〇零一二三四五六七八九十百有]+)(?:岁)?$`)
)

// notPlace are characters that make a clause ending in 人 something other
// than a native place: grammatical words, counts, degrees (举人) and
// offices (舍人). Place names use few of them; words such as 乡 or 国 do
// occur in places (宁乡, 宁国) and are refused only alone (乡人, 国人), and
// 余 only at the end (百余人, but 余姚人).
var notPlace = charSet("not_place")

// notPlaceAlone are one-character values of "X人" that are words, not
// places.
var notPlaceAlone = charSet("not_place_alone")

// nativeClause returns the place of a "X人" clause.
func nativeClause(c string) (string, bool) {
	m := reNative.FindStringSubmatch(c)
	if m == nil || countNumerals(m[1]) >= 2 || strings.ContainsAny(m[1], notPlace) ||
		strings.HasSuffix(m[1], "余") || runeLen(m[1]) == 1 && strings.Contains(notPlaceAlone, m[1]) {
		return "", false
	}
	return m[1], true
}

// recogniseClause gives the relation and value of clause ci.
func recogniseClause(lex *Lexicon, c string, ci int, cls []clause, rs []rune, identity bool, prevRel string, sep rune) (rel, val string) {
	next := ""
	if ci+1 < len(cls) {
		next = string(rs[cls[ci+1].start:cls[ci+1].end])
	}
	_, nextNative := nativeClause(next)
	switch {
	case ci == 0 && reNameClause.MatchString(c) && !strings.ContainsAny(c, "字号") &&
		(strings.HasPrefix(next, "字") || strings.HasPrefix(next, "号") || courtesyPrefix(next) > 0 ||
			otherNamePrefix(next) > 0 || artPrefix(next) > 0 || nextNative && runeLen(c) >= 2):
		return schemas.RelAlias, c
	case otherNamePrefix(c) > 0 && ci > 0 && runeLen(c) <= otherNamePrefix(c)+4:
		return schemas.RelAlias, string([]rune(c)[otherNamePrefix(c):])
	case courtesyPrefix(c) > 0 && runeLen(c) <= courtesyPrefix(c)+4:
		return schemas.RelCourtesyName, string([]rune(c)[courtesyPrefix(c):])
	case strings.HasPrefix(c, "字") && runeLen(c) >= 2 && runeLen(c) <= 5:
		return schemas.RelCourtesyName, string([]rune(c)[1:])
	case artPrefix(c) > 0 && runeLen(c) <= 8:
		return schemas.RelArtName, string([]rune(c)[artPrefix(c):])
	case identity && ci > 0:
		if place, ok := nativeClause(c); ok {
			return schemas.RelNativePlace, place
		}
	}
	if m := reAge.FindStringSubmatch(c); m != nil && prevRel == schemas.RelDeath {
		return schemas.RelDeathAge, m[1]
	}
	if ps := lex.examPhrases(c); len(ps) > 0 {
		return schemas.RelJinshi, ps[0]
	}
	if v, ok := lex.officeOf(c); ok {
		return schemas.RelOffice, v
	}
	if sep == '、' && prevRel == schemas.RelOffice && runeLen(c) <= 12 {
		return schemas.RelOffice, c
	}
	if isDeath(c) {
		// "年七十一卒", "卒年七十一": the age at death, not a date.
		if m := reAge.FindStringSubmatch(deathValue(c)); m != nil {
			return schemas.RelDeathAge, m[1]
		}
		return schemas.RelDeath, deathValue(c)
	}
	if strings.HasPrefix(c, "生于") || strings.HasPrefix(c, "生") && runeLen(c) <= 3 {
		return schemas.RelBirth, strings.TrimPrefix(strings.TrimPrefix(c, "生于"), "生")
	}
	return RelText, ""
}

// countNumerals counts the numerals of s: place names hold at most one
// (五河, 六合), counts and dates more (三千余, 十一年).
func countNumerals(s string) int {
	n := 0
	for _, r := range s {
		if isNumeral(r) {
			n++
		}
	}
	return n
}

// courtesyPrefixes open a courtesy-name clause besides 字 alone.
var courtesyPrefixes = wordList("courtesy_prefixes")

// courtesyPrefix is the length of the 字 that opens a courtesy-name
// clause (字, 一字, 又字, 表字, 小字), or 0.
func courtesyPrefix(c string) int {
	for _, p := range courtesyPrefixes {
		if strings.HasPrefix(c, p) && runeLen(c) > runeLen(p) {
			return runeLen(p)
		}
	}
	return 0
}

// otherNamePrefixes open a clause giving another name of the person.
var otherNamePrefixes = wordList("other_name_prefixes")

// otherNamePrefix is the length of the words that open a clause giving
// another name of the person (初名X, 更名X), or 0.
func otherNamePrefix(c string) int {
	for _, p := range otherNamePrefixes {
		if strings.HasPrefix(c, p) && runeLen(c) > runeLen(p) {
			return runeLen(p)
		}
	}
	return 0
}

// artPrefixes open an art-name clause, longest first.
var artPrefixes = wordList("art_prefixes")

// artPrefix is the length of the words that open an art-name clause (号,
// 又号, 别号, 自号), or 0.
func artPrefix(c string) int {
	for _, p := range artPrefixes {
		if strings.HasPrefix(c, p) && runeLen(c) > runeLen(p) {
			return runeLen(p)
		}
	}
	return 0
}

// careerVerbs open a clause that lists offices whatever their titles
// (历官X、Y, 官至Z).
var careerVerbs = wordList("career_verbs")

// officeOf finds "verb + office title" in a clause and returns the title.
func (l *Lexicon) officeOf(c string) (string, bool) {
	for _, v := range careerVerbs {
		if rest, ok := strings.CutPrefix(c, v); ok && runeLen(rest) >= 1 {
			return rest, true
		}
	}
	rs := []rune(c)
	for i := 0; i < len(rs) && i < 6; i++ {
		for _, v := range officeVerbs {
			vr := []rune(v)
			if !hasRunesAt(rs, i, vr) {
				continue
			}
			rest := string(rs[i+len(vr):])
			if runeLen(rest) >= 2 && l.hasOfficeSuffix(rest) {
				return rest, true
			}
		}
	}
	return "", false
}

// notDeathBefore are characters that make the 卒 after them a soldier or
// a servant (士卒, 哨卒, 隶卒) or "hurried" (仓卒), not a death.
var notDeathBefore = charSet("not_death_before")

// isDeath reports whether 卒 (or 薨, 殁) in c means the person died rather
// than "finally" or "soldier".
func isDeath(c string) bool {
	rs := []rune(c)
	for i, r := range rs {
		if r != '卒' && r != '薨' && r != '殁' {
			continue
		}
		if i > 0 && strings.ContainsRune(notDeathBefore, rs[i-1]) {
			continue
		}
		if i+1 == len(rs) {
			return true
		}
		switch rs[i+1] {
		case '于', '年', '官', '时', '后', '谥', '赠':
			return true
		}
	}
	return false
}

// deathFillers are the death verb and its usual fillers, removed in order.
var deathFillers = wordList("death_fillers")

// deathValue is what a death clause says about when: the clause without
// the death verb and its usual fillers.
func deathValue(c string) string {
	v := c
	for _, w := range deathFillers {
		v = strings.ReplaceAll(v, w, "")
	}
	return strings.TrimSpace(v)
}

func runeLen(s string) int { return len([]rune(s)) }

var (
	reEnClauseSep = regexp.MustCompile(`\s*(?:;|,\s+and\s+|,|\s+and\s+)\s*`)
	reEnCourtesy  = regexp.MustCompile(`(?i)\b(?:courtesy name|styled|zi)\s+([A-Z][\w'-]*(?:\s[A-Z][\w'-]*)?)`)
	reEnArt       = regexp.MustCompile(`(?i)\b(?:art name|pseudonym|hao)\s+([A-Z][\w'-]*(?:\s[A-Z][\w'-]*)?)`)
	reEnNative    = regexp.MustCompile(`(?i)\b(?:a native of|native of|came from|was from)\s+([A-Z][\w' -]*)`)
	reEnOffice    = regexp.MustCompile(`(?i)\b(?:appointed|became|served as|promoted to|made)\s+(?:an?\s+|the\s+)?(.+)`)
	reEnDied      = regexp.MustCompile(`(?i)\bdied\b|\bdeath\b`)
	// reEnDiedAge is a death with the age: "He died at 71", "died in 1571,
	// aged seventy-one". A number of four digits after "at" is a year.
	reEnDiedAge = regexp.MustCompile(`(?i)\b(?:died|death)\b.*?\b(?:(?:at\s+the\s+age\s+of|aged)\s+(\d{1,3}|[a-z]+(?:-[a-z]+)?)|at\s+(\d{1,3}))\b`)
	reEnBorn    = regexp.MustCompile(`(?i)\bborn\b`)
	// reEnAgeAlone is a clause that gives only an age ("aged 71"): after a
	// death clause, the age at death.
	reEnAgeAlone = regexp.MustCompile(`(?i)^(?:aged|at\s+the\s+age\s+of)\s+(\d{1,3}|[a-z]+(?:-[a-z]+)?)$`)
)

// atomizeEnglish splits an English sentence at clause boundaries.
func atomizeEnglish(tab *era.Table, sentence string) []atom {
	rs := []rune(sentence)
	end := len(rs)
	for end > 0 && (rs[end-1] == '.' || rs[end-1] == '!' || rs[end-1] == '?' || unicode.IsSpace(rs[end-1])) {
		end--
	}
	body := string(rs[:end])
	var out []atom
	for _, d := range findDates(tab, body) {
		if d.kind != dateGregorian && d.kind != dateEra {
			continue
		}
		dd := d
		val := d.text
		if d.kind == dateGregorian {
			val = strconv.Itoa(d.gregorian)
		}
		out = append(out, atom{fact: schemas.Fact{Text: strings.TrimSpace(d.text), Relation: RelDate, Value: val},
			start: d.start, end: d.end, date: &dd, parts: [][2]int{{d.start, d.end}}})
	}
	// Byte offsets of clause boundaries, converted to runes.
	idx := text.NewIndex(body)
	prev := 0
	cuts := append(reEnClauseSep.FindAllStringIndex(body, -1), []int{len(body), len(body)})
	for _, c := range cuts {
		seg := body[prev:c[0]]
		s, e := idx.Rune(prev), idx.Rune(c[0])
		prev = c[1]
		if strings.TrimSpace(seg) == "" || len(strings.Fields(seg)) < 2 && len(out) > 0 {
			if len(out) > 0 && strings.TrimSpace(seg) != "" {
				// A single word joins the clause before it (lists of names).
				last := &out[len(out)-1]
				if last.date == nil {
					last.end = e
					last.parts = [][2]int{{last.start, e}}
					last.fact.Text = strings.TrimSpace(string(rs[last.start:e]))
				}
			}
			continue
		}
		rel, val := RelText, ""
		switch {
		case reEnCourtesy.MatchString(seg):
			rel, val = schemas.RelCourtesyName, reEnCourtesy.FindStringSubmatch(seg)[1]
		case reEnArt.MatchString(seg):
			rel, val = schemas.RelArtName, reEnArt.FindStringSubmatch(seg)[1]
		case reEnNative.MatchString(seg):
			rel, val = schemas.RelNativePlace, strings.TrimSpace(reEnNative.FindStringSubmatch(seg)[1])
		case strings.Contains(strings.ToLower(seg), "jinshi") || strings.Contains(strings.ToLower(seg), "examination"):
			rel = schemas.RelJinshi
		case reEnOffice.MatchString(seg):
			rel, val = schemas.RelOffice, strings.TrimSpace(reEnOffice.FindStringSubmatch(seg)[1])
		case reEnAgeAlone.MatchString(strings.TrimSpace(seg)) && lastRelation(out) == schemas.RelDeath:
			rel, val = schemas.RelDeathAge, reEnAgeAlone.FindStringSubmatch(strings.TrimSpace(seg))[1]
		case reEnDiedAge.MatchString(seg):
			m := reEnDiedAge.FindStringSubmatch(seg)
			rel, val = schemas.RelDeathAge, m[1]+m[2]
		case reEnDied.MatchString(seg):
			rel = schemas.RelDeath
		case reEnBorn.MatchString(seg):
			rel = schemas.RelBirth
		}
		out = append(out, atom{fact: schemas.Fact{Text: strings.TrimSpace(seg), Relation: rel, Value: val},
			start: s, end: e, parts: [][2]int{{s, e}}})
	}
	sortAtoms(out)
	return out
}

func sortAtoms(as []atom) {
	for i := 1; i < len(as); i++ {
		for j := i; j > 0 && as[j].start < as[j-1].start; j-- {
			as[j], as[j-1] = as[j-1], as[j]
		}
	}
}

// lastRelation is the relation of the last clause atom (dates aside).
func lastRelation(atoms []atom) string {
	for i := len(atoms) - 1; i >= 0; i-- {
		if atoms[i].date == nil {
			return atoms[i].fact.Relation
		}
	}
	return ""
}
