package supportllm_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/internal/kit/llmtest"
	"github.com/annalist-dev/annalist/internal/kit/supportllm"
	"github.com/annalist-dev/annalist/internal/lang/en/support"
)

var (
	claim    = "The bridge opened to traffic in 1937 [2]."
	passages = []string{
		"[2] https://example.org/bridge\n\nConstruction began in 1933. The bridge opened to traffic on May 28, 1937, after four years of work.",
		"Fog is common in the bay during summer.",
	}
)

func TestWellFormedAnswer(t *testing.T) {
	m := llmtest.Answers(`{"label": "complete", "spans": [{"passage": 1, "text": "The bridge opened to traffic on May 28, 1937"}]}`)
	j := supportllm.New(m, 2)
	res, fellBack, err := j.Judge(context.Background(), claim, passages)
	if err != nil || fellBack {
		t.Fatalf("err %v, fell back %v", err, fellBack)
	}
	if res.Label != support.Complete || res.Score != 1 || len(res.Spans) != 1 {
		t.Fatalf("got %+v", res)
	}
	s := res.Spans[0]
	if got := string([]rune(passages[0])[s.Start:s.End]); got != s.Text || s.Passage != 0 {
		t.Errorf("span %+v does not point at its text (%q)", s, got)
	}
	if u := m.Users(); len(u) != 1 || !strings.Contains(u[0], "Claim: The bridge opened to traffic in 1937.\n") {
		t.Errorf("prompt should show the claim without its marker:\n%s", u)
	}
	if st := j.Stats(); st.LLMCalls != 1 || st.Invalid != 0 || st.Fallbacks != 0 {
		t.Errorf("stats %+v", st)
	}
}

func TestMalformedAnswersFallBack(t *testing.T) {
	m := llmtest.Answers(`The claim is supported.`, `{"label": "complete", "spans": [], "why": "extra"}`)
	j := supportllm.New(m, 2)
	res, fellBack, err := j.Judge(context.Background(), claim, passages)
	if err != nil || !fellBack {
		t.Fatalf("err %v, fell back %v", err, fellBack)
	}
	want := support.Judge(claim, passages)
	if res.Label != want.Label || res.Score != want.Score {
		t.Errorf("fallback %+v, want the offline judge's %+v", res, want)
	}
	if st := j.Stats(); st.LLMCalls != 2 || st.Invalid != 2 || st.Fallbacks != 1 {
		t.Errorf("stats %+v", st)
	}
}

func TestSpanNotInEvidence(t *testing.T) {
	// One invented span beside a verbatim one: the invented one is dropped.
	m := llmtest.Answers(`{"label": "partial", "spans": [{"passage": 1, "text": "Construction began in 1933."}, {"passage": 2, "text": "The bridge opened in 1937."}]}`)
	j := supportllm.New(m, 2)
	res, _, err := j.Judge(context.Background(), claim, passages)
	if err != nil {
		t.Fatal(err)
	}
	if res.Label != support.Partial || len(res.Spans) != 1 || res.Spans[0].Text != "Construction began in 1933." {
		t.Errorf("got %+v", res)
	}
	if st := j.Stats(); st.DroppedSpans != 1 {
		t.Errorf("stats %+v", st)
	}

	// Only an invented span: the answer is asked again with the reason.
	m = llmtest.Answers(
		`{"label": "complete", "spans": [{"passage": 1, "text": "It opened in 1937."}]}`,
		`{"label": "complete", "spans": [{"passage": 1, "text": "opened to traffic on May 28, 1937"}]}`)
	j = supportllm.New(m, 2)
	res, fellBack, err := j.Judge(context.Background(), claim, passages)
	if err != nil || fellBack || res.Label != support.Complete || len(res.Spans) != 1 {
		t.Fatalf("got %+v, fell back %v, err %v", res, fellBack, err)
	}
	if u := m.Users(); len(u) != 2 || !strings.Contains(u[1], "verbatim") {
		t.Errorf("the retry should say why: %q", u)
	}
	if st := j.Stats(); st.Invalid != 1 || st.Fallbacks != 0 {
		t.Errorf("stats %+v", st)
	}
}

func TestModelErrorIsReturned(t *testing.T) {
	j := supportllm.New(llmtest.Answers(llmtest.Fail), 2)
	if _, _, err := j.Judge(context.Background(), claim, passages); !errors.Is(err, llmtest.ErrUnavailable) {
		t.Errorf("err %v, want the model's", err)
	}
}

// With FallBackOnModelError the offline judge decides a claim the model
// failed on, and the counters say so; a done context is still an error.
func TestModelErrorFallsBackWhenAsked(t *testing.T) {
	j := supportllm.New(llmtest.Answers(llmtest.Fail), 2).FallBackOnModelError()
	res, fellBack, err := j.Judge(context.Background(), claim, passages)
	if err != nil || !fellBack {
		t.Fatalf("fell back %v, err %v; want the offline judge's answer", fellBack, err)
	}
	if want := support.Judge(claim, passages); res.Label != want.Label || res.Score != want.Score {
		t.Errorf("result %+v, want the offline judge's %+v", res, want)
	}
	if st := j.Stats(); st.ModelErrors != 1 || st.Fallbacks != 1 || st.Claims != 1 {
		t.Errorf("stats %+v; want one model error, one fallback", st)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := j.Judge(ctx, claim, passages); err == nil {
		t.Error("a done context fell back; want its error")
	}
}
