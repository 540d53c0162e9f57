package solver

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/annalist-dev/annalist/internal/lang/text"
	"github.com/annalist-dev/annalist/internal/lang/zh/glossary"
	"github.com/annalist-dev/annalist/schemas"
)

// Knowledge repairs domain terms — examination ranks, offices, old place
// names — with the help of a glossary.
type Knowledge struct {
	g Glossary
}

// NewKnowledge returns the knowledge solver looking terms up in
// cfg.Glossary; none means the references alone decide.
func NewKnowledge(cfg Config) Solver { return &Knowledge{g: cfg.Glossary} }

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
// office for a rank) is skipped, and one of the same category is taken and
// its glossary entry cited (choose gives the full order). When no term
// can be put in, the verdict's failed facts are repaired the regenerate
// way; other failures are otherwise left to the next verification
// (fixRestIfUnfixed).
func (k *Knowledge) Solve(ctx context.Context, tenant string, refs *schemas.ReferenceSet, r schemas.Repair) (schemas.Correction, []schemas.Review, error) {
	if refs == nil {
		return schemas.Correction{}, nil, errNoReferences
	}
	e := newEdit(refs, r.Verdict)
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
		chosen, entry, err := k.choose(ctx, tenant, e, fv, s, t)
		if err != nil {
			return schemas.Correction{}, nil, err
		}
		if chosen == nil {
			continue
		}
		e.handled[i] = true
		e.fixed = true
		how := "references"
		if entry != nil {
			e.use(entry.entry.ChunkID)
			how = fmt.Sprintf("references; glossary %s: %s", entry.category, entry.entry.ChunkID)
		}
		e.note("%s replaced by %s (%s; %s)", wrong, chosen.value, chosen.chunk, how)
		e.replace(s, t, chosen.value, chosen.chunk)
	}
	e.fixRestIfUnfixed()
	return e.finish(newCorrection(NameKnowledge, r)), nil, nil
}

// choose picks the term to put in place of the wrong one at [s, t), with
// the glossary entry that confirms it (nil when none does), in order:
//   - the first of the best reference values (referenceValues) that the
//     glossary files under the wrong term's category (or under any, when
//     the glossary does not know the wrong term);
//   - a glossary term of that category written in an evidence passage
//     where the wrong term stands (anchoredTerm);
//   - a coarser term inside the wrong one that the evidence states
//     (statedPart);
//   - the best reference value the glossary does not know, unconfirmed.
//
// A reference value the glossary files under another category (an office
// for a rank) is never taken.
func (k *Knowledge) choose(ctx context.Context, tenant string, e *edit, fv schemas.FactVerdict, s, t int) (*candidate, *term, error) {
	wrong := string(e.rs[s:t])
	_, wt, err := k.termIn(ctx, tenant, wrong)
	if err != nil {
		return nil, nil, err
	}
	cands := e.referenceValues(fv, s, t)
	var fallback *candidate
	for j := range min(len(cands), maxTermCandidates) {
		_, ct, err := k.termIn(ctx, tenant, cands[j].value)
		if err != nil {
			return nil, nil, err
		}
		if ct != nil && (wt == nil || ct.category == wt.category) {
			return &cands[j], ct, nil
		}
		if ct == nil && fallback == nil {
			fallback = &cands[j]
		}
	}
	if wt != nil {
		for _, find := range []func(context.Context, string, *edit, schemas.FactVerdict, int, int, string) (*candidate, *term, error){
			k.anchoredTerm, k.statedPart,
		} {
			c, ct, err := find(ctx, tenant, e, fv, s, t, wt.category)
			if c != nil || err != nil {
				return c, ct, err
			}
		}
	}
	return fallback, nil, nil
}

// maxRun bounds a run of an evidence passage read as a possible term.
const maxRun = 12

// anchoredTerm reads the evidence passages where the sentence has the
// wrong term: after the one to three characters the sentence writes right
// before it (举 of 举进士), or before those right after it, up to the next
// punctuation; the glossary term of the category inside such a run is
// taken (举会试第一 gives 会试第一 for 举进士).
func (k *Knowledge) anchoredTerm(ctx context.Context, tenant string, e *edit, fv schemas.FactVerdict, s, t int, category string) (*candidate, *term, error) {
	wrong := string(e.rs[s:t])
	type run struct{ text, chunk string }
	var runs []run
	add := func(p []rune, a, b int, chunk string) {
		if b-a >= 2 && !slices.ContainsFunc(runs, func(r run) bool { return r.text == string(p[a:b]) }) {
			runs = append(runs, run{string(p[a:b]), chunk})
		}
	}
	for _, ev := range fv.Evidence {
		p := []rune(passage(e.refs, ev))
		for n := min(3, s); n >= 1; n-- {
			left := e.rs[s-n : s]
			if !hasContent(left) {
				continue
			}
			for q := text.IndexRunes(p, left, 0); q >= 0; q = text.IndexRunes(p, left, q+1) {
				a := q + n
				b := a
				for b < len(p) && b-a < maxRun && !isMark(p[b]) {
					b++
				}
				add(p, a, b, ev.ChunkID)
			}
		}
		for n := min(3, len(e.rs)-t); n >= 1; n-- {
			right := e.rs[t : t+n]
			for q := text.IndexRunes(p, right, 0); q >= 0; q = text.IndexRunes(p, right, q+1) {
				a := q
				for a > 0 && q-a < maxRun && !isMark(p[a-1]) {
					a--
				}
				add(p, a, q, ev.ChunkID)
			}
		}
	}
	for i, r := range runs {
		if i >= maxTermCandidates {
			break
		}
		v, ct, err := k.termIn(ctx, tenant, r.text)
		if err != nil {
			return nil, nil, err
		}
		if ct != nil && ct.category == category && v != wrong && !strings.Contains(wrong, v) {
			return &candidate{value: v, chunk: r.chunk}, ct, nil
		}
	}
	return nil, nil, nil
}

// statedPart is the coarser term inside a wrong one that the evidence
// states: a prefix or suffix of the wrong term, two characters or more,
// written in an evidence passage and itself a glossary term of the wrong
// term's category (进士第三 → 进士 when the reference says only 进士). The
// references support the coarser term, not the detail.
func (k *Knowledge) statedPart(ctx context.Context, tenant string, e *edit, fv schemas.FactVerdict, s, t int, category string) (*candidate, *term, error) {
	rs := e.rs[s:t]
	lookups := 0
	for n := len(rs) - 1; n >= 2; n-- {
		for _, part := range []string{string(rs[:n]), string(rs[len(rs)-n:])} {
			chunk := ""
			for _, ev := range fv.Evidence {
				if strings.Contains(passage(e.refs, ev), part) {
					chunk = ev.ChunkID
					break
				}
			}
			if chunk == "" || lookups >= maxTermLookups {
				continue
			}
			lookups++
			t, err := k.lookup(ctx, tenant, part)
			if err != nil {
				return nil, nil, err
			}
			if t != nil && t.category == category {
				return &candidate{value: part, chunk: chunk}, t, nil
			}
		}
	}
	return nil, nil, nil
}

// lookup is the glossary entry one of whose names is q, nil when none.
func (k *Knowledge) lookup(ctx context.Context, tenant, q string) (*term, error) {
	if k.g == nil {
		return nil, nil
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
	return nil, nil
}

// termIn finds the glossary term a text is or ends or begins with: the
// text itself, then its longer suffixes (an office ends in its title:
// 南京礼部右侍郎 → 侍郎), then its longer prefixes (进士第三 → 进士), at
// most maxTermLookups lookups of two characters or more. It returns the
// term as written and its entry; nil when the glossary knows none.
func (k *Knowledge) termIn(ctx context.Context, tenant, w string) (string, *term, error) {
	if k.g == nil {
		return "", nil, nil
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
		if t, err := k.lookup(ctx, tenant, q); t != nil || err != nil {
			return q, t, err
		}
	}
	return "", nil, nil
}
