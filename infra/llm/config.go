package llm

import (
	"errors"
	"flag"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"time"
)

// Environment variables read by FromEnv. They are the flag names of
// RegisterFlags with the ANNALIST_ prefix, so the command line's
// flag-then-environment precedence applies to them unchanged.
const (
	EnvBaseURL     = "ANNALIST_LLM_BASE_URL"
	EnvModel       = "ANNALIST_LLM_MODEL"
	EnvAPIKey      = "ANNALIST_LLM_API_KEY"
	EnvTimeout     = "ANNALIST_LLM_TIMEOUT"
	EnvMaxRetries  = "ANNALIST_LLM_MAX_RETRIES"
	EnvConcurrency = "ANNALIST_LLM_CONCURRENCY"
	EnvTemperature = "ANNALIST_LLM_TEMPERATURE"
	EnvMaxTokens   = "ANNALIST_LLM_MAX_TOKENS"
	EnvJSONMode    = "ANNALIST_LLM_JSON_MODE"
	// EnvPromptCost and EnvCompletionCost are prices per 1000 tokens.
	EnvPromptCost     = "ANNALIST_LLM_PROMPT_COST_PER_1K"
	EnvCompletionCost = "ANNALIST_LLM_COMPLETION_COST_PER_1K"
)

// Defaults.
const (
	DefaultTimeout     = 60 * time.Second
	DefaultMaxRetries  = 3
	DefaultConcurrency = 4
	DefaultMinBackoff  = 500 * time.Millisecond
	DefaultMaxBackoff  = 20 * time.Second
	// DefaultMaxTokens bounds one answer: every answer the engine asks
	// for is one small JSON object, and a model that does not stop (small
	// local ones repeat themselves until the context is full) is cut here
	// instead of running until the attempt times out.
	DefaultMaxTokens = 1024
)

// Config selects and tunes the LLM provider: any server speaking the OpenAI
// chat-completions API (OpenAI, vLLM, Ollama's /v1, llama.cpp server,
// DeepSeek, Qwen). Zero values mean the defaults documented per field; with
// no BaseURL or no Model the LLM engine is off and the offline engine runs.
type Config struct {
	// BaseURL is the API root including its version path, e.g.
	// http://127.0.0.1:11434/v1 (Ollama) or https://api.openai.com/v1.
	BaseURL string
	// Model is the model name the server knows.
	Model string
	// APIKey is sent as a bearer token; local servers often need none.
	APIKey string
	// Timeout bounds one attempt of one call (default 60 s); a timed-out
	// attempt is retried.
	Timeout time.Duration
	// MaxRetries is how many times a call is retried after its first
	// attempt, on 429, 5xx, timeouts and connection errors (default 3;
	// negative: never). Other 4xx answers are not retried.
	MaxRetries int
	// Concurrency bounds the calls in flight through one Model (default 4).
	Concurrency int
	// Temperature is the sampling temperature (default 0: extraction and
	// verification want the most likely answer). Negative: not sent, the
	// server's default applies.
	Temperature float64
	// MinBackoff and MaxBackoff bound the jittered exponential wait between
	// attempts (defaults 500 ms and 20 s).
	MinBackoff, MaxBackoff time.Duration
	// PromptPrice and CompletionPrice, per million tokens, turn token
	// counts into a cost in Usage (default 0: cost not tracked).
	PromptPrice, CompletionPrice float64
	// MaxTokens bounds the tokens of one answer, sent as max_tokens
	// (default 1024; negative: not sent, the server's limit applies). An
	// answer cut there has finish_reason "length" and counts in
	// Usage.AnswersTruncated.
	MaxTokens int
	// JSONMode asks the server for a JSON object answer
	// (response_format {"type":"json_object"}); servers that support it
	// (OpenAI, vLLM, llama.cpp, Ollama) constrain the answer to JSON, which
	// small models otherwise often wrap in prose. Off by default: not
	// every OpenAI-compatible server accepts it.
	JSONMode bool
	// RawAnswers hands answers on as the model wrote them. By default a
	// JSON object found inside other text is handed on alone
	// (ExtractJSON); the engine's agents all ask for one JSON object.
	RawAnswers bool
}

// RegisterFlags binds the config to flags named llm-*; the command line maps
// each to ANNALIST_LLM_* in the environment.
func (c *Config) RegisterFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.BaseURL, "llm-base-url", c.BaseURL, "OpenAI-compatible API root incl. /v1; empty uses the offline engine (env "+EnvBaseURL+")")
	fs.StringVar(&c.Model, "llm-model", c.Model, "model name (env "+EnvModel+")")
	fs.StringVar(&c.APIKey, "llm-api-key", c.APIKey, "API key (env "+EnvAPIKey+")")
	fs.DurationVar(&c.Timeout, "llm-timeout", c.Timeout, "timeout of one call attempt; 0 means 60s (env "+EnvTimeout+")")
	fs.IntVar(&c.MaxRetries, "llm-max-retries", c.MaxRetries, "retries on 429/5xx/timeouts; 0 means 3, negative none (env "+EnvMaxRetries+")")
	fs.IntVar(&c.Concurrency, "llm-concurrency", c.Concurrency, "calls in flight; 0 means 4 (env "+EnvConcurrency+")")
	fs.Float64Var(&c.Temperature, "llm-temperature", c.Temperature, "sampling temperature; negative leaves the server default (env "+EnvTemperature+")")
	fs.IntVar(&c.MaxTokens, "llm-max-tokens", c.MaxTokens, "most tokens of one answer; 0 means 1024, negative leaves the server's limit (env "+EnvMaxTokens+")")
	fs.BoolVar(&c.JSONMode, "llm-json-mode", c.JSONMode, "ask the server for JSON answers (response_format json_object) (env "+EnvJSONMode+")")
	fs.Var(per1k{&c.PromptPrice}, "llm-prompt-cost-per-1k", "price of 1000 prompt tokens for the cost estimate; default 0 (env "+EnvPromptCost+")")
	fs.Var(per1k{&c.CompletionPrice}, "llm-completion-cost-per-1k", "price of 1000 completion tokens for the cost estimate; default 0 (env "+EnvCompletionCost+")")
}

// per1k is a flag in price per 1000 tokens over a price per million.
type per1k struct{ perMillion *float64 }

func (p per1k) String() string {
	if p.perMillion == nil {
		return "0"
	}
	return strconv.FormatFloat(*p.perMillion/1000, 'g', -1, 64)
}

func (p per1k) Set(s string) error {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return err
	}
	*p.perMillion = f * 1000
	return nil
}

// FromEnv returns the defaults overridden by the ANNALIST_LLM_* variables
// that are set.
func FromEnv() (Config, error) {
	var c Config
	str := map[string]*string{EnvBaseURL: &c.BaseURL, EnvModel: &c.Model, EnvAPIKey: &c.APIKey}
	for k, p := range str {
		if v, ok := os.LookupEnv(k); ok {
			*p = v
		}
	}
	if v, ok := os.LookupEnv(EnvTimeout); ok {
		d, err := time.ParseDuration(v)
		if err != nil {
			return c, fmt.Errorf("%s=%q: %w", EnvTimeout, v, err)
		}
		c.Timeout = d
	}
	for k, p := range map[string]*int{EnvMaxRetries: &c.MaxRetries, EnvConcurrency: &c.Concurrency, EnvMaxTokens: &c.MaxTokens} {
		if v, ok := os.LookupEnv(k); ok {
			n, err := strconv.Atoi(v)
			if err != nil {
				return c, fmt.Errorf("%s=%q: %w", k, v, err)
			}
			*p = n
		}
	}
	for k, p := range map[string]*float64{EnvPromptCost: &c.PromptPrice, EnvCompletionCost: &c.CompletionPrice} {
		if v, ok := os.LookupEnv(k); ok {
			if err := (per1k{p}).Set(v); err != nil {
				return c, fmt.Errorf("%s=%q: %w", k, v, err)
			}
		}
	}
	if v, ok := os.LookupEnv(EnvJSONMode); ok {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return c, fmt.Errorf("%s=%q: %w", EnvJSONMode, v, err)
		}
		c.JSONMode = b
	}
	if v, ok := os.LookupEnv(EnvTemperature); ok {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return c, fmt.Errorf("%s=%q: %w", EnvTemperature, v, err)
		}
		c.Temperature = f
	}
	return c, c.Validate()
}

// Enabled reports whether the LLM engine is configured: a base URL and a
// model.
func (c Config) Enabled() bool { return c.BaseURL != "" && c.Model != "" }

// Validate reports a config that cannot work.
func (c Config) Validate() error {
	var errs []error
	if c.BaseURL != "" {
		u, err := url.Parse(c.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf("llm base url %q: want http(s)://host[:port]/path", c.BaseURL))
		}
		if c.Model == "" {
			errs = append(errs, errors.New("llm base url is set but no model"))
		}
	}
	if c.Timeout < 0 || c.MinBackoff < 0 || c.MaxBackoff < 0 {
		errs = append(errs, errors.New("llm timeout and backoff must not be negative"))
	}
	if c.Concurrency < 0 {
		errs = append(errs, fmt.Errorf("llm concurrency %d: must not be negative", c.Concurrency))
	}
	if c.Temperature > 2 {
		errs = append(errs, fmt.Errorf("llm temperature %v: at most 2", c.Temperature))
	}
	if c.PromptPrice < 0 || c.CompletionPrice < 0 {
		errs = append(errs, errors.New("llm prices must not be negative"))
	}
	return errors.Join(errs...)
}

func (c Config) withDefaults() Config {
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	switch {
	case c.MaxRetries == 0:
		c.MaxRetries = DefaultMaxRetries
	case c.MaxRetries < 0:
		c.MaxRetries = 0
	}
	if c.Concurrency <= 0 {
		c.Concurrency = DefaultConcurrency
	}
	if c.MinBackoff == 0 {
		c.MinBackoff = DefaultMinBackoff
	}
	if c.MaxBackoff == 0 {
		c.MaxBackoff = DefaultMaxBackoff
	}
	if c.MaxTokens == 0 {
		c.MaxTokens = DefaultMaxTokens
	}
	if c.MaxBackoff < c.MinBackoff {
		c.MaxBackoff = c.MinBackoff
	}
	return c
}
