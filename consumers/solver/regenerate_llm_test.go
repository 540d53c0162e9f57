package solver_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/consumers/solver"
	"github.com/annalist-dev/annalist/internal/kit/llmtest"
	"github.com/annalist-dev/annalist/schemas"
)

// placeRepair: the native place is contradicted by 叶向高's entry; the
// neighbour chunk c-other is in the set but supports nothing.
func placeRepair() schemas.Repair {
	return repair("叶向高", "叶向高，字进卿，晋江人。", []string{chunkYe}, []schemas.Fact{
		{Text: "字进卿", Relation: schemas.RelCourtesyName, Value: "进卿", ChunkID: chunkYe},
	}, 0,
		ok(schemas.RelCourtesyName, "进卿", "字进卿", ev(chunkYe, textYe, "字进卿")),
		fv(ns, schemas.ErrorOther, schemas.RelNativePlace, "晋江", "晋江人", ev(chunkYe, textYe, "福清人")))
}

func TestRegenerateWithModel(t *testing.T) {
	for _, tc := range []struct {
		name    string
		answers []string
		calls   int
		want    want
		// feedback is in the second prompt.
		feedback string
	}{
		{"a good answer", []string{`{"text": "叶向高，字进卿，福清人。", "citations": ["c-ye"]}`}, 1,
			want{outcome: schemas.OutcomeCorrected, has: []string{"叶向高，字进卿，福清人。"}, gone: []string{"晋江"}, cites: []string{chunkYe}}, ""},
		{"fenced JSON is read", []string{"```json\n{\"text\": \"叶向高，字进卿，福清人。\", \"citations\": [\"c-ye\"]}\n```"}, 1,
			want{outcome: schemas.OutcomeCorrected, has: []string{"福清人"}}, ""},
		{"malformed, then good", []string{`叶向高，字进卿，福清人。`, `{"text": "叶向高，字进卿，福清人。", "citations": ["c-ye"]}`}, 2,
			want{outcome: schemas.OutcomeCorrected, has: []string{"福清人"}, gone: []string{"晋江"}}, "not the JSON object"},
		{"a citation not offered, then good", []string{`{"text": "叶向高，字进卿，福清人。", "citations": ["c-other"]}`,
			`{"text": "叶向高，字进卿，福清人。", "citations": ["c-ye"]}`}, 2,
			want{outcome: schemas.OutcomeCorrected, has: []string{"福清人"}}, "not one of the references given"},
		{"the rejected value again, then good", []string{`{"text": "叶向高，字进卿，祖籍晋江。", "citations": ["c-ye"]}`,
			`{"text": "叶向高，字进卿，福清人。", "citations": ["c-ye"]}`}, 2,
			want{outcome: schemas.OutcomeCorrected, has: []string{"福清人"}}, "which the verifier rejected"},
		{"the sentence unchanged, then good", []string{`{"text": "叶向高，字进卿，晋江人。", "citations": ["c-ye"]}`,
			`{"text": "叶向高，字进卿，福清人。", "citations": ["c-ye"]}`}, 2,
			want{outcome: schemas.OutcomeCorrected, has: []string{"福清人"}}, "the sentence unchanged"},
		{"malformed twice: the offline rewrite", []string{`{"text": ""}`, `{"sentence": "x"}`}, 2,
			want{outcome: schemas.OutcomeCorrected, has: []string{"叶向高，字进卿，福清人。"}, gone: []string{"晋江"}}, "empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := llmtest.Answers(tc.answers...)
			r := placeRepair()
			c, _ := solve(t, solver.NewRegenerate(solver.RegenerateConfig{}, solver.WithModel(m)), yeRefs(false), r)
			check(t, r, c, tc.want)
			if c.LLMCalls != tc.calls || m.Calls() != tc.calls {
				t.Errorf("LLMCalls %d, model saw %d prompts, want %d", c.LLMCalls, m.Calls(), tc.calls)
			}
			p := m.Prompts()[0]
			for _, in := range []string{"叶向高，字进卿，晋江人。", "[c-ye] " + textYe, "晋江"} {
				if !strings.Contains(p, in) {
					t.Errorf("prompt lacks %q:\n%s", in, p)
				}
			}
			if strings.Contains(p, chunkOther) || strings.Contains(p, textOther) {
				t.Errorf("prompt quotes a reference that supports nothing:\n%s", p)
			}
			if tc.feedback != "" && (m.Calls() < 2 || !strings.Contains(m.Prompts()[1], tc.feedback)) {
				t.Errorf("second prompt does not say %q", tc.feedback)
			}
		})
	}
}

func TestRegenerateModelErrorIsReturned(t *testing.T) {
	m := llmtest.Failing(errors.New("503 from the provider"))
	r := placeRepair()
	r.Solver = solver.NameRegenerate
	_, _, err := solver.NewRegenerate(solver.RegenerateConfig{}, solver.WithModel(m)).Solve(context.Background(), "t1", yeRefs(false), r)
	if err == nil || !strings.Contains(err.Error(), "503") {
		t.Errorf("err = %v, want the model's error", err)
	}
}

// The last attempt is dropped without asking the model.
func TestRegenerateWithModelDropsAfterMaxAttempts(t *testing.T) {
	m := llmtest.Answers(`{"text": "叶向高，字进卿，福清人。", "citations": ["c-ye"]}`)
	r := placeRepair()
	r.Verdict.Attempt = solver.DefaultMaxAttempts - 1
	c, _ := solve(t, solver.NewRegenerate(solver.RegenerateConfig{}, solver.WithModel(m)), yeRefs(false), r)
	check(t, r, c, want{outcome: schemas.OutcomeDropped})
	if m.Calls() != 0 || !strings.Contains(c.Reason, "晋江") {
		t.Errorf("model called %d times, reason %q; want no call and the error in the reason", m.Calls(), c.Reason)
	}
}
