package verifier_test

import (
	"context"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/consumers/verifier"
	"github.com/annalist-dev/annalist/internal/lang/en/support"
	"github.com/annalist-dev/annalist/schemas"
)

// cover is a claim-support judge by word cover (complete when every word
// of the claim is in the passages, partial when some are, else missing).
type cover struct{}

func (cover) JudgeClaim(_ context.Context, claim string, passages []string) (support.Result, error) {
	all := strings.ToLower(strings.Join(passages, " "))
	ws := strings.Fields(strings.ToLower(strings.Trim(claim, ".")))
	in := 0
	for _, w := range ws {
		if strings.Contains(all, w) {
			in++
		}
	}
	switch {
	case in == len(ws):
		return support.Result{Label: support.Complete, Score: 1}, nil
	case in > 0:
		return support.Result{Label: support.Partial, Score: float64(in) / float64(len(ws))}, nil
	}
	return support.Result{Label: support.Missing}, nil
}

// inner records that a draft was passed on.
type inner struct{ got []schemas.Draft }

func (i *inner) Check(_ context.Context, _ *schemas.ReferenceSet, d schemas.Draft) (schemas.Verdict, error) {
	i.got = append(i.got, d)
	return schemas.Verdict{Status: schemas.StatusSupported, Draft: d}, nil
}

// An answer's sentence is checked by the support judge on the documents
// it cites alone; other kinds go to the wrapped checker.
func TestWithAnswers(t *testing.T) {
	refs := &schemas.ReferenceSet{Subject: "q", References: []schemas.Reference{
		{ChunkID: schemas.AnswerDocRef(1), Text: "The tower was completed in 1889."},
		{ChunkID: schemas.AnswerDocRef(2), Text: "The tower stands in Paris."}}}
	in := &inner{}
	c := verifier.WithAnswers(in, cover{})
	for _, tc := range []struct {
		text      string
		cites     []string
		status    string
		errorType string
		message   string
	}{
		{"The tower was completed in 1889.", []string{schemas.AnswerDocRef(1)}, schemas.StatusSupported, "", "support it completely"},
		{"The tower in Paris was completed in 1889.", []string{schemas.AnswerDocRef(1)}, schemas.StatusNotSupported, schemas.ErrorOther, "only part"},
		{"The tower in Paris was completed in 1889.", []string{schemas.AnswerDocRef(1), schemas.AnswerDocRef(2)}, schemas.StatusSupported, "", "completely"},
		{"Bananas grow.", []string{schemas.AnswerDocRef(2)}, schemas.StatusNotIncluded, "", "do not state it"},
		{"The tower was completed in 1889.", nil, schemas.StatusNotIncluded, "", "cites no document"},
		{"The tower was completed in 1889.", []string{"c-other"}, schemas.StatusNotIncluded, "", "not a document of the answer"},
	} {
		v, err := c.Check(context.Background(), refs, schemas.Draft{RequestID: "r", Kind: schemas.KindAnswer, Text: tc.text, Citations: tc.cites})
		if err != nil {
			t.Fatal(err)
		}
		if v.Status != tc.status || v.ErrorType != tc.errorType || len(v.Facts) != 1 || !strings.Contains(v.Facts[0].Message, tc.message) {
			t.Errorf("%q citing %v = %s/%s %+v; want %s/%s saying %q", tc.text, tc.cites, v.Status, v.ErrorType, v.Facts, tc.status, tc.errorType, tc.message)
		}
		if v.Status == schemas.StatusSupported && len(v.Facts[0].Evidence) != len(tc.cites) {
			t.Errorf("%q: evidence %+v; want each cited document", tc.text, v.Facts[0].Evidence)
		}
	}
	if len(in.got) != 0 {
		t.Fatalf("answer drafts reached the wrapped checker: %+v", in.got)
	}
	if _, err := c.Check(context.Background(), refs, schemas.Draft{Kind: schemas.KindBiography, Text: "x"}); err != nil || len(in.got) != 1 {
		t.Fatalf("a biography's draft was not passed on: %v, %d", err, len(in.got))
	}
}
