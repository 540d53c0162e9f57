package app

import (
	"context"

	"github.com/annalist-dev/annalist/consumers/writer"
	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
)

// SentenceCheck is what the verifier, router and solvers made of one
// sentence, run in-process without the broker: the verdict on the
// sentence and, when correction was asked for, each rewrite and the
// verdict on it.
type SentenceCheck struct {
	Verdict schemas.Verdict `json:"verdict"`
	// Solvers are the solvers that rewrote the sentence, in order.
	Solvers []string `json:"solvers,omitempty"`
	// Corrected is the final wording when a rewrite was verified as
	// supported; Dropped when the solvers gave up (Reason says why).
	Corrected string          `json:"corrected,omitempty"`
	Final     schemas.Verdict `json:"final"`
	Dropped   bool            `json:"dropped,omitempty"`
	Reason    string          `json:"reason,omitempty"`
	// Reviews are the review items a ref-conflict solver would open.
	Reviews []schemas.Review `json:"reviews,omitempty"`
}

// CheckSentence verifies a sentence against a reference set of tenant and, when
// correct is set, routes a failed verdict to its solver and verifies each
// rewrite, as the pipeline does, for at most MaxAttempts drafts.
func (a *App) CheckSentence(ctx context.Context, tenant string, refs *schemas.ReferenceSet, sentence string, correct bool) (SentenceCheck, error) {
	checker := a.Checker()
	maxAttempts := a.Config.Generate.MaxAttempts
	if maxAttempts <= 0 {
		maxAttempts = writer.DefaultMaxAttempts
	}
	d := schemas.Draft{RequestID: "check", Kind: schemas.KindBiography, Subject: refs.Name,
		Text: sentence, Origin: writer.OriginWriter}
	v, err := checker.Check(ctx, refs, d)
	if err != nil {
		return SentenceCheck{}, err
	}
	res := SentenceCheck{Verdict: v, Final: v}
	for attempt := 0; correct && v.Status != schemas.StatusSupported; attempt++ {
		_, name := topology.RouteVerdict(v)
		s, err := a.Solver(name)
		if err != nil {
			return res, err
		}
		v.Attempt = attempt
		c, reviews, err := s.Solve(ctx, tenant, refs, schemas.Repair{RequestID: d.RequestID, Solver: name, Verdict: v})
		if err != nil {
			return res, err
		}
		res.Solvers = append(res.Solvers, name)
		res.Reviews = append(res.Reviews, reviews...)
		if c.Outcome == schemas.OutcomeDropped || attempt+1 >= maxAttempts {
			res.Dropped, res.Reason = true, c.Reason
			return res, nil
		}
		d = schemas.Draft{RequestID: d.RequestID, Kind: d.Kind, Subject: d.Subject, Index: 0,
			Attempt: attempt + 1, Text: c.Text, Citations: c.Citations, Facts: c.Facts,
			Origin: c.Solver, Conflict: c.Outcome == schemas.OutcomeConflict, Note: c.Reason}
		if v, err = checker.Check(ctx, refs, d); err != nil {
			return res, err
		}
		res.Final = v
		if v.Status == schemas.StatusSupported {
			res.Corrected = c.Text
		}
	}
	return res, nil
}
