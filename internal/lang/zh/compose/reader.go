package compose

import (
	"cmp"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/internal/lang/profile"
	"github.com/annalist-dev/annalist/internal/lang/zh/era"
)

// Reader reads the passages of a corpus as the offline drafter needs
// them: the year a sentence's words date it to, whether the subject is
// the topic of one of its clauses, and the part of a long sentence a page
// copies. NewReader gives the reader of a profile's texts.
type Reader struct {
	// Era converts era dates to Gregorian years.
	Era *era.Table
	// Years finds the years a text counts at the start of a clause (四十年,
	// 明年, 是年: the profile's Writing.NotableYears); nil counts none.
	Years *regexp.Regexp
	// Offices is the profile's office lexicon, by which a clause may open
	// with an office title before the subject's name.
	Offices profile.Offices
	// Language is the profile's language: a copied part of a sentence of
	// any other language than Chinese that has lost its end mark closes
	// with ".".
	Language string
}

// NewReader returns the reader of a profile's texts, dating them by the
// era table.
func NewReader(p *profile.Profile, t *era.Table) Reader {
	return Reader{Era: t, Years: p.Writing.NotableYears, Offices: p.Offices, Language: p.Language}
}

// Clock is what a reader knows of the time while reading a text: the era
// of the last era date read and the year last read.
type Clock struct {
	era  era.Era
	year int
}

// Dates reads a text in time order, sentence by sentence, and returns the
// Gregorian year each is dated to: the first date it gives — an era date
// (one written with an approximate time, 万历中, at that part of the era),
// a Gregorian year, or, at the start of a clause, a year the text counts
// in the era it last named (四十年, 明年, 是年) — or, when it gives none,
// the year last read (0 before any).
func (r Reader) Dates(texts []string) []int {
	out := make([]int, len(texts))
	var c Clock
	for i, s := range texts {
		if out[i], _ = r.Read(s, &c); out[i] == 0 {
			out[i] = c.year
		}
	}
	return out
}

// DateOf is the year a sentence s of a text is dated to (0: none): its
// own date, or a year it counts (是年, 明年, 四十年) from the sentence right
// before it, before ("" for none), when that one names its date (嘉靖三十
// 二年，…。是年，…). A count goes no further back: such a text may be about
// other men at other times, and an era named paragraphs before, or in
// passing (自万历末至是), is no longer the one it counts in.
func (r Reader) DateOf(before, s string) int {
	var c Clock
	if before != "" {
		if _, named := r.Read(before, &c); !named {
			c = Clock{}
		}
	}
	y, _ := r.Read(s, &c)
	return y
}

// timeMark is a date read in a text, by its rune offset.
type timeMark struct {
	at, end int
	year    int
	era     *era.Era
	count   string // a year counted in the era last named, as written
}

// Read returns the first year s gives (0: none), moving c on to the last,
// and whether s names a date of its own (an era date or a Gregorian year,
// not only a counted one).
func (r Reader) Read(s string, c *Clock) (int, bool) {
	var marks []timeMark
	for _, d := range r.Era.Find(s) {
		e, ok := r.Era.Resolve(d.Era, d.Year)
		switch {
		case !ok:
		case d.Gregorian != 0:
			marks = append(marks, timeMark{at: d.Start, end: d.End, year: d.Gregorian, era: &e})
		case d.Approx != "":
			marks = append(marks, timeMark{at: d.Start, end: d.End, year: approxYear(e, d.Approx), era: &e})
		}
	}
	for _, y := range era.FindGregorian(s) {
		if !slices.ContainsFunc(marks, func(m timeMark) bool { return y.Start < m.end && m.at < y.End }) {
			marks = append(marks, timeMark{at: y.Start, end: y.End, year: y.Value})
		}
	}
	if r.Years != nil {
		marks = append(marks, countedYears(r.Years, s, marks)...)
	}
	slices.SortFunc(marks, func(a, b timeMark) int { return cmp.Compare(a.at, b.at) })
	first, named := 0, false
	for _, m := range marks {
		y := m.year
		switch {
		case m.era != nil:
			c.era = *m.era
		case m.count != "":
			y = counted(m.count, c)
		}
		if y == 0 {
			continue
		}
		named = named || m.count == ""
		c.year = y
		if first == 0 {
			first = y
		}
	}
	return first, named
}

// countedYears are the years s counts at the start of a clause (the
// profile's year words: 四十年夏，…; 明年，…), outside the dates already
// read.
func countedYears(re *regexp.Regexp, s string, marks []timeMark) []timeMark {
	var out []timeMark
	for _, loc := range re.FindAllStringIndex(s, -1) {
		lead := s[:loc[0]]
		if lead != "" {
			r, _ := utf8.DecodeLastRuneInString(lead)
			if !strings.ContainsRune(ClauseEnds, r) && r != ' ' {
				continue
			}
		}
		at := utf8.RuneCountInString(lead)
		end := at + utf8.RuneCountInString(s[loc[0]:loc[1]])
		if slices.ContainsFunc(marks, func(m timeMark) bool { return at < m.end && m.at < end }) {
			continue
		}
		out = append(out, timeMark{at: at, end: end, count: s[loc[0]:loc[1]]})
	}
	return out
}

// counted is the Gregorian year of a counted year: a numeral in the era
// last named (四十年), the year after the one last read (明年), or that
// year itself (是年, 其年); 0 when the reader knows no era or year to
// count from. A numeral that counts back from the year last read in that
// era is of a reign the text did not name (神宗即位 … 十一年 after 嘉靖
// 四十一年): the reader no longer knows the era, and c forgets it.
func counted(w string, c *Clock) int {
	n := strings.TrimSuffix(w, "年")
	if v, ok := era.ParseNumeral(n); ok {
		if c.era.Name == "" {
			return 0
		}
		g, ok := c.era.Gregorian(v)
		if !ok || c.year != 0 && g < c.year && c.year <= c.era.End+1 {
			c.era = era.Era{}
			return 0
		}
		return g
	}
	if c.year == 0 {
		return 0
	}
	if strings.HasPrefix(n, "明") {
		return c.year + 1
	}
	return c.year
}

// approxYear places an approximate era date (era.Date's Approx) in its
// era: its first year for 初, its last for 末, its middle otherwise (中,
// 间).
func approxYear(e era.Era, approx string) int {
	switch approx {
	case "初":
		return e.Start
	case "末":
		return e.End
	}
	return e.Start + (e.End-e.Start)/2
}

// Topical reports whether one of the subject's names opens a clause of s,
// alone or after an office title (大学士申时行等言): he is that clause's
// topic, not a name in a list (徐阶、张居正、申时行…) or an object.
func (r Reader) Topical(s string, names []string) bool {
	for _, n := range names {
		for off := 0; ; {
			i := strings.Index(s[off:], n)
			if i < 0 {
				break
			}
			i += off
			off = i + len(n)
			lead := s[:i]
			if b := strings.LastIndexAny(lead, ClauseEnds); b >= 0 {
				_, w := utf8.DecodeRuneInString(lead[b:])
				lead = lead[b+w:]
			}
			if lead = strings.TrimSpace(lead); lead == "" || r.title(lead) {
				return true
			}
		}
	}
	return false
}

// maxTitleRunes bounds the office title a clause may open with before the
// subject's name.
const maxTitleRunes = 8

// title reports whether s reads as an office title before a name: it ends
// with an office term of the profile's lexicon (大学士, 巡抚都御史, 南京吏部
// 尚书), is no longer than the longest titles the lexicon's terms head
// (太子太保礼部尚书), and gives no date (十三年七月与副将 is a clause of its
// own that names him as a companion).
func (r Reader) title(s string) bool {
	if utf8.RuneCountInString(s) > maxTitleRunes || !r.Offices.Recognised(s, 2) {
		return false
	}
	var c Clock
	if y, _ := r.Read(s, &c); y != 0 {
		return false
	}
	return r.Years == nil || !r.Years.MatchString(s)
}

// Cut is the part of a sentence a page copies: its rune span in the
// sentence, its words closed with an end mark, and whether it starts
// where the sentence does.
type Cut struct {
	Start, End int
	Text       string
	First      bool
}

// Extract is the part of a sentence s of another document that a page
// copies: the whole sentence when it has at most limit characters, else
// the clause in which the subject (one of names) is first named, with the
// clause before it when that one dates it, and as many clauses after it
// as the bound allows (what he did follows his name; the clauses before
// it are another's), closed with the sentence's end mark. ok is false
// when that clause alone is too long.
func (r Reader) Extract(s string, names []string, limit int) (Cut, bool) {
	rs := []rune(s)
	if len(rs) <= limit {
		return Cut{Start: 0, End: len(rs), Text: s, First: true}, true
	}
	at := -1
	for _, n := range names {
		if i := strings.Index(s, n); i >= 0 && (at < 0 || utf8.RuneCountInString(s[:i]) < at) {
			at = utf8.RuneCountInString(s[:i])
		}
	}
	if at < 0 {
		return Cut{}, false
	}
	// Clause spans [start, end), each with its closing mark.
	var spans [][2]int
	start := 0
	for i, x := range rs {
		if strings.ContainsRune(ClauseEnds, x) {
			spans = append(spans, [2]int{start, i + 1})
			start = i + 1
		}
	}
	if start < len(rs) {
		spans = append(spans, [2]int{start, len(rs)})
	}
	k := slices.IndexFunc(spans, func(sp [2]int) bool { return sp[0] <= at && at < sp[1] })
	lo, hi := k, k
	fits := func(lo, hi int) bool { return spans[hi][1]-spans[lo][0] < limit } // room for the end mark
	if k < 0 || !fits(lo, hi) {
		return Cut{}, false
	}
	if lo > 0 && fits(lo-1, hi) {
		var c Clock
		if y, _ := r.Read(string(rs[spans[lo-1][0]:spans[lo-1][1]]), &c); y != 0 {
			lo--
		}
	}
	for hi+1 < len(spans) && fits(lo, hi+1) {
		hi++
	}
	b, e := spans[lo][0], spans[hi][1]
	body := strings.TrimRightFunc(string(rs[b:e]), func(x rune) bool {
		return strings.ContainsRune(ClauseEnds+"、 ", x)
	})
	end := "。"
	if last, _ := utf8.DecodeLastRuneInString(s); EndsSentence(string(last)) {
		end = string(last)
	} else if r.Language != "" && r.Language != profile.LangChinese {
		end = "."
	}
	return Cut{Start: b, End: b + utf8.RuneCountInString(body), Text: body + end, First: lo == 0}, true
}
