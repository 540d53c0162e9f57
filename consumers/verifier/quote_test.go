package verifier_test

import (
	"context"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/consumers/verifier"
	"github.com/annalist-dev/annalist/internal/lang/quotes"
	"github.com/annalist-dev/annalist/schemas"
)

// recorder is an inner checker that records the drafts it is given and
// supports them.
type recorder struct{ got []string }

func (r *recorder) Check(_ context.Context, _ *schemas.ReferenceSet, d schemas.Draft) (schemas.Verdict, error) {
	r.got = append(r.got, d.Text)
	return schemas.Verdict{Draft: d, Status: schemas.StatusSupported}, nil
}

// A quotation sentence is supported only verbatim and attributed to the
// cited quotation's author, with the quoted span as evidence; other
// sentences go to the inner checker.
func TestWithQuotes(t *testing.T) {
	const q1 = `Patience is the oar that rows when the wind has gone home.`
	refs := &schemas.ReferenceSet{Subject: "sea", Lang: "en", References: []schemas.Reference{
		{ChunkID: "c1", Text: "Ships left the harbour at dawn."},
		{ChunkID: "q1", Text: q1, Source: schemas.SourceQuote, Author: "Tomas Ledger"},
		{ChunkID: "q2", Text: "The tide asks nothing.", Source: schemas.SourceQuote, Author: "Mara Quill"},
	}}
	for _, tc := range []struct {
		name, text string
		cites      []string
		want, msg  string
		inner      bool
	}{
		{"verbatim", quotes.Sentence("en", "Tomas Ledger", q1), []string{"q1"}, schemas.StatusSupported, "quoted verbatim", false},
		{"curly marks and stop", "Tomas Ledger said: “" + q1 + "”.", []string{"q1"}, schemas.StatusSupported, "quoted verbatim", false},
		{"one word altered", quotes.Sentence("en", "Tomas Ledger", strings.Replace(q1, "oar", "sail", 1)), []string{"q1"}, schemas.StatusNotSupported, "not found verbatim", false},
		{"another author", quotes.Sentence("en", "Mara Quill", q1), []string{"q1"}, schemas.StatusNotSupported, "attributed to Mara Quill", false},
		{"cites another quotation", quotes.Sentence("en", "Mara Quill", q1), []string{"q2"}, schemas.StatusNotSupported, "not found verbatim", false},
		{"quotation citing no quotation", quotes.Sentence("en", "Tomas Ledger", q1), []string{"c1"}, schemas.StatusNotSupported, "cites no quotation", false},
		{"not a quotation sentence", "Tomas Ledger spoke of patience.", []string{"q1"}, schemas.StatusNotSupported, "must quote it", false},
		{"other sentence", "Ships left the harbour at dawn.", []string{"c1"}, schemas.StatusSupported, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := &recorder{}
			v, err := verifier.WithQuotes(in).Check(context.Background(), refs, schemas.Draft{Text: tc.text, Citations: tc.cites})
			if err != nil {
				t.Fatal(err)
			}
			if v.Status != tc.want || (len(in.got) == 1) != tc.inner {
				t.Fatalf("%s (inner %v), want %s (inner %v)", v.Status, in.got, tc.want, tc.inner)
			}
			if tc.msg != "" && (len(v.Facts) != 1 || !strings.Contains(v.Facts[0].Message, tc.msg)) {
				t.Errorf("facts %+v, want a message with %q", v.Facts, tc.msg)
			}
			if v.Status == schemas.StatusNotSupported && v.ErrorType != schemas.ErrorOther {
				t.Errorf("error type %q", v.ErrorType)
			}
			if tc.want == schemas.StatusSupported && !tc.inner && v.Facts[0].Evidence[0].Text != q1 {
				t.Errorf("evidence %+v", v.Facts[0].Evidence)
			}
		})
	}
	in := &recorder{}
	plain := &schemas.ReferenceSet{References: refs.References[:1]}
	if _, err := verifier.WithQuotes(in).Check(context.Background(), plain, schemas.Draft{Text: `上曰：“可。”`, Citations: []string{"c1"}}); err != nil || len(in.got) != 1 {
		t.Errorf("a quotation-shaped sentence on a set without quotations goes to the inner checker: %v %v", in.got, err)
	}
}
