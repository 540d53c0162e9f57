package answer

import "github.com/annalist-dev/annalist/internal/lang/en/support"

// SupportJudge is the Supporter of the project's claim-support judge
// (internal/lang/en/support): its label and its probability that the
// passages support the claim completely.
type SupportJudge struct{}

var _ Supporter = SupportJudge{}

// Support judges claim on passages with support.Judge.
func (SupportJudge) Support(claim string, passages []string) (string, float64) {
	r := support.Judge(claim, passages)
	return r.Label, r.Score
}
