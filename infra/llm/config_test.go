package llm_test

import (
	"flag"
	"strings"
	"testing"
	"time"

	"github.com/annalist-dev/annalist/infra/llm"
)

func TestFromEnv(t *testing.T) {
	t.Setenv(llm.EnvBaseURL, "http://127.0.0.1:11434/v1")
	t.Setenv(llm.EnvModel, "qwen2.5")
	t.Setenv(llm.EnvAPIKey, "k")
	t.Setenv(llm.EnvTimeout, "15s")
	t.Setenv(llm.EnvMaxRetries, "5")
	t.Setenv(llm.EnvConcurrency, "8")
	t.Setenv(llm.EnvTemperature, "0.2")
	t.Setenv(llm.EnvPromptCost, "0.001")
	t.Setenv(llm.EnvCompletionCost, "0.004")
	t.Setenv(llm.EnvMaxTokens, "256")
	t.Setenv(llm.EnvJSONMode, "true")
	c, err := llm.FromEnv()
	if err != nil {
		t.Fatal(err)
	}
	want := llm.Config{BaseURL: "http://127.0.0.1:11434/v1", Model: "qwen2.5", APIKey: "k", Timeout: 15 * time.Second,
		MaxRetries: 5, Concurrency: 8, Temperature: 0.2, PromptPrice: 1, CompletionPrice: 4, MaxTokens: 256, JSONMode: true}
	if c != want || !c.Enabled() {
		t.Fatalf("config = %+v, want %+v", c, want)
	}
	t.Setenv(llm.EnvTimeout, "soon")
	if _, err := llm.FromEnv(); err == nil || !strings.Contains(err.Error(), llm.EnvTimeout) {
		t.Fatalf("bad timeout: %v", err)
	}
}

func TestFromEnvUnsetIsOffline(t *testing.T) {
	for _, k := range []string{llm.EnvBaseURL, llm.EnvModel, llm.EnvAPIKey, llm.EnvTimeout, llm.EnvMaxRetries,
		llm.EnvConcurrency, llm.EnvTemperature} {
		t.Setenv(k, "")
	}
	t.Setenv(llm.EnvPromptCost, "0")
	t.Setenv(llm.EnvCompletionCost, "0")
	t.Setenv(llm.EnvTimeout, "0s")
	t.Setenv(llm.EnvMaxRetries, "0")
	t.Setenv(llm.EnvConcurrency, "0")
	t.Setenv(llm.EnvTemperature, "0")
	c, err := llm.FromEnv()
	if err != nil || c.Enabled() {
		t.Fatalf("config %+v, %v; want offline", c, err)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  llm.Config
		want string
	}{
		{"offline", llm.Config{}, ""},
		{"ok", llm.Config{BaseURL: "https://api.example.com/v1", Model: "m"}, ""},
		{"no model", llm.Config{BaseURL: "http://127.0.0.1:8000/v1"}, "no model"},
		{"bad url", llm.Config{BaseURL: "127.0.0.1:8000", Model: "m"}, "want http(s)"},
		{"negative timeout", llm.Config{Timeout: -time.Second}, "negative"},
		{"negative concurrency", llm.Config{Concurrency: -1}, "concurrency"},
		{"hot", llm.Config{Temperature: 3}, "temperature"},
	}
	for _, tt := range tests {
		err := tt.cfg.Validate()
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
}

func TestRegisterFlags(t *testing.T) {
	var c llm.Config
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	c.RegisterFlags(fs)
	err := fs.Parse([]string{"--llm-base-url", "http://127.0.0.1:1/v1", "--llm-model", "m", "--llm-timeout", "3s",
		"--llm-max-retries", "-1", "--llm-concurrency", "2", "--llm-temperature", "-1",
		"--llm-prompt-cost-per-1k", "0.002", "--llm-completion-cost-per-1k", "0.5", "--llm-max-tokens", "300", "--llm-json-mode"})
	if err != nil {
		t.Fatal(err)
	}
	want := llm.Config{BaseURL: "http://127.0.0.1:1/v1", Model: "m", Timeout: 3 * time.Second, MaxRetries: -1,
		Concurrency: 2, Temperature: -1, PromptPrice: 2, CompletionPrice: 500, MaxTokens: 300, JSONMode: true}
	if c != want {
		t.Fatalf("config = %+v, want %+v", c, want)
	}
}
