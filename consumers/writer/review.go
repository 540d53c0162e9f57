package writer

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/annalist-dev/annalist/internal/kit/ask"
	"github.com/annalist-dev/annalist/internal/ports/genmem"
	"github.com/annalist-dev/annalist/internal/ports/kind"
	"github.com/annalist-dev/annalist/schemas"
)

// The review loop (APOLLO: writer → reviewer → editor, at most
// LoopConfig.MaxReviewRounds rounds) of a kind with a Reviewer. It runs
// once the drafter's plan is done, every sentence of it verified:
//
//   - a round asks the kind's reviewer for findings on the page as it
//     stands (its final sentences in page order); none approves the page;
//   - the editor turns the findings into edits: drops and moves apply at
//     once (they change no wording); each sentence it adds is drafted at
//     the next free index and goes to the verifier like every draft, one
//     at a time, with its solvers when it fails;
//   - when the added sentences are final, the next round reviews the
//     page again; after the last round the page ends whatever remains.
//
// Where the loop stands is in agent memory (genmem.Review), so a replica
// that takes over mid-round goes on from there.

// Counters of the review loop (page stats).
const (
	CounterReviewRounds   = "review_rounds"
	CounterReviewFallback = "review_fallbacks"
)

// reviewStep moves the review loop on: the editor's next pending sentence
// as the draft of index k (ok), else another round when the bound allows
// and the page was not approved, else nothing (ok false: the page ends).
func (l *Loop) reviewStep(ctx context.Context, tenant string, r schemas.Request, refs *schemas.ReferenceSet,
	spec kind.Spec, k int, drafted int64, maxDrafts int, s *genmem.Step, rv *genmem.Review) (schemas.Draft, bool, error) {
	for {
		if len(rv.Pending) > 0 && drafted < int64(maxDrafts) {
			d := rv.Pending[0]
			rv.Pending = slices.Clone(rv.Pending[1:])
			d.RequestID, d.Kind, d.Subject, d.Index, d.Attempt = r.RequestID, r.Kind, r.Subject, k, 0
			d.Origin = OriginEditor
			s.Review = snapshot(rv)
			s.Incr["drafted"]++
			s.NextIndex, s.NextAttempt = k, 0
			s.Place = &genmem.Place{Section: d.Section, Position: d.Position}
			return d, true, nil
		}
		rv.Pending = nil
		if rv.Approved || rv.Round >= l.cfg.MaxReviewRounds || drafted >= int64(maxDrafts) {
			s.Review = snapshot(rv)
			return schemas.Draft{}, false, nil
		}
		if err := l.review(ctx, tenant, r, refs, spec, s, rv); err != nil {
			return schemas.Draft{}, false, err
		}
	}
}

// review runs one round: the reviewer's findings on the page, and the
// editor's edits for them, drops and moves recorded in s, additions left
// pending in rv.
func (l *Loop) review(ctx context.Context, tenant string, r schemas.Request, refs *schemas.ReferenceSet,
	spec kind.Spec, s *genmem.Step, rv *genmem.Review) error {
	page, finals, err := l.page(ctx, tenant, r.RequestID, s)
	if err != nil {
		return err
	}
	rv.Round++
	s.Incr[CounterReviewRounds]++
	findings, err := l.findings(ctx, spec, refs, page, rv.Round, s)
	if err != nil {
		return err
	}
	if len(findings) == 0 {
		rv.Approved = true
		return nil
	}
	for _, f := range findings {
		s.Incr["findings_"+f.Type]++
	}
	edits, err := l.edits(ctx, spec, refs, page, findings, s)
	if err != nil {
		return err
	}
	for _, e := range edits {
		switch e.Op {
		case schemas.EditDrop, schemas.EditMove:
			f, ok := finals[e.Index]
			if !ok || f.Dropped != "" {
				continue // not on the page: nothing to change
			}
			if e.Op == schemas.EditDrop {
				reason := "removed by the editor"
				if e.Reason != "" {
					reason += ": " + e.Reason
				}
				f.Dropped = reason
			} else {
				if e.Section != "" {
					f.Sentence.Section = e.Section
				}
				f.Position = e.Position
			}
			finals[e.Index] = f
			s.Records = append(s.Records, f)
		case schemas.EditAdd:
			rv.Pending = append(rv.Pending, schemas.Draft{Text: e.Text, Citations: slices.Clone(e.Citations),
				Facts: slices.Clone(e.Facts), Section: e.Section, Position: e.Position, Note: e.Reason,
				Engine: l.cfg.Engine})
		default:
			continue
		}
		s.Incr["edits_"+e.Op]++
	}
	return nil
}

// findings asks the kind's reviewer for the engine; one whose model
// answers could not be used is replaced by the offline reviewer.
func (l *Loop) findings(ctx context.Context, spec kind.Spec, refs *schemas.ReferenceSet, page []kind.Placed,
	round int, s *genmem.Step) ([]schemas.Finding, error) {
	rev := spec.Reviewer(l.cfg.Engine)
	before := callsOf(rev)
	fs, err := rev.Review(ctx, refs, page, round)
	s.Incr["llm_calls"] += callsOf(rev) - before
	if off := spec.Reviewer(kind.EngineOffline); err != nil && off != rev && unusable(err) {
		s.Incr[CounterReviewFallback]++
		fs, err = off.Review(ctx, refs, page, round)
	}
	if err != nil {
		return nil, fmt.Errorf("review round %d of %s: %w", round, refs.Subject, err)
	}
	return fs, nil
}

// edits asks the kind's editor for the engine, with the same fallback.
func (l *Loop) edits(ctx context.Context, spec kind.Spec, refs *schemas.ReferenceSet, page []kind.Placed,
	findings []schemas.Finding, s *genmem.Step) ([]schemas.Edit, error) {
	ed := spec.Editor(l.cfg.Engine)
	before := callsOf(ed)
	es, err := ed.Edit(ctx, refs, page, findings)
	s.Incr["llm_calls"] += callsOf(ed) - before
	if off := spec.Editor(kind.EngineOffline); err != nil && off != ed && unusable(err) {
		s.Incr[CounterReviewFallback]++
		es, err = off.Edit(ctx, refs, page, findings)
	}
	if err != nil {
		return nil, fmt.Errorf("edit %s: %w", refs.Subject, err)
	}
	return es, nil
}

// unusable reports an agent error that means the model's answers could
// not be used (as opposed to an outage, which is retried).
func unusable(err error) bool { return errors.Is(err, ErrMalformed) || errors.Is(err, ask.ErrRejected) }

// page is the request's page as it stands in step s: the final sentences
// in memory with the ones s makes final over them, the accepted ones in
// page order (Position, then Index), and every final by index.
func (l *Loop) page(ctx context.Context, tenant, id string, s *genmem.Step) ([]kind.Placed, map[int]genmem.Final, error) {
	stored, err := l.mem.Sentences(ctx, tenant, id)
	if err != nil {
		return nil, nil, err
	}
	finals := make(map[int]genmem.Final, len(stored)+len(s.Records)+1)
	for _, f := range stored {
		finals[f.Index] = f
	}
	if s.Record != nil {
		finals[s.Record.Index] = *s.Record
	}
	for _, f := range s.Records {
		finals[f.Index] = f
	}
	page := make([]kind.Placed, 0, len(finals))
	for _, f := range finals {
		if f.Dropped == "" {
			page = append(page, kind.Placed{Index: f.Index, Position: f.At(), PageSentence: f.Sentence})
		}
	}
	slices.SortFunc(page, func(a, b kind.Placed) int {
		return cmp.Or(cmp.Compare(a.Position, b.Position), cmp.Compare(a.Index, b.Index))
	})
	return page, finals, nil
}

// snapshot is a copy of rv for a step to record.
func snapshot(rv *genmem.Review) *genmem.Review {
	c := *rv
	c.Pending = slices.Clone(rv.Pending)
	return &c
}
