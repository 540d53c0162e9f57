package factkit

import "unicode/utf8"

// RuneSet is a set of runes with a constant-time membership test. Its
// index functions answer as strings.IndexAny, LastIndexAny and ContainsAny
// do with the set's characters, without looking each rune of the text up
// in the list of characters: the fact readers scan every chunk for
// punctuation and test short words for banned characters many times over.
type RuneSet struct {
	// lead holds the first bytes of the members' encodings, and every
	// byte that is not ASCII when the set holds utf8.RuneError, which an
	// invalid byte decodes to: a text's rune whose first byte is not
	// among them is no member.
	lead [256]bool
	// last holds the last bytes of the members' three-byte encodings.
	last [256]bool
	// page holds, for each block of 256 runes of the Basic Multilingual
	// Plane, 1 + the index in bits of its bitmap, or 0 when no member is
	// in the block.
	page  [256]uint16
	bits  [][4]uint64
	other []rune // the members beyond the plane
}

// NewRuneSet returns the set of the characters of chars.
func NewRuneSet(chars ...string) *RuneSet {
	s := &RuneSet{}
	for _, cs := range chars {
		for _, r := range cs {
			enc := string(r)
			s.lead[enc[0]] = true
			if len(enc) == 3 {
				s.last[enc[2]] = true
			}
			if r == utf8.RuneError {
				for b := utf8.RuneSelf; b < len(s.lead); b++ {
					s.lead[b] = true
				}
			}
			if r > 0xFFFF {
				s.other = append(s.other, r)
				continue
			}
			if s.page[r>>8] == 0 {
				s.bits = append(s.bits, [4]uint64{})
				s.page[r>>8] = uint16(len(s.bits))
			}
			s.bits[s.page[r>>8]-1][r>>6&3] |= 1 << (r & 63)
		}
	}
	return s
}

// Has reports whether r is in the set.
func (s *RuneSet) Has(r rune) bool {
	if r >= 0 && r <= 0xFFFF {
		p := s.page[r>>8]
		return p != 0 && s.bits[p-1][r>>6&3]&(1<<(r&63)) != 0
	}
	for _, o := range s.other {
		if o == r {
			return true
		}
	}
	return false
}

// Index returns the byte offset of the first rune of t in the set, or -1.
// A byte that begins no member's encoding is skipped undecoded; the bytes
// inside a rune's encoding begin none.
func (s *RuneSet) Index(t string) int {
	for i := 0; i < len(t); i++ {
		if !s.lead[t[i]] {
			continue
		}
		if r, ok := decode3(t[i:]); ok {
			// A rune of three bytes whose last is none of the members'
			// is no member.
			if s.last[t[i+2]] && s.Has(r) {
				return i
			}
			i += 2
			continue
		}
		r, size := utf8.DecodeRuneInString(t[i:])
		if s.Has(r) {
			return i
		}
		i += size - 1
	}
	return -1
}

// LastIndex returns the byte offset of the last rune of t in the set, or
// -1.
func (s *RuneSet) LastIndex(t string) int {
	if s.Has(utf8.RuneError) {
		// Which bytes are invalid depends on the bytes before them.
		for i := len(t); i > 0; {
			r, size := utf8.DecodeLastRuneInString(t[:i])
			i -= size
			if s.Has(r) {
				return i
			}
		}
		return -1
	}
	for i := len(t) - 1; i >= 0; i-- {
		if s.lead[t[i]] {
			if r, _ := DecodeRune(t[i:]); s.Has(r) {
				return i
			}
		}
	}
	return -1
}

// In reports whether t holds a rune of the set.
func (s *RuneSet) In(t string) bool { return s.Index(t) >= 0 }

// DecodeRune is utf8.DecodeRuneInString with the three-byte encodings of
// decode3 decoded inline.
func DecodeRune(s string) (rune, int) {
	if r, ok := decode3(s); ok {
		return r, 3
	}
	return utf8.DecodeRuneInString(s)
}

// decode3 decodes the rune s begins with when it is one of three bytes
// that needs no check beyond its continuation bytes (the Han characters
// and the CJK punctuation are among them); ok is false for any other
// start.
func decode3(s string) (r rune, ok bool) {
	if len(s) >= 3 {
		if b := s[0]; b >= 0xE1 && b <= 0xEF && b != 0xED {
			if c1, c2 := s[1], s[2]; c1&0xC0 == 0x80 && c2&0xC0 == 0x80 {
				return rune(b&0x0F)<<12 | rune(c1&0x3F)<<6 | rune(c2&0x3F), true
			}
		}
	}
	return 0, false
}
