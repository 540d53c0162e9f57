// Package metrics exposes a process's Prometheus metrics: the Kafka
// runtime's per-stage message counts and handler latencies (through its
// Observer), the stages paused on a transient error and their retries
// (through its RetryObserver), consumer lag per topic and partition read
// from the broker on scrape, Redis command latency (a go-redis hook),
// vector-store latency, and the LLM engine's calls, tokens, retries and
// cost estimate (read from its accounting on scrape), HTTP requests by
// route (InstrumentHTTP), next to the Go runtime and process metrics.
//
// There is no global state: each process makes one Registry with New,
// passes it where metrics are recorded, and serves Handler at /metrics.
// All metric names start with annalist_.
package metrics

import (
	"context"
	"errors"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"

	"github.com/annalist-dev/annalist/infra/kafka"
)

// namespace prefixes every metric name.
const namespace = "annalist"

// latencyBuckets span 1 ms to about three minutes: Redis commands sit at
// the low end, LLM-bound handlers at the high end.
var latencyBuckets = prometheus.ExponentialBuckets(0.001, 3, 12)

// Registry holds one process's metrics. It is safe for concurrent use.
type Registry struct {
	reg *prometheus.Registry

	fetched, handled, skipped, produced, failed, dead, abandoned *prometheus.CounterVec
	batches                                                      *prometheus.CounterVec
	retries                                                      *prometheus.CounterVec
	paused                                                       *prometheus.GaugeVec
	handleSeconds, batchSeconds                                  *prometheus.HistogramVec

	redisSeconds  *prometheus.HistogramVec
	redisErrors   *prometheus.CounterVec
	vectorSeconds *prometheus.HistogramVec
	vectorErrors  *prometheus.CounterVec

	mu     sync.Mutex
	totals map[string]*StageTotals
	lag    *lagCollector

	httpRequests *prometheus.CounterVec
	httpSeconds  *prometheus.HistogramVec
}

// New returns a registry with the runtime, Redis and vector-store metrics
// and the Go and process collectors registered. Lag and LLM collectors are
// added with WatchLag and WatchLLM.
func New() *Registry {
	counter := func(name, help string, labels ...string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: name, Help: help}, labels)
	}
	histogram := func(name, help string, labels ...string) *prometheus.HistogramVec {
		return prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: namespace, Name: name, Help: help,
			Buckets: latencyBuckets}, labels)
	}
	r := &Registry{
		reg:       prometheus.NewRegistry(),
		fetched:   counter("stage_messages_in_total", "Records a stage fetched from its input topics.", "stage"),
		handled:   counter("stage_messages_handled_total", "Records a stage handled (outputs acknowledged).", "stage"),
		skipped:   counter("stage_messages_skipped_total", "Records a stage skipped as already finished (seen: marker or duplicate in the batch).", "stage"),
		produced:  counter("stage_messages_out_total", "Output records a stage produced (dead letters not included).", "stage"),
		failed:    counter("stage_handler_failures_total", "Handler calls that returned an error, including calls retried successfully afterwards.", "stage"),
		dead:      counter("stage_dead_lettered_total", "Records a stage sent to a dead-letter topic.", "stage"),
		abandoned: counter("stage_messages_abandoned_total", "Records a shutdown left uncommitted for redelivery.", "stage"),
		batches:   counter("stage_batches_total", "Batches a stage finished.", "stage"),
		retries: counter("stage_retries_total",
			"Calls of one input a stage made again after a transient error (a dependency was down).", "stage"),
		paused: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: namespace, Name: "stage_paused",
			Help: "1 while a stage waits on a transient error, retrying its input without committing it; 0 otherwise."}, []string{"stage"}),
		handleSeconds: histogram("stage_handle_seconds",
			"Time a stage spent in its handler per batch.", "stage"),
		batchSeconds: histogram("stage_batch_seconds",
			"Time from a batch's first fetched record to its commit.", "stage"),
		redisSeconds:  histogram("redis_command_seconds", "Redis command latency as the client sees it (pipelines as one).", "command"),
		redisErrors:   counter("redis_command_errors_total", "Redis commands that failed (a missing key is not a failure).", "command"),
		vectorSeconds: histogram("vector_store_seconds", "Vector store operation latency.", "op"),
		vectorErrors:  counter("vector_store_errors_total", "Vector store operations that failed.", "op"),
		totals:        map[string]*StageTotals{},
	}
	r.reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{Namespace: namespace}),
		r.fetched, r.handled, r.skipped, r.produced, r.failed, r.dead, r.abandoned, r.batches, r.retries, r.paused,
		r.handleSeconds, r.batchSeconds, r.redisSeconds, r.redisErrors, r.vectorSeconds, r.vectorErrors,
	)
	return r
}

// Handler serves the registry in the Prometheus text format.
func (r *Registry) Handler() http.Handler {
	return promhttp.HandlerFor(r.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}

// Gather collects the current metric families, as a scrape would.
func (r *Registry) Gather() ([]*dto.MetricFamily, error) { return r.reg.Gather() }

// Register adds a collector of the caller's.
func (r *Registry) Register(c prometheus.Collector) error { return r.reg.Register(c) }

// StageTotals are a stage's counts since the process started.
type StageTotals struct {
	Stage        string `json:"stage"`
	Fetched      int64  `json:"fetched"`
	Handled      int64  `json:"handled"`
	Skipped      int64  `json:"skipped"`
	Produced     int64  `json:"produced"`
	Failed       int64  `json:"failed"`
	DeadLettered int64  `json:"dead_lettered"`
	Batches      int64  `json:"batches"`
	// HandleSeconds is the total time spent in the handler.
	HandleSeconds float64 `json:"handle_seconds"`
}

// Observer returns the kafka.Observer that records every finished batch.
// It is also a kafka.RetryObserver (see Retries), so a stage given it as
// its Observer alone reports its pauses too.
func (r *Registry) Observer() kafka.Observer { return observer{r} }

// Retries returns the kafka.RetryObserver that records a stage's pauses
// on transient errors (annalist_stage_paused) and its retries
// (annalist_stage_retries_total), for a stage whose Observer is not this
// registry's alone.
func (r *Registry) Retries() kafka.RetryObserver { return observer{r} }

// Owns reports whether obs is this registry's Observer, so that a caller
// combining observers does not count a batch twice.
func (r *Registry) Owns(obs kafka.Observer) bool {
	o, ok := obs.(observer)
	return ok && o.r == r
}

type observer struct{ r *Registry }

func (o observer) ObserveBatch(b kafka.BatchStats) { o.r.observe(b) }

// ObserveRetry counts the retry and marks the stage paused: it is waiting
// until the call is made again.
func (o observer) ObserveRetry(stage string, _ int, _ error) {
	o.r.retries.WithLabelValues(stage).Inc()
	o.r.paused.WithLabelValues(stage).Set(1)
}

// ObserveResume marks the stage running again.
func (o observer) ObserveResume(stage string) { o.r.paused.WithLabelValues(stage).Set(0) }

func (r *Registry) observe(b kafka.BatchStats) {
	s := b.Stage
	add := func(v *prometheus.CounterVec, n int) {
		// Touch the series even at zero, so every stage that ran shows all
		// its counters.
		v.WithLabelValues(s).Add(float64(n))
	}
	add(r.fetched, b.Fetched)
	add(r.handled, b.Handled)
	add(r.skipped, b.Skipped)
	add(r.produced, b.Produced)
	add(r.failed, b.Failed)
	add(r.dead, b.DeadLettered)
	add(r.abandoned, b.Abandoned)
	add(r.batches, 1)
	add(r.retries, 0)
	r.paused.WithLabelValues(s) // the series exists, at 0, for every stage that ran
	r.handleSeconds.WithLabelValues(s).Observe(b.HandleTime.Seconds())
	r.batchSeconds.WithLabelValues(s).Observe(b.Latency.Seconds())

	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.totals[s]
	if t == nil {
		t = &StageTotals{Stage: s}
		r.totals[s] = t
	}
	t.Fetched += int64(b.Fetched)
	t.Handled += int64(b.Handled)
	t.Skipped += int64(b.Skipped)
	t.Produced += int64(b.Produced)
	t.Failed += int64(b.Failed)
	t.DeadLettered += int64(b.DeadLettered)
	t.Batches++
	t.HandleSeconds += b.HandleTime.Seconds()
}

// Totals returns a stage's counts so far (zero for a stage not seen).
func (r *Registry) Totals(stage string) StageTotals {
	r.mu.Lock()
	defer r.mu.Unlock()
	if t := r.totals[stage]; t != nil {
		return *t
	}
	return StageTotals{Stage: stage}
}

// Stages lists the stages that finished a batch in this process, sorted.
func (r *Registry) Stages() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, 0, len(r.totals))
	for s := range r.totals {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// ObserveVector records one vector-store operation (upsert, search,
// count) that started at start and ended with err.
func (r *Registry) ObserveVector(op string, start time.Time, err error) {
	r.vectorSeconds.WithLabelValues(op).Observe(time.Since(start).Seconds())
	if err != nil && !errors.Is(err, context.Canceled) {
		r.vectorErrors.WithLabelValues(op).Inc()
	}
}

// commandName is the label of a Redis command: its lower-case name, which
// keeps the label set small (keys and arguments are never labels).
func commandName(name string) string {
	if name == "" {
		return "unknown"
	}
	return strings.ToLower(name)
}
