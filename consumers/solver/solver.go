package solver

import (
	"context"
	"errors"
	"fmt"

	"github.com/annalist-dev/annalist/internal/lang/profile"
	"github.com/annalist-dev/annalist/internal/lang/zh/era"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
)

// Config is what the solvers are built with; the zero value means the
// defaults. Every solver takes it (New<Solver>(cfg)), so the wiring builds
// them alike and a new solver needs no new constructor shape.
type Config struct {
	// Era is the era table dates are read and recomputed with (default
	// era.Default()).
	Era *era.Table
	// Profiles are the corpus profiles (default profile.Default()): a
	// reference set's profile gives the preference among dynasties for an
	// era name several used, and the wording of stated conflicts and
	// review questions.
	Profiles *profile.Set
	// Glossary is where the knowledge solver looks domain terms up; nil
	// means none (the references alone decide).
	Glossary Glossary
}

func (c Config) withDefaults() Config {
	if c.Era == nil {
		c.Era = era.Default()
	}
	if c.Profiles == nil {
		c.Profiles = profile.Default()
	}
	return c
}

// Solver answers one repair with a correction and the reviews it opens.
type Solver interface {
	// Name is the solver's name as routed: "era", "alias", "refconflict",
	// "knowledge" or "regenerate".
	Name() string
	// Solve returns the correction of r's sentence. tenant owns the stores
	// the solver reads (a glossary); refs is the request's reference set. Errors are for failures of the solver's own
	// dependencies (glossary, model): a sentence it cannot fix is a
	// correction with outcome dropped, not an error.
	Solve(ctx context.Context, tenant string, refs *schemas.ReferenceSet, r schemas.Repair) (schemas.Correction, []schemas.Review, error)
}

// RefSource reads a request's reference set from agent memory.
type RefSource interface {
	References(ctx context.Context, tenant, requestID string) (*schemas.ReferenceSet, error)
}

// ReviewStore keeps the review items experts answer. OpenReview must be
// idempotent: opening a review whose id exists changes nothing (in
// particular, it does not reopen a decided review).
type ReviewStore interface {
	OpenReview(ctx context.Context, tenant string, r schemas.Review) error
}

// Glossary looks domain terms up: the definition chunks of the entries
// that have term as a name (internal/lang/zh/glossary.Store).
type Glossary interface {
	Lookup(ctx context.Context, tenant, term string) ([]schemas.Reference, error)
}

// Handler is a solver stage: a repair in; one correction out on the
// corrections topic, preceded by the reviews the solver opened on the
// reviews topic, each stored through reviews first (nil reviews: only
// published). The offline solvers are deterministic and review ids are
// too, so a redelivered repair gives the same outputs. A repair for
// another solver, or an input that is not a repair, is a permanent error;
// errors reading the reference set or from the solver are retried.
func Handler(s Solver, refs RefSource, reviews ReviewStore) pipeline.Handler {
	return func(ctx context.Context, in pipeline.Input) ([]pipeline.Output, error) {
		r, ok := pipeline.As[schemas.Repair](in.Msg)
		if !ok {
			return nil, pipeline.Permanentf("solve: input is %T, want a repair", in.Msg)
		}
		if err := r.Validate(); err != nil {
			return nil, pipeline.Permanent(fmt.Errorf("solve repair of %s: %w", r.RequestID, err))
		}
		if r.Solver != s.Name() {
			return nil, pipeline.Permanentf("solve repair of %s: routed to solver %q, this is %q", r.RequestID, r.Solver, s.Name())
		}
		tenant := in.Tenant()
		if tenant == "" {
			tenant = schemas.DefaultTenant
		}
		rs, err := refs.References(ctx, tenant, r.RequestID)
		if err != nil {
			return nil, fmt.Errorf("solve repair of %s: read references: %w", r.RequestID, err)
		}
		if rs == nil {
			return nil, pipeline.Permanentf("solve repair of %s: no reference set", r.RequestID)
		}
		c, rvs, err := s.Solve(ctx, tenant, rs, r)
		if err != nil {
			return nil, fmt.Errorf("solve repair of %s with %s: %w", r.RequestID, s.Name(), err)
		}
		if err := c.Validate(); err != nil {
			return nil, pipeline.Permanent(fmt.Errorf("solve repair of %s with %s: %w", r.RequestID, s.Name(), err))
		}
		out := make([]pipeline.Output, 0, len(rvs)+1)
		for _, rv := range rvs {
			if err := rv.Validate(); err != nil {
				return nil, pipeline.Permanent(fmt.Errorf("solve repair of %s: %w", r.RequestID, err))
			}
			if reviews != nil {
				if err := reviews.OpenReview(ctx, tenant, rv); err != nil {
					return nil, fmt.Errorf("open review %s: %w", rv.ReviewID, err)
				}
			}
			out = append(out, pipeline.Output{Topic: topology.Reviews, Msg: rv})
		}
		return append(out, pipeline.Output{Topic: topology.Corrections, Msg: c}), nil
	}
}

// errNoReferences is returned by Solve when called without a reference set.
var errNoReferences = errors.New("no reference set")

// newCorrection is the correction of r by solver name with its identity
// fields filled from the verdict: request, kind, subject, sentence index,
// attempt and the error type it answers.
func newCorrection(name string, r schemas.Repair) schemas.Correction {
	v := r.Verdict
	c := schemas.Correction{RequestID: r.RequestID, Kind: v.Kind, Subject: v.Subject, Index: v.Index,
		Attempt: v.Attempt, Solver: name}
	if c.Kind == "" {
		c.Kind = v.Draft.Kind
	}
	if c.Subject == "" {
		c.Subject = v.Draft.Subject
	}
	if v.Status == schemas.StatusNotSupported {
		c.ErrorType = v.ErrorType
		for _, fv := range v.Facts {
			if c.ErrorType != "" {
				break
			}
			if fv.Status == schemas.StatusNotSupported {
				c.ErrorType = fv.ErrorType
			}
		}
	}
	return c
}

// Solver names.
const (
	NameEra         = topology.SolverEra
	NameAlias       = topology.SolverAlias
	NameRefConflict = topology.SolverRefConflict
	NameKnowledge   = topology.SolverKnowledge
	NameRegenerate  = topology.SolverRegenerate
)
