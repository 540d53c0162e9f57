package chunker

import (
	"github.com/annalist-dev/annalist/internal/text"
)

// Profile names.
const (
	// ProfileLiezhuan reads a document as a volume of biographies: one
	// chunk per person entry.
	ProfileLiezhuan = "liezhuan"
	// ProfileGeneric cuts sentence-aware windows.
	ProfileGeneric = "generic"
)

// Profiles lists the profiles a document may name.
func Profiles() []string { return []string{ProfileLiezhuan, ProfileGeneric, ProfileGlossary} }

// detectSample bounds how much of a document Detect reads: the formula
// openings of a biography volume show up early.
const detectSample = 40000

// Detect picks the profile for a text: liezhuan when it is Chinese and
// lines open with a name and an entry formula ("Name，字X…", "Name，Place人")
// at least once per 20,000 characters read; generic otherwise. It reads at
// most the first 40,000 characters.
func Detect(s string) string {
	rs := []rune(s)
	if len(rs) > detectSample {
		rs = rs[:detectSample]
	}
	return detectRunes(rs, text.SentencesRunes(rs), text.Lang(string(rs)))
}

// detectRunes is Detect on a prepared text whose language is lang.
func detectRunes(rs []rune, sentences []text.Span, lang string) string {
	if lang != "zh" {
		return ProfileGeneric
	}
	if len(rs) > detectSample {
		rs = rs[:detectSample]
		for len(sentences) > 0 && sentences[len(sentences)-1].End > len(rs) {
			sentences = sentences[:len(sentences)-1]
		}
	}
	n := entryOpenings(openings(rs, sentences))
	if n >= 1 && n*20000 >= len(rs) {
		return ProfileLiezhuan
	}
	return ProfileGeneric
}
