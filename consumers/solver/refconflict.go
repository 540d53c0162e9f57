package solver

import (
	"context"
	"slices"
	"strings"

	"github.com/annalist-dev/annalist/internal/lang/profile"
	"github.com/annalist-dev/annalist/internal/lang/text"
	"github.com/annalist-dev/annalist/internal/lang/zh/era"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
)

// ReviewOpen is the status of a review no expert has answered yet.
const ReviewOpen = "open"

// RefConflict handles references that disagree: the sentence states each
// value with its own citation, and an expert is asked which is right.
type RefConflict struct {
	t        *era.Table
	profiles *profile.Set
}

// NewRefConflict returns the ref-conflict solver. The review it opens is
// returned by Solve (Handler stores and publishes it). Dates in conflict
// are read with cfg.Era; how the sentence states the other values and the
// review's question are the wording of the reference set's profile.
func NewRefConflict(cfg Config) Solver {
	cfg = cfg.withDefaults()
	return &RefConflict{t: cfg.Era, profiles: cfg.Profiles}
}

// Name is "refconflict".
func (*RefConflict) Name() string { return NameRefConflict }

// value is one of the values the references give, with its chunk and the
// passage that states it.
type value struct {
	value, chunk, passage string
}

// Solve answers the first ref_conflict fact of the verdict:
//   - an expert decision on the subject's relation (refs.Decisions) settles
//     it: the decided value is written, outcome corrected, no review;
//   - two or more distinct values: the sentence keeps its value when it is
//     one of them (else takes the first) and states the others after the
//     clause — 叶向高，福清人（一说晋江人）。, "a native of Fuqing (another
//     source: Jinjiang)" — with one fact per value citing its own chunk;
//     outcome conflict, and one review with every value as an option;
//   - fewer than two values: nothing is in conflict after all, and the
//     verdict's failed facts are repaired the regenerate way.
//
// A date in conflict takes the dates the evidence passages write, and the
// Gregorian year glossing it follows the date kept. Other failures are
// left to the next verification (fixRestIfUnfixed).
func (rc *RefConflict) Solve(_ context.Context, _ string, refs *schemas.ReferenceSet, r schemas.Repair) (schemas.Correction, []schemas.Review, error) {
	if refs == nil {
		return schemas.Correction{}, nil, errNoReferences
	}
	v := r.Verdict
	e := newEdit(refs, v)
	c := newCorrection(NameRefConflict, r)
	var reviews []schemas.Review
	for _, i := range e.failed(schemas.ErrorRefConflict) {
		fv := v.Facts[i]
		if fv.Status != schemas.StatusNotSupported || fv.ErrorType != schemas.ErrorRefConflict {
			break
		}
		s, t, ok := e.locate(fv.Fact)
		if !ok {
			continue
		}
		rel := fv.Fact.Relation
		wrong := string(e.rs[s:t])
		// A date is in conflict for an event: decisions and reviews are
		// about the event's relation.
		subjectRel := rel
		if rel == relDate {
			if rs := e.eventRelations(fv); len(rs) > 0 {
				subjectRel = rs[0]
			}
		}
		if d, ok := decision(refs, subjectRel); ok {
			e.handled[i], e.fixed = true, true
			if d.Value != wrong {
				e.replace(s, t, d.Value, d.ChunkID)
			} else {
				e.use(d.ChunkID)
			}
			e.note("expert decision %s on %s: %s", d.ReviewID, rel, d.Value)
			continue
		}
		vals := e.conflictValues(fv, s, t)
		if ds := rc.t.Find(wrong); len(ds) == 1 && ds[0].Start == 0 && ds[0].End == t-s {
			vals = e.conflictDates(rc.t, fv, wrong)
		}
		if len(vals) < 2 {
			continue
		}
		e.handled[i], e.fixed = true, true
		if vals[0].value != wrong {
			e.replace(s, t, vals[0].value, vals[0].chunk)
			t = s + text.RuneLen(vals[0].value)
		} else {
			e.restate(wrong, vals[0].chunk)
		}
		wording := rc.wording(refs, e)
		e.stateAlternatives(s, t, rel, vals[1:], wording)
		rv := review(wording, refs, v, subjectRel, vals)
		c.Outcome, c.ReviewID = schemas.OutcomeConflict, rv.ReviewID
		reviews = append(reviews, rv)
		e.note("references disagree on %s: %s; review %s", rel, joinValues(vals), rv.ReviewID)
		break
	}
	if e.fixed {
		recheckGlosses(rc.t, e)
	}
	e.fixRestIfUnfixed()
	c = e.finish(c)
	if c.Outcome == schemas.OutcomeDropped {
		return c, nil, nil
	}
	return c, reviews, nil
}

// decision is the expert decision on the subject's relation, if any.
func decision(refs *schemas.ReferenceSet, rel string) (schemas.Decision, bool) {
	for _, d := range refs.Decisions {
		if d.Relation == rel && d.Value != "" {
			return d, true
		}
	}
	return schemas.Decision{}, false
}

// conflictValues are the distinct values the references give for the
// fact at [s, t): the sentence's own value first when a chunk states it,
// then the subject's KG facts of the relation, then the values the
// evidence passages give in the sentence's place.
func (e *edit) conflictValues(fv schemas.FactVerdict, s, t int) []value {
	wrong := string(e.rs[s:t])
	var out []value
	add := func(v value) {
		if v.value == "" || v.chunk == "" || slices.ContainsFunc(out, func(o value) bool { return o.value == v.value }) {
			return
		}
		out = append(out, v)
	}
	kg := e.refs.FactsOf(fv.Fact.Relation)
	if !kgComparable(fv.Fact.Relation) {
		kg = nil
	}
	// The sentence's value, from the chunk that states it.
	for _, f := range kg {
		if f.Value == wrong {
			add(value{wrong, f.ChunkID, f.Evidence})
		}
	}
	for _, ev := range fv.Evidence {
		if p := passage(e.refs, ev); strings.Contains(p, wrong) {
			add(value{wrong, ev.ChunkID, p})
		}
	}
	for _, f := range e.facts {
		if f.Value == wrong && f.ChunkID != "" {
			if r, ok := e.refs.Reference(f.ChunkID); ok && strings.Contains(r.Text, wrong) {
				add(value{wrong, f.ChunkID, f.Text})
			}
		}
	}
	for _, f := range kg {
		add(value{f.Value, f.ChunkID, f.Evidence})
	}
	for _, ev := range fv.Evidence {
		p := passage(e.refs, ev)
		if v, q, ok := align(e.rs, s, t, []rune(p)); ok && q == alignBoth {
			add(value{v, ev.ChunkID, p})
		}
	}
	return out
}

// conflictDates are the distinct era dates the evidence passages give for
// a date in conflict, each passage's first date as the passage writes it:
// the sentence's own date first when a passage states it.
func (e *edit) conflictDates(t *era.Table, fv schemas.FactVerdict, wrong string) []value {
	var out []value
	for _, ev := range fv.Evidence {
		p := passage(e.refs, ev)
		ds := t.Find(p)
		if len(ds) == 0 {
			continue
		}
		v := value{ds[0].Text, ev.ChunkID, p}
		if slices.ContainsFunc(out, func(o value) bool { return o.value == v.value }) {
			continue
		}
		if v.value == wrong {
			out = slices.Insert(out, 0, v)
		} else {
			out = append(out, v)
		}
	}
	return out
}

// restate makes the facts stating value cite chunk.
func (e *edit) restate(val, chunk string) {
	for i, f := range e.facts {
		if f.Value == val {
			e.facts[i].ChunkID = chunk
		}
	}
	e.use(chunk)
}

// wording is the review wording of the reference set's profile, read in
// the set's language (the sentence's when the set does not say).
func (rc *RefConflict) wording(refs *schemas.ReferenceSet, e *edit) profile.Review {
	lang := refs.Lang
	if lang == "" {
		lang = text.Lang(e.text())
	}
	return rc.profiles.For(refs.Profile, lang).Review
}

// stateAlternatives writes the other values after the value at [s, t), in
// the profile's style: after its clause (profile.ConflictClause), as
// （一说X人）, the clause's words after the value repeated with each value
// after the profile's marker; or right after the value
// (profile.ConflictInline), as " (another source: X)".
func (e *edit) stateAlternatives(s, t int, rel string, alts []value, w profile.Review) {
	var ins string
	at := t
	var units []string
	if w.Style == profile.ConflictInline {
		for _, a := range alts {
			units = append(units, a.value)
		}
		word := w.One
		if len(alts) > 1 {
			word = w.Many
		}
		ins = " (" + word + ": " + strings.Join(units, "; ") + ")"
	} else {
		_, ce := clauseBounds(e.rs, s, t)
		ue := t
		for ue < ce && !isOpener(e.rs[ue]) && !isMark(e.rs[ue]) {
			ue++
		}
		suffix := string(e.rs[t:ue])
		for _, a := range alts {
			units = append(units, w.Marker+a.value+suffix)
		}
		ins = "（" + strings.Join(units, "，") + "）"
		at = ce
	}
	e.rs = splice(e.rs, at, at, []rune(ins))
	for i, a := range alts {
		e.facts = append(e.facts, schemas.Fact{Text: strings.TrimPrefix(units[i], w.Marker), Relation: rel,
			Value: a.value, ChunkID: a.chunk})
		e.use(a.chunk)
		e.inserted = append(e.inserted, a.value)
	}
}

// review is the review item for a conflict. Its id is derived from the
// subject's entity (its name when the set has no entity id), the relation
// and the sorted values, so the same disagreement always opens the same
// review however often it is met.
func review(w profile.Review, refs *schemas.ReferenceSet, v schemas.Verdict, rel string, vals []value) schemas.Review {
	subject := refs.EntityID
	if subject == "" {
		subject = refs.Name
	}
	if subject == "" {
		subject = v.Subject
	}
	keys := make([]string, len(vals))
	for i, x := range vals {
		keys[i] = x.value
	}
	slices.Sort(keys)
	name := refs.Name
	if name == "" {
		name = v.Subject
	}
	rv := schemas.Review{
		ReviewID:  "review-" + pipeline.ContentID(append([]string{subject, rel}, keys...)...),
		Subject:   v.Subject,
		RequestID: v.RequestID,
		Relation:  rel,
		Question:  w.Format(name, rel, optionValues(vals)),
		Status:    ReviewOpen,
	}
	if rv.Subject == "" {
		rv.Subject = name
	}
	for _, x := range vals {
		rv.Options = append(rv.Options, schemas.ReviewOption{Value: x.value, ChunkID: x.chunk, Text: x.passage})
	}
	return rv
}

func optionValues(vals []value) []string {
	out := make([]string, len(vals))
	for i, x := range vals {
		out[i] = x.value
	}
	return out
}

func joinValues(vals []value) string {
	var parts []string
	for _, x := range vals {
		parts = append(parts, x.value+" ("+x.chunk+")")
	}
	return strings.Join(parts, ", ")
}
