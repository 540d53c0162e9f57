package compose

import (
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/internal/lang/profile"
	"github.com/annalist-dev/annalist/internal/lang/zh/era"
)

// plainExam is the examination without a rank: the jinshi degree.
const plainExam = "进士"

// Examination is the sentence of the subject's examination:
// "{era date}（{Gregorian}年），{name}举进士。", or with a rank
// "{era date}（{Gregorian}年）{phrase}。" in the source's words (ExamPhrase:
// 万历十一年进士第一, 天顺四年会试第一). The Gregorian year is left out when
// year is 0.
func Examination(name, date string, year int, phrase string) string {
	var b strings.Builder
	b.WriteString(date)
	if year != 0 {
		b.WriteString("（" + GregorianText(year) + "）")
	}
	if phrase != plainExam {
		b.WriteString(phrase + "。")
	} else {
		b.WriteString("，" + name + "举进士。")
	}
	return b.String()
}

// GregorianText is a Gregorian year as a sentence writes it beside an
// era date: 1583年.
func GregorianText(year int) string { return strconv.Itoa(year) + "年" }

// ExamPhrase is the examination as its evidence words it after the date
// value ("进士第三人", "会试第一", "进士及第"), or "进士" when the fact has no
// rank (ranked false) or its evidence cannot be read so.
func ExamPhrase(value, evidence string, ranked bool) string {
	i := strings.Index(evidence, value)
	if i < 0 || !ranked {
		return plainExam
	}
	phrase := strings.TrimRight(evidence[i+len(value):], "，。；、 ")
	if !strings.Contains(phrase, "第") || utf8.RuneCountInString(phrase) > 8 {
		return plainExam
	}
	return phrase
}

// Gregorian is the Gregorian year of an era date written alone, 0 when
// there is none: the date is approximate (万历中), the table cannot place
// it, or the text is more than the date.
func Gregorian(t *era.Table, date string) int {
	ds := t.Find(date)
	if len(ds) != 1 || ds[0].Approx != "" || ds[0].Start != 0 || ds[0].End != utf8.RuneCountInString(date) {
		return 0
	}
	return ds[0].Gregorian
}

// Career is the sentence listing offices held: "历官{o1}、{o2}、{o3}。".
func Career(titles []string) string { return "历官" + strings.Join(titles, "、") + "。" }

// Highest is the sentence of the highest office: "官至{title}。".
func Highest(title string) string { return "官至" + title + "。" }

// Anaphoric reports whether an office title names its office only in its
// sentence: 本部尚书, "minister of the same ministry".
func Anaphoric(title string) bool { return strings.HasPrefix(title, "本") }

// rePosthumous is a posthumous name given: 谥X, 追谥X, 赐谥X (not 尊谥, an
// honorific of a living emperor or empress).
var rePosthumous = regexp.MustCompile(`(?:^|，|` + alternation("posthumous_verbs") + `)谥(?:曰)?\p{Han}{2}(?:[，。；]|$)`)

// posthumousUnfit are the words that keep a sentence from being copied
// for the posthumous name (data/posthumous_unfit.txt).
var posthumousUnfit = strings.Join(words.List("posthumous_unfit"), "")

// PosthumousAt is the byte offset at which s gives a posthumous name (the
// match of its clause, from the mark or verb before 谥), -1 when it gives
// none.
func PosthumousAt(s string) int {
	loc := rePosthumous.FindStringIndex(s)
	if loc == nil {
		return -1
	}
	return loc[0]
}

// PosthumousUnfit reports whether a sentence that gives a posthumous name
// may not be copied for it: a death in it is someone else's (the
// subject's death has its own sentence), and a colon opens a quotation.
func PosthumousUnfit(s string) bool { return strings.ContainsAny(s, posthumousUnfit) }

// PosthumousClause is the clause of s that gives the posthumous name found
// at byte offset at (PosthumousAt), and that clause written as a sentence.
func PosthumousClause(s string, at int) (clause, sentence string) {
	i := at + strings.Index(s[at:], "谥")
	start := strings.LastIndex(s[:i], "，") + len("，")
	if start < len("，") {
		start = 0
	}
	end := strings.IndexAny(s[i:], "，。；")
	if end < 0 {
		end = len(s) - i
	}
	clause = s[start : i+end]
	return clause, clause + "。"
}

// sectionTitles are the titles of a biography's sections by language
// (data/section_titles.tsv).
var sectionTitles = func() map[string][2]string {
	m := map[string][2]string{}
	for _, f := range table("section_titles.tsv", 3) {
		m[f[0]] = [2]string{f[1], f[2]}
	}
	return m
}()

// SectionTitles are the titles of a biography's sections in a language:
// the life, and the part for evidence from other documents; a language
// without titles of its own takes the English ones.
func SectionTitles(lang string) (life, other string) {
	t, ok := sectionTitles[lang]
	if !ok {
		t = sectionTitles[profile.LangEnglish]
	}
	return t[0], t[1]
}
