package claims

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/annalist-dev/annalist/internal/lang/text"
	"github.com/annalist-dev/annalist/schemas"
)

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
	score := s.idx.jaccards(text.NewTokenSet(event))
	for p := range score {
		score[p] = max(s.jS[p], score[p])
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
		// Elsewhere in the passage only the date as written, or an era
		// date of the same era and year: a bare 十三年 there does not
		// stand for 正统十三年 here.
		for _, pd := range pds {
			if pd.text == a.date.text || a.date.era != "" && pd.era != "" && sameDate(*a.date, pd) {
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
