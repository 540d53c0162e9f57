package text

import (
	"sort"
	"unicode"
	"unicode/utf8"
)

// Span is a half-open range [Start, End) of rune offsets.
type Span struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// Len is the number of runes in the span.
func (s Span) Len() int { return s.End - s.Start }

// IsHan reports whether r is a Chinese character (CJK unified ideographs and
// their extensions, compatibility ideographs).
func IsHan(r rune) bool {
	if r >= 0x4E00 && r <= 0x9FFF {
		return true
	}
	return r >= 0x3400 && unicode.Is(unicode.Han, r)
}

// IsCJK reports whether r is written without spaces between words: Han,
// kana or hangul. Such characters are tokenised one by one.
func IsCJK(r rune) bool {
	if IsHan(r) {
		return true
	}
	return r >= 0x3040 && (unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r))
}

// Lang guesses the language of s from its letters: "zh" when at least a
// third of them are Han (classical Chinese quotes English rarely, English
// quotes Chinese names often), "en" when there are other letters, "" when
// s has no letters at all.
func Lang(s string) string {
	han, other := 0, 0
	for _, r := range s {
		switch {
		case IsHan(r):
			han++
		case unicode.IsLetter(r):
			other++
		}
	}
	switch {
	case han == 0 && other == 0:
		return ""
	case 3*han >= han+other:
		return "zh"
	default:
		return "en"
	}
}

// Index maps between rune offsets and byte offsets of one string, so that
// rune-offset spans can be sliced out of the string without copying it.
// Building it costs one pass and one int per rune; lookups by rune are O(1),
// by byte O(log n).
type Index struct {
	s   string
	off []int // off[i] is the byte offset of rune i; off[n] == len(s)
}

// NewIndex indexes s. Invalid UTF-8 bytes count as one rune each, as in a
// range loop.
func NewIndex(s string) *Index {
	off := make([]int, 0, len(s)/2+1)
	for i := range s {
		off = append(off, i)
	}
	off = append(off, len(s))
	return &Index{s: s, off: off}
}

// Len is the number of runes.
func (x *Index) Len() int { return len(x.off) - 1 }

// Byte returns the byte offset of rune offset r, clamped to [0, Len()].
func (x *Index) Byte(r int) int {
	if r <= 0 {
		return 0
	}
	if r >= len(x.off) {
		return len(x.s)
	}
	return x.off[r]
}

// Rune returns the rune offset of the rune that contains byte offset b,
// clamped to [0, Len()].
func (x *Index) Rune(b int) int {
	if b <= 0 {
		return 0
	}
	if b >= len(x.s) {
		return x.Len()
	}
	i := sort.SearchInts(x.off, b)
	if x.off[i] != b {
		i--
	}
	return i
}

// Slice returns the runes [start, end) of the indexed string without
// copying; offsets are clamped to the string.
func (x *Index) Slice(start, end int) string {
	b, e := x.Byte(start), x.Byte(end)
	if e < b {
		return ""
	}
	return x.s[b:e]
}

// Substr returns the runes [start, end) of s, clamped. It walks s once; use
// an Index when slicing the same string repeatedly.
func Substr(s string, start, end int) string {
	if start < 0 {
		start = 0
	}
	if end <= start {
		return ""
	}
	b, e, n := len(s), len(s), 0
	for i := range s {
		if n == start {
			b = i
		}
		if n == end {
			e = i
			break
		}
		n++
	}
	if b > e {
		return ""
	}
	return s[b:e]
}

// RuneLen is the number of runes in s.
func RuneLen(s string) int { return utf8.RuneCountInString(s) }

// IndexRunes is the first index ≥ from of needle in hay, or -1 (also for an
// empty needle). Offsets are rune positions, as everywhere in annalist.
func IndexRunes(hay, needle []rune, from int) int {
	if len(needle) == 0 || from < 0 {
		return -1
	}
outer:
	for i := from; i+len(needle) <= len(hay); i++ {
		for j, r := range needle {
			if hay[i+j] != r {
				continue outer
			}
		}
		return i
	}
	return -1
}

// Clip shortens s to its first n runes followed by "…" when it is longer,
// so a reader (or a model reading a prompt) sees that text was cut; n <= 0
// leaves s whole.
func Clip(s string, n int) string {
	if n <= 0 || utf8.RuneCountInString(s) <= n {
		return s
	}
	return Substr(s, 0, n) + "…"
}
