// Package supportllm is the LLM engine's claim-support judge: the model
// reads a claim and its evidence passages and answers, through
// internal/kit/ask, whether the passages support the claim completely,
// partially or not at all, with the spans that carry it. Only spans
// copied verbatim from the passage they name are kept; an answer that is
// malformed, or that says complete or partial with no verbatim span left,
// is asked again with the reason, and after the last attempt the offline
// judge (internal/lang/en/support) decides the claim. It lives in the kit
// rather than beside the offline judge because the language layer does
// not import the kit (ARCHITECTURE.md §3).
package supportllm

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"text/template"

	"github.com/cloudwego/eino/components/model"

	"github.com/annalist-dev/annalist/internal/kit/ask"
	"github.com/annalist-dev/annalist/internal/lang/en/support"
)

// PromptSupport is the prompt template version. A template file is never
// edited in place: a change is a new version.
const PromptSupport = "support.v1"

//go:embed prompts/*.tmpl
var promptFS embed.FS

var prompt = ask.MustParseFS(PromptSupport, template.FuncMap{"inc": func(i int) int { return i + 1 }},
	promptFS, "prompts/"+PromptSupport+".tmpl")

// Scores of the labels the model gives: the model gives no probability,
// so a label's score is the one the offline judge's cuts would read as
// that label's side.
var labelScore = map[string]float64{support.Complete: 1, support.Partial: 0.5, support.Missing: 0}

// Judge is the LLM claim-support judge. Safe for concurrent use.
type Judge struct {
	model    model.BaseChatModel
	fallback *support.Model
	attempts int
	// onError makes a model or transport error a fallback too.
	onError bool
	stats   struct{ claims, calls, invalid, fallbacks, modelErrors, dropped atomic.Int64 }
}

// New returns a judge that asks m, at most attempts answers a claim (0
// means ask.DefaultAttempts), and falls back on the shipped offline
// judge.
func New(m model.BaseChatModel, attempts int) *Judge {
	return &Judge{model: m, fallback: support.Default(), attempts: attempts}
}

// FallBackOnModelError makes the offline judge decide a claim when the
// model fails (an error, a timeout) as well as when its answers are all
// rejected, counting it in Stats.ModelErrors and Stats.Fallbacks. It is
// for a caller that must answer now, as `annalist support` does; a
// pipeline stage leaves it off, so a model outage is an error it retries.
// It returns j.
func (j *Judge) FallBackOnModelError() *Judge {
	j.onError = true
	return j
}

// Stats counts the judge's work since it was made.
type Stats struct {
	Claims int64 `json:"claims"`
	// LLMCalls is every model call.
	LLMCalls int64 `json:"llm_calls"`
	// Invalid counts the answers rejected (malformed or invalid).
	Invalid int64 `json:"invalid"`
	// Fallbacks counts the claims the offline judge decided because
	// every answer was rejected or, with FallBackOnModelError, the model
	// failed.
	Fallbacks int64 `json:"fallbacks"`
	// ModelErrors counts the claims whose model call failed
	// (FallBackOnModelError).
	ModelErrors int64 `json:"model_errors"`
	// DroppedSpans counts spans of accepted answers that were not
	// verbatim in the passage they named.
	DroppedSpans int64 `json:"dropped_spans"`
}

// Stats returns a snapshot of the counters.
func (j *Judge) Stats() Stats {
	return Stats{Claims: j.stats.claims.Load(), LLMCalls: j.stats.calls.Load(), Invalid: j.stats.invalid.Load(),
		Fallbacks: j.stats.fallbacks.Load(), ModelErrors: j.stats.modelErrors.Load(), DroppedSpans: j.stats.dropped.Load()}
}

type promptData struct {
	Claim    string
	Passages []string
	Feedback string
}

type answerSpan struct {
	Passage int    `json:"passage"`
	Text    string `json:"text"`
}

type answer struct {
	Label string       `json:"label"`
	Spans []answerSpan `json:"spans"`
}

type validated struct {
	res     support.Result
	dropped int
}

// Judge decides claim on passages. fellBack reports that the offline
// judge decided it. A model or transport error is returned as it is,
// unless FallBackOnModelError was set (and ctx is not done).
func (j *Judge) Judge(ctx context.Context, claim string, passages []string) (res support.Result, fellBack bool, err error) {
	j.stats.claims.Add(1)
	claim = support.StripCitations(claim)
	if len(passages) == 0 {
		return j.fallback.Judge(claim, passages), false, nil
	}
	req := ask.Request[answer, validated]{
		Prompt:   prompt,
		Attempts: j.attempts,
		Data: func(feedback string) any {
			return promptData{Claim: claim, Passages: passages, Feedback: feedback}
		},
		Validate: func(a answer) (validated, error) { return validate(a, passages) },
		OnReject: func(int, error) { j.stats.invalid.Add(1) },
	}
	v, calls, err := ask.JSON(ctx, j.model, req)
	j.stats.calls.Add(int64(calls))
	if errors.Is(err, ask.ErrRejected) {
		j.stats.fallbacks.Add(1)
		return j.fallback.Judge(claim, passages), true, nil
	}
	if err != nil && j.onError && ctx.Err() == nil {
		j.stats.modelErrors.Add(1)
		j.stats.fallbacks.Add(1)
		return j.fallback.Judge(claim, passages), true, nil
	}
	if err != nil {
		return support.Result{}, false, fmt.Errorf("support judge: %w", err)
	}
	j.stats.dropped.Add(int64(v.dropped))
	return v.res, false, nil
}

// validate keeps an answer's verbatim spans; it rejects an unknown label
// and a complete or partial answer left with no span.
func validate(a answer, passages []string) (validated, error) {
	score, ok := labelScore[a.Label]
	if !ok {
		return validated{}, fmt.Errorf("label %q is not one of complete, partial, missing", a.Label)
	}
	v := validated{res: support.Result{Label: a.Label, Score: score, Spans: []support.Span{}}}
	if a.Label == support.Missing {
		return v, nil
	}
	for _, s := range a.Spans {
		text := strings.TrimSpace(s.Text)
		if s.Passage < 1 || s.Passage > len(passages) || text == "" {
			v.dropped++
			continue
		}
		p := passages[s.Passage-1]
		at := strings.Index(p, text)
		if at < 0 {
			v.dropped++
			continue
		}
		start := len([]rune(p[:at]))
		v.res.Spans = append(v.res.Spans, support.Span{Passage: s.Passage - 1, Start: start, End: start + len([]rune(text)), Text: text})
	}
	if len(v.res.Spans) == 0 {
		return validated{}, fmt.Errorf("label %q needs at least one span copied verbatim from the passage it names; none of yours is", a.Label)
	}
	return v, nil
}
