package verifier

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/annalist-dev/annalist/internal/text"
	"github.com/annalist-dev/annalist/schemas"
)

// sentenceCheck is the state of one Check of one sentence.
type sentenceCheck struct {
	cfg  Config
	idx  *refIndex
	refs *schemas.ReferenceSet
	d    schemas.Draft
	rs   []rune

	atoms []atom
	// content is the sentence without its Gregorian years (never in the
	// sources); event is the sentence without any date, which finds the
	// passage that states the sentence's event whatever date it gives.
	content normText
	dateAt  []bool // per content rune: inside a date
	jS      []float64
	cited   map[int]bool

	anchor   int // passage index, -1 when none
	anchorAl alignment
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

func newSentenceCheck(cfg Config, idx *refIndex, refs *schemas.ReferenceSet, d schemas.Draft) *sentenceCheck {
	s := &sentenceCheck{cfg: cfg, idx: idx, refs: refs, d: d, rs: []rune(d.Text), anchor: -1,
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
	s.atoms = atomize(s.cfg.Era, s.d.Text)
	s.detectOther()
	skipGreg := make([]bool, len(s.rs))
	skipDate := make([]bool, len(s.rs))
	for _, a := range s.atoms {
		if a.date == nil {
			continue
		}
		for i := a.start; i < a.end && i < len(s.rs); i++ {
			skipDate[i] = true
			if a.date.kind == dateGregorian && text.Lang(s.d.Text) != "en" {
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
	s.jS = make([]float64, len(s.idx.passages))
	jE := make([]float64, len(s.idx.passages))
	for p := range s.idx.passages {
		s.jS[p] = sTok.Jaccard(s.idx.passages[p].toks)
		jE[p] = eTok.Jaccard(s.idx.passages[p].toks)
	}
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
		s.anchor, s.anchorAl = best, s.alignment(best)
	}
}

// kinWords open a sentence about a relative of the entry's person.
var kinWords = []string{"父", "母", "祖", "曾祖", "高祖", "子", "孙", "兄", "弟", "妻", "从子", "从弟", "从兄",
	"侄", "婿", "长子", "次子", "季子", "族子", "族弟", "其子", "其父", "其弟", "其兄", "门人", "仲子", "叔子"}

// detectOther decides whether the sentence is about another person: it
// opens an identity sentence with a name that is not the subject's but
// that the references write, or its first clause names a kinsman (父允中，
// 洪武二十四年举人).
func (s *sentenceCheck) detectOther() {
	if len(s.atoms) == 0 {
		return
	}
	first := s.atoms[0]
	if first.fact.Relation == schemas.RelAlias && !s.names[normValue(first.fact.Value)] {
		n := normalize(first.fact.Value).rs
		for di := range s.idx.docs {
			if indexNorm(s.idx.docs[di].norm.rs, n) >= 0 {
				s.other, s.otherName = true, n
				return
			}
		}
		return
	}
	for _, a := range s.atoms {
		// A succession (子庄王翊镇嗣): what follows is the heir's.
		if a.date == nil && strings.HasSuffix(a.fact.Text, "嗣") {
			s.other = true
			return
		}
		// Another man passed (明衡登正德十二年进士, 鼎举弘治十八年进士).
		if a.fact.Relation == schemas.RelJinshi && s.otherActor(a.fact.Text) {
			s.other = true
			return
		}
	}
	if first.date != nil || first.fact.Relation == schemas.RelAlias || runeLen(first.fact.Text) > 12 ||
		s.startsWithName(first.fact.Text) {
		return
	}
	for _, k := range kinWords {
		if strings.HasPrefix(first.fact.Text, k) && runeLen(first.fact.Text) > runeLen(k) {
			s.other = true
			return
		}
	}
}

// passVerbs say that the clause's person passed an examination.
var passVerbs = []rune("举登成中")

// clauseAdverbs may open an examination clause without naming anyone.
var clauseAdverbs = []string{"亦", "又", "遂", "乃", "寻", "复", "后", "初", "时", "再", "始", "少", "年", "皆", "并", "俱", "同", "既", "已", "竟", "卒", "终", "果", "旋", "即"}

// otherActor reports whether an examination clause opens with the name of
// someone who is not the subject before its verb of passing.
func (s *sentenceCheck) otherActor(c string) bool {
	rs := []rune(c)
	for i := 1; i <= 3 && i < len(rs); i++ {
		if !slices.Contains(passVerbs, rs[i]) || examTermAt(rs, i+1) == 0 && !exactYearAt(rs, i+1) {
			continue
		}
		prefix := string(rs[:i])
		if !allHan(rs[:i]) || slices.Contains(clauseAdverbs, prefix) || strings.ContainsFunc(prefix, isNumeral) {
			return false
		}
		for _, a := range clauseAdverbs {
			if strings.HasPrefix(prefix, a) {
				return false
			}
		}
		return !s.isSubjectName(prefix)
	}
	return false
}

// exactYearAt reports whether an era or numeral year starts at rs[i]
// (登正德十二年进士).
func exactYearAt(rs []rune, i int) bool {
	for j := i; j < len(rs) && j < i+8; j++ {
		if rs[j] == '年' {
			return j > i
		}
	}
	return false
}

func allHan(rs []rune) bool {
	for _, r := range rs {
		if !text.IsHan(r) {
			return false
		}
	}
	return len(rs) > 0
}

// isSubjectName reports whether n is a name of the subject or the given
// name the biography calls him by (向高 for 叶向高).
func (s *sentenceCheck) isSubjectName(n string) bool {
	k := normValue(n)
	if s.names[k] {
		return true
	}
	for name := range s.names {
		rs := []rune(name)
		if len(rs) >= 3 && (string(rs[1:]) == k || len(rs) >= 4 && string(rs[2:]) == k) {
			return true
		}
	}
	return false
}

// startsWithName reports whether c opens with a name of the subject (a
// surname such as 孙 is also a kin word).
func (s *sentenceCheck) startsWithName(c string) bool {
	k := normValue(c)
	for name := range s.names {
		if len([]rune(name)) >= 2 && strings.HasPrefix(k, name) {
			return true
		}
	}
	return false
}

// passageAllowed reports whether passage p may support or contradict the
// sentence: when the sentence is about another named person, only
// passages that name that person may.
func (s *sentenceCheck) passageAllowed(p int) bool {
	if len(s.otherName) == 0 {
		return true
	}
	ps := s.idx.passages[p]
	return indexNorm(s.idx.docs[ps.doc].norm.rs[ps.ns:ps.ne], s.otherName) >= 0
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
	if ev, ok := s.findVerbatim(a, kept); ok && s.slotBesideName(a, ev) {
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
	ft := text.NewTokenSet(a.fact.Text)
	sc := make([]float64, len(s.idx.passages))
	for p, ps := range s.idx.passages {
		sc[p] = max(s.jS[p], ft.Jaccard(ps.toks))
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

// kg returns the subject's KG facts of a relation whose chunk is in the
// set.
func (s *sentenceCheck) kg(rel string) []schemas.KGFact {
	if fs, ok := s.kgCache[rel]; ok {
		return fs
	}
	var out []schemas.KGFact
	for _, f := range s.refs.Facts {
		if f.Relation != rel || f.Value == "" {
			continue
		}
		if _, ok := s.idx.byChunk[f.ChunkID]; ok {
			out = append(out, f)
		}
	}
	s.kgCache[rel] = out
	return out
}

// kgEvidence is the evidence of a KG fact: its span in its chunk.
func (s *sentenceCheck) kgEvidence(f schemas.KGFact) schemas.Evidence {
	di := s.idx.byChunk[f.ChunkID]
	if f.Span.End > f.Span.Start && f.Span.End <= len(s.idx.docs[di].rs) {
		return s.idx.evidence(di, f.Span.Start, f.Span.End)
	}
	ev := schemas.Evidence{ChunkID: f.ChunkID, Text: f.Evidence}
	if ev.Text == "" {
		ev.Text = f.Value
	}
	return ev
}

// normValue is the comparison form of a value.
func normValue(v string) string { return string(normalize(v).rs) }

// sameValue compares two values of a relation.
func sameValue(rel, a, b string) bool {
	x, y := normValue(a), normValue(b)
	if x == "" || y == "" {
		return false
	}
	if x == y {
		return true
	}
	switch rel {
	case schemas.RelNativePlace:
		x, y = strings.TrimSuffix(x, "人"), strings.TrimSuffix(y, "人")
		// 福建福清 and 福清 name one place; so do 先世曹 and 曹.
		return x != "" && y != "" && (strings.HasSuffix(x, y) || strings.HasSuffix(y, x))
	case schemas.RelOffice, schemas.RelDeath, schemas.RelBirth:
		return len([]rune(y)) >= 2 && strings.Contains(x, y) || len([]rune(x)) >= 2 && strings.Contains(y, x)
	}
	return false
}

// byDecision applies the expert decisions on the relation: a decided value
// is supported, a rejected value not supported.
func (s *sentenceCheck) byDecision(rel string, a atom) (schemas.FactVerdict, bool) {
	val := a.fact.Value
	for _, dec := range s.decisions[rel] {
		match := func(v string) bool {
			if a.date != nil {
				for _, dd := range findDates(s.cfg.Era, v) {
					if sameDate(*a.date, dd) {
						return true
					}
				}
				return false
			}
			return sameValue(rel, val, v)
		}
		var ev []schemas.Evidence
		if dec.ChunkID != "" {
			ev = append(ev, schemas.Evidence{ChunkID: dec.ChunkID, Text: dec.Value})
		}
		if match(dec.Value) {
			return verdictOf(a.fact, schemas.StatusSupported, "",
				fmt.Sprintf("%s %s was decided by expert review %s", relName(rel), dec.Value, dec.ReviewID), ev...), true
		}
		for _, r := range dec.Rejected {
			if match(r) {
				return verdictOf(a.fact, schemas.StatusNotSupported, schemas.ErrorOther,
					fmt.Sprintf("%s %s was ruled out by expert review %s, which decided %s", relName(rel), r, dec.ReviewID, dec.Value), ev...), true
			}
		}
	}
	return schemas.FactVerdict{}, false
}

// relName names a relation in messages.
func relName(rel string) string {
	switch rel {
	case schemas.RelCourtesyName:
		return "courtesy name"
	case schemas.RelArtName:
		return "art name"
	case schemas.RelNativePlace:
		return "native place"
	case schemas.RelJinshi:
		return "examination"
	case schemas.RelAlias:
		return "name"
	case RelDate:
		return "date"
	}
	return strings.ReplaceAll(rel, "_", " ")
}

// conflicting returns two facts of the KG list that give different values
// from different chunks, when the references disagree.
func conflicting(rel string, fs []schemas.KGFact, same func(a, b schemas.KGFact) bool) (schemas.KGFact, schemas.KGFact, bool) {
	for i := range fs {
		for j := i + 1; j < len(fs); j++ {
			if fs[i].ChunkID != fs[j].ChunkID && !same(fs[i], fs[j]) {
				return fs[i], fs[j], true
			}
		}
	}
	return schemas.KGFact{}, schemas.KGFact{}, false
}

// bySlot checks a fact of a recognised relation against the subject's KG
// facts of that relation.
func (s *sentenceCheck) bySlot(a atom) (schemas.FactVerdict, bool) {
	rel, val := a.fact.Relation, a.fact.Value
	if s.other {
		if rel == schemas.RelAlias && len(s.otherName) > 0 {
			return verdictOf(a.fact, schemas.StatusSupported, "", fmt.Sprintf("the references write of %s", val),
				s.nameEvidence(val)...), true
		}
		return schemas.FactVerdict{}, false
	}
	if rel == schemas.RelAlias && a.start > 0 {
		// Another name (初名X) the KG may not know: the text decides.
		if s.names[normValue(val)] {
			return verdictOf(a.fact, schemas.StatusSupported, "", fmt.Sprintf("%s is a name of %s", val, s.subjectName()),
				s.nameEvidence(val)...), true
		}
		return schemas.FactVerdict{}, false
	}
	switch rel {
	case schemas.RelAlias:
		if s.names[normValue(val)] {
			return verdictOf(a.fact, schemas.StatusSupported, "", fmt.Sprintf("%s is a name of %s", val, s.subjectName()),
				s.nameEvidence(val)...), true
		}
		return verdictOf(a.fact, schemas.StatusNotSupported, schemas.ErrorAlias,
			fmt.Sprintf("name %s is not a name of %s (%s)", val, s.subjectName(), strings.Join(s.knownNames(), ", ")),
			s.nameEvidence(s.subjectName())...), true
	case schemas.RelCourtesyName, schemas.RelArtName, schemas.RelNativePlace:
		fs := s.kg(rel)
		same := func(x, y schemas.KGFact) bool { return sameValue(rel, x.Value, y.Value) }
		for _, f := range fs {
			if !sameValue(rel, val, f.Value) {
				continue
			}
			if rel != schemas.RelArtName && len(s.decisions[rel]) == 0 {
				if x, y, ok := conflicting(rel, fs, same); ok {
					return s.refConflict(a, rel, x, y), true
				}
			}
			return verdictOf(a.fact, schemas.StatusSupported, "",
				fmt.Sprintf("%s %s is stated in chunk %s", relName(rel), f.Value, f.ChunkID), s.kgEvidence(f)), true
		}
		if rel != schemas.RelNativePlace && s.names[normValue(val)] {
			return verdictOf(a.fact, schemas.StatusSupported, "", fmt.Sprintf("%s is a name of %s", val, s.subjectName()),
				s.nameEvidence(val)...), true
		}
		if len(fs) == 0 {
			return schemas.FactVerdict{}, false
		}
		if rel == schemas.RelArtName {
			// A person may have several art names; one the KG lacks may
			// still be in the text.
			if ev, ok := s.findVerbatim(a, s.keptDocs(a)); ok {
				return verdictOf(a.fact, schemas.StatusSupported, "", "stated in chunk "+ev.ChunkID, ev), true
			}
		}
		etype := schemas.ErrorAlias
		if rel == schemas.RelNativePlace {
			etype = schemas.ErrorOther
		}
		f := fs[0]
		return verdictOf(a.fact, schemas.StatusNotSupported, etype,
			fmt.Sprintf("%s %s contradicts %s in chunk %s", relName(rel), val, f.Value, f.ChunkID), s.kgEvidence(f)), true
	case schemas.RelJinshi:
		// Only a clause that says its person passed (the degree ends it)
		// can contradict the subject's examination.
		fs := s.kg(rel)
		if len(fs) == 0 || val == "" || !s.passed(a) || !s.sameExamEvent(a, fs) {
			return schemas.FactVerdict{}, false
		}
		// A dated clause the references write word for word is theirs
		// (万历十四年进士第二 of a man the KG confuses with another).
		if c := s.clauseDates(a); len(c) > 0 {
			if ev, ok := s.findVerbatim(a, s.keptDocs(a)); ok {
				return verdictOf(a.fact, schemas.StatusSupported, "", "stated in chunk "+ev.ChunkID, ev), true
			}
		}
		var stated []string
		for _, f := range fs {
			ps := examPhrases(f.Evidence)
			if r := f.Qualifiers["rank"]; r != "" && len(ps) > 0 && !strings.Contains(ps[0], r) {
				ps = append(ps, ps[0]+r)
			}
			stated = append(stated, ps...)
		}
		if len(stated) == 0 {
			return schemas.FactVerdict{}, false
		}
		// Every degree and rank the clause gives must be one the KG's
		// evidence gives; 进士 itself is what the relation says.
		for _, p := range examPhrases(a.fact.Text) {
			if p == "进士" || containsPhrase(stated, p) {
				continue
			}
			return verdictOf(a.fact, schemas.StatusNotSupported, schemas.ErrorKnowledge,
				fmt.Sprintf("examination %s contradicts %s in chunk %s", p, stated[0], fs[0].ChunkID), s.kgEvidence(fs[0])), true
		}
		return verdictOf(a.fact, schemas.StatusSupported, "",
			fmt.Sprintf("examination %s is stated in chunk %s", val, fs[0].ChunkID), s.kgEvidence(fs[0])), true
	case RelText:
		// A title the lexicon does not know, after an appointment verb.
		for _, f := range s.kg(schemas.RelOffice) {
			if v := normValue(f.Value); len([]rune(v)) >= 2 && strings.HasSuffix(normValue(a.fact.Text), v) &&
				hasVerbBefore(normValue(a.fact.Text), v) {
				return verdictOf(a.fact, schemas.StatusSupported, "",
					fmt.Sprintf("office %s is stated in chunk %s", f.Value, f.ChunkID), s.kgEvidence(f)), true
			}
		}
	case schemas.RelOffice, schemas.RelDeath, schemas.RelBirth:
		if val == "" {
			return schemas.FactVerdict{}, false
		}
		for _, f := range s.kg(rel) {
			if sameValue(rel, val, f.Value) {
				return verdictOf(a.fact, schemas.StatusSupported, "",
					fmt.Sprintf("%s %s is stated in chunk %s", relName(rel), f.Value, f.ChunkID), s.kgEvidence(f)), true
			}
		}
	}
	return schemas.FactVerdict{}, false
}

// sameExamEvent reports whether an examination clause may be about the
// examination the KG records: it gives no date (its own, or the clause of
// dates before it), or a date the KG gives for it (an approximate date
// of the same era counts: 天顺末 for 天顺八年). An examination of another
// date (天启中举人 beside a 崇祯十六年 进士) is another event.
func (s *sentenceCheck) sameExamEvent(c atom, fs []schemas.KGFact) bool {
	ds := s.clauseDates(c)
	if len(ds) == 0 {
		// Undated: the same examination only if the clause names one of
		// the metropolitan level, as the KG's 进士 is; a provincial
		// degree (举乡试第一) comes before it and contradicts nothing.
		return !provincial(s.passedPhrase(c))
	}
	for _, d := range ds {
		for _, f := range fs {
			for _, kd := range findDates(s.cfg.Era, f.Value) {
				if sameDate(d, kd) {
					return true
				}
			}
		}
	}
	return false
}

// passed reports whether an examination clause says its person passed:
// the degree ends it after a verb or a year (examPassed), or the clause
// is the degree alone after a clause of dates (洪武十八年，会试第一).
func (s *sentenceCheck) passed(c atom) bool { return s.passedPhrase(c) != "" }

// passedPhrase is the degree a clause says its person passed, or "".
func (s *sentenceCheck) passedPhrase(c atom) string {
	if p := examPassed(c.fact.Text); p != "" {
		return p
	}
	ps := examPhrases(c.fact.Text)
	if len(ps) > 0 && strings.Join(ps, "") == normValue(c.fact.Text) && len(s.clauseDates(c)) > 0 {
		return ps[len(ps)-1]
	}
	return ""
}

// clauseDates are the dates (Gregorian years aside) written in a clause or
// in the clause of dates right before it.
func (s *sentenceCheck) clauseDates(c atom) []dateSpan {
	var ds []dateSpan
	for _, b := range s.atoms {
		if b.date == nil || b.date.kind == dateGregorian {
			continue
		}
		if b.start >= c.start && b.end <= c.end || b.end <= c.start && onlyDatesBetween(s.atoms, b.end, c.start) {
			ds = append(ds, *b.date)
		}
	}
	return ds
}

// containsPhrase reports whether an examination phrase is among ps, a
// closing 人 aside (进士第三 and 进士第三人 are one rank).
func containsPhrase(ps []string, p string) bool {
	p = strings.TrimSuffix(p, "人")
	for _, q := range ps {
		if strings.TrimSuffix(q, "人") == p {
			return true
		}
	}
	return false
}

// hasVerbBefore reports whether text is an appointment verb (after at
// most two runes of adverb or name) followed by the title.
func hasVerbBefore(text, title string) bool {
	head := strings.TrimSuffix(text, title)
	for _, v := range append(slices.Clone(careerVerbs), officeVerbs...) {
		if strings.HasSuffix(head, v) && runeLen(head)-runeLen(v) <= 2 {
			return true
		}
	}
	return false
}

func (s *sentenceCheck) refConflict(a atom, rel string, x, y schemas.KGFact) schemas.FactVerdict {
	return verdictOf(a.fact, schemas.StatusNotSupported, schemas.ErrorRefConflict,
		fmt.Sprintf("references disagree on the %s of %s: %s in chunk %s, %s in chunk %s", relName(rel), s.subjectName(),
			x.Value, x.ChunkID, y.Value, y.ChunkID), s.kgEvidence(x), s.kgEvidence(y))
}

func (s *sentenceCheck) subjectName() string {
	if s.refs.Name != "" {
		return s.refs.Name
	}
	return s.refs.Subject
}

func (s *sentenceCheck) knownNames() []string {
	seen := map[string]bool{}
	var out []string
	for _, n := range append([]string{s.refs.Name}, s.refs.Aliases...) {
		if n != "" && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// nameEvidence is where a name of the subject is written: the KG fact
// that gives it, else its first occurrence in the references.
func (s *sentenceCheck) nameEvidence(name string) []schemas.Evidence {
	for _, f := range s.refs.Facts {
		if schemas.AliasRelation(f.Relation) && sameValue(f.Relation, f.Value, name) {
			if _, ok := s.idx.byChunk[f.ChunkID]; ok {
				return []schemas.Evidence{s.kgEvidence(f)}
			}
		}
	}
	n := normalize(name).rs
	if len(n) == 0 {
		return nil
	}
	for di := range s.idx.docs {
		if k := indexNorm(s.idx.docs[di].norm.rs, n); k >= 0 {
			st, en := s.idx.docs[di].norm.span(k, k+len(n))
			return []schemas.Evidence{s.idx.evidence(di, st, en)}
		}
	}
	return nil
}

// eventRelation is the relation whose time a date gives: that of the
// clause holding the date, or of the clause right after a clause of dates
// only (万历十一年（1583年），叶向高举进士).
func (s *sentenceCheck) eventRelation(a atom) (string, atom) {
	timed := func(rel string) bool {
		return rel == schemas.RelJinshi || rel == schemas.RelDeath || rel == schemas.RelBirth
	}
	if c, ok := s.clauseOf(a); ok {
		if timed(c.fact.Relation) {
			return c.fact.Relation, c
		}
		return "", atom{}
	}
	// The date's clause holds only dates: the next clause names the event.
	for _, b := range s.atoms {
		if b.date == nil && b.start >= a.end {
			if timed(b.fact.Relation) && onlyDatesBetween(s.atoms, a.end, b.start) {
				return b.fact.Relation, b
			}
			return "", atom{}
		}
	}
	return "", atom{}
}

func onlyDatesBetween(atoms []atom, from, to int) bool {
	for _, b := range atoms {
		if b.date == nil && b.start >= from && b.start < to {
			return false
		}
	}
	return true
}

// checkDate decides a date (not a Gregorian year): by the KG fact of the
// event the sentence dates, else by the anchor passage, which states the
// event; the same date written elsewhere in the references does not count.
func (s *sentenceCheck) checkDate(a atom) schemas.FactVerdict {
	// A sentence of the subject's page that names no one else is about
	// the subject: the KG date of the event it dates decides.
	if fv, ok := s.eventDateByKG(a); ok {
		return fv
	}
	// The date's clause, event and all, as a reference writes it.
	if c, ok := s.clauseOf(a); ok {
		if ev, ok := s.findVerbatim(c, s.keptDocs(c)); ok {
			return verdictOf(a.fact, schemas.StatusSupported, "", "stated with its event in chunk "+ev.ChunkID, ev)
		}
	}
	return s.dateByAnchor(a)
}

// eventDateByKG decides a date by the expert decisions and the subject's
// KG facts of the event the sentence dates (an examination — of the 进士
// degree, the one the KG records —, a death, a birth).
func (s *sentenceCheck) eventDateByKG(a atom) (schemas.FactVerdict, bool) {
	rel, ev := s.eventRelation(a)
	if rel == "" {
		return schemas.FactVerdict{}, false
	}
	if fv, ok := s.byDecision(rel, a); ok {
		return fv, true
	}
	if s.other {
		return schemas.FactVerdict{}, false
	}
	fv, ok := s.dateByKG(a, rel)
	// The KG records the 进士 examination: its date supports the date of
	// a clause that names another degree (the degree is then the error),
	// but contradicts only a 进士 clause.
	if ok && fv.Status == schemas.StatusNotSupported && rel == schemas.RelJinshi &&
		!strings.Contains(s.passedPhrase(ev), "进士") {
		return schemas.FactVerdict{}, false
	}
	return fv, ok
}

// clauseOf is the clause fact that holds a date written inside it
// (举万历十一年进士), if any.
func (s *sentenceCheck) clauseOf(a atom) (atom, bool) {
	for _, b := range s.atoms {
		if b.date == nil && b.start <= a.start && a.end <= b.end {
			return b, true
		}
	}
	return atom{}, false
}

// dateRegion is the content range of the event a date dates: its own
// clause, or the clause after a clause of dates only.
func (s *sentenceCheck) dateRegion(a atom) (int, int, string) {
	if c, ok := s.clauseOf(a); ok {
		lo, hi := s.atomRange(c)
		return lo, hi, c.fact.Text
	}
	for _, b := range s.atoms {
		if b.date == nil && b.start >= a.end {
			lo, _ := s.atomRange(a)
			_, hi := s.atomRange(b)
			return lo, hi, b.fact.Text
		}
	}
	return 0, 0, ""
}

// dateAnchor returns the passages that state the event a date dates: of
// the passages most like the event's clause, those whose alignment with
// the sentence matches most of that clause (at least half of it; ties
// all), best first.
func (s *sentenceCheck) dateAnchor(a atom) []int {
	lo, hi, event := s.dateRegion(a)
	n := 0
	for k := lo; k < hi; k++ {
		if !s.dateAt[k] {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	et := text.NewTokenSet(event)
	score := make([]float64, len(s.idx.passages))
	for p, ps := range s.idx.passages {
		score[p] = max(s.jS[p], et.Jaccard(ps.toks))
	}
	type cand struct{ p, m int }
	var cands []cand
	best := 0
	for _, p := range s.topPassages(score, nil) {
		al := s.alignment(p)
		m := 0
		for _, o := range al.ops {
			if o.kind == opMatch && o.i >= lo && o.i < hi && !s.dateAt[o.i] {
				m++
			}
		}
		cands = append(cands, cand{p, m})
		best = max(best, m)
	}
	if 2*best < n || best < min(2, n) {
		return nil
	}
	sort.SliceStable(cands, func(x, y int) bool { return cands[x].m > cands[y].m })
	var out []int
	for _, c := range cands {
		if c.m == best {
			out = append(out, c.p)
		}
	}
	return out
}

type kgDate struct {
	f schemas.KGFact
	d dateSpan
}

func (s *sentenceCheck) dateByKG(a atom, rel string) (schemas.FactVerdict, bool) {
	var ds []kgDate
	for _, f := range s.kg(rel) {
		for _, d := range findDates(s.cfg.Era, f.Value) {
			ds = append(ds, kgDate{f, d})
		}
	}
	if len(ds) == 0 {
		return schemas.FactVerdict{}, false
	}
	for _, kd := range ds {
		if sameDate(*a.date, kd.d) {
			return verdictOf(a.fact, schemas.StatusSupported, "",
				fmt.Sprintf("%s date %s is stated in chunk %s", relName(rel), kd.d.text, kd.f.ChunkID), s.kgEvidence(kd.f)), true
		}
	}
	// Only dates that name their era and year can disagree: 二十四年 or
	// 明年 may be any year, 万历中 any year of its era.
	if !exactDate(*a.date) {
		return schemas.FactVerdict{}, false
	}
	var exact []kgDate
	for _, kd := range ds {
		if exactDate(kd.d) {
			exact = append(exact, kd)
		}
	}
	if len(exact) == 0 {
		return schemas.FactVerdict{}, false
	}
	// A date none of the references gives is wrong, whether or not they
	// agree among themselves.
	kd := exact[0]
	return verdictOf(a.fact, schemas.StatusNotSupported, schemas.ErrorEra,
		fmt.Sprintf("%s %s contradicts %s (%s) in chunk %s", dateKind(*a.date), a.date.text, kd.d.text, relName(rel), kd.f.ChunkID),
		s.kgEvidence(kd.f)), true
}

// exactDate reports whether a date names its era and its year.
func exactDate(d dateSpan) bool { return d.kind == dateEra && d.year > 0 }

func dateKind(d dateSpan) string {
	switch d.kind {
	case dateEra:
		return "era date"
	case dateGregorian:
		return "Gregorian year"
	}
	return "date"
}

// passageDates are the dates of the doc that lie inside passage p.
func (s *sentenceCheck) passageDates(p int) []dateSpan {
	ps := s.idx.passages[p]
	var out []dateSpan
	for _, d := range s.idx.docs[ps.doc].dates {
		if d.start >= ps.start && d.end <= ps.end {
			out = append(out, d)
		}
	}
	return out
}

func (s *sentenceCheck) dateByAnchor(a atom) schemas.FactVerdict {
	anchors := s.dateAnchor(a)
	if len(anchors) == 0 {
		return verdictOf(a.fact, schemas.StatusNotIncluded, "",
			fmt.Sprintf("no reference states the event dated %s", a.date.text))
	}
	// Any passage that states the event with this date supports it.
	for _, p := range anchors {
		if pd, ok := s.anchorDate(a, p, true); ok {
			doc := &s.idx.docs[s.idx.passages[p].doc]
			return verdictOf(a.fact, schemas.StatusSupported, "",
				fmt.Sprintf("date %s is stated with the event in chunk %s", pd.text, doc.ref.ChunkID),
				s.idx.evidence(s.idx.passages[p].doc, pd.start, pd.end))
		}
	}
	// The best one contradicts it when it dates the event otherwise, at
	// the place the sentence has its date, and states the event nearly
	// word for word (two thirds of it).
	p := anchors[0]
	ps := s.idx.passages[p]
	doc := &s.idx.docs[ps.doc]
	if pd, ok := s.anchorDate(a, p, false); ok && s.eventCovered(a, p) {
		return verdictOf(a.fact, schemas.StatusNotSupported, schemas.ErrorEra,
			fmt.Sprintf("%s %s contradicts %s in chunk %s", dateKind(*a.date), a.date.text, pd.text, doc.ref.ChunkID),
			s.idx.evidence(ps.doc, pd.start, pd.end), s.idx.passageEvidence(p))
	}
	return verdictOf(a.fact, schemas.StatusNotIncluded, "",
		fmt.Sprintf("the passage that states the event (chunk %s) gives no date %s", doc.ref.ChunkID, a.date.text),
		s.idx.passageEvidence(p))
}

// anchorDate looks in passage p for the date that stands for the
// sentence's date a: with same, a date equal to a (aligned with it or
// anywhere in the passage); without, a comparable date aligned with a.
func (s *sentenceCheck) anchorDate(a atom, p int, same bool) (dateSpan, bool) {
	ps := s.idx.passages[p]
	doc := &s.idx.docs[ps.doc]
	lo, hi := s.atomRange(a)
	pds := s.passageDates(p)
	al := s.alignment(p)
	for _, o := range al.ops {
		if o.i < lo || o.i >= hi || o.j < 0 {
			continue
		}
		at := doc.norm.pos[ps.ns+o.j]
		for _, pd := range pds {
			if pd.start <= at && at < pd.end {
				if same == sameDate(*a.date, pd) && (same || comparableDates(*a.date, pd)) {
					return pd, true
				}
			}
		}
	}
	if same {
		for _, pd := range pds {
			if sameDate(*a.date, pd) {
				return pd, true
			}
		}
	}
	return dateSpan{}, false
}

// eventCovered reports whether passage p matches two thirds of the
// non-date text of the event a date dates.
func (s *sentenceCheck) eventCovered(a atom, p int) bool {
	lo, hi, _ := s.dateRegion(a)
	n, m := 0, 0
	for k := lo; k < hi; k++ {
		if !s.dateAt[k] {
			n++
		}
	}
	for _, o := range s.alignment(p).ops {
		if o.kind == opMatch && o.i >= lo && o.i < hi && !s.dateAt[o.i] {
			m++
		}
	}
	return n > 0 && 3*m >= 2*n
}

// comparableDates reports whether two dates that differ contradict each
// other: both give a year (an era date and a bare year may share their
// era), or both give only a month. An approximate date (弘治初) or a word
// (明年) contradicts nothing.
func comparableDates(a, b dateSpan) bool {
	if a.kind == dateGregorian || b.kind == dateGregorian {
		return a.kind == b.kind
	}
	if a.year > 0 && b.year > 0 {
		return a.era == "" || b.era == "" || a.era == b.era || a.kind == dateEra && b.kind == dateEra
	}
	return a.year == 0 && b.year == 0 && a.month != "" && b.month != "" && a.era == "" && b.era == ""
}

// checkGregorian decides a Gregorian year: it must be what the era table
// gives for the era date it glosses (the nearest in its clause or before
// it), and is then as supported as that date. Without an era date in the
// sentence, a relative year takes the era named last before the anchor
// passage; failing that, the year is checked like any date.
func (s *sentenceCheck) checkGregorian(i int, decided []schemas.FactVerdict) schemas.FactVerdict {
	a := s.atoms[i]
	g := a.date.gregorian
	era := -1
	for k := i - 1; k >= 0; k-- {
		if d := s.atoms[k].date; d != nil && (d.kind == dateEra || d.kind == dateRelative && d.year > 0) {
			era = k
			break
		}
	}
	if era < 0 {
		for k := i + 1; k < len(s.atoms); k++ {
			if d := s.atoms[k].date; d != nil && d.kind == dateEra {
				era = k
				break
			}
		}
	}
	if era >= 0 {
		ed := *s.atoms[era].date
		want, name := ed.gregorian, ed.text
		if ed.kind == dateRelative {
			want, name = s.contextGregorian(ed)
		}
		if want != 0 {
			if want != g {
				return verdictOf(a.fact, schemas.StatusNotSupported, schemas.ErrorEra,
					fmt.Sprintf("Gregorian year %d does not match %s, which the era table gives as %d", g, name, want),
					decided[era].Evidence...)
			}
			dv := decided[era]
			switch dv.Status {
			case schemas.StatusSupported:
				return verdictOf(a.fact, schemas.StatusSupported, "",
					fmt.Sprintf("%d is %s by the era table", g, name), dv.Evidence...)
			case schemas.StatusNotSupported:
				return verdictOf(a.fact, schemas.StatusNotSupported, schemas.ErrorEra,
					fmt.Sprintf("Gregorian year %d follows %s, which is wrong: %s", g, name, dv.Message), dv.Evidence...)
			}
			return verdictOf(a.fact, schemas.StatusNotIncluded, "",
				fmt.Sprintf("Gregorian year %d follows %s, which no reference states", g, name))
		}
	}
	for _, rel := range []string{schemas.RelJinshi, schemas.RelDeath, schemas.RelBirth} {
		for _, f := range s.kg(rel) {
			if q := f.Qualifiers["gregorian"]; q != "" && q == strconv.Itoa(g) {
				return verdictOf(a.fact, schemas.StatusSupported, "",
					fmt.Sprintf("Gregorian year %d of the %s is stated in chunk %s", g, relName(rel), f.ChunkID), s.kgEvidence(f))
			}
		}
	}
	if s.verbatim != nil {
		return verdictOf(a.fact, schemas.StatusSupported, "", "stated verbatim in chunk "+s.verbatim.ChunkID, *s.verbatim)
	}
	return s.dateByAnchor(a)
}

// contextGregorian converts a relative year with the era named last before
// the anchor passage in its chunk (liezhuan write 二十六年 once the era is
// known).
func (s *sentenceCheck) contextGregorian(d dateSpan) (int, string) {
	if s.anchor < 0 || d.year == 0 {
		return 0, ""
	}
	ps := s.idx.passages[s.anchor]
	name := ""
	for _, pd := range s.idx.docs[ps.doc].dates {
		if pd.start >= ps.end {
			break
		}
		if pd.kind == dateEra && pd.era != "" {
			name = pd.era
		}
	}
	if name == "" {
		return 0, ""
	}
	g, ok := s.cfg.Era.Gregorian(name, d.year)
	if !ok {
		return 0, ""
	}
	return g, name + d.text
}

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
			// The fact must otherwise align with the passage, or the
			// segment must sit between aligned text on both sides — or
			// fill a name or place slot whose sentence aligns around it.
			if 2*matched < hi-lo && (r.left < 2 || r.right < 2) && !(slotRelation(a.fact.Relation) && r.left >= 2) {
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

// slotBesideName reports whether the evidence for a name or place slot
// is written in a passage that names the sentence's person (the name the
// sentence opens with, or the subject): 字洋山 in another man's entry does
// not support it.
func (s *sentenceCheck) slotBesideName(a atom, ev schemas.Evidence) bool {
	if !slotRelation(a.fact.Relation) || a.fact.Relation == schemas.RelAlias {
		return true
	}
	di, ok := s.idx.byChunk[ev.ChunkID]
	if !ok {
		return false
	}
	p := s.idx.passageAt(di, ev.Span.Start)
	if p < 0 {
		return false
	}
	ps := s.idx.passages[p]
	pass := s.idx.docs[di].norm.rs[ps.ns:ps.ne]
	var names [][]rune
	if len(s.atoms) > 0 && s.atoms[0].fact.Relation == schemas.RelAlias {
		names = append(names, normalize(s.atoms[0].fact.Value).rs)
	} else {
		for n := range s.names {
			names = append(names, []rune(n))
		}
	}
	for _, n := range names {
		if len(n) > 0 && indexNorm(pass, n) >= 0 {
			return true
		}
	}
	return false
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

// slotRelation reports whether a relation is a slot of an identity
// sentence (name, 字, 号, X人): its clause is the value and little else.
func slotRelation(rel string) bool {
	switch rel {
	case schemas.RelAlias, schemas.RelCourtesyName, schemas.RelArtName, schemas.RelNativePlace:
		return true
	}
	return false
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
	as, ae := s.origSpan(s.content, r.a0, r.a1, len(s.rs))
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
	w, wok := examAround(s.rs, as, ae)
	rr, rok := examAround(doc.rs, bs, be)
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
	// Names: the fact's slot, a name marker before the segment, or a
	// name of the subject on either side.
	switch a.fact.Relation {
	case schemas.RelAlias, schemas.RelCourtesyName, schemas.RelArtName:
		c.etype, c.kind, c.typed, c.ownTyped = schemas.ErrorAlias, "name", true, true
		return c
	case schemas.RelOffice:
		c.etype, c.kind = schemas.ErrorKnowledge, "office"
		c.typed = inOffice(doc.rs, bs, be)
		c.ownTyped = c.typed
		return c
	case schemas.RelNativePlace:
		c.etype, c.kind, c.typed, c.ownTyped = schemas.ErrorOther, "native place", true, true
		return c
	}
	if markerBefore(s.rs, as) && markerBefore(doc.rs, bs) || s.names[normValue(c.right)] && ae > as {
		c.etype, c.kind, c.typed, c.ownTyped = schemas.ErrorAlias, "name", true, true
		return c
	}
	if inOffice(s.rs, as, ae) && inOffice(doc.rs, bs, be) {
		c.etype, c.kind, c.typed, c.ownTyped = schemas.ErrorKnowledge, "office", true, true
		return c
	}
	c.etype, c.kind = schemas.ErrorOther, "value"
	return c
}

// origSpan maps content runes [s, e) to sentence runes; an empty range is
// the point after the rune before it.
func (s *sentenceCheck) origSpan(n normText, a, b, limit int) (int, int) {
	return origSpanOffset(n, a, b, limit)
}

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
func examAround(rs []rune, s, e int) (string, bool) {
	from := max(0, s-4)
	for i := from; i < len(rs) && i <= e; i++ {
		n := examTermAt(rs, i)
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
func inOffice(rs []rune, s, e int) bool {
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
		if hasLongOfficeSuffix(string(rs[s:k])) {
			return true
		}
	}
	return false
}

func hasLongOfficeSuffix(s string) bool {
	for _, suf := range officeSuffixes {
		if len([]rune(suf)) >= 2 && strings.HasSuffix(s, suf) {
			return true
		}
	}
	return false
}

// verdictOf builds a fact verdict.
func verdictOf(f schemas.Fact, status, etype, msg string, ev ...schemas.Evidence) schemas.FactVerdict {
	return schemas.FactVerdict{Fact: f, Status: status, ErrorType: etype, Message: msg, Evidence: ev}
}
