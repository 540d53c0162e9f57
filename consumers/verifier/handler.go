package verifier

import (
	"context"
	"errors"
	"fmt"

	"github.com/annalist-dev/annalist/internal/ports/genmem"

	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
)

// RefSource reads a request's reference set from agent memory.
type RefSource interface {
	References(ctx context.Context, tenant, requestID string) (*schemas.ReferenceSet, error)
}

// Handler is the verifier stage: a draft from topology.Drafts in, one
// verdict out on topology.Verdicts, with the draft's request, kind,
// subject, index and attempt and the draft itself copied. A Final draft
// (the end of a page) produces nothing. Idempotent: the same draft and
// reference set give the same verdict (the offline checker is
// deterministic; a redelivered draft asks the judge again, which is why
// the runtime's seen-markers sit in front of it).
//
// Errors: an input that is not a valid draft is permanent; a RefSource
// error is transient unless it wraps genmem.ErrNoReferences; a checker error is
// returned as it is (the LLM wrapper marks a refused request permanent).
func Handler(c Checker, refs RefSource) pipeline.Handler {
	return func(ctx context.Context, in pipeline.Input) ([]pipeline.Output, error) {
		d, ok := pipeline.As[schemas.Draft](in.Msg)
		if !ok {
			return nil, pipeline.Permanentf("verify: input is %T, want a draft", in.Msg)
		}
		if err := d.Validate(); err != nil {
			return nil, pipeline.Permanent(fmt.Errorf("verify draft %s/%d: %w", d.RequestID, d.Index, err))
		}
		if d.Final {
			return nil, nil
		}
		rs, err := refs.References(ctx, in.Tenant(), d.RequestID)
		if err != nil {
			err = fmt.Errorf("verify draft %s/%d: read references: %w", d.RequestID, d.Index, err)
			if errors.Is(err, genmem.ErrNoReferences) {
				return nil, pipeline.Permanent(err)
			}
			return nil, err
		}
		if rs == nil {
			return nil, pipeline.Permanent(fmt.Errorf("verify draft %s/%d: %w", d.RequestID, d.Index, genmem.ErrNoReferences))
		}
		v, err := c.Check(ctx, rs, d)
		if err != nil {
			return nil, fmt.Errorf("verify draft %s/%d: %w", d.RequestID, d.Index, err)
		}
		return []pipeline.Output{{Topic: topology.Verdicts, Msg: v}}, nil
	}
}
