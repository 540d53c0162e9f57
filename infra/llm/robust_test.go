package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/annalist-dev/annalist/infra/llm"
	"github.com/annalist-dev/annalist/internal/kit/ask"
)

// finished answers content with a finish_reason and usage.
func finished(w http.ResponseWriter, content, finish string, prompt, completionTokens int) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "test-model",
		"choices": []map[string]any{{
			"index": 0, "finish_reason": finish,
			"message": map[string]any{"role": "assistant", "content": content},
		}},
		"usage": map[string]any{"prompt_tokens": prompt, "completion_tokens": completionTokens,
			"total_tokens": prompt + completionTokens},
	})
}

var sentencePrompt = ask.MustParseFS("sentence.test", nil, fstest.MapFS{
	"p.tmpl": {Data: []byte(`{{define "system"}}Answer one JSON object {"text": string}.{{end}}` +
		`{{define "user"}}Write a sentence.{{if .}} Your last answer was rejected: {{.}}{{end}}{{end}}`)},
}, "p.tmpl")

type sentence struct {
	Text string `json:"text"`
}

// askSentence asks m for a sentence through internal/kit/ask, the way every
// agent of the LLM engine asks.
func askSentence(ctx context.Context, m *llm.Model) (string, int, error) {
	return ask.JSON(ctx, m, ask.Request[sentence, string]{
		Prompt: sentencePrompt,
		Data:   func(feedback string) any { return feedback },
		Validate: func(a sentence) (string, error) {
			if a.Text == "" {
				return "", errors.New("the text is empty")
			}
			return a.Text, nil
		},
	})
}

// What small local models answer, through the OpenAI-compatible client
// and internal/kit/ask: each answer is either used or ends the question with
// ask.ErrRejected (the agents' documented fallback), and Usage says which.
func TestAnswersOfASmallModel(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		content  string
		finish   string
		want     string // the sentence; "" when every answer is rejected
		kind     func(llm.Usage) int64
		truncate bool
	}{
		{name: "bare object", content: `{"text":"甲"}`, finish: "stop", want: "甲",
			kind: func(u llm.Usage) int64 { return u.AnswersJSON }},
		{name: "code fence", content: "```json\n{\"text\":\"乙\"}\n```", finish: "stop", want: "乙",
			kind: func(u llm.Usage) int64 { return u.AnswersJSON }},
		{name: "prose around the object", content: "Sure! Here is the JSON you asked for:\n{\"text\":\"丙\"}\nLet me know if you need more.", finish: "stop", want: "丙",
			kind: func(u llm.Usage) int64 { return u.AnswersRepaired }},
		{name: "fence then remarks", content: "```json\n{\"text\":\"丁\"}\n```\nNote: the sentence is short.", finish: "stop", want: "丁",
			kind: func(u llm.Usage) int64 { return u.AnswersRepaired }},
		{name: "cut at max tokens", content: `{"text":"万历十四年，叶向高举进士，授庶吉士，进编修，迁`, finish: "length",
			kind: func(u llm.Usage) int64 { return u.AnswersUnusable }, truncate: true},
		{name: "prose only", content: "The subject was a famous official of the Ming.", finish: "stop",
			kind: func(u llm.Usage) int64 { return u.AnswersUnusable }},
		{name: "off schema", content: `{"sentence":"甲","chunk":"c1"}`, finish: "stop",
			kind: func(u llm.Usage) int64 { return u.AnswersJSON }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newChatServer(t, func(_ int, _ chatRequest, w http.ResponseWriter, _ *http.Request) {
				finished(w, tc.content, tc.finish, 40, 9)
			})
			m := client(t, s, 0, 0)
			got, calls, err := askSentence(ctx, m)
			u := m.Usage()
			switch {
			case tc.want != "":
				if err != nil || got != tc.want || calls != 1 {
					t.Fatalf("ask = %q, %d calls, %v; want %q in one call", got, calls, err, tc.want)
				}
			default:
				if !errors.Is(err, ask.ErrRejected) || calls != ask.DefaultAttempts {
					t.Fatalf("ask = %q, %d calls, %v; want ErrRejected after %d calls", got, calls, err, ask.DefaultAttempts)
				}
			}
			if u.Answers != int64(calls) || tc.kind(u) != int64(calls) || u.Errors != 0 {
				t.Fatalf("usage %+v: want %d answers of the case's kind", u, calls)
			}
			if tc.truncate != (u.AnswersTruncated == int64(calls)) {
				t.Fatalf("usage %+v: truncated %v", u, tc.truncate)
			}
			if u.PromptTokens != 40*int64(calls) || u.CompletionTokens != 9*int64(calls) || u.Latency.Calls != int64(calls) {
				t.Fatalf("usage %+v: tokens or latency not counted per call", u)
			}
			if want := float64(u.AnswersJSON+u.AnswersRepaired) / float64(u.Answers); u.UsableShare() != want {
				t.Fatalf("usable share %v, want %v", u.UsableShare(), want)
			}
		})
	}
}

// A server slower than the per-attempt timeout: each attempt is cut, the
// call fails after its retries with a timeout error (never hangs), and the
// timeouts and the call's latency are counted.
func TestSlowServerTimesOut(t *testing.T) {
	s := newChatServer(t, func(_ int, _ chatRequest, w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
			completion(w, `{"text":"late"}`, 1, 1)
		}
	})
	m := client(t, s, 1, 100*time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, calls, err := askSentence(ctx, m)
	if err == nil || !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ask.ErrRejected) {
		t.Fatalf("ask after %d calls: %v; want the timeout, not a rejection", calls, err)
	}
	if ctx.Err() != nil {
		t.Fatalf("the call outlived its retries: %v", err)
	}
	u := m.Usage()
	if u.Calls != 1 || u.Attempts != 2 || u.Timeouts != 2 || u.Errors != 1 || u.Answers != 0 || u.Latency.Calls != 1 {
		t.Fatalf("usage %+v", u)
	}
	if u.Latency.MaxMillis < 200 {
		t.Fatalf("latency %+v: the two attempts of 100ms are not in the call's duration", u.Latency)
	}
}

// The request carries the answer's token limit (default 1024, configured,
// or none) and, in JSON mode, response_format json_object.
func TestRequestLimitsAndJSONMode(t *testing.T) {
	for _, tc := range []struct {
		name      string
		maxTokens int
		json      bool
		want      int // 0: max_tokens absent
	}{
		{"defaults", 0, false, llm.DefaultMaxTokens},
		{"configured", 64, true, 64},
		{"server's limit", -1, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newChatServer(t, func(_ int, _ chatRequest, w http.ResponseWriter, _ *http.Request) {
				completion(w, `{"text":"甲"}`, 1, 1)
			})
			m, err := llm.NewChatModel(context.Background(), llm.Config{BaseURL: s.URL + "/v1", Model: "test-model",
				APIKey: "test-key", MaxTokens: tc.maxTokens, JSONMode: tc.json})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := m.Generate(context.Background(), []*schema.Message{schema.UserMessage("hi")}); err != nil {
				t.Fatal(err)
			}
			req := s.requests[0]
			switch {
			case tc.want == 0 && req.MaxTokens != nil:
				t.Fatalf("max_tokens %d sent; want none", *req.MaxTokens)
			case tc.want != 0 && (req.MaxTokens == nil || *req.MaxTokens != tc.want):
				t.Fatalf("max_tokens %v; want %d", req.MaxTokens, tc.want)
			}
			if got := req.ResponseFormat != nil && req.ResponseFormat.Type == "json_object"; got != tc.json {
				t.Fatalf("response_format %+v; json mode %v", req.ResponseFormat, tc.json)
			}
		})
	}
}

// RawAnswers hands a prose-wrapped answer on as written (and still counts
// it as repaired).
func TestRawAnswersAreLeftAlone(t *testing.T) {
	s := newChatServer(t, func(_ int, _ chatRequest, w http.ResponseWriter, _ *http.Request) {
		completion(w, "Here: {\"text\":\"甲\"}", 1, 1)
	})
	m, err := llm.NewChatModel(context.Background(), llm.Config{BaseURL: s.URL + "/v1", Model: "test-model",
		APIKey: "test-key", RawAnswers: true})
	if err != nil {
		t.Fatal(err)
	}
	out, err := m.Generate(context.Background(), []*schema.Message{schema.UserMessage("hi")})
	if err != nil || !strings.HasPrefix(out.Content, "Here: ") {
		t.Fatalf("answer %v, %v", out, err)
	}
	if u := m.Usage(); u.AnswersRepaired != 1 {
		t.Fatalf("usage %+v", u)
	}
}
