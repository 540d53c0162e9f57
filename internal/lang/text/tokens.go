package text

import (
	"slices"
	"unicode"
	"unicode/utf8"
)

// Tokens returns the overlap tokens of s in order: every CJK character,
// every pair of adjacent CJK characters (a bigram does not cross
// punctuation or other scripts), and every run of other letters and digits
// as a lowercased word. Punctuation and whitespace make no tokens.
func Tokens(s string) []string {
	var out []string
	eachToken(s, func(tok string) { out = append(out, tok) })
	return out
}

// eachToken calls emit for each token of s; tokens are substrings of s
// except lowercased words that contain upper-case letters.
func eachToken(s string, emit func(string)) {
	prevCJK := -1 // byte offset of the previous rune when it was CJK
	wordStart := -1
	flushWord := func(end int) {
		if wordStart >= 0 {
			emit(lower(s[wordStart:end]))
			wordStart = -1
		}
	}
	for i, r := range s {
		switch {
		case IsCJK(r):
			flushWord(i)
			size := utf8.RuneLen(r)
			if size < 0 {
				size = 1
			}
			emit(s[i : i+size])
			if prevCJK >= 0 {
				emit(s[prevCJK : i+size])
			}
			prevCJK = i
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' && wordStart >= 0:
			prevCJK = -1
			if wordStart < 0 {
				wordStart = i
			}
		default:
			prevCJK = -1
			flushWord(i)
		}
	}
	flushWord(len(s))
}

// lower lowercases s, returning s itself when it has no upper-case letters.
func lower(s string) string {
	for _, r := range s {
		if unicode.IsUpper(r) {
			b := make([]rune, 0, len(s))
			for _, r := range s {
				b = append(b, unicode.ToLower(r))
			}
			return string(b)
		}
	}
	return s
}

// TokenSet is the set of distinct tokens of a text, kept as sorted 64-bit
// FNV-1a hashes: building it does not allocate per token, and comparing two
// sets is a linear merge. Two distinct tokens share a hash with probability
// about 2⁻⁶⁴ per pair, far below any effect on a similarity score.
type TokenSet []uint64

// NewTokenSet returns the token set of s.
func NewTokenSet(s string) TokenSet {
	hs := make([]uint64, 0, len(s)/2)
	eachToken(s, func(tok string) { hs = append(hs, fnv64(tok)) })
	slices.Sort(hs)
	return TokenSet(slices.Compact(hs))
}

// Len is the number of distinct tokens.
func (a TokenSet) Len() int { return len(a) }

// Intersect counts the tokens a and b share.
func (a TokenSet) Intersect(b TokenSet) int {
	i, j, n := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			n++
			i++
			j++
		}
	}
	return n
}

// Jaccard is |a ∩ b| / |a ∪ b|. Two empty sets score 0: no shared evidence.
func (a TokenSet) Jaccard(b TokenSet) float64 {
	inter := a.Intersect(b)
	union := len(a) + len(b) - inter
	if union == 0 {
		return 0
	}
	return float64(inter) / float64(union)
}

// Jaccard is the token Jaccard similarity of two texts. For comparing one
// text with many, build its TokenSet once.
func Jaccard(a, b string) float64 { return NewTokenSet(a).Jaccard(NewTokenSet(b)) }

func fnv64(s string) uint64 {
	const (
		offset = 14695981039346656037
		prime  = 1099511628211
	)
	h := uint64(offset)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= prime
	}
	return h
}
