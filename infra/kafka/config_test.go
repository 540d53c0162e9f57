package kafka_test

import (
	"flag"
	"slices"
	"testing"
	"time"

	"github.com/annalist-dev/annalist/infra/kafka"
)

func TestBackoffBounds(t *testing.T) {
	cfg := kafka.Config{RetryBackoffBase: 10 * time.Millisecond, RetryBackoffMax: time.Second}
	for attempt := 0; attempt <= 70; attempt++ {
		// attempt 0 is treated as 1; the exponential is base·2^(n-1),
		// capped at max; equal jitter keeps the wait in [d/2, d].
		n := max(attempt, 1)
		d := time.Second
		if n <= 8 {
			d = min(time.Second, 10*time.Millisecond<<(n-1))
		}
		lo, hi := d/2, d
		seen := map[time.Duration]bool{}
		for i := 0; i < 200; i++ {
			b := cfg.Backoff(attempt)
			if b < lo || b > hi {
				t.Fatalf("attempt %d: backoff %s outside [%s, %s]", attempt, b, lo, hi)
			}
			seen[b] = true
		}
		if len(seen) < 2 {
			t.Errorf("attempt %d: 200 backoffs all equal: no jitter", attempt)
		}
	}
	// The zero config uses the documented defaults.
	if b := (kafka.Config{}).Backoff(100); b > kafka.DefaultRetryBackoffMax || b < kafka.DefaultRetryBackoffMax/2 {
		t.Errorf("default backoff cap: %s", b)
	}
	// A cap near the largest duration does not overflow.
	huge := kafka.Config{RetryBackoffBase: time.Hour, RetryBackoffMax: time.Duration(1<<63 - 1)}
	if b := huge.Backoff(60); b <= 0 {
		t.Errorf("huge backoff overflowed: %s", b)
	}
}

// A stage paused on a transient error waits longer than a produce or a
// fetch retry: its backoff grows to MaxBackoff (default 30s), not to
// RetryBackoffMax.
func TestPauseBackoffCap(t *testing.T) {
	cfg := kafka.Config{RetryBackoffBase: 10 * time.Millisecond, RetryBackoffMax: 20 * time.Millisecond, MaxBackoff: time.Second}
	if b := cfg.PauseBackoff(1); b < 5*time.Millisecond || b > 10*time.Millisecond {
		t.Errorf("first pause backoff %s, want within [5ms, 10ms]", b)
	}
	for attempt := 8; attempt <= 200; attempt *= 5 {
		if b := cfg.PauseBackoff(attempt); b < time.Second/2 || b > time.Second {
			t.Errorf("pause backoff of attempt %d: %s, want within [500ms, 1s]", attempt, b)
		}
	}
	if b := (kafka.Config{}).PauseBackoff(1000); b > kafka.DefaultMaxBackoff || b < kafka.DefaultMaxBackoff/2 {
		t.Errorf("default pause backoff cap: %s", b)
	}
}

func TestConfigValidate(t *testing.T) {
	if err := (kafka.Config{}).Validate(); err != nil {
		t.Fatalf("zero config: %v", err)
	}
	for name, c := range map[string]kafka.Config{
		"negative linger":   {BatchLinger: -time.Millisecond},
		"negative attempts": {RetryAttempts: -1},
		"heartbeat":         {HeartbeatInterval: 20 * time.Second},
		"backoff cap":       {RetryBackoffBase: time.Second, RetryBackoffMax: time.Millisecond},
		"broker":            {Brokers: []string{"nohost"}},
		"busy poll":         {FetchMaxWait: time.Second},
		"max backoff":       {RetryBackoffBase: time.Second, MaxBackoff: time.Millisecond},
		"negative max":      {MaxBackoff: -time.Second},
	} {
		if err := c.Validate(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestRegisterFlags(t *testing.T) {
	var c kafka.Config
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	c.RegisterFlags(fs)
	err := fs.Parse([]string{"--brokers", "a:1, b:2,", "--kafka-max-batch", "64", "--kafka-batch-linger", "5ms", "--kafka-retry-attempts", "2", "--kafka-max-backoff", "1m"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.Brokers, []string{"a:1", "b:2"}) || c.MaxBatch != 64 || c.BatchLinger != 5*time.Millisecond || c.RetryAttempts != 2 || c.MaxBackoff != time.Minute {
		t.Fatalf("parsed %+v", c)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	// Flags left unset keep zero values, which mean the defaults.
	var d kafka.Config
	d.RegisterFlags(flag.NewFlagSet("y", flag.ContinueOnError))
	if d.MaxBatch != 0 || d.Brokers != nil {
		t.Fatalf("registering flags changed the config: %+v", d)
	}
}

func TestBrokerMaxMessageBytes(t *testing.T) {
	if got := (kafka.Config{}).BrokerMaxMessageBytes(); got <= kafka.DefaultMaxMessageBytes {
		t.Fatalf("broker limit %d leaves no room above the record limit %d", got, kafka.DefaultMaxMessageBytes)
	}
}
