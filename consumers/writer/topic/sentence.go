package topic

import (
	"regexp"
	"strings"

	"github.com/annalist-dev/annalist/internal/lang/text"
	"github.com/annalist-dev/annalist/schemas"
)

// MaxSentenceRunes bounds a sentence copied onto a topic page when it has
// to reach back for the person's name: the evidence's sentence and the
// sentences before it, up to the one naming him.
const MaxSentenceRunes = 160

// maxBack is how many sentences before the evidence's a copied passage
// may reach back for the person's name.
const maxBack = 4

// sentenceFor is the text a drafter copies for evidence span sp of a chunk
// about the person named names (canonical name first; none for a sentence
// about the topic itself), within MaxSentenceRunes.
func sentenceFor(chunk string, sp schemas.Span, names []string) string {
	return strings.Join(sentenceWithin(chunk, sp, names, MaxSentenceRunes), "")
}

// sentenceWithin is the text a drafter copies for evidence span sp: the
// sentence of the chunk holding the span's start, cut at the sentence ends
// (。！？ or the English ones). A page names the people it is about, so
// when that sentence does not name the person (biographies call their
// subject by his given name after the opening), in this order:
//
//  1. the passage reaching back over at most maxBack sentences to the one
//     that names him in full, when it stays within max runes;
//  2. the chunk's first sentence naming him in full (the entry's opening),
//     then the evidence's sentence: two passages, two sentences of the
//     page (the offline verifier supports a passage found whole in a
//     reference, not two joined);
//  3. the passage reaching back to a sentence naming him by his given
//     name (the name without its one-character surname);
//  4. the evidence's sentence alone.
//
// A sentence about the topic itself (no names) that refers to someone by
// a personal pronoun only ("In 1822 she was appointed…") comes after the
// chunk's first sentence, which names the one it refers to.
//
// None when the span lies outside the chunk.
func sentenceWithin(chunk string, sp schemas.Span, names []string, max int) []string {
	rs := []rune(chunk)
	spans := text.SentencesRunes(rs)
	at := -1
	for i, s := range spans {
		if sp.Start >= s.Start && sp.Start < s.End {
			at = i
			break
		}
	}
	if at < 0 {
		return nil
	}
	cut := func(from, to int) string {
		return strings.TrimSpace(string(rs[spans[from].Start:spans[to].End]))
	}
	s := cut(at, at)
	if len(names) == 0 && pronounOnly(s) {
		for i := 0; i < at; i++ {
			if o := cut(i, i); prose(o) {
				return []string{o, s}
			}
		}
	}
	if len(names) == 0 || namesAny(s, names) {
		return []string{s}
	}
	back := func(ns []string) string {
		for from := at - 1; from >= 0 && from >= at-maxBack; from-- {
			w := cut(from, at)
			if text.RuneLen(w) > max {
				return ""
			}
			if namesAny(cut(from, from), ns) {
				return w
			}
		}
		return ""
	}
	if w := back(names); w != "" {
		return []string{w}
	}
	for i := 0; i < at; i++ {
		if o := cut(i, i); namesAny(o, names) {
			return []string{o, s}
		}
	}
	if w := back(givenNames(names)); w != "" {
		return []string{w}
	}
	return []string{s}
}

// rePronoun finds an English personal pronoun; reCapital a word that
// may be a name (a capital not opening the sentence).
var (
	rePronoun = regexp.MustCompile(`(?i)\b(?:he|she|his|her|him|they|their|them)\b`)
	reCapital = regexp.MustCompile(`\s[A-Z][a-z]`)
)

// pronounOnly reports an English sentence whose person is a pronoun: one
// comes before any capitalised word but the sentence's first ("In 1822 she
// was appointed to the Severn Navigation Board").
func pronounOnly(s string) bool {
	p := rePronoun.FindStringIndex(s)
	if p == nil {
		return false
	}
	c := reCapital.FindStringIndex(s)
	return c == nil || p[0] < c[0]
}

// prose reports a sentence of running text: not a heading line
// ("# Margaret Ellery") and of at least three words.
func prose(s string) bool {
	return !strings.HasPrefix(s, "#") && len(strings.Fields(s)) >= 3
}

// givenNames are the given names of names: a Chinese name of three or
// four characters without its one-character surname.
func givenNames(names []string) []string {
	var out []string
	for _, n := range names {
		rs := []rune(n)
		if (len(rs) == 3 || len(rs) == 4) && text.IsHan(rs[0]) {
			out = append(out, string(rs[1:]))
		}
	}
	return out
}

func namesAny(s string, names []string) bool {
	for _, n := range names {
		if n != "" && strings.Contains(s, n) {
			return true
		}
	}
	return false
}

// opening is the first sentence of a chunk that names one of names, "" when
// none does.
func opening(chunk string, names []string) string {
	for _, s := range text.SplitSentences(chunk) {
		if t := strings.TrimSpace(s); t != "" && namesAny(t, names) {
			return t
		}
	}
	return ""
}
