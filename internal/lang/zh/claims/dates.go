package claims

import (
	"sort"
	"strings"

	"github.com/annalist-dev/annalist/internal/lang/zh/era"
)

// Kinds of date expressions.
const (
	dateEra       = iota // an era date: 万历十一年, 嘉靖初
	dateRelative         // a year, month or day without an era name: 二十六年, 五月, 明年
	dateGregorian        // a Gregorian year: 1583年, (1583)
)

// dateSpan is one date expression in a text, in rune offsets of that text.
type dateSpan struct {
	start, end int
	text       string
	kind       int
	era        string // simplified era name, when written
	year       int    // ordinal year of the era or relative year; 0 when none
	month      string // the month as written (五月, 闰三月), "" when none
	// gregorian is the year written (dateGregorian) or the one the era
	// table derives (dateEra, 0 when unknown).
	gregorian int
}

// relativeWords are year words that stand for a date without numbers.
var relativeWords = wordList("relative_dates")

// durationBefore are characters that make the years after them a length
// of time (居三年, 凡五年, 历十年, 积二十年) rather than a date.
var durationBefore = charSet("duration_before")

// findDates returns the date expressions of s in order, without overlap:
// era dates found by the era table (with the month and day that follow),
// Gregorian years, then numeral years, months and days and relative year
// words not already covered.
func findDates(tab *era.Table, s string) []dateSpan {
	rs := []rune(s)
	covered := make([]bool, len(rs)+1)
	var out []dateSpan
	add := func(d dateSpan) {
		for i := d.start; i < d.end; i++ {
			if covered[i] {
				return
			}
		}
		for i := d.start; i < d.end; i++ {
			covered[i] = true
		}
		d.text = string(rs[d.start:d.end])
		out = append(out, d)
	}
	for _, d := range tab.Find(s) {
		if d.Start < 0 || d.End > len(rs) || d.Start >= d.End {
			continue
		}
		end, month := monthDayAfter(rs, d.End)
		add(dateSpan{start: d.Start, end: end, kind: dateEra, era: d.Era, year: d.Year, month: month, gregorian: d.Gregorian})
	}
	for _, y := range era.FindGregorian(s) {
		if y.Start < 0 || y.End > len(rs) || y.Start >= y.End {
			continue
		}
		add(dateSpan{start: y.Start, end: y.End, kind: dateGregorian, gregorian: y.Value})
	}
	for i := 0; i < len(rs); i++ {
		if covered[i] {
			continue
		}
		if w := relativeWordAt(rs, i); w > 0 {
			end, month := monthDayAfter(rs, i+w)
			add(dateSpan{start: i, end: end, kind: dateRelative, month: month})
			i = end - 1
			continue
		}
		if !isNumeral(rs[i]) && rs[i] != '元' {
			continue
		}
		// A numeral run that follows 年 is an age (年六十有九), not a date.
		if i > 0 && (rs[i-1] == '年' || isNumeral(rs[i-1])) {
			continue
		}
		j := i
		for j < len(rs) && (isNumeral(rs[j]) || rs[j] == '余' && j > i) {
			j++
		}
		if rs[i] == '元' {
			j = i + 1
		}
		if j < len(rs) && rs[j] == '年' {
			if i > 0 && strings.ContainsRune(durationBefore, rs[i-1]) {
				// 居三年, 凡五年: a length of time, not a date.
				i = j
				continue
			}
			year, _ := era.ParseNumeral(string(rs[i:j]))
			end, month := monthDayAfter(rs, j+1)
			add(dateSpan{start: i, end: end, kind: dateRelative, year: year, month: month})
			i = end - 1
			continue
		}
		if rs[i] != '元' {
			if end, month := monthDayAfter(rs, i); month != "" {
				add(dateSpan{start: i, end: end, kind: dateRelative, month: month})
				i = end - 1
			}
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].start < out[b].start })
	return out
}

// relativeWordRunes is relativeWords as runes, made once: findDates
// tries them at every position of every reference.
var relativeWordRunes = runesOf(relativeWords)

func runesOf(ws []string) [][]rune {
	out := make([][]rune, len(ws))
	for i, w := range ws {
		out[i] = []rune(w)
	}
	return out
}

func relativeWordAt(rs []rune, i int) int {
	for _, wr := range relativeWordRunes {
		if hasRunesAt(rs, i, wr) {
			return len(wr)
		}
	}
	return 0
}

// monthDayAfter extends a date at rs[i:] with a season, a month (五月,
// 闰三月, 正月, 冬十月) and a day (十五日, 甲子, 朔) when they follow; it
// returns the new end and the month text.
func monthDayAfter(rs []rune, i int) (end int, month string) {
	end = i
	j := i
	if j < len(rs) && (rs[j] == '春' || rs[j] == '夏' || rs[j] == '秋' || rs[j] == '冬') {
		j++
		end = j
	}
	k := j
	if k < len(rs) && rs[k] == '闰' {
		k++
	}
	m := k
	for m < len(rs) && (isNumeral(rs[m]) || rs[m] == '正' || rs[m] == '腊') {
		m++
	}
	if m > k && m < len(rs) && rs[m] == '月' {
		month = string(rs[j : m+1])
		end = m + 1
		d := end
		for d < len(rs) && isNumeral(rs[d]) {
			d++
		}
		switch {
		case d > end && d < len(rs) && rs[d] == '日':
			end = d + 1
		case end+1 < len(rs) && isStem(rs[end]) && isBranch(rs[end+1]):
			end += 2
		case end < len(rs) && (rs[end] == '朔' || rs[end] == '望' || rs[end] == '晦'):
			end++
		}
	}
	return end, month
}

func isStem(r rune) bool {
	switch r {
	case '甲', '乙', '丙', '丁', '戊', '己', '庚', '辛', '壬', '癸':
		return true
	}
	return false
}

func isBranch(r rune) bool {
	switch r {
	case '子', '丑', '寅', '卯', '辰', '巳', '午', '未', '申', '酉', '戌', '亥':
		return true
	}
	return false
}

// sameDate reports whether two date expressions name the same time, as far
// as both say: era names must agree when both give one, years when both
// give one, months when both give one. A Gregorian year equals an era date
// whose Gregorian year the table derives.
func sameDate(a, b dateSpan) bool {
	if a.text == b.text {
		return true
	}
	if a.kind == dateGregorian || b.kind == dateGregorian {
		return a.gregorian != 0 && a.gregorian == b.gregorian
	}
	if a.era != "" && b.era != "" && a.era != b.era {
		return false
	}
	// An approximate date (万历中, 嘉靖初) admits any year of its era.
	if a.era != "" && a.era == b.era && (a.kind == dateEra && a.year == 0 || b.kind == dateEra && b.year == 0) {
		return true
	}
	if a.year == 0 && b.year == 0 && a.month == "" && b.month == "" {
		return false // words such as 明年 match only as written
	}
	if a.year != b.year && a.year != 0 && b.year != 0 {
		return false
	}
	if (a.year == 0) != (b.year == 0) {
		return false
	}
	if a.month != "" && b.month != "" && a.month != b.month {
		return false
	}
	return true
}
