package compose

import (
	"strings"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/internal/lang/text"
)

// Sentence is a sentence of a text: its rune span, trimmed of blanks, and
// its words, a slice of the text's.
type Sentence struct {
	Start, End int // rune span in the text
	Text       string
	// LineStart reports whether only blanks stand between the start of a
	// line (or of the text) and the sentence.
	LineStart bool
}

// Sentences cuts a text into trimmed sentences, leaving out blank ones
// and Markdown headings, which are titles, not sentences.
func Sentences(s string) []Sentence {
	rs := []rune(s)
	// at[i] is the byte offset of rune i: a sentence's text is a slice of
	// the text, not a copy.
	at := make([]int, len(rs)+1)
	b := 0
	for i, x := range rs {
		at[i] = b
		b += utf8.RuneLen(x)
	}
	at[len(rs)] = b
	var out []Sentence
	for _, sp := range text.SentencesRunes(rs) {
		st, e := sp.Start, sp.End
		for st < e && IsBlank(rs[st]) {
			st++
		}
		for e > st && IsBlank(rs[e-1]) {
			e--
		}
		if st == e || rs[st] == '#' {
			continue
		}
		out = append(out, Sentence{Start: st, End: e, Text: s[at[st]:at[e]], LineStart: lineBefore(rs, st)})
	}
	return out
}

// lineBefore reports whether only blanks stand between the start of a line
// (or of the text) and rs[s].
func lineBefore(rs []rune, s int) bool {
	for k := s - 1; k >= 0; k-- {
		switch {
		case rs[k] == '\n':
			return true
		case !IsBlank(rs[k]):
			return false
		}
	}
	return true
}

// IsBlank reports whether r is a blank of a text: a space, a tab, a line
// break or the ideographic space.
func IsBlank(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\u3000'
}

// EndsSentence reports whether s ends with a sentence's closing mark (or a
// closing quotation mark).
func EndsSentence(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	switch r {
	case '。', '！', '？', '.', '!', '?', '”', '」', '"':
		return true
	}
	return false
}

// ClauseEnds are the marks that end a clause (a list's 、 does not).
const ClauseEnds = "，。；：！？,;:!?\n"

// Mentions reports whether s holds one of the names.
func Mentions(s string, names []string) bool {
	for _, n := range names {
		if strings.Contains(s, n) {
			return true
		}
	}
	return false
}

// EvidenceSentence is a fact's evidence span written as a sentence: its
// trailing marks replaced by a full stop.
func EvidenceSentence(evidence string) string {
	return strings.TrimRight(evidence, "，。；、 ") + "。"
}
