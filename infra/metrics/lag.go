package metrics

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/annalist-dev/annalist/infra/kafka"
	"github.com/annalist-dev/annalist/topology"
)

// LagReader reads a consumer group's position on every partition of
// topics; an empty group reads the offsets alone (Committed -1).
// kafka.Lag with the process's config is one.
type LagReader func(ctx context.Context, group string, topics []string) ([]kafka.PartitionLag, error)

// DefaultLagTimeout bounds the broker queries of one scrape.
const DefaultLagTimeout = 5 * time.Second

// WatchLag makes every scrape report the consumer lag of the stages'
// groups per topic and partition (annalist_consumer_lag) and the records
// held by their input topics' dead-letter topics
// (annalist_dead_letter_records), read with read. Calling it again adds
// stages (and replaces read); a stage added twice is reported once.
func (r *Registry) WatchLag(read LagReader, stages ...topology.Stage) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.lag == nil {
		r.lag = &lagCollector{
			timeout: DefaultLagTimeout,
			lag: prometheus.NewDesc(namespace+"_consumer_lag",
				"Records on a partition the stage's consumer group has not finished (high watermark minus committed offset).",
				[]string{"stage", "group", "topic", "partition"}, nil),
			dead: prometheus.NewDesc(namespace+"_dead_letter_records",
				"Records held by a dead-letter topic (end minus start offset, all partitions).",
				[]string{"topic"}, nil),
			errors: prometheus.NewCounter(prometheus.CounterOpts{Namespace: namespace, Name: "lag_read_errors_total",
				Help: "Scrapes whose lag or dead-letter offsets could not be read from the broker."}),
		}
		r.reg.MustRegister(r.lag)
	}
	r.lag.set(read, stages)
}

type lagCollector struct {
	timeout time.Duration
	lag     *prometheus.Desc
	dead    *prometheus.Desc
	errors  prometheus.Counter

	mu     sync.Mutex
	read   LagReader
	stages []topology.Stage
}

func (c *lagCollector) set(read LagReader, stages []topology.Stage) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.read = read
	for _, s := range stages {
		if !slices.ContainsFunc(c.stages, func(o topology.Stage) bool { return o.Name == s.Name }) {
			c.stages = append(c.stages, s)
		}
	}
}

func (c *lagCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.lag
	ch <- c.dead
	c.errors.Describe(ch)
}

func (c *lagCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	read, stages := c.read, slices.Clone(c.stages)
	c.mu.Unlock()
	defer c.errors.Collect(ch)
	if read == nil || len(stages) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	failed := false
	var dlts []string
	for _, s := range stages {
		ls, err := read(ctx, s.Group(), s.Reads)
		if err != nil {
			failed = true
			continue
		}
		for _, l := range ls {
			ch <- prometheus.MustNewConstMetric(c.lag, prometheus.GaugeValue, float64(l.Lag()),
				s.Name, s.Group(), l.Topic, strconv.Itoa(l.Partition))
		}
		for _, t := range s.Reads {
			if d := topology.DLT(t); !slices.Contains(dlts, d) {
				dlts = append(dlts, d)
			}
		}
	}
	if len(dlts) > 0 {
		slices.Sort(dlts)
		ls, err := read(ctx, "", dlts)
		if err != nil {
			failed = true
		} else {
			held := map[string]int64{}
			for _, l := range ls {
				held[l.Topic] += max(0, l.End-l.Start)
			}
			for _, d := range dlts {
				ch <- prometheus.MustNewConstMetric(c.dead, prometheus.GaugeValue, float64(held[d]), d)
			}
		}
	}
	if failed {
		c.errors.Inc()
	}
}
