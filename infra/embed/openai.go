package embed

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/annalist-dev/annalist/internal/ports/vectors"

	einoopenai "github.com/cloudwego/eino-ext/components/embedding/openai"
	"github.com/cloudwego/eino/components/embedding"

	"github.com/annalist-dev/annalist/pipeline"
)

// Defaults of OpenAIConfig.
const (
	DefaultOpenAIMaxBatch = 64
	DefaultOpenAITimeout  = 60 * time.Second
	DefaultOpenAIRetries  = 3
	DefaultOpenAIBackoff  = 500 * time.Millisecond
	maxBackoff            = 20 * time.Second
)

// dimensionProbe is the text embedded at start-up to learn the model's
// dimension when none is configured.
const dimensionProbe = "dimension probe"

// OpenAIConfig configures the OpenAI-compatible embedder (OpenAI, vLLM,
// Ollama's /v1, llama.cpp server, and the like). Zero fields take the
// documented defaults.
type OpenAIConfig struct {
	// BaseURL is the API root including /v1, e.g.
	// http://127.0.0.1:11434/v1. Empty means https://api.openai.com/v1.
	BaseURL string
	// Model is the embedding model name. Required.
	Model string
	// APIKey is sent as a bearer token; local servers usually ignore it.
	APIKey string
	// Dim is the model's vector dimension. 0 means: ask the model once at
	// construction by embedding a probe text.
	Dim int
	// MaxBatch is the most texts sent in one request. Default
	// DefaultOpenAIMaxBatch.
	MaxBatch int
	// Timeout bounds one HTTP attempt, response body included. Default
	// DefaultOpenAITimeout.
	Timeout time.Duration
	// MaxRetries is how many times a request is retried after a 429, a
	// 5xx, a timeout or a connection error. Default DefaultOpenAIRetries;
	// negative means no retry.
	MaxRetries int
	// Backoff is the wait before the first retry, doubled on each next one
	// (capped at 20 s); a Retry-After header asking for longer wins.
	// Default DefaultOpenAIBackoff.
	Backoff time.Duration
	// HTTPClient, when set, supplies the transport under the retry layer
	// (proxies, TLS). Its Timeout is not used: Timeout applies per attempt.
	HTTPClient *http.Client
}

func (c OpenAIConfig) withDefaults() OpenAIConfig {
	if c.MaxBatch == 0 {
		c.MaxBatch = DefaultOpenAIMaxBatch
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultOpenAITimeout
	}
	if c.MaxRetries == 0 {
		c.MaxRetries = DefaultOpenAIRetries
	}
	if c.MaxRetries < 0 {
		c.MaxRetries = 0
	}
	if c.Backoff == 0 {
		c.Backoff = DefaultOpenAIBackoff
	}
	return c
}

// Validate reports a configuration the embedder cannot run with.
func (c OpenAIConfig) Validate() error {
	switch {
	case c.Model == "":
		return errors.New("openai embedder: model is required (ANNALIST_EMBED_MODEL)")
	case c.Dim < 0:
		return fmt.Errorf("openai embedder: dimension %d is negative", c.Dim)
	case c.MaxBatch < 0:
		return fmt.Errorf("openai embedder: max batch %d is negative", c.MaxBatch)
	case c.Timeout < 0 || c.Backoff < 0:
		return errors.New("openai embedder: timeout and backoff must not be negative")
	}
	return nil
}

// OpenAI embeds through an OpenAI-compatible /embeddings endpoint with
// eino-ext's embedder, in requests of at most MaxBatch texts, each attempt
// bounded by Timeout and retried on 429/5xx with backoff. A 4xx other than
// 408 and 429 (bad model, input too long, bad key) fails with a permanent
// error: repeating the request cannot fix it.
//
// The endpoint must answer the vectors in input order, as OpenAI does:
// eino's embedder does not expose the per-vector index.
type OpenAI struct {
	cfg      OpenAIConfig
	emb      embedding.Embedder
	dim      int
	requests atomic.Int64
	texts    atomic.Int64
}

var _ vectors.Embedder = (*OpenAI)(nil)

// NewOpenAI returns the embedder. With cfg.Dim zero it makes one request to
// learn the dimension, so a wrong URL, model or key fails here, at
// start-up, rather than on the first chunk.
func NewOpenAI(ctx context.Context, cfg OpenAIConfig) (*OpenAI, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	base := http.DefaultTransport
	if cfg.HTTPClient != nil && cfg.HTTPClient.Transport != nil {
		base = cfg.HTTPClient.Transport
	}
	client := &http.Client{Transport: &retryTransport{
		base: base, timeout: cfg.Timeout, retries: cfg.MaxRetries, backoff: cfg.Backoff,
	}}
	emb, err := einoopenai.NewEmbedder(ctx, &einoopenai.EmbeddingConfig{
		BaseURL: cfg.BaseURL, APIKey: cfg.APIKey, Model: cfg.Model, HTTPClient: client,
	})
	if err != nil {
		return nil, fmt.Errorf("new openai embedder: %w", err)
	}
	o := &OpenAI{cfg: cfg, emb: emb, dim: cfg.Dim}
	if o.dim == 0 {
		vecs, err := o.call(ctx, []string{dimensionProbe})
		if err != nil {
			return nil, fmt.Errorf("new openai embedder: probe the dimension of %s: %w", cfg.Model, err)
		}
		if len(vecs) != 1 || len(vecs[0]) == 0 {
			return nil, fmt.Errorf("new openai embedder: probe of %s returned no vector", cfg.Model)
		}
		o.dim = len(vecs[0])
	}
	return o, nil
}

// Dim is the model's vector dimension.
func (o *OpenAI) Dim() int { return o.dim }

// Stats returns the number of HTTP requests made (retries not counted) and
// of texts embedded.
func (o *OpenAI) Stats() (requests, texts int64) { return o.requests.Load(), o.texts.Load() }

// Embed returns one vector per text, in order, making ceil(len/MaxBatch)
// requests one after another.
func (o *OpenAI) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for lo := 0; lo < len(texts); lo += o.cfg.MaxBatch {
		part := texts[lo:min(lo+o.cfg.MaxBatch, len(texts))]
		vecs, err := o.call(ctx, part)
		if err != nil {
			return nil, fmt.Errorf("embed texts %d..%d of %d with %s: %w", lo, lo+len(part)-1, len(texts), o.cfg.Model, err)
		}
		for i, v := range vecs {
			if len(v) != o.dim {
				return nil, fmt.Errorf("embed text %d with %s: %w: got %d, want %d",
					lo+i, o.cfg.Model, vectors.ErrDimension, len(v), o.dim)
			}
		}
		out = append(out, vecs...)
	}
	return out, nil
}

// call makes one request and converts eino's float64 vectors to float32.
func (o *OpenAI) call(ctx context.Context, texts []string) ([][]float32, error) {
	st := &statusRecord{}
	o.requests.Add(1)
	vecs, err := o.emb.EmbedStrings(withStatusRecord(ctx, st), texts)
	if err != nil {
		if code := st.code.Load(); code >= 400 && code < 500 && code != http.StatusRequestTimeout && code != http.StatusTooManyRequests {
			return nil, pipeline.Permanent(fmt.Errorf("status %d: %w", code, err))
		}
		return nil, err
	}
	if len(vecs) != len(texts) {
		return nil, fmt.Errorf("%d vectors for %d texts", len(vecs), len(texts))
	}
	o.texts.Add(int64(len(texts)))
	out := make([][]float32, len(vecs))
	for i, v := range vecs {
		f := make([]float32, len(v))
		for j, x := range v {
			f[j] = float32(x)
		}
		out[i] = f
	}
	return out, nil
}
