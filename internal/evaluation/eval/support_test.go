package eval_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/internal/evaluation/eval"
)

// expertQA is three records in the ExpertQA shape, written for the test:
// one question with claims of every label, and two more.
const expertQA = `{"question": "Why is the sky blue?", "answers": {"sys_b": {"claims": [ {"claim_string": "Blue light scatters more [1].", "evidence": ["[1] https://example.org/a\n\nShort wavelengths scatter more."], "support": "Complete"}, {"claim_string": "Sunsets are red [1].", "evidence": ["[1] https://example.org/a\n\nText."], "support": "Partial"}, {"claim_string": "No source here.", "evidence": [], "support": "Missing"}, {"claim_string": "Odd claim.", "evidence": ["x"], "support": "N/A"}]}, "sys_a": {"claims": [ {"claim_string": "The ocean reflects the sky [2].", "evidence": ["[2] https://example.org/b\n\nUnrelated."], "support": "Incomplete"}, {"claim_string": "No label.", "evidence": ["y"], "support": null}]}}}

{"question": "What is rust?", "answers": {"s": {"claims": [{"claim_string": "Rust is iron oxide.", "evidence": ["Rust is an iron oxide."], "support": "Complete"}]}}}
{"question": "Who wrote Hamlet?", "answers": {"s": {"claims": [{"claim_string": "Shakespeare wrote it.", "evidence": ["  "], "support": "Complete"}]}}}
`

func TestParseSupport(t *testing.T) {
	d, err := eval.ParseSupport(strings.NewReader(expertQA))
	if err != nil {
		t.Fatal(err)
	}
	var claims []string
	for _, it := range d.Items {
		claims = append(claims, it.System+":"+it.Support)
		if it.HeldOut != eval.SupportHeldOut(it.Question) {
			t.Errorf("%q: held out %v", it.Claim, it.HeldOut)
		}
	}
	if got := strings.Join(claims, " "); got != "sys_a:Incomplete sys_b:Complete sys_b:Partial s:Complete" {
		t.Errorf("items %s", got)
	}
	want := map[string]int{"Missing": 1, "N/A": 1, "unlabelled": 1, "no evidence": 1}
	for k, v := range want {
		if d.Skipped[k] != v {
			t.Errorf("skipped %v, want %v", d.Skipped, want)
			break
		}
	}
	for _, bad := range []string{"", "\n\n", "not json\n", `{"question": "q"}` + "\n"} {
		if _, err := eval.ParseSupport(strings.NewReader(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestSupportScores(t *testing.T) {
	d, err := eval.ParseSupport(strings.NewReader(expertQA))
	if err != nil {
		t.Fatal(err)
	}
	// A judge that says complete when the claim mentions "light" or
	// "ocean": right on the blue-light claim and on the Partial one,
	// wrong on the ocean claim (Incomplete) and on rust (Complete).
	judge := func(_ context.Context, claim string, _ []string) (string, float64, error) {
		if strings.Contains(claim, "light") || strings.Contains(claim, "ocean") {
			return "complete", 0.9, nil
		}
		return "partial", 0.4, nil
	}
	steps := 0
	rep, err := eval.Support(context.Background(), d, judge, func(done, total int) { steps++ })
	if err != nil {
		t.Fatal(err)
	}
	o := rep.Overall
	if o.Items != 4 || o.Complete != 2 || steps != 4 {
		t.Fatalf("overall %+v, steps %d", o, steps)
	}
	// Complete: 1 of 2 recalled; other: 1 of 2 (Partial) turned down.
	if o.Agreement != 0.5 || o.RecallComplete != 0.5 || o.RecallOther != 0.5 || o.BalancedAccuracy != 0.5 {
		t.Errorf("overall %+v", o)
	}
	if o.Confusion["Incomplete"]["complete"] != 1 || o.Confusion["Partial"]["partial"] != 1 {
		t.Errorf("confusion %v", o.Confusion)
	}
	if o.Majority.Agreement != 0.5 || o.Majority.BalancedAccuracy != 0.5 {
		t.Errorf("majority %+v", o.Majority)
	}
	if rep.Dev.Items+rep.HeldOut.Items != o.Items || rep.Anchor != eval.SupportAnchor {
		t.Errorf("dev %d + held out %d != %d, anchor %v", rep.Dev.Items, rep.HeldOut.Items, o.Items, rep.Anchor)
	}
	boom := errors.New("boom")
	if _, err := eval.Support(context.Background(), d, func(context.Context, string, []string) (string, float64, error) {
		return "", 0, boom
	}, nil); !errors.Is(err, boom) {
		t.Errorf("err %v, want the judge's", err)
	}
}
