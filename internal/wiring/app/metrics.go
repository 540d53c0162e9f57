package app

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"
	"weak"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/annalist-dev/annalist/infra/pages"
	"github.com/annalist-dev/annalist/internal/ports/vectors"

	"github.com/annalist-dev/annalist/infra/kafka"
	"github.com/annalist-dev/annalist/infra/llm"
	"github.com/annalist-dev/annalist/infra/metrics"
)

// registries holds the metrics registry of each App that asked for one,
// keyed weakly: an entry goes when its App is garbage, and nothing in a
// registry refers to its App, so Metrics needs no field of App and adds
// nothing to Close.
var registries sync.Map // weak.Pointer[App] → *metrics.Registry

var registryMu sync.Mutex

// Metrics returns the process's metrics registry, created and wired on the
// first call: a hook on the Redis client, a timing wrapper around the
// vector store, the LLM engine's accounting. Call it once right after Open,
// before building handlers or running stages, so the stages use the
// wrapped store. Stages report to it through StageObserver, and their
// consumer lag is read from the broker on every scrape.
func (a *App) Metrics() *metrics.Registry {
	key := weak.Make(a)
	if r, ok := registries.Load(key); ok {
		return r.(*metrics.Registry)
	}
	registryMu.Lock()
	defer registryMu.Unlock()
	if r, ok := registries.Load(key); ok {
		return r.(*metrics.Registry)
	}
	r := metrics.New()
	if a.Redis != nil {
		a.Redis.AddHook(r.RedisHook())
	}
	if a.Vectors != nil {
		a.Vectors = timedStore{inner: a.Vectors, reg: r}
	}
	// The offline engine reports zeros: a dashboard then shows that no
	// LLM is being paid for.
	if err := r.WatchLLM("chat", func() llm.Usage {
		if app := key.Value(); app != nil && app.Chat != nil {
			return app.Chat.Usage()
		}
		return llm.Usage{}
	}); err != nil {
		a.Log.Warn().Err(err).Msg("LLM metrics")
	}
	if a.Redis != nil {
		if err := r.Register(scheduleCollector{sched: pages.NewSchedule(a.Redis)}); err != nil {
			a.Log.Warn().Err(err).Msg("scheduler metrics")
		}
	}
	registries.Store(key, r)
	runtime.AddCleanup(a, func(k weak.Pointer[App]) { registries.Delete(k) }, key)
	return r
}

// StageObserver returns the observer a stage's runtime reports to: the
// metrics registry, and obs as well when it is another observer (the
// registry's own is not counted twice). It also makes
// every scrape read the stage's consumer lag. RunStages passes it for each
// stage it runs.
func (a *App) StageObserver(stage string, obs kafka.Observer) kafka.Observer {
	r := a.Metrics()
	if st, err := a.Stages().Lookup(stage); err == nil {
		r.WatchLag(lagReader(a.Config.Kafka), st.Stage)
	}
	if obs == nil || r.Owns(obs) {
		return r.Observer()
	}
	mo := r.Observer()
	return kafka.ObserverFunc(func(b kafka.BatchStats) {
		mo.ObserveBatch(b)
		obs.ObserveBatch(b)
	})
}

// lagReader reads a group's position from the broker of cfg.
func lagReader(cfg kafka.Config) metrics.LagReader {
	return func(ctx context.Context, group string, topics []string) ([]kafka.PartitionLag, error) {
		if len(cfg.Brokers) == 0 {
			return nil, errors.New("no broker")
		}
		return kafka.Lag(ctx, cfg, group, topics)
	}
}

// PipelineStage is one stage's line of the pipeline dashboard.
type PipelineStage struct {
	Name  string `json:"name"`
	Group string `json:"group"`
	// Part is the stage's group in the registry (ingest, generate), empty
	// for a stage only "all" runs.
	Part string `json:"part,omitempty"`
	// Fetched, Handled, Produced, Failed and DeadLettered are counted by
	// the stages of this process since it started.
	Fetched      int64 `json:"fetched"`
	Handled      int64 `json:"handled"`
	Produced     int64 `json:"produced"`
	Failed       int64 `json:"failed"`
	DeadLettered int64 `json:"dead_lettered"`
	// Lag is the records on the stage's input topics its consumer group
	// has not finished, read from the broker (all processes); -1 when the
	// broker could not be read.
	Lag int64 `json:"lag"`
}

// PipelineStatus is the JSON of GET /v1/pipeline.
type PipelineStatus struct {
	Stages []PipelineStage `json:"stages"`
	// LLM is the LLM engine's accounting in this process; absent when the
	// offline engine runs.
	LLM *llm.Usage `json:"llm,omitempty"`
	// Error says why some lag could not be read.
	Error string `json:"error,omitempty"`
}

// Pipeline returns the pipeline dashboard's numbers: every stage of the
// app's registry, in graph order, with its counts in this process and its
// consumer lag on the broker. A broker that cannot be read leaves the lag
// at -1 and says why in Error; it is not an error of the call.
func (a *App) Pipeline(ctx context.Context) (any, error) {
	r := a.Metrics()
	out := PipelineStatus{Stages: []PipelineStage{}}
	var lagErr error
	readLag := lagReader(a.Config.Kafka)
	for _, st := range a.Stages() {
		name := st.Name
		t := r.Totals(name)
		ps := PipelineStage{Name: name, Group: st.Group(), Part: string(st.Part), Fetched: t.Fetched, Handled: t.Handled,
			Produced: t.Produced, Failed: t.Failed, DeadLettered: t.DeadLettered, Lag: -1}
		if lagErr == nil {
			ls, err := readLag(ctx, st.Group(), st.Reads)
			if err != nil {
				lagErr = fmt.Errorf("lag of %s: %w", name, err)
			} else {
				ps.Lag = 0
				for _, l := range ls {
					ps.Lag += l.Lag()
				}
			}
		}
		out.Stages = append(out.Stages, ps)
	}
	if lagErr != nil {
		out.Error = lagErr.Error()
	}
	if a.Chat != nil {
		u := a.Chat.Usage()
		out.LLM = &u
	}
	return out, nil
}

// timedStore times every vector-store operation.
type timedStore struct {
	inner vectors.Store
	reg   *metrics.Registry
}

func (s timedStore) Upsert(ctx context.Context, tenant string, items []vectors.Item) error {
	start := time.Now()
	err := s.inner.Upsert(ctx, tenant, items)
	s.reg.ObserveVector("upsert", start, err)
	return err
}

func (s timedStore) Search(ctx context.Context, tenant string, vec []float32, k int) ([]vectors.Hit, error) {
	start := time.Now()
	hits, err := s.inner.Search(ctx, tenant, vec, k)
	s.reg.ObserveVector("search", start, err)
	return hits, err
}

func (s timedStore) Delete(ctx context.Context, tenant string, chunkIDs []string) error {
	start := time.Now()
	err := s.inner.Delete(ctx, tenant, chunkIDs)
	s.reg.ObserveVector("delete", start, err)
	return err
}

func (s timedStore) Count(ctx context.Context, tenant string) (int, error) {
	start := time.Now()
	n, err := s.inner.Count(ctx, tenant)
	s.reg.ObserveVector("count", start, err)
	return n, err
}

// The freshness gauges, read from the scheduler's state in Redis on every
// scrape, summed over the tenants with pending work or stale pages (the
// lag is the oldest tenant's).
var (
	pendingDesc = prometheus.NewDesc("annalist_pages_pending_regeneration",
		"Pages with a recorded change not yet taken in by a published regeneration request (waiting for their debounce window or being published).", nil, nil)
	lagDesc = prometheus.NewDesc("annalist_regeneration_lag_seconds",
		"Age of the oldest change recorded under a page whose regeneration request is not yet published; 0 when none waits.", nil, nil)
	staleDesc = prometheus.NewDesc("annalist_pages_stale",
		"Pages marked stale: something they rest on changed and no version made since took it in.", nil, nil)
)

// scheduleCollectTimeout bounds the Redis reads of one scrape.
const scheduleCollectTimeout = 2 * time.Second

type scheduleCollector struct{ sched *pages.Schedule }

func (c scheduleCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- pendingDesc
	ch <- lagDesc
	ch <- staleDesc
}

func (c scheduleCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), scheduleCollectTimeout)
	defer cancel()
	var pending, stale int64
	var oldest time.Time
	tenants, err := c.sched.Tenants(ctx)
	for _, t := range tenants {
		if err != nil {
			break
		}
		var st pages.ScheduleStats
		if st, err = c.sched.Stats(ctx, t); err == nil {
			pending += st.Pending
			stale += st.Stale
			if !st.Oldest.IsZero() && (oldest.IsZero() || st.Oldest.Before(oldest)) {
				oldest = st.Oldest
			}
		}
	}
	if err != nil {
		for _, d := range []*prometheus.Desc{pendingDesc, lagDesc, staleDesc} {
			ch <- prometheus.NewInvalidMetric(d, err)
		}
		return
	}
	lag := 0.0
	if !oldest.IsZero() {
		lag = max(time.Since(oldest).Seconds(), 0)
	}
	ch <- prometheus.MustNewConstMetric(pendingDesc, prometheus.GaugeValue, float64(pending))
	ch <- prometheus.MustNewConstMetric(lagDesc, prometheus.GaugeValue, lag)
	ch <- prometheus.MustNewConstMetric(staleDesc, prometheus.GaugeValue, float64(stale))
}
