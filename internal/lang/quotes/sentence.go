package quotes

import (
	"regexp"
	"strings"
)

// Sentence is the sentence a page quotes a quotation with, in the page's
// language: `AUTHOR said: "QUOTE"` in English, `AUTHOR说：“QUOTE”` in
// Chinese. quote is written as the collection holds it, byte for byte.
func Sentence(lang, author, quote string) string {
	if lang == "zh" {
		return author + "说：“" + quote + "”"
	}
	return author + ` said: "` + quote + `"`
}

// reSentence reads the quotation sentences Sentence writes (either
// language, straight or curly quotation marks, a final full stop
// allowed).
var reSentence = regexp.MustCompile(`^(.+?)(?: said: |说：|曰：)["“](.+)["”][.。]?$`)

// ParseSentence reads a quotation sentence: the author it names and the
// quoted text. ok is false when s is not of the form Sentence writes.
func ParseSentence(s string) (author, quote string, ok bool) {
	m := reSentence.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return "", "", false
	}
	return strings.TrimSpace(m[1]), m[2], true
}
