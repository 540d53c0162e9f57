package claims

import (
	"fmt"
	"sort"
	"strings"

	"github.com/annalist-dev/annalist/internal/lang/text"
	"github.com/annalist-dev/annalist/schemas"
)

// sentenceCheck is the state of one Check of one sentence.
type sentenceCheck struct {
	cfg  Options
	lex  *Lexicon
	idx  *Index
	refs *schemas.ReferenceSet
	d    schemas.Draft
	rs   []rune

	atoms []atom
	// content is the sentence as alignment compares it, without its
	// Gregorian years (never in Chinese sources); dateAt marks its runes
	// inside a date, which the passage that states the sentence's event
	// is found without, whatever date the sentence gives.
	content normText
	dateAt  []bool
	jS      []float64
	cited   map[int]bool

	// anchor is the passage that aligns best with the sentence's
	// non-date text, -1 when none reaches half of it.
	anchor   int
	aligned  map[int]alignment
	verbatim *schemas.Evidence
	names    map[string]bool
	// other is set when the sentence is about another person than the
	// subject (a relative's sentence copied from the entry): the subject's
	// KG facts then say nothing about it. otherName, when known, must
	// occur in a passage for the passage to support the sentence.
	other     bool
	otherName []rune
	kgCache   map[string][]schemas.KGFact
	// factScore memoises, per fact (by its span), each passage's score:
	// the better Jaccard with the sentence or with the fact.
	factScore map[[2]int][]float64
	decisions map[string][]schemas.Decision
}

func newSentenceCheck(cfg Options, lex *Lexicon, idx *Index, refs *schemas.ReferenceSet, d schemas.Draft) *sentenceCheck {
	s := &sentenceCheck{cfg: cfg, lex: lex, idx: idx, refs: refs, d: d, rs: []rune(d.Text), anchor: -1,
		aligned: map[int]alignment{}, kgCache: map[string][]schemas.KGFact{}, cited: map[int]bool{},
		factScore: map[[2]int][]float64{}}
	for _, c := range d.Citations {
		if di, ok := idx.byChunk[c]; ok {
			s.cited[di] = true
		}
	}
	s.decisions = map[string][]schemas.Decision{}
	for _, dec := range refs.Decisions {
		s.decisions[dec.Relation] = append(s.decisions[dec.Relation], dec)
	}
	s.names = map[string]bool{}
	for _, n := range append([]string{refs.Name, refs.Subject}, refs.Aliases...) {
		if k := normValue(n); k != "" {
			s.names[k] = true
		}
	}
	for _, f := range refs.Facts {
		if schemas.AliasRelation(f.Relation) {
			s.names[normValue(f.Value)] = true
		}
	}
	return s
}

// prepare splits the sentence and finds its anchor passage.
func (s *sentenceCheck) prepare() {
	s.atoms = atomize(s.cfg.Era, s.lex, s.d.Text)
	s.detectOther()
	// Chinese sources never write Gregorian years; English ones do.
	english := s.lex.english
	skipGreg := make([]bool, len(s.rs))
	skipDate := make([]bool, len(s.rs))
	for _, a := range s.atoms {
		if a.date == nil {
			continue
		}
		for i := a.start; i < a.end && i < len(s.rs); i++ {
			skipDate[i] = true
			if a.date.kind == dateGregorian && !english {
				skipGreg[i] = true
			}
		}
	}
	s.content = normalizeRunes(s.rs, skipGreg)
	s.dateAt = make([]bool, len(s.content.rs))
	for k, p := range s.content.pos {
		s.dateAt[k] = skipDate[p]
	}
	// The whole sentence verbatim in a reference: everything it says is
	// there, dates with their events.
	if len(s.content.rs) > 0 {
		for di := range s.idx.docs {
			doc := &s.idx.docs[di]
			if k := indexNorm(doc.norm.rs, s.content.rs); k >= 0 {
				st, en := doc.norm.span(k, k+len(s.content.rs))
				ev := s.idx.evidence(di, st, en)
				s.verbatim = &ev
				break
			}
		}
	}
	var b strings.Builder
	for i, r := range s.rs {
		if !skipGreg[i] {
			b.WriteRune(r)
		}
	}
	sTok := text.NewTokenSet(b.String())
	b.Reset()
	for i, r := range s.rs {
		if !skipDate[i] {
			b.WriteRune(r)
		}
	}
	eTok := text.NewTokenSet(b.String())
	s.jS = s.idx.jaccards(sTok)
	jE := s.idx.jaccards(eTok)
	// The anchor: of the passages most like the event, the one that
	// aligns with most of the sentence's non-date text.
	eventLen := 0
	for _, d := range s.dateAt {
		if !d {
			eventLen++
		}
	}
	best, bestScore := -1, 0
	for _, p := range s.topPassages(jE, nil) {
		al := s.alignment(p)
		score := 0
		for _, o := range al.ops {
			if o.kind == opMatch && !s.dateAt[o.i] {
				score++
			}
		}
		if score > bestScore || score == bestScore && best >= 0 && jE[p] > jE[best] {
			best, bestScore = p, score
		}
	}
	need := (eventLen + 1) / 2
	if need < 2 {
		need = min(2, eventLen)
	}
	if best >= 0 && bestScore >= need && bestScore > 0 {
		s.anchor = best
	}
}

// topPassages ranks passages by score (above MinJaccard), restricted to
// docs when docs is not nil, and returns the best TopPassages.
func (s *sentenceCheck) topPassages(score []float64, docs map[int]bool) []int {
	var ps []int
	for p := range s.idx.passages {
		if score[p] < s.cfg.MinJaccard {
			continue
		}
		if docs != nil && !docs[s.idx.passages[p].doc] || !s.passageAllowed(p) {
			continue
		}
		ps = append(ps, p)
	}
	sort.SliceStable(ps, func(a, b int) bool { return score[ps[a]] > score[ps[b]] })
	if len(ps) > s.cfg.TopPassages {
		ps = ps[:s.cfg.TopPassages]
	}
	return ps
}

// alignment aligns the sentence content with passage p (memoised).
func (s *sentenceCheck) alignment(p int) alignment {
	if al, ok := s.aligned[p]; ok {
		return al
	}
	ps := s.idx.passages[p]
	al := align(s.content.rs, s.idx.docs[ps.doc].norm.rs[ps.ns:ps.ne])
	s.aligned[p] = al
	return al
}

// check decides every atomic fact of the sentence.
func (s *sentenceCheck) check() []schemas.FactVerdict {
	s.prepare()
	out := make([]schemas.FactVerdict, len(s.atoms))
	// Gregorian years are decided last: they follow the era dates.
	for i, a := range s.atoms {
		if a.date != nil && a.date.kind == dateGregorian {
			continue
		}
		out[i] = s.decide(a)
	}
	for i, a := range s.atoms {
		if a.date != nil && a.date.kind == dateGregorian {
			out[i] = s.checkGregorian(i, out)
		}
	}
	return out
}

// decide one fact that is not a Gregorian year.
func (s *sentenceCheck) decide(a atom) schemas.FactVerdict {
	if s.verbatim != nil {
		// Copied text is supported, except a date the subject's KG gives
		// otherwise for the same event: a sentence of the subject's page
		// that names no one else is read as being about the subject.
		// So is a value the references dispute or an expert ruled out.
		if a.date != nil {
			if fv, ok := s.eventDateByKG(a); ok && fv.Status != schemas.StatusSupported {
				return fv
			}
		} else {
			if fv, ok := s.byDecision(a.fact.Relation, a); ok && fv.Status != schemas.StatusSupported {
				return fv
			}
			if fv, ok := s.bySlot(a); ok && fv.ErrorType == schemas.ErrorRefConflict {
				return fv
			}
		}
		return verdictOf(a.fact, schemas.StatusSupported, "", "stated verbatim in chunk "+s.verbatim.ChunkID, *s.verbatim)
	}
	if a.date != nil {
		return s.checkDate(a)
	}
	if fv, ok := s.byDecision(a.fact.Relation, a); ok {
		return fv
	}
	if fv, ok := s.bySlot(a); ok {
		return fv
	}
	kept := s.keptDocs(a)
	if ev, ok := s.findVerbatim(a, kept); ok && s.slotBesideName(a, ev) && s.examInOwnChunk(a, ev) {
		return verdictOf(a.fact, schemas.StatusSupported, "", "stated in chunk "+ev.ChunkID, ev)
	}
	if fv, ok := s.contradiction(a, kept); ok {
		return fv
	}
	return verdictOf(a.fact, schemas.StatusNotIncluded, "",
		fmt.Sprintf("no reference states %q", a.fact.Text))
}

// atomRange is the range of content runes the atom's Text is made of.
func (s *sentenceCheck) atomRange(a atom) (int, int) {
	if len(a.parts) == 0 {
		return 0, 0
	}
	lo := sort.SearchInts(s.content.pos, a.parts[0][0])
	hi := sort.SearchInts(s.content.pos, a.parts[len(a.parts)-1][1])
	return lo, hi
}

// keptDocs are the references kept for a fact: the best TopReferences by
// the Jaccard of their best passage with the fact or the sentence, above
// MinJaccard, and the references the draft cites.
func (s *sentenceCheck) keptDocs(a atom) map[int]bool {
	ps := s.passageScores(a)
	score := make([]float64, len(s.idx.docs))
	for p, j := range ps {
		if d := s.idx.passages[p].doc; j > score[d] {
			score[d] = j
		}
	}
	docs := make([]int, 0, len(score))
	for di, sc := range score {
		if sc >= s.cfg.MinJaccard {
			docs = append(docs, di)
		}
	}
	sort.SliceStable(docs, func(x, y int) bool { return score[docs[x]] > score[docs[y]] })
	if len(docs) > s.cfg.TopReferences {
		docs = docs[:s.cfg.TopReferences]
	}
	kept := make(map[int]bool, len(docs)+len(s.cited))
	for _, di := range docs {
		kept[di] = true
	}
	for di := range s.cited {
		kept[di] = true
	}
	return kept
}

// passageScores is, per passage, the better token Jaccard with the
// sentence or with the fact.
func (s *sentenceCheck) passageScores(a atom) []float64 {
	key := [2]int{a.start, a.end}
	if sc, ok := s.factScore[key]; ok {
		return sc
	}
	sc := s.idx.jaccards(text.NewTokenSet(a.fact.Text))
	for p := range sc {
		sc[p] = max(s.jS[p], sc[p])
	}
	s.factScore[key] = sc
	return sc
}

// findVerbatim looks for the fact's text, up to punctuation, in the kept
// references.
func (s *sentenceCheck) findVerbatim(a atom, kept map[int]bool) (schemas.Evidence, bool) {
	lo, hi := s.atomRange(a)
	if hi <= lo {
		return schemas.Evidence{}, false
	}
	return s.findNorm(s.content.rs[lo:hi], kept)
}

// findNorm looks for normalized text in the kept references (in passages
// that name the sentence's person, when it is about another person).
func (s *sentenceCheck) findNorm(needle []rune, kept map[int]bool) (schemas.Evidence, bool) {
	for _, di := range sortedKeys(kept) {
		doc := &s.idx.docs[di]
		for from := 0; ; {
			k := text.IndexRunes(doc.norm.rs, needle, from)
			if k < 0 {
				break
			}
			st, en := doc.norm.span(k, k+len(needle))
			if p := s.idx.passageAt(di, st); p < 0 || s.passageAllowed(p) {
				return s.idx.evidence(di, st, en), true
			}
			from = k + 1
		}
	}
	return schemas.Evidence{}, false
}

func sortedKeys(m map[int]bool) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Ints(out)
	return out
}

// verdictOf builds a fact verdict.
func verdictOf(f schemas.Fact, status, etype, msg string, ev ...schemas.Evidence) schemas.FactVerdict {
	return schemas.FactVerdict{Fact: f, Status: status, ErrorType: etype, Message: msg, Evidence: ev}
}
