package solver

import (
	"unicode"

	"github.com/annalist-dev/annalist/internal/lang/text"
)

// Punctuation classes of the sentences the solvers edit, Chinese and
// English alike.

// isSep reports a clause separator: the marks the verifier splits atomic
// facts at, within a sentence.
func isSep(r rune) bool {
	switch r {
	case '，', '；', '：', '、', ',', ';', ':':
		return true
	}
	return false
}

// isStop reports a sentence-final mark.
func isStop(r rune) bool {
	switch r {
	case '。', '！', '？', '.', '!', '?':
		return true
	}
	return false
}

func isOpener(r rune) bool {
	switch r {
	case '（', '(', '《', '〈', '[', '【', '「', '『', '“':
		return true
	}
	return false
}

func isCloser(r rune) bool {
	switch r {
	case '）', ')', '》', '〉', ']', '】', '」', '』', '”':
		return true
	}
	return false
}

// isMark reports any punctuation that may not fall inside a value: a
// replacement value never spans a separator, a stop or a bracket.
func isMark(r rune) bool { return isSep(r) || isStop(r) || isOpener(r) || isCloser(r) }

// hasContent reports whether rs holds a letter, digit or Han character.
func hasContent(rs []rune) bool {
	for _, r := range rs {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || text.IsHan(r) {
			return true
		}
	}
	return false
}

// isWordRune reports a letter or digit of an alphabetic script, which
// values must not be cut inside of.
func isWordRune(r rune) bool {
	return (unicode.IsLetter(r) || unicode.IsDigit(r)) && !text.IsCJK(r)
}

// index is text.IndexRunes for a string needle.
func index(hay []rune, needle string, from int) int {
	return text.IndexRunes(hay, []rune(needle), from)
}

// enclosingBracket finds the bracket pair [open, close] that encloses the
// span [s, t) of rs, if any.
func enclosingBracket(rs []rune, s, t int) (open, close int, ok bool) {
	depth := 0
	open = -1
	for i := s - 1; i >= 0; i-- {
		switch r := rs[i]; {
		case isCloser(r):
			depth++
		case isOpener(r):
			if depth == 0 {
				open = i
			} else {
				depth--
			}
		case depth == 0 && (isSep(r) || isStop(r)):
			return 0, 0, false
		}
		if open >= 0 {
			break
		}
	}
	if open < 0 {
		return 0, 0, false
	}
	depth = 0
	for i := t; i < len(rs); i++ {
		switch r := rs[i]; {
		case isOpener(r):
			depth++
		case isCloser(r):
			if depth == 0 {
				return open, i, true
			}
			depth--
		}
	}
	return 0, 0, false
}

// clauseBounds returns the clause of rs around [s, t): from after the
// separator before it (spaces skipped) to the separator or stop after it,
// brackets skipped over.
func clauseBounds(rs []rune, s, t int) (cs, ce int) {
	depth := 0
	for cs = s; cs > 0; cs-- {
		r := rs[cs-1]
		if isCloser(r) {
			depth++
		} else if isOpener(r) && depth > 0 {
			depth--
		} else if depth == 0 && (isSep(r) || isStop(r)) {
			break
		}
	}
	for cs < s && unicode.IsSpace(rs[cs]) {
		cs++
	}
	depth = 0
	for ce = t; ce < len(rs); ce++ {
		r := rs[ce]
		if isOpener(r) {
			depth++
		} else if isCloser(r) && depth > 0 {
			depth--
		} else if depth == 0 && (isSep(r) || isStop(r)) {
			break
		}
	}
	return cs, ce
}

// splice returns rs with [s, t) replaced by repl.
func splice(rs []rune, s, t int, repl []rune) []rune {
	out := make([]rune, 0, len(rs)-(t-s)+len(repl))
	out = append(out, rs[:s]...)
	out = append(out, repl...)
	return append(out, rs[t:]...)
}

// dropAround removes from rs the smallest unit around [s, t) that leaves a
// well-formed sentence: the bracket group the span sits in; the item of a
// 、 list; else the whole clause with one of the separators next to it.
// It returns the new text and the removed span.
func dropAround(rs []rune, s, t int) ([]rune, int, int) {
	if o, c, ok := enclosingBracket(rs, s, t); ok {
		for o > 0 && rs[o-1] == ' ' {
			o--
		}
		return splice(rs, o, c+1, nil), o, c + 1
	}
	cs, ce := clauseBounds(rs, s, t)
	// An item of a list: drop the value and one 、 next to it.
	if ce < len(rs) && rs[ce] == '、' {
		return splice(rs, s, ce+1, nil), s, ce + 1
	}
	if cs > 0 && rs[cs-1] == '、' {
		return splice(rs, cs-1, t, nil), cs - 1, t
	}
	if ce < len(rs) && isSep(rs[ce]) {
		end := ce + 1
		for end < len(rs) && unicode.IsSpace(rs[end]) {
			end++
		}
		return splice(rs, cs, end, nil), cs, end
	}
	if p := cs - 1; p >= 0 {
		for p >= 0 && unicode.IsSpace(rs[p]) {
			p--
		}
		if p >= 0 && isSep(rs[p]) {
			return splice(rs, p, ce, nil), p, ce
		}
	}
	// A whole sentence after another ("…人。举…进士。"): its stop goes with
	// it, so no "。。" is left.
	if cs > 0 && isStop(prevMark(rs, cs)) && ce < len(rs) && isStop(rs[ce]) {
		end := ce + 1
		for end < len(rs) && unicode.IsSpace(rs[end]) {
			end++
		}
		return splice(rs, cs, end, nil), cs, end
	}
	return splice(rs, cs, ce, nil), cs, ce
}

// prevMark is the last rune before i that is not a space (0 when none).
func prevMark(rs []rune, i int) rune {
	for i--; i >= 0; i-- {
		if !unicode.IsSpace(rs[i]) {
			return rs[i]
		}
	}
	return 0
}

// slotValid reports whether a value found in a reference may replace the
// wrong one: not empty, no punctuation inside, not the wrong value and not
// a part of it or containing it.
func slotValid(slot []rune, wrong string) bool {
	if len(slot) == 0 || !hasContent(slot) {
		return false
	}
	for _, r := range slot {
		if isMark(r) || r == '\n' {
			return false
		}
	}
	s := string(slot)
	if s == wrong {
		return false
	}
	return index([]rune(wrong), s, 0) < 0 && index(slot, wrong, 0) < 0
}

// wordBounded reports whether ref[a:b] starts and ends at word boundaries
// of alphabetic text (Han text has none to respect).
func wordBounded(ref []rune, a, b int) bool {
	if a > 0 && a < len(ref) && isWordRune(ref[a-1]) && isWordRune(ref[a]) {
		return false
	}
	return !(b > 0 && b < len(ref) && isWordRune(ref[b-1]) && isWordRune(ref[b]))
}

// Alignment qualities, best first.
const (
	alignBoth    = 3 // the wrong value's left and right context both found around the slot
	alignOneSide = 2 // only the left, or only the right context found
	alignInside  = 1 // a prefix or suffix of the wrong value found
)

// maxContext bounds the context runes tried around a value.
const maxContext = 6

// align finds in ref the value that stands where sent[s:t] stands in
// sent: the sentence and the reference passage are taken to say the same
// thing with one value different (the Alstorian paper's not-supported error). It
// tries, in order: the longest left and right contexts of the value both
// found in ref around a short slot; the longest left context alone, then
// the right one, the slot running as long as the wrong value up to a
// punctuation mark; a prefix or suffix of the value itself (进士第三 in
// ref's 进士第二). ok is false when nothing fits.
func align(sent []rune, s, t int, ref []rune) (value string, quality int, ok bool) {
	wrong := string(sent[s:t])
	wlen := t - s
	if wlen == 0 || len(ref) == 0 {
		return "", 0, false
	}
	maxSlot := max(2*wlen, wlen+4)
	valid := func(a, b int) bool { return slotValid(ref[a:b], wrong) && wordBounded(ref, a, b) }
	// Both contexts.
	for k := min(maxContext, s); k >= 1; k-- {
		left := sent[s-k : s]
		if !hasContent(left) {
			continue
		}
		for p := text.IndexRunes(ref, left, 0); p >= 0; p = text.IndexRunes(ref, left, p+1) {
			a := p + k
			for j := min(maxContext, len(sent)-t); j >= 1; j-- {
				q := text.IndexRunes(ref, sent[t:t+j], a+1)
				if q > a && q-a <= maxSlot && valid(a, q) {
					return string(ref[a:q]), alignBoth, true
				}
			}
		}
	}
	// One context: the slot is the run after (before) it, as long as the
	// wrong value when the run is longer.
	for k := min(maxContext, s); k >= 2; k-- {
		left := sent[s-k : s]
		if !hasContent(left) {
			continue
		}
		if p := text.IndexRunes(ref, left, 0); p >= 0 {
			a := p + k
			e := a
			for e < len(ref) && e-a < wlen && !isMark(ref[e]) {
				e++
			}
			for e < len(ref) && isWordRune(ref[e-1]) && isWordRune(ref[e]) {
				e++ // a Latin word is taken whole
			}
			if valid(a, e) {
				return string(ref[a:e]), alignOneSide, true
			}
		}
	}
	for j := min(maxContext, len(sent)-t); j >= 2; j-- {
		right := sent[t : t+j]
		if !hasContent(right) {
			continue
		}
		if q := text.IndexRunes(ref, right, 0); q >= 0 {
			b := q
			for b > 0 && q-b < wlen && !isMark(ref[b-1]) {
				b--
			}
			for b > 0 && b < len(ref) && isWordRune(ref[b-1]) && isWordRune(ref[b]) {
				b--
			}
			if valid(b, q) {
				return string(ref[b:q]), alignOneSide, true
			}
		}
	}
	// Inside the value.
	// At least two shared characters and half the value, or any
	// character of the value would pull in an unrelated word.
	w := sent[s:t]
	for n := wlen - 1; n >= 2 && 2*n >= wlen; n-- {
		if p := text.IndexRunes(ref, w[:n], 0); p >= 0 && p+wlen <= len(ref) && valid(p, p+wlen) {
			return string(ref[p : p+wlen]), alignInside, true
		}
		if q := text.IndexRunes(ref, w[wlen-n:], 0); q >= 0 && q+n-wlen >= 0 && valid(q+n-wlen, q+n) {
			return string(ref[q+n-wlen : q+n]), alignInside, true
		}
	}
	return "", 0, false
}
