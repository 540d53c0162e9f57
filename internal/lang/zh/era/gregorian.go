package era

import "unicode"

// Year is a Gregorian year written in a text.
type Year struct {
	Value int    // negative before the common era (公元前140年 is -140)
	Text  string // the digits and a 年 right after them, e.g. 1583年 or 1583
	Start int    // rune offset in the searched text
	End   int    // rune offset just past Text (half-open)
}

// FindGregorian returns the Gregorian years written in text, in order:
// four digits followed by 年 (1583年), three or four digits inside
// parentheses, alone or as a range ((1583), （1583年）, （1559—1627）),
// one to four digits after 公元 or 公元前 followed by 年 (公元前140年), and
// the English forms "in 1583", "in AD 1583", "in the year 1583". ASCII and
// full-width digits are read. Other numbers are not years and are skipped.
func FindGregorian(text string) []Year {
	var out []Year
	rs := []rune(text)
	for i := 0; i < len(rs); {
		if _, ok := arabicValue(rs[i]); !ok {
			i++
			continue
		}
		j, v := i, 0
		for j < len(rs) {
			d, ok := arabicValue(rs[j])
			if !ok {
				break
			}
			if j-i < 5 {
				v = v*10 + d
			}
			j++
		}
		n := j - i
		end := j
		if j < len(rs) && rs[j] == '年' {
			end = j + 1
		}
		nian := end > j
		era, bce := commonEraBefore(rs, i)
		// A year is never written with a leading zero, and there is no year 0.
		lead, _ := arabicValue(rs[i])
		if n <= 4 && lead != 0 && yearAt(rs, i, j, end, n, nian, era) {
			if bce {
				v = -v
			}
			out = append(out, Year{Value: v, Text: string(rs[i:end]), Start: i, End: end})
		}
		i = j
	}
	return out
}

// yearAt decides whether the digit run rs[i:j] (n digits, followed by 年
// up to end when nian) is a year.
func yearAt(rs []rune, i, j, end, n int, nian, era bool) bool {
	if i > 0 && (unicode.IsLetter(rs[i-1]) && rs[i-1] < 0x80 || rs[i-1] == '.' || rs[i-1] == ',') {
		return false // part of a word, a decimal or a grouped number
	}
	if end < len(rs) && rs[end] < 0x80 && (unicode.IsLetter(rs[end]) || rs[end] == '%') {
		return false
	}
	switch {
	case n == 4 && nian:
		return true
	case era && nian:
		return true
	case n >= 3 && inParens(rs, i, end):
		return true
	case n >= 3 && englishIn(rs, i):
		return true
	}
	return false
}

// commonEraBefore reports whether 公元 or 公元前 is written right before
// rs[i], and whether it was 公元前.
func commonEraBefore(rs []rune, i int) (era, bce bool) {
	k := i
	for k > 0 && rs[k-1] == ' ' {
		k--
	}
	if k >= 3 && string(rs[k-3:k]) == "公元前" {
		return true, true
	}
	if k >= 2 && string(rs[k-2:k]) == "公元" {
		return true, false
	}
	return false, false
}

// inParens reports whether rs[i:end] stands inside a short parenthesised
// group that holds nothing but years: digits, 年, 公元(前), 约, spaces and
// range dashes.
func inParens(rs []rune, i, end int) bool {
	const limit = 24
	open := false
	for k := i - 1; k >= 0 && i-k <= limit; k-- {
		if rs[k] == '(' || rs[k] == '（' {
			open = true
			break
		}
		if !yearGroupRune(rs[k]) {
			return false
		}
	}
	if !open {
		return false
	}
	for k := end; k < len(rs) && k-end <= limit; k++ {
		if rs[k] == ')' || rs[k] == '）' {
			return true
		}
		if !yearGroupRune(rs[k]) {
			return false
		}
	}
	return false
}

func yearGroupRune(r rune) bool {
	if _, ok := arabicValue(r); ok {
		return true
	}
	switch r {
	case '年', '公', '元', '前', '约', '約', ' ', '?', '？',
		'-', '–', '—', '－', '~', '～', '至', '到', '、', ',', '，':
		return true
	}
	return false
}

// englishIn reports whether rs[i] follows "in", "in AD", "in A.D." or "in
// the year" as words.
func englishIn(rs []rune, i int) bool {
	k := skipSpaceBack(rs, i)
	if k == i {
		return false
	}
	for _, w := range [...]string{"AD", "A.D.", "the year"} {
		if hasWordBefore(rs, k, w) {
			k = skipSpaceBack(rs, k-len(w))
			break
		}
	}
	return hasWordBefore(rs, k, "in")
}

func skipSpaceBack(rs []rune, k int) int {
	for k > 0 && (rs[k-1] == ' ' || rs[k-1] == '\u00a0') {
		k--
	}
	return k
}

// hasWordBefore reports whether the ASCII word w ends at rs[k] (compared
// without case) and starts a word.
func hasWordBefore(rs []rune, k int, w string) bool {
	if k < len(w) {
		return false
	}
	s := k - len(w)
	for x := 0; x < len(w); x++ {
		if unicode.ToLower(rs[s+x]) != unicode.ToLower(rune(w[x])) {
			return false
		}
	}
	return s == 0 || !unicode.IsLetter(rs[s-1])
}
