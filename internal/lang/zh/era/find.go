package era

// Date is an era date: a year of an era (万历十一年) or an approximate time
// within it (洪武初).
type Date struct {
	Era       string // simplified era name, e.g. 万历
	Dynasty   string // dynasty of the era the date resolves to; the preferred one when no era of the name reaches Year
	Year      int    // ordinal year of the era, 1 for 元年; 0 when Approx
	Approx    string // "初" "中" "末" "间" when the text gives no year number
	Gregorian int    // 0 when unknown (approximate, or beyond the era's length)
	Text      string // as written, e.g. 万历十一年
	Start     int    // rune offset in the searched text
	End       int    // rune offset just past the date (half-open)
}

// Format writes the date in simplified characters: 万历十一年, 万历元年,
// 洪武初, 万历间.
func (d Date) Format() string {
	if d.Approx != "" {
		return d.Era + d.Approx
	}
	return d.Era + FormatNumeral(d.Year) + "年"
}

// Find returns every era date in text, in order, with rune offsets. A date
// is an era name followed by a year numeral and 年 (万历十一年, 萬曆十一年,
// 嘉靖四十五年, 建文元年) or by a word of approximate time (洪武初, 嘉靖末年,
// 万历中, 万历年间). An era name alone is not a date. At each position the
// longest era name that makes a date is taken, and a date is never found
// inside another. A year beyond every era of the name is still returned,
// with Gregorian 0.
func (t *Table) Find(text string) []Date {
	// Most sentences hold no era name: spare them the rune slice, and
	// decode only from the first rune that may start one.
	skip, from := t.firstCandidate(text)
	if from < 0 {
		return nil
	}
	var out []Date
	rs := []rune(text[from:])
	for i := 0; i < len(rs); {
		if !t.first.has(rs[i]) {
			i++
			continue
		}
		d, ok := t.dateAt(rs, i)
		if !ok {
			i++
			continue
		}
		i = d.End
		d.Start += skip
		d.End += skip
		out = append(out, d)
	}
	return out
}

// firstCandidate returns the rune and byte offsets of the first rune of
// text that may start an era name, or -1 for the byte offset when none does.
func (t *Table) firstCandidate(text string) (runes, bytes int) {
	for b, r := range text {
		if t.first.has(r) {
			return runes, b
		}
		runes++
	}
	return runes, -1
}

// dateAt returns the date starting at rs[i], trying the era names that
// start there from the longest.
func (t *Table) dateAt(rs []rune, i int) (Date, bool) {
	var ends [8]int
	var names [8]string
	k := 0
	n := t.trie
	for j := i; j < len(rs) && k < len(ends); j++ {
		n = n.next[t.simp.rune(rs[j])]
		if n == nil {
			break
		}
		if n.name != "" {
			ends[k], names[k] = j+1, n.name
			k++
		}
	}
	for k--; k >= 0; k-- {
		if d, ok := t.dateAfter(rs, i, ends[k], names[k]); ok {
			return d, true
		}
	}
	return Date{}, false
}

// dateAfter reads what follows the era name rs[start:nameEnd].
func (t *Table) dateAfter(rs []rune, start, nameEnd int, name string) (Date, bool) {
	d := Date{Era: name, Start: start}
	j := nameEnd
	for j < len(rs) && isNumeralRune(rs[j]) {
		j++
	}
	switch {
	case j > nameEnd:
		if j >= len(rs) || rs[j] != '年' {
			return Date{}, false
		}
		y, ok := ParseNumeral(string(rs[nameEnd:j]))
		if !ok || y < 1 {
			return Date{}, false
		}
		d.Year, d.End = y, j+1
	default:
		end, approx := t.approxAt(rs, nameEnd)
		if approx == "" {
			return Date{}, false
		}
		d.Approx, d.End = approx, end
	}
	d.Text = string(rs[start:d.End])
	e, ok, _ := t.resolve(t.lookup(name), d.Year)
	d.Dynasty = e.Dynasty
	if ok && d.Approx == "" {
		d.Gregorian, _ = e.Gregorian(d.Year)
	}
	return d, true
}

// approxAt matches a word of approximate time at rs[j]; it returns the end
// of the word and its meaning, or "" when there is none.
func (t *Table) approxAt(rs []rune, j int) (int, string) {
	// Longest word first for each meaning.
	forms := [...]struct{ word, approx string }{
		{"初年", "初"}, {"初", "初"},
		{"中叶", "中"}, {"中", "中"},
		{"末年", "末"}, {"季年", "末"}, {"末", "末"},
		{"年间", "间"}, {"间", "间"},
	}
next:
	for _, f := range forms {
		k := j
		for _, r := range f.word {
			if k >= len(rs) || t.simp.rune(rs[k]) != r {
				continue next
			}
			k++
		}
		if f.word == "中" && k < len(rs) && notMiddleAfter(t.simp.rune(rs[k])) {
			// 大同中路, 永平中卫: several era names are also the names of
			// Ming prefectures and garrisons, whose units are named with 中.
			continue
		}
		return k, f.approx
	}
	return j, ""
}

// notMiddleAfter reports whether r after <name>中 makes 中 part of a word
// (a garrison's 中路, 中卫, 中所, 中屯, an office's 中书, 中丞, 中允) rather than
// "in the middle of the era".
func notMiddleAfter(r rune) bool {
	switch r {
	case '路', '卫', '衛', '所', '屯', '书', '書', '丞', '允', '军', '軍':
		return true
	}
	return false
}
