package metrics_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	goredis "github.com/redis/go-redis/v9"

	"github.com/annalist-dev/annalist/infra/kafka"
	"github.com/annalist-dev/annalist/infra/llm"
	"github.com/annalist-dev/annalist/infra/metrics"
	"github.com/annalist-dev/annalist/topology"
)

// scrape reads the registry through its HTTP handler, as Prometheus does.
func scrape(t *testing.T, r *metrics.Registry) string {
	t.Helper()
	srv := httptest.NewServer(r.Handler())
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		t.Fatalf("scrape: %s: %s", resp.Status, b)
	}
	return string(b)
}

// hasLine fails unless the exposition has the line exactly.
func hasLine(t *testing.T, text, line string) {
	t.Helper()
	for _, l := range strings.Split(text, "\n") {
		if l == line {
			return
		}
	}
	t.Errorf("scrape lacks %q in:\n%s", line, grepAnnalist(text))
}

func TestObserverCountsPerStage(t *testing.T) {
	r := metrics.New()
	obs := r.Observer()
	obs.ObserveBatch(kafka.BatchStats{Stage: "chunker", Fetched: 5, Handled: 3, Skipped: 1, DeadLettered: 1,
		Produced: 9, Failed: 2, HandleTime: 40 * time.Millisecond, Latency: 60 * time.Millisecond})
	obs.ObserveBatch(kafka.BatchStats{Stage: "chunker", Fetched: 2, Handled: 2, Produced: 4})
	obs.ObserveBatch(kafka.BatchStats{Stage: "writer", Fetched: 1, Abandoned: 1})

	text := scrape(t, r)
	hasLine(t, text, `annalist_stage_messages_in_total{stage="chunker"} 7`)
	hasLine(t, text, `annalist_stage_messages_handled_total{stage="chunker"} 5`)
	hasLine(t, text, `annalist_stage_messages_skipped_total{stage="chunker"} 1`)
	hasLine(t, text, `annalist_stage_messages_out_total{stage="chunker"} 13`)
	hasLine(t, text, `annalist_stage_handler_failures_total{stage="chunker"} 2`)
	hasLine(t, text, `annalist_stage_dead_lettered_total{stage="chunker"} 1`)
	hasLine(t, text, `annalist_stage_batches_total{stage="chunker"} 2`)
	hasLine(t, text, `annalist_stage_handle_seconds_count{stage="chunker"} 2`)
	hasLine(t, text, `annalist_stage_batch_seconds_count{stage="chunker"} 2`)
	hasLine(t, text, `annalist_stage_messages_abandoned_total{stage="writer"} 1`)
	// A stage that ran shows its zero counters too.
	hasLine(t, text, `annalist_stage_messages_out_total{stage="writer"} 0`)
	if !strings.Contains(text, "go_goroutines") || !strings.Contains(text, "annalist_process_") {
		t.Error("scrape lacks the Go runtime or process metrics")
	}

	got := r.Totals("chunker")
	want := metrics.StageTotals{Stage: "chunker", Fetched: 7, Handled: 5, Skipped: 1, Produced: 13, Failed: 2,
		DeadLettered: 1, Batches: 2, HandleSeconds: 0.04}
	if got != want {
		t.Errorf("totals = %+v, want %+v", got, want)
	}
	if z := r.Totals("embedder"); z != (metrics.StageTotals{Stage: "embedder"}) {
		t.Errorf("totals of a stage not seen = %+v", z)
	}
	if s := r.Stages(); len(s) != 2 || s[0] != "chunker" || s[1] != "writer" {
		t.Errorf("stages = %v", s)
	}
}

func TestRegistriesAreIndependent(t *testing.T) {
	a, b := metrics.New(), metrics.New()
	if !a.Owns(a.Observer()) || a.Owns(b.Observer()) || a.Owns(kafka.ObserverFunc(func(kafka.BatchStats) {})) {
		t.Error("Owns does not tell the registry's own observer from others")
	}
	a.Observer().ObserveBatch(kafka.BatchStats{Stage: "router", Fetched: 1})
	if strings.Contains(scrape(t, b), `stage="router"`) {
		t.Error("a batch observed by one registry shows in another")
	}
}

func TestLagCollector(t *testing.T) {
	r := metrics.New()
	writer := topology.Stage{Name: topology.StageWriter, Reads: []string{topology.Requests, topology.Verdicts, topology.Corrections},
		Writes: []string{topology.Drafts}}
	var groups []string
	read := func(_ context.Context, group string, topics []string) ([]kafka.PartitionLag, error) {
		groups = append(groups, group)
		if group == "" {
			// Offsets alone: the dead-letter topics.
			var out []kafka.PartitionLag
			for i, tp := range topics {
				out = append(out, kafka.PartitionLag{Topic: tp, Partition: 0, Start: 1, End: int64(3 + i), Committed: -1})
			}
			return out, nil
		}
		return []kafka.PartitionLag{
			{Topic: topics[0], Partition: 0, Start: 0, End: 10, Committed: 4},
			{Topic: topics[0], Partition: 1, Start: 5, End: 8, Committed: -1},
		}, nil
	}
	r.WatchLag(read, writer)
	r.WatchLag(read, writer) // the same stage twice is reported once
	text := scrape(t, r)
	g, tp := writer.Group(), writer.Reads[0]
	hasLine(t, text, `annalist_consumer_lag{group="`+g+`",partition="0",stage="writer",topic="`+tp+`"} 6`)
	hasLine(t, text, `annalist_consumer_lag{group="`+g+`",partition="1",stage="writer",topic="`+tp+`"} 3`)
	var dlts []string
	for _, in := range writer.Reads {
		dlts = append(dlts, topology.DLT(in))
	}
	slices.Sort(dlts)
	for i, d := range dlts {
		hasLine(t, text, fmt.Sprintf(`annalist_dead_letter_records{topic="%s"} %d`, d, 2+i))
	}
	hasLine(t, text, `annalist_lag_read_errors_total 0`)
	if len(groups) != 2 || groups[0] != g || groups[1] != "" {
		t.Errorf("reads by group = %q; want the stage's group once, then the offsets", groups)
	}

	failing := func(context.Context, string, []string) ([]kafka.PartitionLag, error) {
		return nil, errors.New("broker down")
	}
	r.WatchLag(failing)
	text = scrape(t, r)
	hasLine(t, text, `annalist_lag_read_errors_total 1`)
	if strings.Contains(text, "annalist_consumer_lag{") {
		t.Error("lag reported although the broker could not be read")
	}
}

func TestLLMCollector(t *testing.T) {
	r := metrics.New()
	u := llm.Usage{Calls: 4, Attempts: 6, Retries: 2, Errors: 1, PromptTokens: 1000, CompletionTokens: 250,
		TotalTokens: 1250, InFlight: 1, Cost: 0.5, Timeouts: 2, Answers: 5, AnswersJSON: 2, AnswersRepaired: 1,
		AnswersUnusable: 2, AnswersTruncated: 3,
		Latency: llm.Latency{Calls: 4, MeanMillis: 1500, P50Millis: 1000, P95Millis: 4000, MaxMillis: 4500}}
	if err := r.WatchLLM("chat", func() llm.Usage { return u }); err != nil {
		t.Fatal(err)
	}
	text := scrape(t, r)
	for _, l := range []string{
		`annalist_llm_calls_total{engine="chat"} 4`,
		`annalist_llm_attempts_total{engine="chat"} 6`,
		`annalist_llm_retries_total{engine="chat"} 2`,
		`annalist_llm_errors_total{engine="chat"} 1`,
		`annalist_llm_tokens_total{engine="chat",kind="prompt"} 1000`,
		`annalist_llm_tokens_total{engine="chat",kind="completion"} 250`,
		`annalist_llm_in_flight{engine="chat"} 1`,
		`annalist_llm_cost_total{engine="chat"} 0.5`,
		`annalist_llm_timeouts_total{engine="chat"} 2`,
		`annalist_llm_answers_total{engine="chat",kind="json"} 2`,
		`annalist_llm_answers_total{engine="chat",kind="repaired"} 1`,
		`annalist_llm_answers_total{engine="chat",kind="unusable"} 2`,
		`annalist_llm_answers_truncated_total{engine="chat"} 3`,
		`annalist_llm_call_seconds{engine="chat",quantile="0.5"} 1`,
		`annalist_llm_call_seconds{engine="chat",quantile="0.95"} 4`,
		`annalist_llm_call_seconds_sum{engine="chat"} 6`,
		`annalist_llm_call_seconds_count{engine="chat"} 4`,
	} {
		hasLine(t, text, l)
	}
	u.Calls = 5
	hasLine(t, scrape(t, r), `annalist_llm_calls_total{engine="chat"} 5`)
	if err := r.WatchLLM("chat", func() llm.Usage { return u }); err == nil {
		t.Error("a second collector for the same engine was accepted")
	}
}

func TestRedisHook(t *testing.T) {
	srv := miniredis.RunT(t)
	c := goredis.NewClient(&goredis.Options{Addr: srv.Addr()})
	defer c.Close()
	r := metrics.New()
	c.AddHook(r.RedisHook())
	ctx := context.Background()
	if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx, "missing").Err(); !errors.Is(err, goredis.Nil) {
		t.Fatalf("get missing = %v", err)
	}
	if _, err := c.Pipelined(ctx, func(p goredis.Pipeliner) error {
		p.Get(ctx, "k")
		p.Incr(ctx, "n")
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := c.Incr(ctx, "k").Err(); err == nil {
		t.Fatal("incr of a non-number succeeded")
	}
	text := scrape(t, r)
	hasLine(t, text, `annalist_redis_command_seconds_count{command="set"} 1`)
	hasLine(t, text, `annalist_redis_command_seconds_count{command="get"} 1`)
	// The connection's handshake is a pipeline too: at least ours.
	if !strings.Contains(text, `annalist_redis_command_seconds_count{command="pipeline"} `) {
		t.Errorf("pipeline not timed:\n%s", grepAnnalist(text))
	}
	hasLine(t, text, `annalist_redis_command_errors_total{command="incr"} 1`)
	if strings.Contains(text, `annalist_redis_command_errors_total{command="get"}`) {
		t.Error("a missing key counted as a Redis error")
	}
}

func TestObserveVector(t *testing.T) {
	r := metrics.New()
	start := time.Now()
	r.ObserveVector("search", start, nil)
	r.ObserveVector("upsert", start, errors.New("disk full"))
	r.ObserveVector("upsert", start, nil)
	text := scrape(t, r)
	hasLine(t, text, `annalist_vector_store_seconds_count{op="search"} 1`)
	hasLine(t, text, `annalist_vector_store_seconds_count{op="upsert"} 2`)
	hasLine(t, text, `annalist_vector_store_errors_total{op="upsert"} 1`)
}

func grepAnnalist(text string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "annalist_") && !strings.HasPrefix(l, "annalist_process") && !strings.Contains(l, "_bucket") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func TestInstrumentHTTP(t *testing.T) {
	r := metrics.New()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/pages/{subject}", func(w http.ResponseWriter, req *http.Request) {
		if req.PathValue("subject") == "nobody" {
			http.NotFound(w, req)
			return
		}
		_, _ = w.Write([]byte("{}"))
	})
	mux.HandleFunc("GET /v1/events", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte(": hello\n\n"))
		if err := http.NewResponseController(w).Flush(); err != nil {
			t.Errorf("flush through the instrumented writer: %v", err)
		}
	})
	h := r.InstrumentHTTP(mux)
	if r.InstrumentHTTP(mux) == nil {
		t.Fatal("a second instrumented handler")
	}
	for _, path := range []string{"/v1/pages/a", "/v1/pages/b", "/v1/pages/nobody", "/v1/events", "/nothing"} {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", path, nil))
	}
	text := scrape(t, r)
	hasLine(t, text, `annalist_http_requests_total{code="200",route="GET /v1/pages/{subject}"} 2`)
	hasLine(t, text, `annalist_http_requests_total{code="404",route="GET /v1/pages/{subject}"} 1`)
	hasLine(t, text, `annalist_http_requests_total{code="200",route="GET /v1/events"} 1`)
	hasLine(t, text, `annalist_http_requests_total{code="404",route="unmatched"} 1`)
	hasLine(t, text, `annalist_http_request_seconds_count{route="GET /v1/pages/{subject}"} 3`)
}

// A stage paused on a transient error shows annalist_stage_paused 1 and
// counts each retry; resuming sets the gauge back to 0 and keeps the
// count. The registry's Observer is a RetryObserver too, so a stage given
// it alone reports its pauses.
func TestRetriesAndPausedStages(t *testing.T) {
	r := metrics.New()
	ro, ok := r.Observer().(kafka.RetryObserver)
	if !ok {
		t.Fatal("the registry's Observer is not a kafka.RetryObserver")
	}
	r.Observer().ObserveBatch(kafka.BatchStats{Stage: "embedder", Fetched: 1, Handled: 1})
	text := scrape(t, r)
	hasLine(t, text, `annalist_stage_paused{stage="embedder"} 0`)
	hasLine(t, text, `annalist_stage_retries_total{stage="embedder"} 0`)

	down := errors.New("redis: connection refused")
	for attempt := 1; attempt <= 3; attempt++ {
		ro.ObserveRetry("kg-writer", attempt, down)
	}
	text = scrape(t, r)
	hasLine(t, text, `annalist_stage_paused{stage="kg-writer"} 1`)
	hasLine(t, text, `annalist_stage_retries_total{stage="kg-writer"} 3`)
	hasLine(t, text, `annalist_stage_paused{stage="embedder"} 0`)

	r.Retries().ObserveResume("kg-writer")
	text = scrape(t, r)
	hasLine(t, text, `annalist_stage_paused{stage="kg-writer"} 0`)
	hasLine(t, text, `annalist_stage_retries_total{stage="kg-writer"} 3`)
}
