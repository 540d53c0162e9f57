// Package llm wires annalist's LLM engine: an OpenAI-compatible chat model
// (github.com/cloudwego/eino-ext/components/model/openai) behind a
// decorator that every call goes through, whatever the model: a timeout per
// attempt, retries with jittered exponential backoff on 429, 5xx, timeouts
// and connection errors (never on other 4xx answers, which are marked
// permanent so the message is dead-lettered at once), a semaphore bounding
// the calls in flight, and accounting of calls, attempts, retries, errors,
// timed-out attempts, tokens (from the response's usage), the latency of
// every call and what the answers were worth (AnswerKind: one JSON
// object, an object recovered from prose, unusable; cut at the token
// limit), exposed by Usage. An answer whose JSON object is wrapped in
// prose is handed on as the object alone (ExtractJSON), unless
// Config.RawAnswers. A failed call
// of the OpenAI-compatible client names the HTTP status and the start of
// the answer's body (StatusError), whatever the body's shape.
//
// The decorator wraps any eino model.BaseChatModel, so scripted models in
// tests get the same behaviour and accounting as the real client.
package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	einoopenai "github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
	goopenai "github.com/meguminnnnnnnnn/go-openai"

	"github.com/annalist-dev/annalist/internal/kit/backoff"
	"github.com/annalist-dev/annalist/pipeline"
)

// Model is a chat model with timeouts, retries, a concurrency limit and
// accounting. It is safe for concurrent use.
type Model struct {
	inner model.BaseChatModel
	cfg   Config
	sem   chan struct{}
	acct  *accounting
}

var (
	_ model.BaseChatModel        = (*Model)(nil)
	_ model.ToolCallingChatModel = (*Model)(nil)
)

// Wrap decorates inner with the behaviour of cfg (Timeout, MaxRetries,
// Concurrency, backoff, prices); the provider fields are ignored.
func Wrap(inner model.BaseChatModel, cfg Config) *Model {
	cfg = cfg.withDefaults()
	return &Model{inner: inner, cfg: cfg, sem: make(chan struct{}, cfg.Concurrency), acct: &accounting{}}
}

// NewChatModel returns the configured OpenAI-compatible chat model, wrapped.
// The HTTP client has no timeout of its own: each attempt's context
// carries cfg.Timeout.
func NewChatModel(ctx context.Context, cfg Config) (*Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if !cfg.Enabled() {
		return nil, errors.New("llm: no base url or model configured")
	}
	mc := &einoopenai.ChatModelConfig{
		BaseURL:    cfg.BaseURL,
		Model:      cfg.Model,
		APIKey:     cfg.APIKey,
		HTTPClient: &http.Client{Transport: statusTransport{http.DefaultTransport}},
	}
	if cfg.Temperature >= 0 {
		t := float32(cfg.Temperature)
		mc.Temperature = &t
	}
	if n := cfg.withDefaults().MaxTokens; n > 0 {
		mc.MaxTokens = &n
	}
	if cfg.JSONMode {
		mc.ResponseFormat = &einoopenai.ChatCompletionResponseFormat{Type: einoopenai.ChatCompletionResponseFormatTypeJSONObject}
	}
	inner, err := einoopenai.NewChatModel(ctx, mc)
	if err != nil {
		return nil, fmt.Errorf("llm: openai chat model for %s: %w", cfg.BaseURL, err)
	}
	return Wrap(inner, cfg), nil
}

// Usage is a snapshot of a Model's accounting.
type Usage struct {
	// Calls counts Generate and Stream calls; Attempts the requests sent
	// (Calls plus Retries).
	Calls    int64 `json:"calls"`
	Attempts int64 `json:"attempts"`
	Retries  int64 `json:"retries"`
	// Errors counts calls that failed in the end.
	Errors int64 `json:"errors"`
	// Timeouts counts attempts cut by the per-attempt timeout (each is
	// retried while retries remain).
	Timeouts         int64 `json:"timeouts"`
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
	TotalTokens      int64 `json:"total_tokens"`
	// InFlight is the number of calls holding a concurrency slot now.
	InFlight int64 `json:"in_flight"`
	// Cost is the token cost at the configured prices.
	Cost float64 `json:"cost,omitempty"`
	// Answers counts the messages Generate returned, by AnswerKind:
	// AnswersJSON were one JSON object, AnswersRepaired an object found
	// in other text (handed on alone), AnswersUnusable held none.
	// AnswersTruncated, of all of them, stopped at the token limit
	// (finish_reason "length"). Whether an object had the fields asked
	// for is decided by the caller, which retries or falls back.
	Answers          int64 `json:"answers"`
	AnswersJSON      int64 `json:"answers_json"`
	AnswersRepaired  int64 `json:"answers_repaired"`
	AnswersUnusable  int64 `json:"answers_unusable"`
	AnswersTruncated int64 `json:"answers_truncated"`
	// Latency is the duration of every call, from its first attempt to
	// its answer or failure (retries and backoff included, the wait for a
	// concurrency slot not).
	Latency Latency `json:"latency"`
}

// UsableShare is the share of answers a JSON object could be read from
// (AnswersJSON + AnswersRepaired over Answers), 0 with no answers.
func (u Usage) UsableShare() float64 {
	if u.Answers == 0 {
		return 0
	}
	return float64(u.AnswersJSON+u.AnswersRepaired) / float64(u.Answers)
}

type accounting struct {
	calls, attempts, retries, errors, timeouts, prompt, completion, total, inFlight atomic.Int64
	answers, answersJSON, answersRepaired, answersUnusable, answersTruncated        atomic.Int64
	latency                                                                         latencies
}

func (a *accounting) addAnswer(kind AnswerKind, truncated bool) {
	a.answers.Add(1)
	switch kind {
	case AnswerJSON:
		a.answersJSON.Add(1)
	case AnswerRepaired:
		a.answersRepaired.Add(1)
	default:
		a.answersUnusable.Add(1)
	}
	if truncated {
		a.answersTruncated.Add(1)
	}
}

// Usage returns the accounting so far (shared with models derived by
// WithTools).
func (m *Model) Usage() Usage {
	a := m.acct
	u := Usage{
		Calls: a.calls.Load(), Attempts: a.attempts.Load(), Retries: a.retries.Load(), Errors: a.errors.Load(),
		Timeouts:     a.timeouts.Load(),
		PromptTokens: a.prompt.Load(), CompletionTokens: a.completion.Load(), TotalTokens: a.total.Load(),
		InFlight: a.inFlight.Load(),
		Answers:  a.answers.Load(), AnswersJSON: a.answersJSON.Load(), AnswersRepaired: a.answersRepaired.Load(),
		AnswersUnusable: a.answersUnusable.Load(), AnswersTruncated: a.answersTruncated.Load(),
		Latency: a.latency.snapshot(),
	}
	u.Cost = (float64(u.PromptTokens)*m.cfg.PromptPrice + float64(u.CompletionTokens)*m.cfg.CompletionPrice) / 1e6
	return u
}

func (a *accounting) addUsage(u *schema.TokenUsage) {
	if u == nil {
		return
	}
	a.prompt.Add(int64(u.PromptTokens))
	a.completion.Add(int64(u.CompletionTokens))
	total := u.TotalTokens
	if total == 0 {
		total = u.PromptTokens + u.CompletionTokens
	}
	a.total.Add(int64(total))
}

func usageOf(msg *schema.Message) *schema.TokenUsage {
	if msg == nil || msg.ResponseMeta == nil {
		return nil
	}
	return msg.ResponseMeta.Usage
}

func (m *Model) acquire(ctx context.Context) error {
	select {
	case m.sem <- struct{}{}:
		m.acct.inFlight.Add(1)
		return nil
	case <-ctx.Done():
		return fmt.Errorf("llm: wait for a call slot: %w", ctx.Err())
	}
}

func (m *Model) release() {
	m.acct.inFlight.Add(-1)
	<-m.sem
}

// Generate calls the model, retrying transient failures.
func (m *Model) Generate(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	m.acct.calls.Add(1)
	if err := m.acquire(ctx); err != nil {
		m.acct.errors.Add(1)
		return nil, err
	}
	defer m.release()
	start := time.Now()
	var out *schema.Message
	done, err := m.attempt(ctx, func(actx context.Context) error {
		msg, err := m.inner.Generate(actx, in, opts...)
		if err == nil && msg == nil {
			err = errors.New("model returned no message")
		}
		out = msg
		return err
	})
	done()
	m.acct.latency.add(time.Since(start))
	if err != nil {
		m.acct.errors.Add(1)
		return nil, err
	}
	m.acct.addUsage(usageOf(out))
	out, kind, truncated := classify(out, m.cfg.RawAnswers)
	m.acct.addAnswer(kind, truncated)
	return out, nil
}

// Stream opens a stream, retrying transient failures to open it. The
// attempt's timeout and the concurrency slot last until the stream ends or
// the caller closes it; usage is read from the stream's chunks.
func (m *Model) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	m.acct.calls.Add(1)
	if err := m.acquire(ctx); err != nil {
		m.acct.errors.Add(1)
		return nil, err
	}
	start := time.Now()
	var sr *schema.StreamReader[*schema.Message]
	cancel, err := m.attempt(ctx, func(actx context.Context) error {
		s, err := m.inner.Stream(actx, in, opts...)
		sr = s
		return err
	})
	if err != nil {
		m.release()
		m.acct.latency.add(time.Since(start))
		m.acct.errors.Add(1)
		return nil, err
	}
	out, w := schema.Pipe[*schema.Message](1)
	// The copy ends when the model's stream ends, fails or times out, or
	// when the caller closes its reader; it owns the slot until then.
	go func() {
		var usage *schema.TokenUsage
		for {
			msg, err := sr.Recv()
			if errors.Is(err, io.EOF) {
				break
			}
			if u := usageOf(msg); u != nil {
				usage = u
			}
			if w.Send(msg, err) {
				break
			}
			if err != nil {
				m.acct.errors.Add(1)
				break
			}
		}
		sr.Close()
		cancel()
		m.acct.latency.add(time.Since(start))
		m.acct.addUsage(usage)
		// The slot is free and the usage counted before the reader sees
		// the end of the stream.
		m.release()
		w.Close()
	}()
	return out, nil
}

// WithTools returns a model with tools bound, sharing this one's
// concurrency limit and accounting; the wrapped model must support tools.
func (m *Model) WithTools(tools []*schema.ToolInfo) (model.ToolCallingChatModel, error) {
	tc, ok := m.inner.(model.ToolCallingChatModel)
	if !ok {
		return nil, fmt.Errorf("llm: %T does not support tools", m.inner)
	}
	inner, err := tc.WithTools(tools)
	if err != nil {
		return nil, err
	}
	return &Model{inner: inner, cfg: m.cfg, sem: m.sem, acct: m.acct}, nil
}

// attempt runs fn with a per-attempt timeout until it succeeds, fails for
// good, or the retries are spent. It returns the cancel function of the
// last attempt's context, which the caller calls when done with the result
// (a stream outlives the call that opened it); it is safe to call always.
func (m *Model) attempt(ctx context.Context, fn func(context.Context) error) (context.CancelFunc, error) {
	for n := 0; ; n++ {
		m.acct.attempts.Add(1)
		actx, cancel := context.WithTimeout(ctx, m.cfg.Timeout)
		rec := &httpRecord{}
		err := fn(context.WithValue(actx, httpRecordKey{}, rec))
		if err == nil {
			return cancel, nil
		}
		err = rec.annotate(err)
		timedOut := errors.Is(actx.Err(), context.DeadlineExceeded)
		cancel()
		if timedOut && ctx.Err() == nil {
			m.acct.timeouts.Add(1)
		}
		if ctx.Err() != nil {
			return cancel, fmt.Errorf("llm call: %w", errors.Join(ctx.Err(), err))
		}
		code := StatusCode(err)
		if !retryable(err, code, timedOut) {
			err = fmt.Errorf("llm call: %w", err)
			if code >= 400 && code < 500 {
				// The request itself is wrong (or unauthorised): no retry
				// of the message can fix it.
				return cancel, pipeline.Permanent(err)
			}
			return cancel, err
		}
		if n >= m.cfg.MaxRetries {
			return cancel, fmt.Errorf("llm call gave up after %d attempts: %w", n+1, err)
		}
		m.acct.retries.Add(1)
		if err := sleep(ctx, m.backoff(n)); err != nil {
			return cancel, fmt.Errorf("llm call: %w", err)
		}
	}
}

// backoff is the wait before retry n+1: exponential from MinBackoff,
// capped at MaxBackoff, with half of it random so that clients throttled
// together do not retry together.
func (m *Model) backoff(n int) time.Duration {
	return backoff.Exponential{Base: m.cfg.MinBackoff, Cap: m.cfg.MaxBackoff, Jitter: true}.Delay(n + 1)
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// StatusCode returns the HTTP status of a provider error, or 0. The
// status the transport saw (StatusError) comes first: the provider's own
// error types lose it for some bodies (an "error" that is a string).
func StatusCode(err error) int {
	var se *StatusError
	if errors.As(err, &se) && se.Code > 0 {
		return se.Code
	}
	var api *einoopenai.APIError
	if errors.As(err, &api) && api.HTTPStatusCode > 0 {
		return api.HTTPStatusCode
	}
	var raw *goopenai.APIError
	if errors.As(err, &raw) && raw.HTTPStatusCode > 0 {
		return raw.HTTPStatusCode
	}
	var req *goopenai.RequestError
	if errors.As(err, &req) && req.HTTPStatusCode > 0 {
		return req.HTTPStatusCode
	}
	var sc interface{ StatusCode() int }
	if errors.As(err, &sc) {
		return sc.StatusCode()
	}
	return 0
}

// retryable decides whether a failed attempt may succeed if repeated:
// throttling (429), request timeout (408), server errors (5xx), our own
// per-attempt timeout, and network failures. Other errors are the
// request's fault or the model's answer's, and repeat.
func retryable(err error, code int, timedOut bool) bool {
	if code != 0 {
		return code == http.StatusTooManyRequests || code == http.StatusRequestTimeout || code >= 500
	}
	if timedOut || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)
}
