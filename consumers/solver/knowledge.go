package solver

import (
	"context"
	"fmt"
	"strings"

	"github.com/annalist-dev/annalist/internal/glossary"
	"github.com/annalist-dev/annalist/schemas"
)

// Knowledge repairs domain terms — examination ranks, offices, old place
// names — with the help of a glossary.
type Knowledge struct {
	g Glossary
}

// NewKnowledge returns the knowledge solver looking terms up in g; g nil
// means no glossary (the references alone decide).
func NewKnowledge(g Glossary) Solver { return &Knowledge{g: g} }

// Name is "knowledge".
func (*Knowledge) Name() string { return NameKnowledge }

// maxTermLookups bounds the glossary lookups made to classify one term
// (the term, then its longer suffixes and prefixes); maxTermCandidates the
// reference values classified per wrong term.
const (
	maxTermLookups    = 6
	maxTermCandidates = 3
)

// term is what the glossary says of a term: the category of the entry
// found and the reference to the entry's chunk.
type term struct {
	category string
	entry    schemas.Reference
}

// Solve replaces each wrong term by the term the references use for the
// same slot. The candidate values come from the verdict's evidence and the
// subject's KG facts (referenceValues); the glossary decides the slot's
// kind: a candidate whose category differs from the wrong term's (an
// office for a rank) is skipped, and one of the same category — or a name
// of the same entry — is taken and its glossary entry cited. Without a
// confirmed candidate the best unconfirmed one is taken without a glossary
// citation; with none, the fact is repaired the regenerate way.
func (k *Knowledge) Solve(ctx context.Context, refs *schemas.ReferenceSet, r schemas.Repair) (schemas.Correction, []schemas.Review, error) {
	if refs == nil {
		return schemas.Correction{}, nil, errNoReferences
	}
	e := newEdit(refs, r.Verdict)
	tenant := tenantOf(ctx)
	for _, i := range e.failed(schemas.ErrorKnowledge) {
		fv := e.v.Facts[i]
		if fv.Status != schemas.StatusNotSupported || fv.ErrorType != schemas.ErrorKnowledge {
			break
		}
		s, t, ok := e.locate(fv.Fact)
		if !ok {
			continue
		}
		wrong := string(e.rs[s:t])
		cands := e.referenceValues(fv, s, t)
		if len(cands) == 0 {
			continue
		}
		wt, err := k.classify(ctx, tenant, wrong)
		if err != nil {
			return schemas.Correction{}, nil, err
		}
		var confirmed, fallback *candidate
		var entry *term
		for j := range min(len(cands), maxTermCandidates) {
			ct, err := k.classify(ctx, tenant, cands[j].value)
			if err != nil {
				return schemas.Correction{}, nil, err
			}
			if ct != nil && (wt == nil || ct.category == wt.category) {
				confirmed, entry = &cands[j], ct
				break
			}
			if ct == nil && fallback == nil {
				fallback = &cands[j]
			}
		}
		chosen := confirmed
		if chosen == nil {
			chosen = fallback
		}
		if chosen == nil {
			continue
		}
		e.handled[i] = true
		how := "references"
		if entry != nil {
			e.use(entry.entry.ChunkID)
			how = fmt.Sprintf("references; glossary %s: %s", entry.category, entry.entry.ChunkID)
		}
		e.note("%s replaced by %s (%s; %s)", wrong, chosen.value, chosen.chunk, how)
		e.replace(s, t, chosen.value, chosen.chunk)
	}
	e.fixRest()
	return e.finish(newCorrection(NameKnowledge, r)), nil, nil
}

// classify looks a term up in the glossary: the term itself, then its
// longer suffixes (an office ends in its title: 南京礼部右侍郎 → 侍郎),
// then its longer prefixes (进士第三 → 进士), at most maxTermLookups
// lookups of at least two characters. nil means the glossary knows none.
func (k *Knowledge) classify(ctx context.Context, tenant, w string) (*term, error) {
	if k.g == nil {
		return nil, nil
	}
	rs := []rune(w)
	tries := []string{w}
	for n := len(rs) - 1; n >= 2; n-- {
		tries = append(tries, string(rs[len(rs)-n:]))
	}
	for n := len(rs) - 1; n >= 2; n-- {
		tries = append(tries, string(rs[:n]))
	}
	for i, q := range tries {
		if i >= maxTermLookups {
			break
		}
		refs, err := k.g.Lookup(ctx, tenant, q)
		if err != nil {
			return nil, fmt.Errorf("glossary lookup %q: %w", q, err)
		}
		for _, r := range refs {
			if e, ok := glossary.ParseLine(strings.TrimSpace(r.Text)); ok {
				return &term{category: e.Category, entry: r}, nil
			}
		}
	}
	return nil, nil
}
