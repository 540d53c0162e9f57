package factkit

import (
	"strings"
	"unicode/utf8"
)

// Matcher finds the successive matches of a pattern in a text, as a
// regexp's FindAllStringSubmatchIndex does.
type Matcher interface {
	FindAllStringSubmatchIndex(s string, n int) [][]int
}

// FindAll returns the matches of re in text, looked for only in the
// sentences that contain one of the anchors (words every match contains).
// A sentence runs from one of the end characters (included, so patterns
// may test for a sentence start) to the next (excluded). The patterns it
// serves never match an end character, so the matches are those of re on
// the whole text; RE2 has no literal to skip ahead to in patterns that
// start with alternations or optional parts, and scanning only the
// anchored sentences is many times faster.
func FindAll(re Matcher, text string, ends *RuneSet, anchors ...string) [][]int {
	var out [][]int
	next := make([]int, len(anchors))
	for i := range next {
		next[i] = -2
	}
	for start := 0; start < len(text); {
		p := -1
		for i, a := range anchors {
			if next[i] == -1 {
				continue
			}
			if next[i] < start {
				j := strings.Index(text[start:], a)
				if j < 0 {
					next[i] = -1
					continue
				}
				next[i] = start + j
			}
			if p < 0 || next[i] < p {
				p = next[i]
			}
		}
		if p < 0 {
			break
		}
		ss := ends.LastIndex(text[start:p])
		if ss < 0 {
			ss = start
		} else {
			ss += start
		}
		se := len(text)
		if j := ends.Index(text[p:]); j >= 0 {
			se = p + j
		}
		for _, m := range re.FindAllStringSubmatchIndex(text[ss:se], -1) {
			for k := range m {
				if m[k] >= 0 {
					m[k] += ss
				}
			}
			out = append(out, m)
		}
		if se == p {
			// The anchor is itself an end character.
			_, size := utf8.DecodeRuneInString(text[se:])
			se += size
		}
		start = se
	}
	return out
}
