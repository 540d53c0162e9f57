// Package backoff computes the wait before a retry: capped exponential
// growth from a base, with optional jitter. The retry loops of the adapters
// (Kafka produce, fetch and pause, LLM calls, embedding requests, the
// embedded Redis supervisor) share it so that they grow their waits the
// same way.
package backoff

import (
	"math/rand/v2"
	"time"
)

// Exponential is a capped exponential backoff. The zero Factor means 2.
type Exponential struct {
	// Base is the wait before the first retry.
	Base time.Duration
	// Factor multiplies the wait from one retry to the next; 0 means 2.
	Factor int
	// Cap bounds the wait, jitter included.
	Cap time.Duration
	// Jitter, when set, draws the wait uniformly from [d/2, d], where d is
	// the capped exponential ("equal jitter"): clients that failed together
	// do not retry together, and none retries at once.
	Jitter bool
}

// Delay is the wait before retry number attempt, 1 being the wait after
// the first failure; an attempt below 1 counts as 1. It is
// Base·Factor^(attempt-1), capped at Cap without overflowing, then
// jittered when Jitter is set. Its signature fits
// middleware.RetryPolicy.Backoff.
func (e Exponential) Delay(attempt int) time.Duration {
	factor := time.Duration(e.Factor)
	if factor < 1 {
		factor = 2
	}
	d := e.Base
	for i := 1; i < attempt && d > 0 && d < e.Cap; i++ {
		if d > e.Cap/factor {
			d = e.Cap
			break
		}
		d *= factor
	}
	d = min(d, e.Cap)
	if !e.Jitter || d <= 0 {
		return d
	}
	half := d / 2
	return half + rand.N(d-half+1)
}
