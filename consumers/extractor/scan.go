package extractor

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// findAll returns the matches of re in text, looked for only in the
// sentences that contain one of the anchors (words every match contains).
// A sentence runs from one of the end characters (included, so patterns
// may test for a sentence start) to the next (excluded). The patterns it
// serves never match an end character, so the matches are those of re on
// the whole text; RE2 has no literal to skip ahead to in patterns that
// start with alternations or optional parts, and scanning only the
// anchored sentences is many times faster.
func findAll(re matcher, text, ends string, anchors ...string) [][]int {
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
		ss := lastIndexAny(text[start:p], ends)
		if ss < 0 {
			ss = start
		} else {
			ss += start
		}
		se := len(text)
		if j := indexAny(text[p:], ends); j >= 0 {
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

// endSets hold the end characters findAll is given, as sets.
var endSets = map[string]*runeSet{hanEnds: hanEndSet}

// indexAny and lastIndexAny are strings.IndexAny and LastIndexAny.
func indexAny(s, chars string) int {
	if set, ok := endSets[chars]; ok {
		return set.index(s)
	}
	return strings.IndexAny(s, chars)
}

func lastIndexAny(s, chars string) int {
	if set, ok := endSets[chars]; ok {
		return set.lastIndex(s)
	}
	return strings.LastIndexAny(s, chars)
}

// matcher finds the successive matches of a pattern in a text, as a
// regexp's FindAllStringSubmatchIndex does.
type matcher interface {
	FindAllStringSubmatchIndex(s string, n int) [][]int
}

// openingExpr begins a pattern whose matches begin at the start of the
// text or of a line, or at 。 or ；.
const openingExpr = `(?m)(?:^|[。；])`

// openingScan finds the matches of a pattern that begins with
// openingExpr, given anchored at the start of the text (at). Its
// FindAllStringSubmatchIndex answers as the regexp of the pattern does,
// running it only where a match can begin: at the start of the text, of
// a line, or at 。 or ； (there the pattern's ^ holds at the start of the
// text and not in it, to no effect: 。 and ； begin no line).
type openingScan struct{ at *regexp.Regexp }

func (o openingScan) FindAllStringSubmatchIndex(s string, n int) [][]int {
	var out [][]int
	for c := 0; c < len(s) && (n < 0 || len(out) < n); {
		if c == 0 || s[c-1] == '\n' || strings.HasPrefix(s[c:], "。") || strings.HasPrefix(s[c:], "；") {
			if m := o.at.FindStringSubmatchIndex(s[c:]); m != nil {
				for k := range m {
					if m[k] >= 0 {
						m[k] += c
					}
				}
				out = append(out, m)
				c = m[1]
				continue
			}
		}
		_, size := utf8.DecodeRuneInString(s[c:])
		c += size
	}
	return out
}

// sentenceStarts calls fn with the offset of every sentence start in
// text: the start, and after every "。" and line break.
func sentenceStarts(text string, fn func(at int, lineStart bool)) {
	fn(0, true)
	for i := 0; i < len(text); {
		j := hanEndSet.index(text[i:])
		if j < 0 {
			return
		}
		i += j
		line := text[i] == '\n'
		if line {
			i++
		} else {
			i += len("。")
		}
		if i < len(text) {
			fn(i, line)
		}
	}
}
