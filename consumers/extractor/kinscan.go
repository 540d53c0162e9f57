package extractor

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/internal/profile"
)

// kinNamed returns the two Han characters written after each kinship word
// of kin in text ("敬修孙同敞请复武荫" gives 同敞 after 孙), in text order,
// the matches not overlapping: what the pattern (?:word|word…)(\p{Han}{2})
// finds, leftmost first and trying the words in order. A scan, because a
// regexp with that many alternatives costs a backtracking pass per match.
func kinNamed(text string, kin []profile.KinWord) []string {
	first := make(map[rune]bool, len(kin))
	for _, k := range kin {
		r, _ := utf8.DecodeRuneInString(k.Word)
		first[r] = true
	}
	var out []string
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		if !first[r] {
			i += n
			continue
		}
		matched := false
		for _, k := range kin {
			if k.Word == "" || !strings.HasPrefix(text[i:], k.Word) {
				continue
			}
			if w, ok := twoHan(text[i+len(k.Word):]); ok {
				out = append(out, w)
				i += len(k.Word) + len(w)
				matched = true
				break
			}
		}
		if !matched {
			i += n
		}
	}
	return out
}

// twoHan returns the first two runes of s when both are Han.
func twoHan(s string) (string, bool) {
	r1, n1 := utf8.DecodeRuneInString(s)
	if n1 == 0 || !unicode.Is(unicode.Han, r1) {
		return "", false
	}
	r2, n2 := utf8.DecodeRuneInString(s[n1:])
	if n2 == 0 || !unicode.Is(unicode.Han, r2) {
		return "", false
	}
	return s[:n1+n2], true
}
