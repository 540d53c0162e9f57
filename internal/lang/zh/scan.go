package zh

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

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
		j := hanEndSet.Index(text[i:])
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
