package llm_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/cloudwego/eino/schema"

	"github.com/annalist-dev/annalist/consumers/extractor"
	"github.com/annalist-dev/annalist/infra/llm"
	"github.com/annalist-dev/annalist/infra/memory"
	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
)

// chatServer speaks the OpenAI chat-completions wire format on loopback:
// POST /v1/chat/completions. reply decides each answer from the request
// number (from 0) and the decoded request.
type chatServer struct {
	*httptest.Server
	mu       sync.Mutex
	requests []chatRequest
}

type chatRequest struct {
	Model       string   `json:"model"`
	Temperature *float64 `json:"temperature"`
	MaxTokens   *int     `json:"max_tokens"`
	// ResponseFormat is set in JSON mode.
	ResponseFormat *struct {
		Type string `json:"type"`
	} `json:"response_format"`
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
}

func newChatServer(t *testing.T, reply func(n int, req chatRequest, w http.ResponseWriter, r *http.Request)) *chatServer {
	t.Helper()
	s := &chatServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		if got := r.Header.Get("Authorization"); got != "Bearer test-key" {
			http.Error(w, `{"error":{"message":"bad key","type":"auth"}}`, http.StatusUnauthorized)
			return
		}
		var req chatRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		n := len(s.requests)
		s.requests = append(s.requests, req)
		s.mu.Unlock()
		reply(n, req, w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *chatServer) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

func completion(w http.ResponseWriter, content string, prompt, completionTokens int) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "test-model",
		"choices": []map[string]any{{
			"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": content},
		}},
		"usage": map[string]any{"prompt_tokens": prompt, "completion_tokens": completionTokens,
			"total_tokens": prompt + completionTokens},
	})
}

func apiError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	fmt.Fprintf(w, `{"error":{"message":%q,"type":"test"}}`, msg)
}

func client(t *testing.T, s *chatServer, maxRetries int, timeout time.Duration) *llm.Model {
	t.Helper()
	m, err := llm.NewChatModel(context.Background(), llm.Config{
		BaseURL: s.URL + "/v1", Model: "test-model", APIKey: "test-key", MaxRetries: maxRetries, Timeout: timeout,
		MinBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestOpenAIClientEndToEnd(t *testing.T) {
	ctx := context.Background()
	msgs := []*schema.Message{schema.SystemMessage("be brief"), schema.UserMessage("hello")}

	t.Run("answer with usage", func(t *testing.T) {
		s := newChatServer(t, func(_ int, req chatRequest, w http.ResponseWriter, _ *http.Request) {
			completion(w, "echo: "+req.Messages[len(req.Messages)-1].Content, 12, 3)
		})
		m := client(t, s, 0, 0)
		out, err := m.Generate(ctx, msgs)
		if err != nil || out.Content != "echo: hello" {
			t.Fatalf("answer %v, %v", out, err)
		}
		req := s.requests[0]
		if req.Model != "test-model" || len(req.Messages) != 2 || req.Messages[0].Role != "system" ||
			req.Temperature == nil || *req.Temperature != 0 {
			t.Fatalf("request %+v", req)
		}
		if u := m.Usage(); u.Calls != 1 || u.Attempts != 1 || u.PromptTokens != 12 || u.CompletionTokens != 3 || u.TotalTokens != 15 {
			t.Fatalf("usage %+v", u)
		}
	})

	t.Run("429 then success", func(t *testing.T) {
		s := newChatServer(t, func(n int, _ chatRequest, w http.ResponseWriter, _ *http.Request) {
			if n == 0 {
				apiError(w, http.StatusTooManyRequests, "slow down")
				return
			}
			completion(w, "ok", 5, 1)
		})
		m := client(t, s, 3, 0)
		out, err := m.Generate(ctx, msgs)
		if err != nil || out.Content != "ok" || s.count() != 2 {
			t.Fatalf("answer %v, %v after %d requests", out, err, s.count())
		}
		if u := m.Usage(); u.Retries != 1 || u.Errors != 0 || u.PromptTokens != 5 {
			t.Fatalf("usage %+v", u)
		}
	})

	t.Run("500 every time", func(t *testing.T) {
		s := newChatServer(t, func(_ int, _ chatRequest, w http.ResponseWriter, _ *http.Request) {
			apiError(w, http.StatusInternalServerError, "boom")
		})
		m := client(t, s, 2, 0)
		_, err := m.Generate(ctx, msgs)
		if err == nil || !strings.Contains(err.Error(), "gave up after 3 attempts") || !strings.Contains(err.Error(), "500") ||
			pipeline.IsPermanent(err) || llm.StatusCode(err) != 500 {
			t.Fatalf("error %v", err)
		}
		if s.count() != 3 {
			t.Fatalf("%d requests, want 3", s.count())
		}
	})

	t.Run("502 with a non-JSON body is retried", func(t *testing.T) {
		s := newChatServer(t, func(n int, _ chatRequest, w http.ResponseWriter, _ *http.Request) {
			if n == 0 {
				http.Error(w, "bad gateway", http.StatusBadGateway)
				return
			}
			completion(w, "ok", 1, 1)
		})
		m := client(t, s, 1, 0)
		if out, err := m.Generate(ctx, msgs); err != nil || out.Content != "ok" || s.count() != 2 {
			t.Fatalf("answer %v, %v after %d requests", out, err, s.count())
		}
	})

	t.Run("400 is permanent", func(t *testing.T) {
		s := newChatServer(t, func(_ int, _ chatRequest, w http.ResponseWriter, _ *http.Request) {
			apiError(w, http.StatusBadRequest, "context too long")
		})
		m := client(t, s, 3, 0)
		_, err := m.Generate(ctx, msgs)
		if !pipeline.IsPermanent(err) || !strings.Contains(err.Error(), "context too long") || s.count() != 1 {
			t.Fatalf("error %v after %d requests", err, s.count())
		}
	})

	t.Run("timeout", func(t *testing.T) {
		s := newChatServer(t, func(_ int, _ chatRequest, _ http.ResponseWriter, r *http.Request) {
			<-r.Context().Done() // never answers; the client gives up
		})
		m := client(t, s, 1, 50*time.Millisecond)
		_, err := m.Generate(ctx, msgs)
		if err == nil || !strings.Contains(err.Error(), "gave up after 2 attempts") || pipeline.IsPermanent(err) {
			t.Fatalf("error %v", err)
		}
		if s.count() != 2 {
			t.Fatalf("%d requests, want 2", s.count())
		}
		if u := m.Usage(); u.Errors != 1 || u.InFlight != 0 {
			t.Fatalf("usage %+v", u)
		}
	})
}

// TestExtractorSynthesisThroughOpenAIClient runs the extractor's regex
// synthesis through the real eino-ext client against the test server: the
// model's regex is validated, stored in Redis and reused without a request.
func TestExtractorSynthesisThroughOpenAIClient(t *testing.T) {
	s := newChatServer(t, func(_ int, req chatRequest, w http.ResponseWriter, _ *http.Request) {
		user := req.Messages[len(req.Messages)-1].Content
		if !strings.Contains(user, "Relation: courtesy_name") {
			apiError(w, http.StatusBadRequest, "unexpected prompt")
			return
		}
		completion(w, "```json\n"+`{"relation": "courtesy_name", "regex": "表字(\\p{Han}{2})", "groups": {"tail": 1}}`+"\n```", 420, 30)
	})
	m := client(t, s, 0, 0)
	mem := memory.NewRegexes(redistest.Client(t), 0)
	ex := extractor.New(extractor.Config{}, extractor.WithModel(m), extractor.WithMemory(mem))
	ctx := context.Background()
	for i, c := range []struct{ id, name, text, want string }{
		{"lin", "林远", "林远，表字子文，吴县人。举万历五年进士，授吴江知县。", "子文"},
		{"zhou", "周敬", "周敬，表字伯安，华亭人。举万历八年进士，授行人。", "伯安"},
	} {
		ch := schemas.Chunk{ChunkID: c.id, DocID: "d-" + c.id, Total: 1, Profile: extractor.ProfileLiezhuan,
			Subject: c.name, Entry: c.name, EntryChunk: c.id, End: utf8.RuneCountInString(c.text), Text: c.text}
		out, err := ex.Handler()(ctx, pipeline.Input{Msg: ch, Meta: schemas.Meta{Tenant: "t1"}})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, o := range out {
			tr := o.Msg.(schemas.Triplet)
			if tr.Relation == schemas.RelCourtesyName && tr.Tail == c.want && tr.Method == extractor.MethodLLMRegex {
				found = true
			}
		}
		if !found {
			t.Fatalf("chunk %d: no synthesised courtesy name %s in %+v", i, c.want, out)
		}
		if s.count() != 1 {
			t.Fatalf("after chunk %d: %d requests, want 1", i, s.count())
		}
	}
	if u := m.Usage(); u.Calls != 1 || u.PromptTokens != 420 || u.CompletionTokens != 30 {
		t.Fatalf("usage %+v", u)
	}
	if st := ex.Stats(); st.LLMCalls != 1 || st.CallsSaved != 1 || st.RegexLearned != 1 {
		t.Fatalf("extractor stats %+v", st)
	}
	if !strings.Contains(s.requests[0].Messages[0].Content, "Go's regexp package (RE2)") {
		t.Fatalf("system prompt not sent: %q", s.requests[0].Messages[0].Content)
	}
}

// TestOpenAIErrorNamesStatusAndCause: an OpenAI-compatible server whose
// error body the provider client cannot decode ({"error":"boom"}) used to
// give the error "llm call: " with nothing after it, and the 500 was not
// retried; the error now names the status and the body, and is retried.
func TestOpenAIErrorNamesStatusAndCause(t *testing.T) {
	s := newChatServer(t, func(_ int, _ chatRequest, w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprint(w, `{"error":"model overloaded"}`)
	})
	m := client(t, s, 2, time.Second)
	_, err := m.Generate(context.Background(), []*schema.Message{schema.UserMessage("hello")})
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	for _, want := range []string{"gave up after 3 attempts", "500 Internal Server Error", "model overloaded"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not say %q", msg, want)
		}
	}
	if strings.HasSuffix(strings.TrimSpace(msg), ":") || llm.StatusCode(err) != 500 || pipeline.IsPermanent(err) {
		t.Errorf("error %q: status %d, permanent %v", msg, llm.StatusCode(err), pipeline.IsPermanent(err))
	}
	if s.count() != 3 {
		t.Errorf("%d requests, want 3 (a 500 is retried)", s.count())
	}
}
