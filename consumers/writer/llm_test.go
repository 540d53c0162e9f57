package writer_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/consumers/writer"
	"github.com/annalist-dev/annalist/internal/kit/llmtest"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
)

func TestLLMDraftsThePlanItem(t *testing.T) {
	r := shen(t)
	m := llmtest.Answers(
		"```json\n{\"text\": \"嘉靖二十六年（1547年），元亮成进士第三人。\", \"citations\": [\"v9-0003\"]}\n```",
	)
	l := writer.NewLLM(writer.LLMConfig{}, writer.WithModel(m), writer.WithPlan(writer.NewOffline(writer.OfflineConfig{})))
	accepted := []schemas.PageSentence{{Text: "沈元亮，字子明，号东冈，浙江山阴人。"}}
	d, done, err := l.Draft(context.Background(), r.rs, accepted, 1)
	if err != nil || done {
		t.Fatalf("done %v, err %v", done, err)
	}
	if d.Text != "嘉靖二十六年（1547年），元亮成进士第三人。" || d.Engine != writer.EngineLLM || d.Origin != writer.OriginWriter ||
		d.Index != 1 || d.Subject != "沈元亮" {
		t.Errorf("draft %+v", d)
	}
	if len(d.Citations) != 1 || d.Citations[0] != "v9-0003" {
		t.Errorf("citations %v", d.Citations)
	}
	if len(d.Facts) != 2 || d.Facts[0].Relation != schemas.RelJinshi || d.Facts[1].Value != "1547" {
		t.Errorf("facts %+v, want the jinshi fact and the year it states", d.Facts)
	}
	if l.Calls() != 1 {
		t.Errorf("%d calls", l.Calls())
	}
	p := m.Prompts()[0]
	for _, want := range []string{
		"classical Chinese", "Subject: 沈元亮 (also called 子明, 东冈)",
		"[1] chunk v9-0003:",                  // the item's own chunk first
		"chunk v9-0004", "沈元亮，字子明，号东冈，浙江山阴人。", // other references, the page so far
		"jinshi examination", "jinshi: 嘉靖二十六年 (chunk v9-0003)", "date: 1547", "嘉靖二十六年（1547年）进士第三人。",
	} {
		if !strings.Contains(p, want) {
			t.Errorf("prompt lacks %q:\n%s", want, p)
		}
	}
}

func TestLLMRetriesAMalformedAnswerOnce(t *testing.T) {
	r := shen(t)
	ctx := context.Background()
	tests := []struct {
		name, bad, reason string
	}{
		{"not JSON", "沈元亮，字子明。", "not the JSON object"},
		{"unknown field", `{"text": "沈元亮，字子明。", "citations": ["v9-0003"], "note": "x"}`, "unknown field"},
		{"citation not a reference", `{"text": "沈元亮，字子明。", "citations": ["v1-0001"]}`, `citation "v1-0001"`},
		{"no citation", `{"text": "沈元亮，字子明。", "citations": []}`, "no citation"},
		{"empty text", `{"text": " ", "citations": ["v9-0003"]}`, "empty"},
		{"two paragraphs", `{"text": "沈元亮。\n子明。", "citations": ["v9-0003"]}`, "several lines"},
		{"trailing data", `{"text": "沈元亮，字子明。", "citations": ["v9-0003"]} {}`, "trailing data"},
	}
	good := `{"text": "沈元亮，字子明，号东冈，浙江山阴人。", "citations": ["v9-0003", "v9-0003"]}`
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := llmtest.Answers(tc.bad, good)
			l := writer.NewLLM(writer.LLMConfig{}, writer.WithModel(m))
			d, _, err := l.Draft(ctx, r.rs, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			if d.Text != "沈元亮，字子明，号东冈，浙江山阴人。" || len(d.Citations) != 1 {
				t.Errorf("draft %+v", d)
			}
			if l.Calls() != 2 || m.Calls() != 2 {
				t.Fatalf("%d calls", l.Calls())
			}
			if !strings.Contains(m.Prompts()[1], "Your previous answer was rejected: ") || !strings.Contains(m.Prompts()[1], tc.reason) {
				t.Errorf("retry prompt does not give the reason %q:\n%s", tc.reason, m.Prompts()[1])
			}
			if strings.Contains(m.Prompts()[0], "rejected") {
				t.Error("the first prompt carries feedback")
			}
		})
	}

	m := llmtest.Answers("no", `{"text": "x", "citations": ["nope"]}`, good)
	l := writer.NewLLM(writer.LLMConfig{}, writer.WithModel(m))
	_, _, err := l.Draft(ctx, r.rs, nil, 0)
	if !errors.Is(err, writer.ErrMalformed) || !errors.Is(err, pipeline.ErrPermanent) {
		t.Errorf("two malformed answers: %v, want a permanent ErrMalformed", err)
	}
	if l.Calls() != 2 {
		t.Errorf("%d calls after two malformed answers, want 2", l.Calls())
	}
}

func TestLLMModelFailureIsTransient(t *testing.T) {
	r := shen(t)
	l := writer.NewLLM(writer.LLMConfig{}, writer.WithModel(llmtest.Answers(llmtest.Fail)))
	_, _, err := l.Draft(context.Background(), r.rs, nil, 0)
	if err == nil || errors.Is(err, pipeline.ErrPermanent) || errors.Is(err, writer.ErrMalformed) {
		t.Errorf("model failure: %v, want a transient error the runtime retries", err)
	}
}

func TestLLMEndsWithThePlan(t *testing.T) {
	r := shen(t)
	m := llmtest.Answers()
	l := writer.NewLLM(writer.LLMConfig{}, writer.WithModel(m))
	n := len(writer.NewOffline(writer.OfflineConfig{}).Plan(r.rs))
	if _, done, err := l.Draft(context.Background(), r.rs, nil, n); err != nil || !done {
		t.Errorf("sentence %d of a plan of %d: done %v, err %v", n, n, done, err)
	}
	if l.Calls() != 0 {
		t.Errorf("%d model calls to end the page", l.Calls())
	}
}

func TestLLMEnglishPrompt(t *testing.T) {
	r := newRefSet("Anne Corrie", "en").chunk("corrie-0000", "corrie", "Anne Corrie was a Scottish botanist.")
	m := llmtest.Answers(`{"text": "Anne Corrie was a Scottish botanist.", "citations": ["corrie-0000"]}`)
	d, _, err := writer.NewLLM(writer.LLMConfig{}, writer.WithModel(m)).Draft(context.Background(), r.rs, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(m.Prompts()[0], "in English") || d.Facts[0].ChunkID != "corrie-0000" {
		t.Errorf("prompt %q, draft %+v", m.Prompts()[0], d)
	}
}
