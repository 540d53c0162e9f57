package llm

import (
	"testing"
	"time"
)

func TestLatencyQuantiles(t *testing.T) {
	var l latencies
	if s := l.snapshot(); s != (Latency{}) {
		t.Fatalf("empty snapshot %+v", s)
	}
	for i := 1; i <= 100; i++ {
		l.add(time.Duration(i) * time.Millisecond)
	}
	s := l.snapshot()
	want := Latency{Calls: 100, MeanMillis: 50.5, P50Millis: 50, P95Millis: 95, MaxMillis: 100}
	if s != want {
		t.Fatalf("snapshot %+v, want %+v", s, want)
	}
	// The ring keeps the latest window: after latencyWindow calls of 1 s
	// the quantiles forget the first hundred.
	for i := 0; i < latencyWindow; i++ {
		l.add(time.Second)
	}
	s = l.snapshot()
	if s.Calls != 100+latencyWindow || s.P50Millis != 1000 || s.MaxMillis != 1000 {
		t.Fatalf("snapshot after the window %+v", s)
	}
}
