package text

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Sentences splits s into sentences. The spans tile s: every rune belongs
// to exactly one sentence, and whitespace after a sentence end belongs to
// the sentence it follows. See SentencesRunes for the rules.
func Sentences(s string) []Span { return SentencesRunes([]rune(s)) }

// SplitSentences returns the sentence texts of s; joined, they give s back.
func SplitSentences(s string) []string {
	rs := []rune(s)
	spans := SentencesRunes(rs)
	if len(spans) == 0 {
		return nil
	}
	out := make([]string, len(spans))
	for i, sp := range spans {
		out[i] = string(rs[sp.Start:sp.End])
	}
	return out
}

// SentencesRunes splits rs into sentence spans that tile it. A sentence
// ends:
//   - after Chinese 。！？ (and runs of them), with any closing quotes or
//     brackets that follow;
//   - after English . ! ? with closing quotes, when whitespace or the end of
//     the text follows, unless the word before a period is a common
//     abbreviation (Mr., e.g.) or a single-letter initial;
//   - at a paragraph break: a blank line, or a line break after Chinese text
//     (Chinese paragraphs are single lines), or the end of a Markdown
//     heading line.
//
// Whitespace after an end is absorbed into the sentence, so the next
// sentence starts at its first visible character.
func SentencesRunes(rs []rune) []Span {
	var out []Span
	start := 0
	n := len(rs)
	lineStart := 0
	for i := 0; i < n; i++ {
		r := rs[i]
		end := -1
		switch {
		case isCJKTerminal(r):
			j := i + 1
			for j < n && (isCJKTerminal(rs[j]) || isASCIITerminal(rs[j])) {
				j++
			}
			for j < n && isCloser(rs[j]) {
				j++
			}
			end = j
		case isASCIITerminal(r):
			j := i + 1
			for j < n && isASCIITerminal(rs[j]) {
				j++
			}
			for j < n && isCloser(rs[j]) {
				j++
			}
			if (j == n || unicode.IsSpace(rs[j])) && !(r == '.' && j == i+1 && abbreviationBefore(rs, i)) {
				end = j
			}
		case r == '\n':
			if paragraphBreak(rs, i, lineStart) {
				end = i + 1
			}
			lineStart = i + 1
		}
		if end < 0 {
			continue
		}
		// Absorb the whitespace that follows, line breaks included.
		for end < n && unicode.IsSpace(rs[end]) {
			if rs[end] == '\n' {
				lineStart = end + 1
			}
			end++
		}
		out = append(out, Span{start, end})
		start = end
		i = end - 1
	}
	if start < n {
		out = append(out, Span{start, n})
	}
	return out
}

// paragraphBreak decides whether the newline at rs[i] ends a paragraph.
func paragraphBreak(rs []rune, i, lineStart int) bool {
	// A blank line follows.
	for j := i + 1; j < len(rs); j++ {
		if rs[j] == '\n' {
			return true
		}
		if !unicode.IsSpace(rs[j]) {
			break
		}
	}
	// The line is a Markdown heading.
	k := lineStart
	for k < i && (rs[k] == ' ' || rs[k] == '\t') {
		k++
	}
	if k < i && rs[k] == '#' {
		return true
	}
	// The line holds Chinese text and does not end mid-phrase the way a
	// wrapped English line does (in a letter, digit, comma or hyphen).
	hasCJK := false
	for j := lineStart; j < i; j++ {
		if IsCJK(rs[j]) {
			hasCJK = true
			break
		}
	}
	if !hasCJK {
		return false
	}
	for j := i - 1; j >= lineStart; j-- {
		switch r := rs[j]; {
		case r == ' ' || r == '\t' || r == '\r' || r == '\u3000':
			continue
		case r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == ',' || r == '-'):
			return false
		default:
			return true
		}
	}
	return false
}

func isCJKTerminal(r rune) bool { return r == '。' || r == '！' || r == '？' || r == '｡' }

func isASCIITerminal(r rune) bool { return r == '.' || r == '!' || r == '?' }

func isCloser(r rune) bool {
	switch r {
	case '"', '\'', ')', ']', '”', '’', '」', '』', '）', '》', '〉', '】':
		return true
	}
	return false
}

var abbreviations = map[string]bool{
	"mr": true, "mrs": true, "ms": true, "dr": true, "prof": true, "st": true, "jr": true, "sr": true,
	"vs": true, "etc": true, "e.g": true, "i.e": true, "cf": true, "no": true, "vol": true, "pp": true,
	"fig": true, "gen": true, "col": true, "capt": true, "lt": true, "rev": true, "hon": true, "mt": true,
}

// abbreviationBefore reports whether the period at rs[i] closes an
// abbreviation or an initial rather than a sentence.
func abbreviationBefore(rs []rune, i int) bool {
	j := i
	for j > 0 && (unicode.IsLetter(rs[j-1]) || rs[j-1] == '.') && !IsCJK(rs[j-1]) {
		j--
	}
	word := string(rs[j:i])
	if word == "" {
		return false
	}
	if len([]rune(word)) == 1 && unicode.IsUpper(rs[j]) {
		return true
	}
	return abbreviations[strings.ToLower(word)]
}
