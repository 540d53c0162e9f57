package embed

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"time"

	"github.com/annalist-dev/annalist/internal/ports/vectors"
)

// Providers.
const (
	ProviderAuto    = ""        // OpenAI when a model is configured, else offline
	ProviderOffline = "offline" // hashed n-grams, no network
	ProviderOpenAI  = "openai"  // any OpenAI-compatible /embeddings endpoint
)

// Environment variables read by ApplyEnv. The base URL and key fall back to
// the LLM's, since one OpenAI-compatible server usually serves both.
const (
	EnvProvider   = "ANNALIST_EMBED_PROVIDER"
	EnvBaseURL    = "ANNALIST_EMBED_BASE_URL"
	EnvModel      = "ANNALIST_EMBED_MODEL"
	EnvAPIKey     = "ANNALIST_EMBED_API_KEY"
	EnvDim        = "ANNALIST_EMBED_DIM"
	EnvMaxBatch   = "ANNALIST_EMBED_MAX_BATCH"
	EnvTimeout    = "ANNALIST_EMBED_TIMEOUT"
	EnvLLMBaseURL = "ANNALIST_LLM_BASE_URL"
	EnvLLMAPIKey  = "ANNALIST_LLM_API_KEY"
)

// Config chooses and configures the embedder. The zero value is the
// offline embedder with its defaults.
type Config struct {
	// Provider is ProviderAuto, ProviderOffline or ProviderOpenAI.
	Provider string
	Offline  OfflineConfig
	OpenAI   OpenAIConfig
}

// RegisterFlags registers the embedder flags on fs, with c's current
// values as defaults.
func (c *Config) RegisterFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.Provider, "embed-provider", c.Provider, "embedder: offline, openai, or empty for openai when a model is set")
	fs.IntVar(&c.Offline.Dim, "embed-offline-dim", c.Offline.Dim, "offline embedder dimension (0 = 384)")
	fs.StringVar(&c.OpenAI.BaseURL, "embed-base-url", c.OpenAI.BaseURL, "OpenAI-compatible API root for embeddings, including /v1")
	fs.StringVar(&c.OpenAI.Model, "embed-model", c.OpenAI.Model, "embedding model")
	fs.IntVar(&c.OpenAI.Dim, "embed-dim", c.OpenAI.Dim, "embedding model dimension (0 = ask the model)")
	fs.IntVar(&c.OpenAI.MaxBatch, "embed-max-batch", c.OpenAI.MaxBatch, "texts per embedding request (0 = 64)")
	fs.DurationVar(&c.OpenAI.Timeout, "embed-timeout", c.OpenAI.Timeout, "timeout of one embedding request (0 = 60s)")
}

// ApplyEnv overrides c with the environment variables that are set (see
// the Env constants); getenv is os.Getenv outside tests. Environment
// variables win over flags.
func (c *Config) ApplyEnv(getenv func(string) string) error {
	str := func(dst *string, keys ...string) {
		for _, k := range keys {
			if v := getenv(k); v != "" {
				*dst = v
				return
			}
		}
	}
	str(&c.Provider, EnvProvider)
	if getenv(EnvBaseURL) != "" || c.OpenAI.BaseURL == "" {
		str(&c.OpenAI.BaseURL, EnvBaseURL, EnvLLMBaseURL)
	}
	str(&c.OpenAI.Model, EnvModel)
	if getenv(EnvAPIKey) != "" || c.OpenAI.APIKey == "" {
		str(&c.OpenAI.APIKey, EnvAPIKey, EnvLLMAPIKey)
	}
	for _, iv := range []struct {
		key string
		dst *int
	}{{EnvDim, &c.OpenAI.Dim}, {EnvMaxBatch, &c.OpenAI.MaxBatch}} {
		if v := getenv(iv.key); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil {
				return fmt.Errorf("embedder config: %s=%q: %w", iv.key, v, err)
			}
			*iv.dst = n
		}
	}
	if v := getenv(EnvTimeout); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			return fmt.Errorf("embedder config: %s=%q: %w", EnvTimeout, v, err)
		}
		c.OpenAI.Timeout = d
	}
	return nil
}

// Resolved is the provider New will build.
func (c Config) Resolved() string {
	if c.Provider == ProviderAuto {
		if c.OpenAI.Model != "" {
			return ProviderOpenAI
		}
		return ProviderOffline
	}
	return c.Provider
}

// Validate reports a configuration New cannot build.
func (c Config) Validate() error {
	switch c.Resolved() {
	case ProviderOffline:
		return c.Offline.Validate()
	case ProviderOpenAI:
		return c.OpenAI.Validate()
	}
	return fmt.Errorf("embedder config: unknown provider %q (want %s or %s)", c.Provider, ProviderOffline, ProviderOpenAI)
}

// New builds the configured embedder.
func New(ctx context.Context, c Config) (vectors.Embedder, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if c.Resolved() == ProviderOpenAI {
		return NewOpenAI(ctx, c.OpenAI)
	}
	return NewOffline(c.Offline)
}
