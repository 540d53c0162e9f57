package verifier

import (
	"context"

	"github.com/annalist-dev/annalist/internal/kit/supportllm"
	"github.com/annalist-dev/annalist/internal/lang/en/support"
)

// ClaimJudge is the claim-support judge the verifier asks about an
// English sentence and the passages it cites: whether they support it
// completely, partially or not at all, and which of their sentences carry
// it (support.Result). An error means no judgement was made (a model that
// failed); it is returned to the runtime, which retries the draft.
type ClaimJudge interface {
	JudgeClaim(ctx context.Context, claim string, passages []string) (support.Result, error)
}

// OfflineClaims is the shipped offline judge (support.Judge): a fitted
// model over lexical features, deterministic, no model call.
type OfflineClaims struct{}

var _ ClaimJudge = OfflineClaims{}

// JudgeClaim judges claim on passages with support.Judge.
func (OfflineClaims) JudgeClaim(ctx context.Context, claim string, passages []string) (support.Result, error) {
	if err := ctx.Err(); err != nil {
		return support.Result{}, err
	}
	return support.Judge(claim, passages), nil
}

// LLMClaims is the LLM engine's judge (internal/kit/supportllm): the model
// decides, its spans kept only when verbatim, and the offline judge
// decides a claim whose answers were all rejected.
func LLMClaims(j *supportllm.Judge) ClaimJudge { return llmClaims{j} }

type llmClaims struct{ j *supportllm.Judge }

func (l llmClaims) JudgeClaim(ctx context.Context, claim string, passages []string) (support.Result, error) {
	res, _, err := l.j.Judge(ctx, claim, passages)
	return res, err
}
