package solver

import (
	"fmt"
	"slices"
	"strings"

	"github.com/annalist-dev/annalist/internal/lang/text"
	"github.com/annalist-dev/annalist/schemas"
)

// edit is a draft sentence being rewritten. It keeps the text, the facts
// the sentence rests on (the draft's, which carry the chunk of each value)
// and its citations in step, and records what was done for the reason.
type edit struct {
	refs  *schemas.ReferenceSet
	v     schemas.Verdict
	rs    []rune
	facts []schemas.Fact
	cites []string
	// used are the chunks the edits took values from; gone the chunks of
	// facts that were dropped.
	used, gone []string
	notes      []string
	// inserted are the values the edits took from the references.
	inserted []string
	// handled marks the verdict's facts that are dealt with; fixed says a
	// solver's own rules changed something.
	handled map[int]bool
	fixed   bool
}

func newEdit(refs *schemas.ReferenceSet, v schemas.Verdict) *edit {
	d := v.Draft
	e := &edit{refs: refs, v: v, rs: []rune(d.Text), facts: slices.Clone(d.Facts),
		cites: slices.Clone(d.Citations), handled: map[int]bool{}}
	return e
}

func (e *edit) text() string { return string(e.rs) }

func (e *edit) note(format string, args ...any) {
	e.notes = append(e.notes, fmt.Sprintf(format, args...))
}

// failed lists the indexes of the verdict's facts that are not supported
// and not yet handled, those of error type errType first when it is set.
func (e *edit) failed(errType string) []int {
	var first, rest []int
	for i, fv := range e.v.Facts {
		if fv.Status == schemas.StatusSupported || e.handled[i] {
			continue
		}
		if errType != "" && fv.Status == schemas.StatusNotSupported && fv.ErrorType == errType {
			first = append(first, i)
		} else {
			rest = append(rest, i)
		}
	}
	return append(first, rest...)
}

// locate finds a fact in the current text: the span of its value inside
// its text when both are found, else of its value, else of its text.
func (e *edit) locate(f schemas.Fact) (s, t int, ok bool) {
	ft := strings.TrimSpace(f.Text)
	if ft != "" {
		if p := index(e.rs, ft, 0); p >= 0 {
			n := text.RuneLen(ft)
			if f.Value != "" {
				if q := text.IndexRunes(e.rs[:p+n], []rune(f.Value), p); q >= 0 {
					return q, q + text.RuneLen(f.Value), true
				}
			}
			return p, p + n, true
		}
	}
	if f.Value != "" {
		if p := index(e.rs, f.Value, 0); p >= 0 {
			return p, p + text.RuneLen(f.Value), true
		}
	}
	if ft != "" {
		return e.similarClause(ft)
	}
	return 0, 0, false
}

// similarClause finds the clause most like ft by token Jaccard, for a fact
// whose text the verifier normalised (Gregorian years left out, say); at
// least half the tokens must agree.
func (e *edit) similarClause(ft string) (s, t int, ok bool) {
	want := text.NewTokenSet(ft)
	best := 0.5
	for start := 0; start < len(e.rs); {
		cs, ce := clauseBounds(e.rs, start, start)
		if ce <= cs {
			start = ce + 1
			continue
		}
		if j := want.Jaccard(text.NewTokenSet(string(e.rs[cs:ce]))); j >= best {
			best, s, t, ok = j, cs, ce, true
		}
		start = ce + 1
	}
	return s, t, ok
}

// replace puts value in place of [s, t) and keeps the facts in step: a
// fact that stated the old value now states the new one, from chunk.
func (e *edit) replace(s, t int, value, chunk string) {
	old := string(e.rs[s:t])
	e.rs = splice(e.rs, s, t, []rune(value))
	changed := false
	for i, f := range e.facts {
		if f.Value == old || (f.Value == "" && strings.Contains(f.Text, old)) {
			f.Text = strings.Replace(f.Text, old, value, 1)
			if f.Value != "" {
				f.Value = value
			}
			if chunk != "" {
				f.ChunkID = chunk
			}
			e.facts[i] = f
			changed = true
		} else if f.Value != "" && strings.Contains(f.Value, old) {
			f.Value = strings.Replace(f.Value, old, value, 1)
			f.Text = strings.Replace(f.Text, old, value, 1)
			if chunk != "" {
				f.ChunkID = chunk
			}
			e.facts[i] = f
			changed = true
		}
	}
	// A value from a chunk becomes a fact of its own when none stated the
	// old one; a derived value (a Gregorian year from the table) rests on
	// no chunk and is no fact.
	if !changed && chunk != "" && !slices.ContainsFunc(e.facts, func(f schemas.Fact) bool {
		return f.Value == value && f.ChunkID == chunk
	}) {
		cs, ce := clauseBounds(e.rs, s, s+text.RuneLen(value))
		e.facts = append(e.facts, schemas.Fact{Text: string(e.rs[cs:ce]), Value: value, ChunkID: chunk})
	}
	e.use(chunk)
	e.inserted = append(e.inserted, value)
}

// use records that the sentence now rests on chunk.
func (e *edit) use(chunk string) {
	if chunk != "" && !slices.Contains(e.used, chunk) {
		e.used = append(e.used, chunk)
	}
}

// drop removes the smallest well-formed unit around [s, t) (dropAround)
// and the facts it carried.
func (e *edit) drop(s, t int) string {
	before := e.rs
	after, a, b := dropAround(e.rs, s, t)
	e.rs = after
	removed := string(before[a:b])
	kept := e.facts[:0]
	now := e.text()
	for _, f := range e.facts {
		if !stated(now, f) && stated(removed, f) {
			if f.ChunkID != "" {
				e.gone = append(e.gone, f.ChunkID)
			}
			continue
		}
		kept = append(kept, f)
	}
	e.facts = kept
	return strings.Trim(removed, "，；：、,;: ")
}

// empty reports whether the text has nothing left to say.
func (e *edit) empty() bool { return !hasContent(e.rs) }

// supportedLeft reports whether the sentence still states something the
// references support: a value an edit took from them, or a supported fact
// of the verdict other than the bare name of the subject.
func (e *edit) supportedLeft() bool {
	if e.empty() {
		return false
	}
	now := e.text()
	for _, v := range e.inserted {
		if strings.Contains(now, v) {
			return true
		}
	}
	if len(e.v.Facts) == 0 {
		return true
	}
	for _, fv := range e.v.Facts {
		if fv.Status != schemas.StatusSupported || e.bareName(fv.Fact) {
			continue
		}
		if stated(now, fv.Fact) {
			return true
		}
	}
	return false
}

// bareName reports a fact that only names the subject.
func (e *edit) bareName(f schemas.Fact) bool {
	if f.Relation != schemas.RelAlias {
		return false
	}
	v := f.Value
	if v == "" {
		v = strings.TrimSpace(f.Text)
	}
	return v == e.v.Subject || e.refs != nil && (v == e.refs.Name || v == e.refs.Subject)
}
