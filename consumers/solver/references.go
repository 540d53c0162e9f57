package solver

import (
	"slices"
	"strings"

	"github.com/annalist-dev/annalist/internal/lang/text"
	"github.com/annalist-dev/annalist/schemas"
)

// candidate is a value the references give for a slot of the sentence.
type candidate struct {
	value, chunk string
	rank         int
}

// Candidate ranks, best first. An alignment that finds both contexts of
// the wrong value around a slot of the evidence passage is the surest
// sign of "the same statement with another value"; a KG fact of the
// relation drawn from the passage comes next.
const (
	rankAlignBoth    = 6
	rankKGPassage    = 5 // KG fact of the relation, from the evidence chunk, its value in the passage
	rankKGInEvidence = 4 // KG fact of the relation whose value some evidence passage states
	rankAlignOneSide = 3
	rankKGOnly       = 2 // the relation's KG value, single-valued relations only
	rankAlignInside  = 1
)

// multiValued relations have many values per person: a KG value of them
// that no evidence points at says nothing about this sentence.
func multiValued(rel string) bool {
	switch rel {
	case schemas.RelOffice, schemas.RelRelative, schemas.RelMention, "":
		return true
	}
	return false
}

// kgComparable reports whether the KG values of a relation are of the
// kind the verifier reports for it. The jinshi fact's KG value is its
// date (the era solver's business) while the verifier's value for an
// examination clause is the degree and rank as written, so KG jinshi
// values are never offered for it.
func kgComparable(rel string) bool { return rel != schemas.RelJinshi }

// passage is the text of an evidence item: its own text, else the span of
// the chunk it names, else the whole chunk. Evidence from a chunk outside
// the reference set gives nothing: a sentence may only cite the set's
// chunks.
func passage(refs *schemas.ReferenceSet, ev schemas.Evidence) string {
	if refs == nil {
		return ""
	}
	r, ok := refs.Reference(ev.ChunkID)
	if !ok {
		return ""
	}
	if strings.TrimSpace(ev.Text) != "" {
		return ev.Text
	}
	if ev.Span.End > ev.Span.Start && ev.Span.Start >= 0 {
		if s := text.Substr(r.Text, ev.Span.Start, ev.Span.End); s != "" {
			return s
		}
	}
	return r.Text
}

func overlaps(a, b schemas.Span) bool { return a.Start < b.End && b.Start < a.End }

// referenceValues lists the values the references give where the sentence
// has [s, t) wrong, best first, each value once: alignments of the
// sentence with the fact's evidence passages, and the subject's KG facts
// of the fact's relation (see the rank constants).
func (e *edit) referenceValues(fv schemas.FactVerdict, s, t int) []candidate {
	wrong := string(e.rs[s:t])
	var out []candidate
	add := func(c candidate) {
		if !slotValid([]rune(c.value), wrong) {
			return
		}
		for i := range out {
			if out[i].value == c.value {
				if c.rank > out[i].rank {
					out[i] = c
				}
				return
			}
		}
		out = append(out, c)
	}
	type pass struct {
		ev   schemas.Evidence
		text string
	}
	var passages []pass
	for _, ev := range fv.Evidence {
		if p := passage(e.refs, ev); p != "" {
			passages = append(passages, pass{ev, p})
		}
	}
	for _, p := range passages {
		if v, q, ok := align(e.rs, s, t, []rune(p.text)); ok {
			r := rankAlignInside
			switch q {
			case alignBoth:
				r = rankAlignBoth
			case alignOneSide:
				r = rankAlignOneSide
			}
			add(candidate{value: v, chunk: p.ev.ChunkID, rank: r})
		}
	}
	rel := fv.Fact.Relation
	if e.refs != nil && rel != "" && kgComparable(rel) {
		for _, kf := range e.refs.FactsOf(rel) {
			if kf.Value == "" || kf.Value == wrong {
				continue
			}
			r := 0
			for _, p := range passages {
				in := strings.Contains(p.text, kf.Value)
				switch {
				case in && p.ev.ChunkID == kf.ChunkID:
					r = max(r, rankKGPassage)
				case p.ev.ChunkID == kf.ChunkID && overlaps(p.ev.Span, kf.Span):
					r = max(r, rankKGPassage)
				case in:
					r = max(r, rankKGInEvidence)
				}
			}
			if r == 0 && !multiValued(rel) {
				r = rankKGOnly
			}
			if r > 0 {
				add(candidate{value: kf.Value, chunk: kf.ChunkID, rank: r})
			}
		}
	}
	slices.SortStableFunc(out, func(a, b candidate) int { return b.rank - a.rank })
	return out
}

// fixByReferences repairs fact i of the verdict from the references alone,
// the regenerate way: a contradicted value is replaced by the value the
// references give in its place; a fact no reference includes, a
// contradicted clause with no value, or a value with no reference value to
// put in its place, is dropped with the smallest unit of the sentence that
// carries it.
func (e *edit) fixByReferences(i int) {
	fv := e.v.Facts[i]
	e.handled[i] = true
	s, t, ok := e.locate(fv.Fact)
	if !ok {
		// Gone with an earlier edit (a Gregorian year rewritten with its
		// date), or never written as the verifier quotes it.
		if k := factKey(fv.Fact); !strings.Contains(e.v.Draft.Text, k) {
			e.note("%q is not in the sentence", k)
		}
		return
	}
	// Only a value has a slot to fill; a contradicted clause the verifier
	// read no value in is dropped like a clause no reference includes.
	if fv.Status == schemas.StatusNotSupported && fv.Fact.Value != "" {
		if cands := e.referenceValues(fv, s, t); len(cands) > 0 {
			c := cands[0]
			e.note("%s replaced by %s (%s)", string(e.rs[s:t]), c.value, c.chunk)
			e.replace(s, t, c.value, c.chunk)
			return
		}
	}
	removed := e.drop(s, t)
	if fv.Status == schemas.StatusNotIncluded {
		e.note("dropped %q: no reference includes it", removed)
	} else {
		e.note("dropped %q: contradicted and no reference value for it", removed)
	}
}

// fixRest repairs the verdict's failed facts no solver-specific rule took.
func (e *edit) fixRest() {
	for _, i := range e.failed("") {
		e.fixByReferences(i)
	}
}

// fixRestIfUnfixed is fixRest for a specialist solver: when its own rules
// changed nothing, every failed fact is repaired the regenerate way; when
// they changed something, the other failed facts are left to the next
// verification. A wrong date or name makes the verifier misread the rest
// of the sentence — it matches another passage, or none — and those
// failures, contradicted or not included alike, vanish with the fix; a
// real second error is caught when the corrected sentence is verified
// again, which costs an attempt where a guess could cost a correct clause.
func (e *edit) fixRestIfUnfixed() {
	if !e.fixed || e.text() == e.v.Draft.Text {
		e.fixRest()
	}
}

// relDate is the relation the verifier gives a date standing as a fact of
// its own.
const relDate = "date"

// stated reports whether text states the fact: its value or its text is
// written in it. Either may be normalised by the verifier (a death's value
// 树声九十七 of 树声年九十七卒), so each is tried.
func stated(text string, f schemas.Fact) bool {
	if f.Value != "" && strings.Contains(text, f.Value) {
		return true
	}
	ft := strings.TrimSpace(f.Text)
	return ft != "" && strings.Contains(text, ft)
}

// factKey is what identifies a fact in the text: its value, else its text.
func factKey(f schemas.Fact) string {
	if f.Value != "" {
		return f.Value
	}
	return strings.TrimSpace(f.Text)
}

// finish turns the edit into correction c: corrected with the new text,
// its facts and citations; dropped with the reason when nothing supported
// is left, or when the text is unchanged (the verifier is deterministic
// for a sentence and its references: the same text would fail again).
func (e *edit) finish(c schemas.Correction) schemas.Correction {
	if !e.supportedLeft() {
		c.Outcome = schemas.OutcomeDropped
		c.Reason = "nothing supported is left"
		if len(e.notes) > 0 {
			c.Reason += ": " + strings.Join(e.notes, "; ")
		}
		return c
	}
	if e.text() == e.v.Draft.Text {
		// The same sentence would get the same verdict again.
		c.Outcome = schemas.OutcomeDropped
		c.Reason = "no change the references support"
		if len(e.notes) > 0 {
			c.Reason += ": " + strings.Join(e.notes, "; ")
		}
		return c
	}
	if c.Outcome == "" {
		c.Outcome = schemas.OutcomeCorrected
	}
	c.Text = strings.TrimSpace(e.text())
	c.Facts = e.keptFacts()
	if c.Outcome == schemas.OutcomeConflict {
		// The verifier checks a conflict sentence fact by fact against
		// the chunk each names: only facts their chunk writes out can pass
		// (a Gregorian year derived by the table is no such fact; the
		// verifier checks it against the table).
		c.Facts = slices.DeleteFunc(c.Facts, func(f schemas.Fact) bool {
			r, ok := e.refs.Reference(f.ChunkID)
			return !ok || !stated(r.Text, f)
		})
	}
	c.Citations = e.citations(c.Facts)
	if c.Reason == "" {
		c.Reason = strings.Join(e.notes, "; ")
	}
	return c
}

// keptFacts are the facts still stated by the text.
func (e *edit) keptFacts() []schemas.Fact {
	now := e.text()
	var out []schemas.Fact
	for _, f := range e.facts {
		if stated(now, f) {
			out = append(out, f)
		}
	}
	return out
}

// citations are the draft's citations and the chunks the edits used, less
// the chunks only dropped facts rested on.
func (e *edit) citations(facts []schemas.Fact) []string {
	keep := map[string]bool{}
	for _, f := range facts {
		if f.ChunkID != "" {
			keep[f.ChunkID] = true
		}
	}
	for _, c := range e.used {
		keep[c] = true
	}
	var out []string
	add := func(c string) {
		if c != "" && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	for _, c := range e.cites {
		if slices.Contains(e.gone, c) && !keep[c] {
			continue
		}
		add(c)
	}
	for _, c := range e.used {
		add(c)
	}
	for _, f := range facts {
		add(f.ChunkID)
	}
	if len(out) == 0 {
		for _, c := range e.cites {
			add(c)
		}
	}
	return out
}
