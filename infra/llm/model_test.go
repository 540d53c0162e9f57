package llm_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	einoopenai "github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/schema"

	"github.com/annalist-dev/annalist/infra/llm"
	"github.com/annalist-dev/annalist/internal/kit/llmtest"
	"github.com/annalist-dev/annalist/pipeline"
)

func answer(text string, prompt, completion int) llmtest.Reply {
	return func(context.Context, llmtest.Call) (*schema.Message, error) {
		m := schema.AssistantMessage(text, nil)
		m.ResponseMeta = &schema.ResponseMeta{Usage: &schema.TokenUsage{
			PromptTokens: prompt, CompletionTokens: completion, TotalTokens: prompt + completion}}
		return m, nil
	}
}

func status(code int) llmtest.Reply {
	return func(context.Context, llmtest.Call) (*schema.Message, error) {
		return nil, &einoopenai.APIError{HTTPStatusCode: code, Message: "scripted"}
	}
}

func hang(ctx context.Context, _ llmtest.Call) (*schema.Message, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// fast keeps retries quick in tests.
var fast = llm.Config{MinBackoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond}

var user = []*schema.Message{schema.UserMessage("hi")}

func TestWrapAccountsTokensAndCost(t *testing.T) {
	cfg := fast
	cfg.PromptPrice, cfg.CompletionPrice = 1, 2
	m := llm.Wrap(llmtest.Sequence(answer("ok", 10, 5)), cfg)
	for i := 0; i < 2; i++ {
		msg, err := m.Generate(context.Background(), user)
		if err != nil || msg.Content != "ok" {
			t.Fatalf("generate: %v %v", msg, err)
		}
	}
	u := m.Usage()
	want := llm.Usage{Calls: 2, Attempts: 2, PromptTokens: 20, CompletionTokens: 10, TotalTokens: 30,
		Cost: (20*1 + 10*2) / 1e6, Answers: 2, AnswersUnusable: 2}
	if u.Latency.Calls != 2 {
		t.Fatalf("latency = %+v, want 2 calls timed", u.Latency)
	}
	u.Latency = llm.Latency{}
	if u != want {
		t.Fatalf("usage = %+v, want %+v", u, want)
	}
}

func TestRetryPolicy(t *testing.T) {
	type step = llmtest.Reply
	tests := []struct {
		name          string
		steps         []step
		maxRetries    int
		timeout       time.Duration
		wantErr       string
		wantPermanent bool
		wantAttempts  int64
	}{
		{"429 then 503 then success", []step{status(429), status(503), answer("ok", 1, 1)}, 3, 0, "", false, 3},
		{"400 is not retried", []step{status(400)}, 3, 0, "status code: 400", true, 1},
		{"401 is not retried", []step{status(401)}, 3, 0, "status code: 401", true, 1},
		{"500 until the retries are spent", []step{status(500)}, 2, 0, "gave up after 3 attempts", false, 3},
		{"timeouts are retried", []step{hang}, 1, 20 * time.Millisecond, "gave up after 2 attempts", false, 2},
		{"network errors are retried", []step{func(context.Context, llmtest.Call) (*schema.Message, error) {
			return nil, io.ErrUnexpectedEOF
		}, answer("ok", 1, 1)}, 1, 0, "", false, 2},
		{"other errors are not retried", []step{func(context.Context, llmtest.Call) (*schema.Message, error) {
			return nil, errors.New("bad tool schema")
		}}, 3, 0, "bad tool schema", false, 1},
		{"no retries when negative", []step{status(503)}, -1, 0, "gave up after 1 attempts", false, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := fast
			cfg.MaxRetries, cfg.Timeout = tt.maxRetries, tt.timeout
			m := llm.Wrap(llmtest.Sequence(tt.steps...), cfg)
			msg, err := m.Generate(context.Background(), user)
			u := m.Usage()
			if u.Attempts != tt.wantAttempts || u.Retries != tt.wantAttempts-1 {
				t.Errorf("attempts %d retries %d, want %d and %d", u.Attempts, u.Retries, tt.wantAttempts, tt.wantAttempts-1)
			}
			if tt.wantErr == "" {
				if err != nil || msg.Content != "ok" || u.Errors != 0 {
					t.Fatalf("got %v, %v, errors %d", msg, err, u.Errors)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error %v, want it to mention %q", err, tt.wantErr)
			}
			if pipeline.IsPermanent(err) != tt.wantPermanent {
				t.Fatalf("permanent = %v, want %v (%v)", pipeline.IsPermanent(err), tt.wantPermanent, err)
			}
			if u.Errors != 1 || u.InFlight != 0 {
				t.Fatalf("errors %d in flight %d", u.Errors, u.InFlight)
			}
		})
	}
}

func TestCallerCancellationStopsRetries(t *testing.T) {
	cfg := llm.Config{MinBackoff: time.Hour, MaxBackoff: time.Hour}
	m := llm.Wrap(llmtest.Sequence(status(503)), cfg)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := m.Generate(ctx, user)
		done <- err
	}()
	for m.Usage().Retries == 0 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if u := m.Usage(); u.Attempts != 1 || u.InFlight != 0 {
		t.Fatalf("usage %+v", u)
	}
}

func TestConcurrencyLimit(t *testing.T) {
	var inside, most atomic.Int64
	entered := make(chan struct{}, 16)
	release := make(chan struct{})
	step := func(context.Context, llmtest.Call) (*schema.Message, error) {
		n := inside.Add(1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		entered <- struct{}{}
		<-release
		inside.Add(-1)
		return schema.AssistantMessage("ok", nil), nil
	}
	cfg := fast
	cfg.Concurrency = 2
	m := llm.Wrap(llmtest.New(step), cfg)
	var wg sync.WaitGroup
	for i := 0; i < 6; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := m.Generate(context.Background(), user); err != nil {
				t.Error(err)
			}
		}()
	}
	<-entered
	<-entered
	if u := m.Usage(); u.InFlight != 2 {
		t.Fatalf("in flight %d, want 2", u.InFlight)
	}
	close(release)
	wg.Wait()
	if most.Load() != 2 {
		t.Fatalf("at most %d calls ran at once, want 2", most.Load())
	}
	if u := m.Usage(); u.Calls != 6 || u.InFlight != 0 {
		t.Fatalf("usage %+v", u)
	}
}

func TestStreamAccountsAndReleases(t *testing.T) {
	cfg := fast
	cfg.Concurrency = 1
	m := llm.Wrap(llmtest.Sequence(answer("hello", 7, 2)), cfg)
	sr, err := m.Stream(context.Background(), user)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for {
		msg, err := sr.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(msg.Content)
	}
	sr.Close()
	if b.String() != "hello" {
		t.Fatalf("stream content %q", b.String())
	}
	if u := m.Usage(); u.Calls != 1 || u.PromptTokens != 7 || u.CompletionTokens != 2 || u.InFlight != 0 {
		t.Fatalf("usage %+v", u)
	}
	// The slot is free: a second stream opens with a concurrency of one.
	sr2, err := m.Stream(context.Background(), user)
	if err != nil {
		t.Fatal(err)
	}
	sr2.Close()
}

func TestWithToolsNeedsAToolModel(t *testing.T) {
	m := llm.Wrap(llmtest.Answers(), fast)
	if _, err := m.WithTools(nil); err == nil {
		t.Fatal("want an error for a model without tools")
	}
}
