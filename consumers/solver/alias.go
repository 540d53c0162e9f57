package solver

import (
	"context"
	"slices"
	"strings"

	"github.com/annalist-dev/annalist/schemas"
)

// Alias names the subject correctly: a wrong courtesy name, art name or
// name is replaced by the subject's own from the KG alias set.
type Alias struct{}

// NewAlias returns the alias solver; it needs nothing of cfg (the KG's
// aliases come with the reference set).
func NewAlias(Config) Solver { return Alias{} }

// Name is "alias".
func (Alias) Name() string { return NameAlias }

// Solve replaces each wrong name by the subject's name of the same kind
// (rightName). When no name can be put in, the verdict's failed facts are
// repaired the regenerate way; other failures are otherwise left to the
// next verification (fixRestIfUnfixed).
func (a Alias) Solve(_ context.Context, _ string, refs *schemas.ReferenceSet, r schemas.Repair) (schemas.Correction, []schemas.Review, error) {
	if refs == nil {
		return schemas.Correction{}, nil, errNoReferences
	}
	e := newEdit(refs, r.Verdict)
	for _, i := range e.failed(schemas.ErrorAlias) {
		fv := e.v.Facts[i]
		if fv.Status != schemas.StatusNotSupported || fv.ErrorType != schemas.ErrorAlias {
			break
		}
		s, t, ok := e.locate(fv.Fact)
		if !ok {
			continue
		}
		if c, ok := e.rightName(fv, s, t); ok {
			e.handled[i] = true
			e.fixed = true
			e.note("%s replaced by the subject's %s (%s)", string(e.rs[s:t]), c.value, c.chunk)
			e.replace(s, t, c.value, c.chunk)
		}
	}
	e.fixRestIfUnfixed()
	return e.finish(newCorrection(NameAlias, r)), nil, nil
}

// names are the subject's names a wrong one of relation rel may be
// replaced by, each with the chunk that states it: the KG facts of the
// relation for courtesy and art names (then other aliases), the canonical
// name then the aliases otherwise.
func names(refs *schemas.ReferenceSet, rel string) []candidate {
	var out []candidate
	add := func(v, chunk string) {
		v = strings.TrimSpace(v)
		if v != "" && !slices.ContainsFunc(out, func(c candidate) bool { return c.value == v }) {
			out = append(out, candidate{value: v, chunk: chunk})
		}
	}
	kg := func(rel string) {
		for _, f := range refs.FactsOf(rel) {
			add(f.Value, f.ChunkID)
		}
	}
	switch rel {
	case schemas.RelCourtesyName, schemas.RelArtName:
		kg(rel)
	default:
		add(refs.Name, "")
		kg(schemas.RelAlias)
		for _, a := range refs.Aliases {
			add(a, "")
		}
	}
	return out
}

// rightName picks the subject's name for the slot [s, t): the first value
// the references give there (referenceValues) that is one of the subject's
// names of the relation, else the first such name an evidence passage
// states, else the relation's first name. The chunk is the one the value
// came from, else one of the set's chunks that contains it.
func (e *edit) rightName(fv schemas.FactVerdict, s, t int) (candidate, bool) {
	wrong := string(e.rs[s:t])
	pool := names(e.refs, fv.Fact.Relation)
	pool = slices.DeleteFunc(pool, func(c candidate) bool { return c.value == wrong })
	if len(pool) == 0 {
		return candidate{}, false
	}
	pick := func(c candidate) candidate {
		if c.chunk == "" {
			c.chunk = e.chunkStating(c.value, fv)
		}
		return c
	}
	for _, c := range e.referenceValues(fv, s, t) {
		for _, n := range pool {
			if n.value == c.value {
				if n.chunk == "" {
					n.chunk = c.chunk
				}
				return pick(n), true
			}
		}
	}
	for _, ev := range fv.Evidence {
		p := passage(e.refs, ev)
		for _, n := range pool {
			if strings.Contains(p, n.value) {
				if n.chunk == "" {
					n.chunk = ev.ChunkID
				}
				return pick(n), true
			}
		}
	}
	return pick(pool[0]), true
}

// chunkStating is a chunk that states value: an evidence chunk of fv, else
// the first reference whose text contains it; "" when none does.
func (e *edit) chunkStating(value string, fv schemas.FactVerdict) string {
	for _, ev := range fv.Evidence {
		if strings.Contains(passage(e.refs, ev), value) {
			return ev.ChunkID
		}
	}
	for _, r := range e.refs.References {
		if strings.Contains(r.Text, value) {
			return r.ChunkID
		}
	}
	return ""
}
