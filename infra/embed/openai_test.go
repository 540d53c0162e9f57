package embed_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/annalist-dev/annalist/internal/ports/vectors"

	"github.com/annalist-dev/annalist/infra/embed"
	"github.com/annalist-dev/annalist/pipeline"
)

// embeddingsServer speaks the OpenAI /v1/embeddings wire format. Its
// vectors are the offline embedder's, so the test knows what the client
// must return. Scripted statuses are answered first, one per request.
type embeddingsServer struct {
	t       *testing.T
	srv     *httptest.Server
	offline *embed.Offline
	key     string
	dim     int // when >0, vectors are cut to this length

	mu       sync.Mutex
	script   []int // statuses to answer before serving
	requests int   // every request, failed ones included
	inputs   [][]string
	hang     bool // wait for the client to give up
}

func newEmbeddingsServer(t *testing.T) *embeddingsServer {
	s := &embeddingsServer{t: t, offline: offline(t, 0), key: "sk-test"}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *embeddingsServer) url() string { return s.srv.URL + "/v1" }

func (s *embeddingsServer) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.requests++
	hang := s.hang
	var status int
	if len(s.script) > 0 {
		status, s.script = s.script[0], s.script[1:]
	}
	s.mu.Unlock()
	if hang {
		// The server notices a client that went away only once the body
		// is read.
		io.Copy(io.Discard, r.Body)
		<-r.Context().Done()
		return
	}
	if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	if got := r.Header.Get("Authorization"); got != "Bearer "+s.key {
		writeError(w, http.StatusUnauthorized, "bad key "+got)
		return
	}
	if status != 0 {
		if status == http.StatusTooManyRequests {
			w.Header().Set("Retry-After", "0")
		}
		writeError(w, status, "scripted failure")
		return
	}
	var req struct {
		Model          string   `json:"model"`
		Input          []string `json:"input"`
		EncodingFormat string   `json:"encoding_format"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, "body: "+err.Error())
		return
	}
	if req.Model != "test-embed" || len(req.Input) == 0 || req.EncodingFormat != "float" {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("bad request %+v", req))
		return
	}
	s.mu.Lock()
	s.inputs = append(s.inputs, req.Input)
	s.mu.Unlock()
	type item struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	resp := struct {
		Object string `json:"object"`
		Data   []item `json:"data"`
		Model  string `json:"model"`
		Usage  struct {
			PromptTokens int `json:"prompt_tokens"`
			TotalTokens  int `json:"total_tokens"`
		} `json:"usage"`
	}{Object: "list", Model: req.Model}
	for i, in := range req.Input {
		v := s.offline.Vector(in)
		if s.dim > 0 {
			v = v[:s.dim]
		}
		resp.Data = append(resp.Data, item{"embedding", i, v})
		resp.Usage.PromptTokens += len(in)
	}
	resp.Usage.TotalTokens = resp.Usage.PromptTokens
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(resp)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"error":{"message":%q,"type":"invalid_request_error","code":null}}`, msg)
}

func (s *embeddingsServer) counts() (requests int, inputs [][]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests, append([][]string(nil), s.inputs...)
}

func (s *embeddingsServer) config() embed.OpenAIConfig {
	return embed.OpenAIConfig{BaseURL: s.url(), Model: "test-embed", APIKey: s.key, Backoff: time.Millisecond}
}

func TestOpenAIEndToEnd(t *testing.T) {
	srv := newEmbeddingsServer(t)
	cfg := srv.config()
	cfg.MaxBatch = 3
	ctx := context.Background()
	o, err := embed.NewOpenAI(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if o.Dim() != embed.DefaultOfflineDim {
		t.Fatalf("probed dimension = %d, want %d", o.Dim(), embed.DefaultOfflineDim)
	}
	texts := []string{"叶向高，字进卿", "福清人", "万历十一年进士", "Ye Xianggao", "native of Fuqing", "grand secretary", "1583"}
	vecs, err := o.Embed(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != len(texts) {
		t.Fatalf("%d vectors for %d texts", len(vecs), len(texts))
	}
	for i, text := range texts {
		want := srv.offline.Vector(text)
		for j := range want {
			if vecs[i][j] != want[j] {
				t.Fatalf("text %d component %d = %v, want %v (vectors must survive the wire and the float64 round trip)", i, j, vecs[i][j], want[j])
			}
		}
	}
	requests, inputs := srv.counts()
	// One probe, then 7 texts in batches of at most 3.
	if requests != 4 {
		t.Fatalf("requests = %d, want 1 probe + 3 batches", requests)
	}
	wantSizes := []int{1, 3, 3, 1}
	for i, in := range inputs {
		if len(in) != wantSizes[i] {
			t.Fatalf("request %d carried %d texts, want %d", i, len(in), wantSizes[i])
		}
	}
	if got := strings.Join(inputs[1], "|"); got != "叶向高，字进卿|福清人|万历十一年进士" {
		t.Fatalf("first batch = %q, want the texts in order", got)
	}
	if req, n := o.Stats(); req != 4 || n != 8 {
		t.Fatalf("stats = %d requests, %d texts; want 4 and 8", req, n)
	}
}

func TestOpenAIRetriesTransientFailures(t *testing.T) {
	srv := newEmbeddingsServer(t)
	cfg := srv.config()
	cfg.Dim = embed.DefaultOfflineDim
	srv.script = []int{http.StatusTooManyRequests, http.StatusServiceUnavailable, http.StatusBadGateway}
	o, err := embed.NewOpenAI(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	vecs, err := o.Embed(context.Background(), []string{"hello"})
	if err != nil {
		t.Fatalf("embed after three transient failures: %v", err)
	}
	if len(vecs) != 1 {
		t.Fatalf("%d vectors", len(vecs))
	}
	if requests, _ := srv.counts(); requests != 4 {
		t.Fatalf("server saw %d attempts, want 3 failures + 1 success", requests)
	}
}

func TestOpenAIFailures(t *testing.T) {
	tests := []struct {
		name      string
		script    []int
		retries   int
		permanent bool
		attempts  int
	}{
		{"bad request is permanent", []int{http.StatusBadRequest}, 3, true, 1},
		{"unknown model is permanent", []int{http.StatusNotFound}, 3, true, 1},
		{"server errors exhaust the retries", []int{500, 500, 500, 500, 500}, 2, false, 3},
		{"rate limit without retries", []int{http.StatusTooManyRequests}, -1, false, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := newEmbeddingsServer(t)
			cfg := srv.config()
			cfg.Dim = embed.DefaultOfflineDim
			cfg.MaxRetries = tc.retries
			srv.script = tc.script
			o, err := embed.NewOpenAI(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			_, err = o.Embed(context.Background(), []string{"x"})
			if err == nil {
				t.Fatal("no error")
			}
			if got := pipeline.IsPermanent(err); got != tc.permanent {
				t.Fatalf("permanent = %v, want %v (err %v)", got, tc.permanent, err)
			}
			if !strings.Contains(err.Error(), "test-embed") {
				t.Fatalf("error %q does not name the model", err)
			}
			if requests, _ := srv.counts(); requests != tc.attempts {
				t.Fatalf("attempts = %d, want %d", requests, tc.attempts)
			}
		})
	}
}

func TestOpenAIWrongKeyFailsAtStartup(t *testing.T) {
	srv := newEmbeddingsServer(t)
	cfg := srv.config()
	cfg.APIKey = "wrong"
	_, err := embed.NewOpenAI(context.Background(), cfg)
	if err == nil || !pipeline.IsPermanent(err) {
		t.Fatalf("err = %v, want a permanent error from the dimension probe", err)
	}
}

func TestOpenAITimesOutEachAttempt(t *testing.T) {
	srv := newEmbeddingsServer(t)
	srv.hang = true
	cfg := srv.config()
	cfg.Dim = embed.DefaultOfflineDim
	cfg.Timeout = 20 * time.Millisecond
	cfg.MaxRetries = 1
	o, err := embed.NewOpenAI(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, err = o.Embed(context.Background(), []string{"x"})
	if err == nil || pipeline.IsPermanent(err) {
		t.Fatalf("err = %v, want a transient error", err)
	}
	if requests, _ := srv.counts(); requests != 2 {
		t.Fatalf("attempts = %d, want the first and one retry", requests)
	}
}

func TestOpenAICallerCancellationStopsRetries(t *testing.T) {
	srv := newEmbeddingsServer(t)
	srv.hang = true
	cfg := srv.config()
	cfg.Dim = embed.DefaultOfflineDim
	o, err := embed.NewOpenAI(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	_, err = o.Embed(ctx, []string{"x"})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the caller's deadline", err)
	}
	if requests, _ := srv.counts(); requests != 1 {
		t.Fatalf("attempts = %d after the caller gave up, want 1", requests)
	}
}

func TestOpenAIRejectsWrongDimension(t *testing.T) {
	srv := newEmbeddingsServer(t)
	srv.dim = 10
	cfg := srv.config()
	cfg.Dim = 12
	o, err := embed.NewOpenAI(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, err = o.Embed(context.Background(), []string{"x"})
	if !errors.Is(err, vectors.ErrDimension) {
		t.Fatalf("err = %v, want ErrDimension", err)
	}
}

func TestConfigFromEnv(t *testing.T) {
	env := func(kv map[string]string) func(string) string {
		return func(k string) string { return kv[k] }
	}
	tests := []struct {
		name     string
		env      map[string]string
		base     embed.Config
		provider string
		url, key string
		dim      int
	}{
		{"nothing set is offline", nil, embed.Config{}, embed.ProviderOffline, "", "", 0},
		{"llm url and key are the fallback", map[string]string{
			embed.EnvModel: "m", embed.EnvLLMBaseURL: "http://llm/v1", embed.EnvLLMAPIKey: "k1",
		}, embed.Config{}, embed.ProviderOpenAI, "http://llm/v1", "k1", 0},
		{"embedding settings win", map[string]string{
			embed.EnvModel: "m", embed.EnvBaseURL: "http://emb/v1", embed.EnvAPIKey: "k2",
			embed.EnvLLMBaseURL: "http://llm/v1", embed.EnvLLMAPIKey: "k1", embed.EnvDim: "768",
		}, embed.Config{}, embed.ProviderOpenAI, "http://emb/v1", "k2", 768},
		{"a flag beats the llm fallback", map[string]string{embed.EnvLLMBaseURL: "http://llm/v1"},
			embed.Config{OpenAI: embed.OpenAIConfig{BaseURL: "http://flag/v1", Model: "m"}},
			embed.ProviderOpenAI, "http://flag/v1", "", 0},
		{"offline forced", map[string]string{embed.EnvProvider: "offline", embed.EnvModel: "m"},
			embed.Config{}, embed.ProviderOffline, "", "", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.base
			if err := c.ApplyEnv(env(tc.env)); err != nil {
				t.Fatal(err)
			}
			if c.Resolved() != tc.provider || c.OpenAI.BaseURL != tc.url || c.OpenAI.APIKey != tc.key || c.OpenAI.Dim != tc.dim {
				t.Fatalf("got provider %s url %q key %q dim %d", c.Resolved(), c.OpenAI.BaseURL, c.OpenAI.APIKey, c.OpenAI.Dim)
			}
			if err := c.Validate(); err != nil {
				t.Fatal(err)
			}
		})
	}
	var c embed.Config
	if err := c.ApplyEnv(env(map[string]string{embed.EnvDim: "many"})); err == nil {
		t.Error("a non-numeric dimension was accepted")
	}
	c = embed.Config{Provider: "word2vec"}
	if err := c.Validate(); err == nil {
		t.Error("an unknown provider was accepted")
	}
	c = embed.Config{Provider: embed.ProviderOpenAI}
	if err := c.Validate(); err == nil {
		t.Error("openai without a model was accepted")
	}
}

func TestNewBuildsTheResolvedProvider(t *testing.T) {
	e, err := embed.New(context.Background(), embed.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := e.(*embed.Offline); !ok {
		t.Fatalf("zero config built %T, want the offline embedder", e)
	}
	srv := newEmbeddingsServer(t)
	e, err = embed.New(context.Background(), embed.Config{OpenAI: srv.config()})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := e.(*embed.OpenAI); !ok || e.Dim() != embed.DefaultOfflineDim {
		t.Fatalf("config with a model built %T of dim %d", e, e.Dim())
	}
}
