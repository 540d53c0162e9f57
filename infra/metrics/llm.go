package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/annalist-dev/annalist/infra/llm"
)

// WatchLLM makes every scrape report the LLM engine's accounting, read
// with usage (the Usage method of an *llm.Model): calls, attempts,
// retries, failed calls, attempts cut by the timeout, prompt and
// completion tokens, calls in flight, the cost estimate at the configured
// prices (zero when none are set), the answers by what could be read from
// them and those cut at the token limit, and the calls' durations as a
// summary (p50 and p95 over the latest 4096 calls).
// engine labels the series; calling it again for the same engine is an
// error from the underlying registry.
func (r *Registry) WatchLLM(engine string, usage func() llm.Usage) error {
	return r.reg.Register(&llmCollector{engine: engine, usage: usage})
}

var (
	llmCalls = prometheus.NewDesc(namespace+"_llm_calls_total",
		"LLM calls (Generate and Stream), retries not counted.", []string{"engine"}, nil)
	llmAttempts = prometheus.NewDesc(namespace+"_llm_attempts_total",
		"LLM requests sent: calls plus retries.", []string{"engine"}, nil)
	llmRetries = prometheus.NewDesc(namespace+"_llm_retries_total",
		"LLM requests repeated after a transient failure (429, 5xx, timeout, connection).", []string{"engine"}, nil)
	llmErrors = prometheus.NewDesc(namespace+"_llm_errors_total",
		"LLM calls that failed in the end.", []string{"engine"}, nil)
	llmTokens = prometheus.NewDesc(namespace+"_llm_tokens_total",
		"Tokens the LLM provider reported, by kind (prompt, completion).", []string{"engine", "kind"}, nil)
	llmInFlight = prometheus.NewDesc(namespace+"_llm_in_flight",
		"LLM calls holding a concurrency slot.", []string{"engine"}, nil)
	llmCost = prometheus.NewDesc(namespace+"_llm_cost_total",
		"Estimated LLM cost at the configured token prices (0 when no price is set).", []string{"engine"}, nil)
	llmTimeouts = prometheus.NewDesc(namespace+"_llm_timeouts_total",
		"LLM attempts cut by the per-attempt timeout.", []string{"engine"}, nil)
	llmAnswers = prometheus.NewDesc(namespace+"_llm_answers_total",
		"LLM answers by what could be read from them: json (one JSON object), repaired (an object inside other text), unusable (none).",
		[]string{"engine", "kind"}, nil)
	llmTruncated = prometheus.NewDesc(namespace+"_llm_answers_truncated_total",
		"LLM answers that stopped at the token limit.", []string{"engine"}, nil)
	llmCallSeconds = prometheus.NewDesc(namespace+"_llm_call_seconds",
		"Duration of LLM calls, retries included (quantiles over the latest 4096 calls).", []string{"engine"}, nil)
)

type llmCollector struct {
	engine string
	usage  func() llm.Usage
}

func (c *llmCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{llmCalls, llmAttempts, llmRetries, llmErrors, llmTokens, llmInFlight, llmCost,
		llmTimeouts, llmAnswers, llmTruncated, llmCallSeconds} {
		ch <- d
	}
}

func (c *llmCollector) Collect(ch chan<- prometheus.Metric) {
	u := c.usage()
	counter := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, append([]string{c.engine}, labels...)...)
	}
	counter(llmCalls, float64(u.Calls))
	counter(llmAttempts, float64(u.Attempts))
	counter(llmRetries, float64(u.Retries))
	counter(llmErrors, float64(u.Errors))
	counter(llmTokens, float64(u.PromptTokens), "prompt")
	counter(llmTokens, float64(u.CompletionTokens), "completion")
	counter(llmCost, u.Cost)
	counter(llmTimeouts, float64(u.Timeouts))
	counter(llmAnswers, float64(u.AnswersJSON), "json")
	counter(llmAnswers, float64(u.AnswersRepaired), "repaired")
	counter(llmAnswers, float64(u.AnswersUnusable), "unusable")
	counter(llmTruncated, float64(u.AnswersTruncated))
	ch <- prometheus.MustNewConstMetric(llmInFlight, prometheus.GaugeValue, float64(u.InFlight), c.engine)
	l := u.Latency
	ch <- prometheus.MustNewConstSummary(llmCallSeconds, uint64(l.Calls), l.MeanMillis*float64(l.Calls)/1000,
		map[float64]float64{0.5: l.P50Millis / 1000, 0.95: l.P95Millis / 1000}, c.engine)
}
