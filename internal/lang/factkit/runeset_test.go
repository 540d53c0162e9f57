package factkit

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestRuneSetIsIndexAny: the set's index functions answer as the strings
// functions with the set's characters, on texts that mix the characters,
// others, runes beyond the Basic Multilingual Plane and invalid bytes.
func TestRuneSetIsIndexAny(t *testing.T) {
	pieces := []string{"。", "，", "；", "\n", " ", "、", "字", "𠀀", "𠀁", "a", "子", "\xe3", "\x80", "\xff", "\ufffd", "年", "\xe5\xad", "\x82", "\xed\xa0\x80", "\xe0\xa0\x80"}
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 40000 {
		chars := "。，；\n 、字𠀀"
		if i%2 == 1 {
			chars += "\ufffd"
		}
		s := NewRuneSet(chars)
		var b strings.Builder
		for k := rng.IntN(12); k > 0; k-- {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		text := b.String()
		if got, want := s.Index(text), strings.IndexAny(text, chars); got != want {
			t.Fatalf("Index(%q) = %d, IndexAny %d", text, got, want)
		}
		if got, want := s.LastIndex(text), strings.LastIndexAny(text, chars); got != want {
			t.Fatalf("LastIndex(%q) = %d, LastIndexAny %d", text, got, want)
		}
		if got, want := s.In(text), strings.ContainsAny(text, chars); got != want {
			t.Fatalf("In(%q) = %v, ContainsAny %v", text, got, want)
		}
	}
}

// TestDecodeRune: DecodeRune decodes as utf8.DecodeRuneInString does,
// every three-byte sequence and its prefixes included.
func TestDecodeRune(t *testing.T) {
	for b0 := 0xC0; b0 < 0x100; b0++ {
		for b1 := 0x70; b1 < 0xD0; b1++ {
			for _, b2 := range []int{0x00, 0x7F, 0x80, 0x9F, 0xA0, 0xBF, 0xC0} {
				for _, s := range []string{string([]byte{byte(b0), byte(b1), byte(b2)}), string([]byte{byte(b0), byte(b1)})} {
					r, n := DecodeRune(s)
					if wr, wn := utf8.DecodeRuneInString(s); r != wr || n != wn {
						t.Fatalf("DecodeRune(%q) = %U, %d; utf8 %U, %d", s, r, n, wr, wn)
					}
				}
			}
		}
	}
}
