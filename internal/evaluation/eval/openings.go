package eval

import (
	"strings"
	"unicode"

	"github.com/annalist-dev/annalist/internal/lang/text"
	"github.com/annalist-dev/annalist/schemas"
)

// The entry score reads the entries of a biography volume from its text
// alone, with rules of its own, independent of the chunker's: an entry is
// a paragraph (a line) that opens "Name，" or "Name者，" and whose next
// clause says the name is a person's: a courtesy or other name (字, 号,
// 初名 …), a clan (…氏), an ancestry or residence (其先, 先世, 世居), a
// native place (…人, …人也), a banner (隶正蓝旗) or a kinship (武善弟,
// 太祖第十四子); a scholars' record (学案) writes the courtesy name in the
// name's clause ("韩邦奇字汝节，号苑洛"). Entries
// of attached people and relatives count as entries: each is a person's
// own entry.
//
// Recall is the share of these paragraphs at which a chunk with a
// subject begins. Precision is the share of chunks with a subject that
// begin at such a paragraph or at a sentence inside a paragraph that opens
// the same way (an entry whose paragraph break was lost in
// transcription: "田雄，直隶宣化人。马得功，…").

// openingScore is one volume's share of the entry score.
type openingScore struct {
	gold, found, chunks, correct int
	missed, wrong                []string
}

// maxOpeningName bounds the name of an opening; a prince's title and
// name, or a clan-prefixed Manchu name, may reach eight characters.
const maxOpeningName = 8

// scoreOpenings scores the chunks of a volume against the entry openings
// of its text (the text the chunker saw).
func scoreOpenings(doc string, chunks []schemas.Chunk) openingScore {
	rs := []rune(doc)
	gold := map[int]bool{}   // paragraph openings
	inside := map[int]bool{} // openings at a sentence inside a paragraph
	for _, p := range entryOpenings(rs) {
		if p.paragraph {
			gold[p.pos] = true
		} else {
			inside[p.pos] = true
		}
	}
	var s openingScore
	begun := map[int]bool{}
	for _, c := range chunks {
		if c.Subject == "" {
			continue
		}
		p := c.Start
		for p < len(rs) && p < c.End && unicode.IsSpace(rs[p]) {
			p++
		}
		s.chunks++
		begun[p] = true
		if gold[p] || inside[p] {
			s.correct++
		} else {
			s.wrong = append(s.wrong, c.Subject+" @ "+snippet(rs, p))
		}
	}
	for p := range gold {
		s.gold++
		if begun[p] {
			s.found++
		} else {
			s.missed = append(s.missed, snippet(rs, p))
		}
	}
	return s
}

// snippet is the text at p up to its first full stop or 16 characters.
func snippet(rs []rune, p int) string {
	e := p
	for e < len(rs) && e-p < 16 && rs[e] != '\n' {
		e++
		if rs[e-1] == '。' {
			break
		}
	}
	return string(rs[p:e])
}

// openingAt is an entry opening: its rune offset, and whether it opens a
// paragraph.
type openingAt struct {
	pos       int
	paragraph bool
}

// entryOpenings finds the entry openings of a volume, in text order.
func entryOpenings(rs []rune) []openingAt {
	var out []openingAt
	lineStart := true
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == '\n':
			lineStart = true
			continue
		case lineStart && unicode.IsSpace(r):
			continue
		}
		if lineStart || i > 0 && rs[i-1] == '。' {
			if personOpening(rs, i) {
				out = append(out, openingAt{pos: i, paragraph: lineStart})
			}
		}
		lineStart = false
	}
	return out
}

// personOpening reports whether rs[i:] opens "Name，", "Name者，" or a
// joint "Name、Name，" and a clause of its first sentence says Name is a
// person: the first clause, or the second when it gives a native place,
// a clan or a banner ("志钧，亦三等承恩公，满洲镶黄旗人").
func personOpening(rs []rune, i int) bool {
	e := i
	for {
		s := e
		for e < len(rs) && e-s <= maxOpeningName && text.IsHan(rs[e]) {
			e++
		}
		if e == s || e-s > maxOpeningName || e >= len(rs) {
			return false
		}
		if timeName(rs[s:e]) || strings.ContainsRune("不而遂既因", rs[s]) {
			// "二十九年春，…" is a time; "不解绖，…" a clause.
			return false
		}
		if rs[e] != '、' {
			break
		}
		e++
	}
	if rs[e] != '，' {
		return false
	}
	if scholarOpening(rs[i:e]) {
		return personClause(clauseFrom(rs, e+1))
	}
	c1 := clauseFrom(rs, e+1)
	if personClause(c1) {
		return true
	}
	j := e + 1 + len(c1)
	if j < len(rs) && rs[j] == '，' {
		c2 := clauseFrom(rs, j+1)
		return nativeClause(c2) || bannerClause(c2) || clanClause(c2)
	}
	return false
}

// scholarOpening reports the opening of a scholars' record (学案): the
// name and the courtesy or art name in one clause, "韩邦奇字汝节",
// "杨东明号晋菴" — a name of two to four characters, then 字 or 号 and one
// to four characters; the next clause must still say it is a person
// ("…，号苑洛", "…，河南虞城人").
func scholarOpening(run []rune) bool {
	for k := 2; k <= 4 && k < len(run); k++ {
		if (run[k] == '字' || run[k] == '号') && len(run)-k-1 >= 1 && len(run)-k-1 <= 4 {
			return true
		}
	}
	return false
}

// timeName reports a "name" that is a time: 年 after a numeral or a
// relative word ("二十九年春", "元年", "明年"); names hold 年 otherwise
// (陈有年).
func timeName(name []rune) bool {
	for k := 1; k < len(name); k++ {
		if name[k] == '年' && strings.ContainsRune("一二三四五六七八九十廿元是明次其翌越逾末初数", name[k-1]) {
			return true
		}
	}
	return false
}

// clauseFrom is the clause of rs that starts at i: up to the next comma,
// full stop, semicolon or line end.
func clauseFrom(rs []rune, i int) []rune {
	j := i
	for j < len(rs) && !strings.ContainsRune("，。；：\n", rs[j]) {
		j++
	}
	return rs[i:j]
}

// nameWords open a clause that gives a person's other names, ancestry or
// residence.
var nameWords = []string{"字", "号", "别号", "自号", "名", "初名", "原名", "本名", "一名", "小字", "小名", "先世", "其先", "世居", "姓", "本姓"}

// kinEnds end a clause that says whose relative a person is.
var kinEnds = []string{"子", "弟", "兄", "孙", "侄", "婿", "甥", "父", "母", "女", "妻", "妾"}

// personClause reports whether the clause after "Name，" says Name is a
// person.
func personClause(c []rune) bool {
	n := len(c)
	if n == 0 || n > 16 {
		return false
	}
	s := string(c)
	for _, w := range nameWords {
		if strings.HasPrefix(s, w) && n <= 12 {
			return true
		}
	}
	if clanClause(c) || nativeClause(c) || bannerClause(c) {
		return true
	}
	// "武善弟", "太祖第十四子", "孝感刘应景妻", "熹宗生母也".
	kin := strings.TrimSuffix(s, "也")
	if k := len([]rune(kin)); k >= 2 && k <= 10 && !strings.ContainsAny(kin, "所以为是非不无若而此於于") {
		for _, w := range kinEnds {
			// Whose relative: at least two characters before the kinship
			// word ("君子" is no kinship).
			if strings.HasSuffix(kin, w) && k-len([]rune(w)) >= 2 {
				return true
			}
		}
	}
	return false
}

// clanClause reports a clan: "钮祜禄氏".
func clanClause(c []rune) bool { n := len(c); return n >= 2 && n <= 7 && c[n-1] == '氏' }

// bannerClause reports a banner affiliation: "隶正蓝旗", "镶黄旗汉军".
func bannerClause(c []rune) bool {
	s := string(c)
	if len(c) > 10 || !strings.Contains(s, "旗") {
		return false
	}
	return strings.HasPrefix(s, "隶") || strings.HasSuffix(s, "旗") ||
		strings.HasSuffix(s, "旗汉军") || strings.HasSuffix(s, "旗满洲") || strings.HasSuffix(s, "旗蒙古")
}

// nativeClause reports a native-place clause: "Place人" or "Place人也" of
// at most twelve characters, where the place is not a count ("数百人")
// and the clause has no verb or particle a place name does not hold.
func nativeClause(c []rune) bool {
	n := len(c)
	if n >= 3 && c[n-1] == '也' {
		n--
	}
	if n < 2 || n > 12 || c[n-1] != '人' {
		return false
	}
	if strings.Contains(string(c), "何许人") {
		// "不知何许人": the origin is unknown.
		return true
	}
	if strings.ContainsRune("一二三四五六七八九十百千万数余两几多众", c[n-2]) {
		return false
	}
	for _, r := range c[:n-1] {
		if strings.ContainsRune("之于於得所为以而者不有其可使用令将与皆乃授擢迁拜是自至若此", r) {
			return false
		}
	}
	return true
}
