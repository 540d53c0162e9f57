package profile

import (
	"strings"
	"unicode/utf8"
)

// Offices is the office lexicon of a profile.
type Offices struct {
	// Terms are the rows of offices.tsv, in file order.
	Terms []Office
	// Joiners join the parts of a compound title (兼, 加).
	Joiners []rune
	// HonourPrefixes begin honours rather than posts (太子, 赠).
	HonourPrefixes []string
	// SinecurePrefixes begin posts that rank below the same post
	// elsewhere (南京).
	SinecurePrefixes []string

	// Built by index: the extracted and recognised terms by their last
	// character, the graded terms longest first.
	extractByLast, recogniseByLast map[rune][]Office
	graded                         []Office
}

// index builds the lookups of o's terms.
func (o *Offices) index() {
	o.extractByLast, o.recogniseByLast = map[rune][]Office{}, map[rune][]Office{}
	o.graded = nil
	for _, t := range o.Terms {
		last, _ := utf8.DecodeLastRuneInString(t.Term)
		if t.Extract {
			o.extractByLast[last] = append(o.extractByLast[last], t)
		}
		if t.Recognise {
			o.recogniseByLast[last] = append(o.recogniseByLast[last], t)
		}
		if t.Graded {
			o.graded = append(o.graded, t)
		}
	}
	for i := 1; i < len(o.graded); i++ {
		for j := i; j > 0 && longerTerm(o.graded[j].Term, o.graded[j-1].Term); j-- {
			o.graded[j], o.graded[j-1] = o.graded[j-1], o.graded[j]
		}
	}
}

// Office is one row of the lexicon.
type Office struct {
	Term string
	// Grade is the grade the title ranks with (lower is higher) when
	// Graded; Honorary marks titles conferred rather than held.
	Grade    float64
	Graded   bool
	Honorary bool
	// Extract says the extractor takes a phrase of at least MinChars
	// characters ending with Term as an office.
	Extract  bool
	MinChars int
	// Recognise says a title ending with Term is an office when a
	// sentence is checked.
	Recognise bool
}

// Extracted reports whether title ends with a term the extractor takes,
// the title being at least as long as that term demands.
func (o Offices) Extracted(title string) bool {
	n := utf8.RuneCountInString(title)
	last, _ := utf8.DecodeLastRuneInString(title)
	for _, t := range o.extractByLast[last] {
		if n >= t.MinChars && strings.HasSuffix(title, t.Term) {
			return true
		}
	}
	return false
}

// Recognised reports whether title ends with a term recognised as an
// office; with minRunes > 1 only terms of at least that many characters
// count (卿, 令, 使 alone end too many other words).
func (o Offices) Recognised(title string, minRunes int) bool {
	last, _ := utf8.DecodeLastRuneInString(title)
	for _, t := range o.recogniseByLast[last] {
		if strings.HasSuffix(title, t.Term) && utf8.RuneCountInString(t.Term) >= minRunes {
			return true
		}
	}
	return false
}

// Parts splits a compound title at its joiners (礼部尚书兼东阁大学士).
func (o Offices) Parts(title string) []string {
	return strings.FieldsFunc(title, func(r rune) bool {
		for _, j := range o.Joiners {
			if r == j {
				return true
			}
		}
		return false
	})
}

// Honorary reports whether a title is an honour rather than a post: every
// part of it is an honorary title or begins with an honour prefix.
func (o Offices) Honorary(title string) bool {
	parts := o.Parts(title)
	for _, p := range parts {
		if !o.honour(p) {
			return false
		}
	}
	return len(parts) > 0
}

func (o Offices) honour(part string) bool {
	for _, pre := range o.HonourPrefixes {
		if strings.HasPrefix(part, pre) {
			return true
		}
	}
	for _, t := range o.Terms {
		if t.Honorary && t.Term == part {
			return true
		}
	}
	return false
}

// Sinecure reports whether a title begins with a sinecure prefix.
func (o Offices) Sinecure(title string) bool {
	for _, pre := range o.SinecurePrefixes {
		if strings.HasPrefix(title, pre) {
			return true
		}
	}
	return false
}

// Graded returns the graded terms, longest first and then in lexical
// order, so that a scan that takes the first term a title contains is
// deterministic and takes 副都御史 before 都御史. The slice is shared.
func (o Offices) Graded() []Office { return o.graded }

func longerTerm(a, b string) bool {
	la, lb := utf8.RuneCountInString(a), utf8.RuneCountInString(b)
	if la != lb {
		return la > lb
	}
	return a < b
}
