package backoff_test

import (
	"math"
	"testing"
	"time"

	"github.com/annalist-dev/annalist/internal/kit/backoff"
)

func TestDelay(t *testing.T) {
	ms := time.Millisecond
	for _, tt := range []struct {
		name    string
		e       backoff.Exponential
		attempt int
		want    time.Duration
	}{
		{"first", backoff.Exponential{Base: 10 * ms, Cap: time.Second}, 1, 10 * ms},
		{"below one counts as one", backoff.Exponential{Base: 10 * ms, Cap: time.Second}, 0, 10 * ms},
		{"doubles", backoff.Exponential{Base: 10 * ms, Cap: time.Second}, 4, 80 * ms},
		{"capped", backoff.Exponential{Base: 10 * ms, Cap: time.Second}, 8, time.Second},
		{"far past the cap", backoff.Exponential{Base: 10 * ms, Cap: time.Second}, 1000, time.Second},
		{"base above the cap", backoff.Exponential{Base: time.Minute, Cap: time.Second}, 1, time.Second},
		{"factor", backoff.Exponential{Base: ms, Factor: 10, Cap: time.Second}, 3, 100 * ms},
		{"zero base", backoff.Exponential{Cap: time.Second}, 5, 0},
		{"no overflow", backoff.Exponential{Base: time.Hour, Cap: math.MaxInt64}, 60, math.MaxInt64},
	} {
		if got := tt.e.Delay(tt.attempt); got != tt.want {
			t.Errorf("%s: Delay(%d) = %s, want %s", tt.name, tt.attempt, got, tt.want)
		}
	}
}

func TestDelayJitter(t *testing.T) {
	e := backoff.Exponential{Base: 10 * time.Millisecond, Cap: time.Second, Jitter: true}
	for attempt := 1; attempt <= 10; attempt++ {
		hi := backoff.Exponential{Base: e.Base, Cap: e.Cap}.Delay(attempt)
		seen := map[time.Duration]bool{}
		for range 200 {
			d := e.Delay(attempt)
			if d < hi/2 || d > hi {
				t.Fatalf("attempt %d: %s outside [%s, %s]", attempt, d, hi/2, hi)
			}
			seen[d] = true
		}
		if len(seen) < 2 {
			t.Errorf("attempt %d: 200 delays all equal: no jitter", attempt)
		}
	}
	if d := (backoff.Exponential{Base: time.Hour, Cap: math.MaxInt64, Jitter: true}).Delay(60); d < math.MaxInt64/2 {
		t.Errorf("jittered delay at the largest cap = %s", d)
	}
}
