package verifier

import (
	"context"
	"fmt"
	"strings"

	"github.com/annalist-dev/annalist/internal/lang/text"
	"github.com/annalist-dev/annalist/schemas"
)

// WithAnswers wraps a checker for the answer kind: a draft of kind
// answer (an English sentence and the documents it cites) is checked by
// the claim-support judge j (ClaimJudge) on the passages it cites alone:
//
//   - complete: supported, the evidence being each cited passage;
//   - partial: not_supported with the error type schemas.ErrorOther (the
//     router sends it to the regenerate solver, which rewrites it from
//     the references or drops it);
//   - missing, no citation, or a citation that is not a reference of the
//     set: not_included.
//
// A judge's error is returned (the runtime retries the draft). Every
// other draft goes to inner unchanged. Safe for concurrent use when inner
// and j are.
func WithAnswers(inner Checker, j ClaimJudge) Checker { return &answers{inner: inner, j: j} }

type answers struct {
	inner Checker
	j     ClaimJudge
}

// maxEvidenceRunes clips the passage an answer's evidence quotes.
const maxEvidenceRunes = 600

func (c *answers) Check(ctx context.Context, refs *schemas.ReferenceSet, d schemas.Draft) (schemas.Verdict, error) {
	if d.Kind != schemas.KindAnswer || refs == nil {
		return c.inner.Check(ctx, refs, d)
	}
	if err := ctx.Err(); err != nil {
		return schemas.Verdict{}, err
	}
	if len(d.Citations) == 0 {
		return notIncluded(d, "the sentence cites no document"), nil
	}
	var passages []string
	var evidence []schemas.Evidence
	for _, id := range d.Citations {
		r, ok := refs.Reference(id)
		if !ok {
			return notIncluded(d, fmt.Sprintf("citation %q is not a document of the answer", id)), nil
		}
		passages = append(passages, r.Text)
		ev := text.Clip(r.Text, maxEvidenceRunes)
		evidence = append(evidence, schemas.Evidence{ChunkID: id, Span: schemas.Span{Start: 0, End: text.RuneLen(ev)}, Text: ev})
	}
	res, err := c.j.JudgeClaim(ctx, d.Text, passages)
	if err != nil {
		return schemas.Verdict{}, fmt.Errorf("judge draft %s/%d: %w", d.RequestID, d.Index, err)
	}
	label, score := res.Label, res.Score
	v := schemas.Verdict{RequestID: d.RequestID, Kind: d.Kind, Subject: d.Subject, Index: d.Index,
		Attempt: d.Attempt, Draft: d}
	f := schemas.FactVerdict{Fact: schemas.Fact{Text: d.Text, ChunkID: d.Citations[0]}, Evidence: evidence}
	cited := strings.Join(d.Citations, ", ")
	switch label {
	case "complete":
		v.Status, f.Status = schemas.StatusSupported, schemas.StatusSupported
		f.Message = fmt.Sprintf("the cited documents (%s) support it completely (score %.2f)", cited, score)
	case "partial":
		v.Status, f.Status = schemas.StatusNotSupported, schemas.StatusNotSupported
		v.ErrorType, f.ErrorType = schemas.ErrorOther, schemas.ErrorOther
		f.Message = fmt.Sprintf("the cited documents (%s) support only part of it (score %.2f)", cited, score)
	default:
		return notIncluded(d, fmt.Sprintf("the cited documents (%s) do not state it (support %q, score %.2f)", cited, label, score)), nil
	}
	v.Facts = []schemas.FactVerdict{f}
	return v, nil
}
