package claims

import (
	"fmt"

	"github.com/annalist-dev/annalist/schemas"
)

// contradiction looks for a passage that gives a different value where the
// fact has its own: the sentence is aligned with the anchor passage and
// with the passages most like the fact, and a differing segment inside the
// fact, with aligned text on both sides, is a contradiction of the type
// the segment shows.
func (s *sentenceCheck) contradiction(a atom, kept map[int]bool) (schemas.FactVerdict, bool) {
	lo, hi := s.atomRange(a)
	if hi <= lo {
		return schemas.FactVerdict{}, false
	}
	cands := s.topPassages(s.passageScores(a), kept)
	if s.anchor >= 0 && s.passageAllowed(s.anchor) {
		cands = append([]int{s.anchor}, cands...)
	}
	type found struct {
		fv      schemas.FactVerdict
		context int
	}
	var best *found
	seen := map[int]bool{}
	for _, p := range cands {
		if seen[p] {
			continue
		}
		seen[p] = true
		al := s.alignment(p)
		matched := al.matchedIn(lo, hi)
		for _, r := range withMerged(al.runs()) {
			inside := r.a0 >= lo && r.a1 <= hi && (r.a0 < r.a1 || r.a0 > lo && r.a0 < hi)
			if !inside || r.left+r.right < s.cfg.MinContext {
				continue
			}
			// Aligned text on both sides, unless the segment ends the
			// sentence (or begins it) and the other side is long.
			atEdge := r.left == 0 && r.a0 == 0 || r.right == 0 && r.a1 == len(s.content.rs)
			if (r.left < 1 || r.right < 1) && (!atEdge || r.left+r.right < s.cfg.MinContext) {
				continue
			}
			la, lb := r.a1-r.a0, r.b1-r.b0
			if la > s.cfg.MaxValueRunes || lb > s.cfg.MaxValueRunes {
				continue
			}
			// Two values of one slot have comparable lengths (十一 and 十四,
			// 季晦 and 进卿); one rune against four is other text, and in a
			// fact that mostly does not align only a short value counts.
			if la > 0 && lb > 0 && (la > 2*lb+1 || lb > 2*la+1) {
				continue
			}
			if 2*matched < hi-lo && (la > 3 || lb > 3) && !slotRelation(a.fact.Relation) {
				continue
			}
			c := s.classify(a, p, r)
			if atEdge && !c.typed {
				continue
			}
			// The fact must otherwise align with the passage, or the
			// segment must sit between aligned text on both sides, or be a
			// value set against a value of its kind that makes most of a
			// short fact (元举人 for 元进士), or fill a name or place slot
			// whose sentence aligns around it.
			valueFills := c.typed && hi-lo <= 2*max(la, lb)+2
			if 2*matched < hi-lo && (r.left < 2 || r.right < 2) && !valueFills && !(slotRelation(a.fact.Relation) && r.left >= 2) {
				continue
			}
			// A fact that mostly does not align is a different value only
			// if its own segment is one (a date, a degree, a name): a
			// fabricated clause set against an office of the passage is
			// not.
			if 2*matched < hi-lo && !slotRelation(a.fact.Relation) && !c.ownTyped {
				continue
			}
			// Text only one side has is a different value only inside a
			// date (十一年 for 十年); elsewhere it is text the passage
			// lacks or the sentence left out.
			if (la == 0 || lb == 0) && (c.etype != schemas.ErrorEra || max(la, lb) > 2) {
				continue
			}
			if !c.typed {
				// An untyped difference must be a short substitution in a
				// fact that otherwise aligns well.
				if r.left < 2 || 3*matched < 2*(hi-lo) || la > 3 || lb > 3 {
					continue
				}
			}
			ctx := r.left + r.right
			if best != nil && best.context >= ctx {
				continue
			}
			ps := s.idx.passages[p]
			ev := []schemas.Evidence{s.idx.passageEvidence(p)}
			if c.rightStart < c.rightEnd {
				ev = append([]schemas.Evidence{s.idx.evidence(ps.doc, c.rightStart, c.rightEnd)}, ev...)
			}
			right := c.right
			if right == "" {
				right = "nothing"
			}
			wrong := c.wrong
			if wrong == "" {
				wrong = "nothing"
			}
			best = &found{verdictOf(a.fact, schemas.StatusNotSupported, c.etype,
				fmt.Sprintf("%s %s contradicts %s in chunk %s", c.kind, wrong, right, s.idx.docs[ps.doc].ref.ChunkID), ev...), ctx}
		}
	}
	if best == nil {
		return schemas.FactVerdict{}, false
	}
	return best.fv, true
}

// withMerged adds to runs each pair of neighbouring runs joined across the
// one rune that separates them: 中举人 against 举进士 aligns 举 with 举, and
// only the joined run shows one degree standing for another.
func withMerged(runs []diffRun) []diffRun {
	out := runs
	for i := 0; i+1 < len(runs); i++ {
		a, b := runs[i], runs[i+1]
		if a.right == 1 && b.left == 1 {
			out = append(out, diffRun{a0: a.a0, a1: b.a1, b0: a.b0, b1: b.b1, left: a.left, right: b.right})
		}
	}
	return out
}

// classification of a differing segment.
type classification struct {
	etype, kind  string
	wrong, right string
	// rightStart, rightEnd is the passage's segment in its chunk.
	rightStart, rightEnd int
	typed                bool
	// ownTyped: the sentence's own segment shows the type (not only the
	// passage's).
	ownTyped bool
}

// classify says what a differing segment is: a date (era), an examination
// term or office (knowledge_lack), a name (alias), or another value
// (other, untyped).
func (s *sentenceCheck) classify(a atom, p int, r diffRun) classification {
	ps := s.idx.passages[p]
	doc := &s.idx.docs[ps.doc]
	// Original spans of both sides; an empty side is the point between
	// its neighbours.
	as, ae := origSpanOffset(s.content, r.a0, r.a1, len(s.rs))
	bs, be := origSpanOffset(doc.norm, ps.ns+r.b0, ps.ns+r.b1, ps.end)
	c := classification{wrong: string(s.rs[as:ae]), right: string(doc.rs[bs:be]), rightStart: bs, rightEnd: be}
	// Dates.
	var wd, rd *dateSpan
	for k := range s.atoms {
		if d := s.atoms[k].date; d != nil && overlaps(d.start, d.end, as, ae) {
			wd = d
			break
		}
	}
	for k := range doc.dates {
		if d := &doc.dates[k]; overlaps(d.start, d.end, bs, be) {
			rd = d
			break
		}
	}
	// A value stands for a value of its kind: a date for a date, a
	// degree for a degree, a title for a title. A segment of one kind
	// against other text is not a contradiction of that kind.
	if wd != nil || rd != nil {
		c.etype, c.kind = schemas.ErrorEra, "date"
		if wd != nil {
			c.wrong, c.kind = wd.text, dateKind(*wd)
		}
		if rd != nil {
			c.right, c.rightStart, c.rightEnd = rd.text, rd.start, rd.end
		}
		c.typed = wd != nil && rd != nil
		c.ownTyped = c.typed
		return c
	}
	w, wok := s.lex.examAround(s.rs, as, ae)
	rr, rok := s.lex.examAround(doc.rs, bs, be)
	if wok || rok {
		c.etype, c.kind = schemas.ErrorKnowledge, "examination"
		if wok {
			c.wrong = w
		}
		if rok {
			c.right = rr
		}
		c.typed = wok && rok
		c.ownTyped = c.typed
		return c
	}
	// The fact's slot types it; otherwise names follow a marker (字, 号,
	// 谥) on both sides, and titles are titles on both sides.
	switch a.fact.Relation {
	case schemas.RelAlias, schemas.RelCourtesyName, schemas.RelArtName:
		c.etype, c.kind, c.typed, c.ownTyped = schemas.ErrorAlias, "name", true, true
		return c
	case schemas.RelOffice:
		c.etype, c.kind = schemas.ErrorKnowledge, "office"
		c.typed = s.lex.inOffice(doc.rs, bs, be)
		c.ownTyped = c.typed
		return c
	case schemas.RelNativePlace:
		c.etype, c.kind, c.typed, c.ownTyped = schemas.ErrorOther, "native place", true, true
		return c
	}
	if markerBefore(s.rs, as) && markerBefore(doc.rs, bs) {
		c.etype, c.kind, c.typed, c.ownTyped = schemas.ErrorAlias, "name", true, true
		return c
	}
	if s.lex.inOffice(s.rs, as, ae) && s.lex.inOffice(doc.rs, bs, be) {
		c.etype, c.kind, c.typed, c.ownTyped = schemas.ErrorKnowledge, "office", true, true
		return c
	}
	c.etype, c.kind = schemas.ErrorOther, "value"
	return c
}

// origSpanOffset maps normalized runes [a, b) to original runes; an empty
// range is the point after the rune before it.
func origSpanOffset(n normText, a, b, limit int) (int, int) {
	if a < b {
		return n.pos[a], n.pos[b-1] + 1
	}
	if a > 0 && a-1 < len(n.pos) {
		p := n.pos[a-1] + 1
		return p, p
	}
	if a < len(n.pos) {
		return n.pos[a], n.pos[a]
	}
	return limit, limit
}

func overlaps(s1, e1, s2, e2 int) bool {
	if s2 == e2 {
		return s1 <= s2 && s2 < e1 && s1 < s2
	}
	return s1 < e2 && s2 < e1
}

// examAround returns the examination phrase that overlaps rs[s:e] (or
// touches the point s when s == e).
func (l *Lexicon) examAround(rs []rune, s, e int) (string, bool) {
	from := max(0, s-4)
	for i := from; i < len(rs) && i <= e; i++ {
		n := l.examTermAt(rs, i)
		if n == 0 {
			continue
		}
		j := examRank(rs, i+n)
		if i < max(e, s+1) && j > s {
			return string(rs[i:j]), true
		}
	}
	return "", false
}

// markerBefore reports whether a name marker (字, 号, 谥 …) ends right
// before rune i.
func markerBefore(rs []rune, i int) bool {
	for _, m := range nameMarkers {
		mr := []rune(m)
		if i-len(mr) >= 0 && hasRunesAt(rs, i-len(mr), mr) {
			return true
		}
	}
	return false
}

// inOffice reports whether rs[s:e] lies in an office title: the clause
// text from s to the clause's end begins with the segment and holds a
// title that ends within a few runes of it.
func (l *Lexicon) inOffice(rs []rune, s, e int) bool {
	end := e
	for end < len(rs) && end < e+8 && !punct(rs[end]) {
		end++
	}
	if end <= s {
		return false
	}
	// Titles of two runes or more only: 卿, 令, 使 alone end too many
	// other words.
	for k := e; k <= end; k++ {
		if l.offices.Recognised(string(rs[s:k]), 2) {
			return true
		}
	}
	return false
}
