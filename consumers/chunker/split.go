package chunker

import (
	"unicode"

	"github.com/annalist-dev/annalist/internal/lang/text"
	"github.com/annalist-dev/annalist/internal/lang/zh/segment"
)

// docText is a document prepared for cutting: its runes, its sentences,
// where sentences and paragraphs may end, and the same text prepared for
// the entry rules.
type docText struct {
	rs        []rune
	sentences []text.Span
	// sentEnd[i] is true when a sentence ends just before rune i;
	// paraEnd[i] when a paragraph does.
	sentEnd []bool
	paraEnd []bool
	// seg is the document as the entry rules read it; it keeps what
	// they find, so that detecting the profile and chunking read the
	// openings once.
	seg *segment.Doc
}

func newDocText(s string) *docText {
	rs := []rune(s)
	d := &docText{rs: rs, sentences: text.SentencesRunes(rs),
		sentEnd: make([]bool, len(rs)+1), paraEnd: make([]bool, len(rs)+1)}
	d.seg = segment.NewDoc(d.rs, d.sentences)
	for _, sp := range d.sentences {
		d.sentEnd[sp.End] = true
		if sp.End > 0 && rs[sp.End-1] == '\n' {
			d.paraEnd[sp.End] = true
		}
	}
	return d
}

// cut returns the offsets strictly inside [s, e) at which the segment is
// cut into pieces of at most max runes. It balances the pieces (a segment a
// little over max becomes two halves, not max and a sliver) and cuts, in
// order of preference, at a paragraph end, at a sentence end, and only when
// a single sentence runs past hard runes at a clause mark, a space, or
// hard itself.
func (d *docText) cut(s, e, max, hard int) []int {
	var cuts []int
	for e-s > max {
		n := (e - s + max - 1) / max
		ideal := s + (e-s+n-1)/n
		lo, hi := s+max/2, s+max
		if lo <= s {
			lo = s + 1
		}
		p := closest(d.paraEnd, lo, hi, ideal)
		if p < 0 {
			p = closest(d.sentEnd, lo, hi, ideal)
		}
		if p < 0 {
			p = last(d.sentEnd, s+1, lo-1)
		}
		if p < 0 {
			p = first(d.sentEnd, hi+1, min(s+hard, e-1))
		}
		if p < 0 {
			p = d.lastClauseBreak(s+1, min(s+hard, e-1))
		}
		if p < 0 {
			if s+hard >= e {
				break
			}
			p = s + hard
		}
		cuts = append(cuts, p)
		s = p
	}
	return cuts
}

// closest is the offset in [lo, hi] where ok holds nearest to ideal, or -1.
func closest(ok []bool, lo, hi, ideal int) int {
	hi = min(hi, len(ok)-1)
	for d := 0; ideal-d >= lo || ideal+d <= hi; d++ {
		if i := ideal - d; i >= lo && i <= hi && ok[i] {
			return i
		}
		if i := ideal + d; i >= lo && i <= hi && ok[i] {
			return i
		}
	}
	return -1
}

func last(ok []bool, lo, hi int) int {
	for i := min(hi, len(ok)-1); i >= lo; i-- {
		if ok[i] {
			return i
		}
	}
	return -1
}

func first(ok []bool, lo, hi int) int {
	for i := lo; i <= hi && i < len(ok); i++ {
		if ok[i] {
			return i
		}
	}
	return -1
}

// lastClauseBreak is the last offset in [lo, hi] just after a clause mark
// or a space, or -1.
func (d *docText) lastClauseBreak(lo, hi int) int {
	for i := min(hi, len(d.rs)); i >= lo && i > 0; i-- {
		switch r := d.rs[i-1]; {
		case r == '，' || r == '；' || r == '、' || r == '：' || r == ',' || r == ';' || r == ':':
			return i
		case unicode.IsSpace(r) && i < len(d.rs) && !unicode.IsSpace(d.rs[i]):
			return i
		}
	}
	return -1
}
