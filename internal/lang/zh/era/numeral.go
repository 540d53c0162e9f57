package era

import "strconv"

// digitValue returns the value of a Chinese digit 一…九 (〇 and 零 are 0).
func digitValue(r rune) (int, bool) {
	switch r {
	case '〇', '零':
		return 0, true
	case '一':
		return 1, true
	case '二':
		return 2, true
	case '三':
		return 3, true
	case '四':
		return 4, true
	case '五':
		return 5, true
	case '六':
		return 6, true
	case '七':
		return 7, true
	case '八':
		return 8, true
	case '九':
		return 9, true
	}
	return 0, false
}

// arabicValue returns the value of an ASCII or full-width decimal digit.
func arabicValue(r rune) (int, bool) {
	switch {
	case r >= '0' && r <= '9':
		return int(r - '0'), true
	case r >= '０' && r <= '９':
		return int(r - '０'), true
	}
	return 0, false
}

// isNumeralRune reports whether r can be part of a year numeral.
func isNumeralRune(r rune) bool {
	if _, ok := digitValue(r); ok {
		return true
	}
	if _, ok := arabicValue(r); ok {
		return true
	}
	switch r {
	case '元', '十', '廿', '卄', '卅', '卌', '百', '有':
		return true
	}
	return false
}

// ParseNumeral reads the year number of an era date: 元 is 1, and Chinese
// numerals up to 九百九十九 are read in their usual forms (十一 11, 二十三 23,
// 廿三 23, 卅 30, 卌 40, 四十八 48, 一百零五 105) and in the classical form
// with 有 between tens and units (十有一 11). Arabic digits, ASCII or
// full-width, are read as written. The whole of s must be the numeral, and
// its value at least 1.
func ParseNumeral(s string) (int, bool) {
	if s == "" {
		return 0, false
	}
	if s == "元" {
		return 1, true
	}
	rs := []rune(s)
	if _, ok := arabicValue(rs[0]); ok {
		n := 0
		for _, r := range rs {
			v, ok := arabicValue(r)
			if !ok || n > 99999 {
				return 0, false
			}
			n = n*10 + v
		}
		return n, n > 0
	}
	return parseChinese(rs)
}

// parseChinese reads [[d]百[零]][[d]十|廿|卅|卌][有][d].
func parseChinese(rs []rune) (int, bool) {
	i, n := 0, 0
	digitAt := func(i int) (int, bool) {
		if i >= len(rs) {
			return 0, false
		}
		v, ok := digitValue(rs[i])
		return v, ok && v > 0
	}
	// hundreds
	if d, ok := digitAt(i); ok && i+1 < len(rs) && rs[i+1] == '百' {
		n, i = d*100, i+2
	} else if i < len(rs) && rs[i] == '百' {
		n, i = 100, i+1
	}
	hundreds := n > 0
	if hundreds && i < len(rs) && (rs[i] == '零' || rs[i] == '〇') {
		i++
		if d, ok := digitAt(i); ok && i+1 == len(rs) {
			return n + d, true
		}
		return 0, false
	}
	// tens
	tens := false
	if d, ok := digitAt(i); ok && i+1 < len(rs) && rs[i+1] == '十' {
		n, i, tens = n+d*10, i+2, true
	} else if i < len(rs) {
		switch rs[i] {
		case '十':
			n, i, tens = n+10, i+1, true
		case '廿', '卄':
			n, i, tens = n+20, i+1, true
		case '卅':
			n, i, tens = n+30, i+1, true
		case '卌':
			n, i, tens = n+40, i+1, true
		}
	}
	if tens && i < len(rs) && rs[i] == '有' {
		i++
		if i == len(rs) {
			return 0, false
		}
	}
	// units
	if d, ok := digitAt(i); ok {
		if hundreds && !tens {
			// 一百五 is read as 150 in speech; a year is never written so.
			return 0, false
		}
		n, i = n+d, i+1
	}
	if i != len(rs) || n == 0 {
		return 0, false
	}
	return n, true
}

// chineseDigits holds 〇…九; each is three bytes in UTF-8.
const chineseDigits = "〇一二三四五六七八九"

func chineseDigit(d int) string { return chineseDigits[3*d : 3*d+3] }

// FormatNumeral writes a year number the way era dates write it: 1 is 元,
// 11 is 十一, 23 is 二十三, 105 is 一百零五. Numbers below 1 or above 999 are
// written in Arabic digits.
func FormatNumeral(n int) string {
	switch {
	case n == 1:
		return "元"
	case n < 1 || n > 999:
		return strconv.Itoa(n)
	}
	s := ""
	h, t, u := n/100, n/10%10, n%10
	if h > 0 {
		s = chineseDigit(h) + "百"
		if t == 0 && u > 0 {
			return s + "零" + chineseDigit(u)
		}
		if t > 0 {
			s += chineseDigit(t) + "十"
		}
	} else {
		if t > 1 {
			s = chineseDigit(t)
		}
		if t > 0 {
			s += "十"
		}
	}
	if u > 0 {
		s += chineseDigit(u)
	}
	return s
}
