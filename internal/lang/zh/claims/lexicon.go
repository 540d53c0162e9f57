package claims

import (
	"strings"
	"unicode"

	"github.com/annalist-dev/annalist/internal/lang/profile"
)

// Lexicon is what a sentence is read with: the language of a corpus
// profile and its examination terms, offices and kinship words
// (internal/lang/profile). It is immutable.
type Lexicon struct {
	// english selects the English clause rules; every other language is
	// read with the classical-Chinese ones, whose word lists are empty
	// for a profile without Chinese data.
	english bool
	// examTerms are the examination terms as runes, longest first; a
	// differing segment that holds one is a knowledge_lack error (the
	// knowledge solver looks the term up in the glossary).
	examTerms [][]rune
	// provincialTerms are the terms below the metropolitan examination.
	provincialTerms []string
	// offices end office titles, which make a differing segment a
	// knowledge_lack error.
	offices profile.Offices
	// kinWords open a sentence about a relative of the entry's person.
	kinWords []string
}

// NewLexicon is the lexicon of profile p.
func NewLexicon(p *profile.Profile) *Lexicon {
	l := &Lexicon{english: p.Language == profile.LangEnglish, offices: p.Offices,
		examTerms: runesOf(p.Exams.Select("", "")), provincialTerms: p.Exams.Select(profile.LevelProvincial, "")}
	for _, k := range p.Kin.WithRole(profile.RoleSentence) {
		l.kinWords = append(l.kinWords, k.Word)
	}
	return l
}

// English reports whether sentences are read with the English clause
// rules (the profile's language is English).
func (l *Lexicon) English() bool { return l.english }

// examRankRunes may follow an examination term as its rank (进士第一).
func examRank(rs []rune, i int) int {
	if i < len(rs) && rs[i] == '第' {
		j := i + 1
		for j < len(rs) && isNumeral(rs[j]) {
			j++
		}
		if j > i+1 {
			if j < len(rs) && rs[j] == '人' {
				j++
			}
			return j
		}
	}
	return i
}

// officeVerbs introduce an office in a clause (授编修, 擢礼部尚书).
var officeVerbs = wordList("office_verbs")

// hasOfficeSuffix reports whether s ends with an office title.
func (l *Lexicon) hasOfficeSuffix(s string) bool { return l.offices.Recognised(s, 1) }

// examPhrases returns the examination phrases of s (term plus rank), in
// order.
func (l *Lexicon) examPhrases(s string) []string {
	rs := []rune(s)
	var out []string
	for i := 0; i < len(rs); {
		n := l.examTermAt(rs, i)
		if n == 0 {
			i++
			continue
		}
		j := examRank(rs, i+n)
		out = append(out, string(rs[i:j]))
		i = j
	}
	return out
}

// examTails may close an examination phrase after the degree (进士出身).
var examTails = wordList("exam_tails")

// examPassed returns the examination phrase that ends a clause, the form
// in which a clause says its person passed (举万历十一年进士, 叶向高中举人,
// 进士第一, 进士出身); "" when the phrase is not at the end (由进士授编修,
// 与进士韩如璜结乡兵), where the degree qualifies something else.
func (l *Lexicon) examPassed(clause string) string {
	rs := []rune(strings.TrimSpace(clause))
	for _, tail := range examTails {
		tr := []rune(tail)
		if len(rs) > len(tr) && hasRunesAt(rs, len(rs)-len(tr), tr) && l.examTermAt(rs, len(rs)-len(tr)-2) > 0 {
			rs = rs[:len(rs)-len(tr)]
		}
	}
	for i := len(rs) - 1; i >= 0 && i >= len(rs)-8; i-- {
		n := l.examTermAt(rs, i)
		if n == 0 {
			continue
		}
		if examRank(rs, i+n) != len(rs) {
			continue
		}
		// Passing needs a verb or a year before the degree (举进士,
		// 中举人, 登…进士, 万历十一年进士); a bare degree (而举人) is a
		// category of men, not an event.
		if i > 0 && (strings.ContainsRune("举中登成年", rs[i-1]) || l.examTermAt(rs, i-1) > 0) {
			return string(rs[i:])
		}
		return ""
	}
	return ""
}

// provincial reports whether an examination phrase is of the provincial
// level (举人, 乡试, 解元), below the metropolitan 进士.
func (l *Lexicon) provincial(p string) bool {
	for _, t := range l.provincialTerms {
		if strings.Contains(p, t) {
			return true
		}
	}
	return false
}

// examTermAt is the length of the longest examination term at rs[i:], or 0.
func (l *Lexicon) examTermAt(rs []rune, i int) int {
	best := 0
	for _, tr := range l.examTerms {
		if len(tr) > best && hasRunesAt(rs, i, tr) {
			best = len(tr)
		}
	}
	return best
}

func hasRunesAt(rs []rune, i int, p []rune) bool {
	if i < 0 || i+len(p) > len(rs) {
		return false
	}
	for k, r := range p {
		if rs[i+k] != r {
			return false
		}
	}
	return true
}

// isNumeral reports whether r is a Chinese numeral used in dates and
// counts, or an ASCII digit.
func isNumeral(r rune) bool {
	switch r {
	case '〇', '零', '一', '二', '三', '四', '五', '六', '七', '八', '九', '十', '百', '千', '廿', '卅', '两':
		return true
	}
	return r >= '0' && r <= '9'
}

// nameMarkers precede a name slot: a courtesy, art or posthumous name.
var nameMarkers = wordList("name_markers")

// punct reports whether r separates clauses or is otherwise not content.
func punct(r rune) bool {
	return unicode.IsPunct(r) || unicode.IsSymbol(r) || unicode.IsSpace(r)
}
