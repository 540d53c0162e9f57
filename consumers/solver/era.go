package solver

import (
	"context"
	"slices"
	"strconv"
	"unicode"

	"github.com/annalist-dev/annalist/internal/lang/profile"
	"github.com/annalist-dev/annalist/internal/lang/zh/era"
	"github.com/annalist-dev/annalist/schemas"
)

// Era repairs dates: era names and years, and the Gregorian years that
// gloss them, with the era table.
type Era struct {
	t        *era.Table
	profiles *profile.Set
}

// NewEra returns the era solver. A reference set's dates are read with
// cfg.Era and the preference among dynasties of the set's profile.
func NewEra(cfg Config) Solver {
	cfg = cfg.withDefaults()
	return &Era{t: cfg.Era, profiles: cfg.Profiles}
}

// forRefs is the solver for a reference set: its table resolves an era
// name several dynasties used in the order the set's profile prefers.
func (s *Era) forRefs(refs *schemas.ReferenceSet) *Era {
	p := s.profiles.For(refs.Profile, refs.Lang)
	if len(p.EraPrefer) == 0 {
		return s
	}
	return &Era{t: s.t.WithPrefer(p.EraPrefer...), profiles: s.profiles}
}

// Name is "era".
func (*Era) Name() string { return NameEra }

// Solve re-derives each wrong date from the references and rewrites it:
//
//  1. the reference date is the era date of the fact's evidence passage
//     (the one of the sentence's era name when the passage has several),
//     else the Gregorian year the passage writes, else the date of the
//     subject's KG fact of an event the sentence states (jinshi, birth,
//     death …), else — when only the Gregorian year is wrong — the
//     sentence's own era date, if a reference states it;
//  2. the era year is checked to lie within the era (the table's length
//     of the era), and the Gregorian year is computed from the table;
//  3. the sentence's era date and the Gregorian year that glosses it are
//     written anew.
//
// Then every era date of the sentence glossed by a Gregorian year is
// checked against the table and the year corrected when they disagree.
// When the rules change nothing, the verdict's failed facts are repaired
// the regenerate way; other failures are otherwise left to the next
// verification (fixRestIfUnfixed).
func (s *Era) Solve(_ context.Context, _ string, refs *schemas.ReferenceSet, r schemas.Repair) (schemas.Correction, []schemas.Review, error) {
	if refs == nil {
		return schemas.Correction{}, nil, errNoReferences
	}
	s = s.forRefs(refs)
	e := newEdit(refs, r.Verdict)
	for _, i := range e.failed(schemas.ErrorEra) {
		fv := e.v.Facts[i]
		if fv.Status != schemas.StatusNotSupported || fv.ErrorType != schemas.ErrorEra {
			break
		}
		if s.fixDate(e, fv) {
			e.handled[i] = true
			e.fixed = true
		}
	}
	if recheckGlosses(s.t, e) {
		e.fixed = true
	}
	e.fixRestIfUnfixed()
	return e.finish(newCorrection(NameEra, r)), nil, nil
}

// target is the date a fact is about in the sentence: an era date, the
// Gregorian year glossing it, or both.
type target struct {
	date *era.Date
	year *era.Year
}

// dateTarget finds the era date and Gregorian year of the sentence the
// fact at [s, t) is about: those inside or overlapping the span, else the
// nearest era date; a year glossing the date, or a date the year glosses,
// completes the pair.
func (s *Era) dateTarget(rs []rune, fs, ft int) target {
	txt := string(rs)
	dates := s.t.Find(txt)
	years := era.FindGregorian(txt)
	var tg target
	for i := range dates {
		if dates[i].Start < ft && fs < dates[i].End {
			tg.date = &dates[i]
			break
		}
	}
	for i := range years {
		if years[i].Start < ft && fs < years[i].End {
			tg.year = &years[i]
			break
		}
	}
	if tg.date == nil && tg.year == nil && len(dates) > 0 {
		best := 0
		for i := range dates {
			if dist(dates[i].Start, fs) < dist(dates[best].Start, fs) {
				best = i
			}
		}
		tg.date = &dates[best]
	}
	switch {
	case tg.date != nil && tg.year == nil:
		for i := range years {
			if glosses(rs, *tg.date, years[i]) {
				tg.year = &years[i]
				break
			}
		}
	case tg.year != nil && tg.date == nil:
		for i := range dates {
			if glosses(rs, dates[i], *tg.year) {
				tg.date = &dates[i]
				break
			}
		}
	}
	return tg
}

func dist(a, b int) int {
	if a > b {
		return a - b
	}
	return b - a
}

// glosses reports whether Gregorian year y glosses era date d: it follows
// the date with nothing but brackets and spaces between (万历十一年（1583年）).
func glosses(rs []rune, d era.Date, y era.Year) bool {
	if y.Start < d.End || y.Start-d.End > 3 {
		return false
	}
	for _, r := range rs[d.End:y.Start] {
		if !isOpener(r) && !unicode.IsSpace(r) {
			return false
		}
	}
	return true
}

// refDate is the date the references give for a target.
type refDate struct {
	date      *era.Date // nil when only a Gregorian year is known
	gregorian int
	chunk     string
}

// reference derives the reference date for the target (see Solve).
func (s *Era) reference(e *edit, fv schemas.FactVerdict, tg target) (refDate, bool) {
	sentEra := ""
	if tg.date != nil {
		sentEra = tg.date.Era
	}
	// 1. The evidence passages.
	for _, ev := range fv.Evidence {
		p := passage(e.refs, ev)
		if p == "" {
			continue
		}
		if d, ok := pickDate(s.t.Find(p), sentEra); ok {
			return refDate{date: &d, chunk: ev.ChunkID}, true
		}
		if tg.date == nil {
			if ys := era.FindGregorian(p); len(ys) > 0 {
				return refDate{gregorian: ys[0].Value, chunk: ev.ChunkID}, true
			}
		}
	}
	// 2. The KG facts of the events the sentence states.
	for _, rel := range e.eventRelations(fv) {
		for _, kf := range e.refs.FactsOf(rel) {
			src := kf.Value
			if y := kf.Qualifiers["year"]; y != "" {
				src = y
			}
			if d, ok := pickDate(s.t.Find(src), sentEra); ok {
				return refDate{date: &d, chunk: kf.ChunkID}, true
			}
			if g, err := strconv.Atoi(kf.Qualifiers["gregorian"]); err == nil && tg.date == nil {
				return refDate{gregorian: g, chunk: kf.ChunkID}, true
			}
		}
	}
	// 3. The sentence's own date, when only its gloss is wrong and a
	// reference states the date.
	if tg.date != nil && tg.year != nil {
		if chunk := e.chunkStating(tg.date.Text, fv); chunk != "" {
			d := *tg.date
			return refDate{date: &d, chunk: chunk}, true
		}
	}
	return refDate{}, false
}

// pickDate is the date of the sentence's era name among ds, else the
// first; approximate dates (万历中) are skipped, as they fix no year.
func pickDate(ds []era.Date, sentEra string) (era.Date, bool) {
	var first *era.Date
	for i := range ds {
		if ds[i].Approx != "" || ds[i].Year == 0 {
			continue
		}
		if ds[i].Era == sentEra {
			return ds[i], true
		}
		if first == nil {
			first = &ds[i]
		}
	}
	if first == nil {
		return era.Date{}, false
	}
	return *first, true
}

// eventRelations are the relations whose KG dates may give the fact's
// date: the fact's own relation, then those of the sentence's other facts,
// then the dated events of a biography.
func (e *edit) eventRelations(fv schemas.FactVerdict) []string {
	var out []string
	add := func(r string) {
		if r == "" || r == relDate || r == "text" {
			return
		}
		for _, o := range out {
			if o == r {
				return
			}
		}
		out = append(out, r)
	}
	add(fv.Fact.Relation)
	for _, o := range e.v.Facts {
		add(o.Fact.Relation)
	}
	for _, f := range e.facts {
		add(f.Relation)
	}
	if len(out) == 0 {
		for _, r := range []string{schemas.RelJinshi, schemas.RelBirth, schemas.RelDeath} {
			add(r)
		}
	}
	return out
}

// fixDate rewrites the date of one era fact, or drops it when the
// reference date fails the double check; false when the references give
// no date for it.
func (s *Era) fixDate(e *edit, fv schemas.FactVerdict) bool {
	fs, ft, ok := e.locate(fv.Fact)
	if !ok {
		return false
	}
	tg := s.dateTarget(e.rs, fs, ft)
	if tg.date == nil && tg.year == nil {
		return false
	}
	rd, ok := s.reference(e, fv, tg)
	if !ok {
		return false
	}
	g := rd.gregorian
	if rd.date != nil {
		// The double check: the era year must lie within the era.
		gg, ok := s.t.Gregorian(rd.date.Era, rd.date.Year)
		if !ok {
			// The reference itself fails the check: no date can be
			// trusted for the event, so the date goes, not just the fix.
			removed := e.drop(fs, ft)
			e.note("dropped %q: reference date %s is beyond the era in the table", removed, rd.date.Text)
			return true
		}
		g = gg
	}
	type change struct {
		s, t         int
		value, chunk string
	}
	var changes []change
	if tg.year != nil && g != 0 && tg.year.Value != g {
		ys, yt := digits(e.rs, *tg.year)
		e.note("Gregorian year %d replaced by %d", tg.year.Value, g)
		changes = append(changes, change{ys, yt, strconv.Itoa(g), ""})
	}
	if tg.date != nil && rd.date != nil && (tg.date.Era != rd.date.Era || tg.date.Year != rd.date.Year) {
		// As the reference writes it (永乐十有八年, not 永乐十八年): the
		// verifier reads the sentence against the reference's words.
		want := rd.date.Text
		if want == "" {
			want = rd.date.Format()
		}
		e.note("%s replaced by %s (%s)", tg.date.Text, want, rd.chunk)
		changes = append(changes, change{tg.date.Start, tg.date.End, want, rd.chunk})
	}
	// Right to left, so the offsets of the other change stay valid.
	slices.SortFunc(changes, func(a, b change) int { return b.s - a.s })
	for _, c := range changes {
		e.replace(c.s, c.t, c.value, c.chunk)
	}
	e.use(rd.chunk)
	return true
}

// digits is the span of the digit run of a Gregorian year.
func digits(rs []rune, y era.Year) (int, int) {
	s := y.Start
	t := s
	for t < y.End && (unicode.IsDigit(rs[t]) || rs[t] >= '０' && rs[t] <= '９') {
		t++
	}
	return s, t
}

// recheckGlosses corrects every Gregorian year glossing an era date of the
// sentence to the year table t gives for the date, and reports whether it
// changed any.
func recheckGlosses(t *era.Table, e *edit) bool {
	any := false
	for recheckOne(t, e) {
		any = true
	}
	return any
}

// recheckOne corrects the first Gregorian year that disagrees with the era
// date it glosses; false when there is none.
func recheckOne(t *era.Table, e *edit) bool {
	txt := e.text()
	years := era.FindGregorian(txt)
	for _, d := range t.Find(txt) {
		if d.Year == 0 {
			continue
		}
		g, ok := t.Gregorian(d.Era, d.Year)
		if !ok {
			continue
		}
		for _, y := range years {
			if glosses(e.rs, d, y) && y.Value != g {
				ys, yt := digits(e.rs, y)
				e.note("Gregorian year %d of %s recomputed: %d", y.Value, d.Text, g)
				e.replace(ys, yt, strconv.Itoa(g), "")
				return true
			}
		}
	}
	return false
}
