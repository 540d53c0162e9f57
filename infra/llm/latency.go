package llm

import (
	"slices"
	"sync"
	"time"
)

// latencyWindow is how many of the latest calls the latency quantiles are
// computed over.
const latencyWindow = 4096

// latencies keeps the durations of the latest calls in a ring.
type latencies struct {
	mu   sync.Mutex
	ring []time.Duration
	next int
	sum  time.Duration
	n    int64
}

func (l *latencies) add(d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.n++
	l.sum += d
	if len(l.ring) < latencyWindow {
		l.ring = append(l.ring, d)
		return
	}
	l.ring[l.next] = d
	l.next = (l.next + 1) % latencyWindow
}

// Latency summarises the durations of a Model's calls.
type Latency struct {
	// Calls is how many calls were timed (all of them, succeeded or not);
	// the quantiles and Max are over the latest 4096.
	Calls int64 `json:"calls"`
	// Mean is over all timed calls; P50, P95 and Max in milliseconds.
	MeanMillis float64 `json:"mean_ms"`
	P50Millis  float64 `json:"p50_ms"`
	P95Millis  float64 `json:"p95_ms"`
	MaxMillis  float64 `json:"max_ms"`
}

func (l *latencies) snapshot() Latency {
	l.mu.Lock()
	ds := slices.Clone(l.ring)
	n, sum := l.n, l.sum
	l.mu.Unlock()
	if n == 0 {
		return Latency{}
	}
	slices.Sort(ds)
	return Latency{Calls: n, MeanMillis: millis(sum / time.Duration(n)),
		P50Millis: millis(quantile(ds, 0.50)), P95Millis: millis(quantile(ds, 0.95)), MaxMillis: millis(ds[len(ds)-1])}
}

// quantile is the nearest-rank quantile q of sorted ds.
func quantile(ds []time.Duration, q float64) time.Duration {
	i := int(q*float64(len(ds))+0.999999) - 1
	return ds[min(max(i, 0), len(ds)-1)]
}

func millis(d time.Duration) float64 {
	return float64(d.Microseconds()) / 1000
}
