package zh

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/internal/lang/factkit"
	"github.com/annalist-dev/annalist/internal/lang/profile"
)

// kinNamed returns the two Han characters written after each kinship word
// of kin in text ("敬修孙同敞请复武荫" gives 同敞 after 孙), in text order,
// the matches not overlapping: what the pattern (?:word|word…)(\p{Han}{2})
// finds, leftmost first and trying the words in order. A scan, because a
// regexp with that many alternatives costs a backtracking pass per match.
func kinNamed(text string, kin []profile.KinWord) []string {
	return kinNamedIn(text, indexKin(kin))
}

// kinNamedIn is kinNamed with the words indexed by first rune.
func kinNamedIn(text string, kin byFirstRune[profile.KinWord]) []string {
	var out []string
	for i := 0; i < len(text); {
		r, n := factkit.DecodeRune(text[i:])
		matched := false
		for _, k := range kin.of(r) {
			if !strings.HasPrefix(text[i:], k.Word) {
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

// byFirstRune holds words by their first rune, those of one rune in the
// order of the list they come from: a scan for the words of a list that
// begin a text need try only those that begin with its first rune.
type byFirstRune[T any] struct {
	first *factkit.RuneSet
	items map[rune][]T
}

// indexByFirstRune indexes items by the first rune of their word; items
// with an empty word are left out.
func indexByFirstRune[T any](items []T, word func(T) string) byFirstRune[T] {
	idx := byFirstRune[T]{items: map[rune][]T{}}
	var first []rune
	for _, it := range items {
		w := word(it)
		if w == "" {
			continue
		}
		r := firstRune(w)
		first = append(first, r)
		idx.items[r] = append(idx.items[r], it)
	}
	idx.first = factkit.NewRuneSet(string(first))
	return idx
}

// of returns the items whose word begins with r.
func (idx byFirstRune[T]) of(r rune) []T {
	if !idx.first.Has(r) {
		return nil
	}
	return idx.items[r]
}

func indexKin(kin []profile.KinWord) byFirstRune[profile.KinWord] {
	return indexByFirstRune(kin, func(k profile.KinWord) string { return k.Word })
}
