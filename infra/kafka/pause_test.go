package kafka_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/annalist-dev/annalist/infra/kafka"
	"github.com/annalist-dev/annalist/topology"
)

// pauses is a RetryObserver for the tests: it records the retries and
// whether the stage is paused, and hands each retry's attempt number to
// the test on a channel.
type pauses struct {
	attempts chan int

	mu      sync.Mutex
	retries int
	paused  bool
	resumes int
}

func newPauses() *pauses { return &pauses{attempts: make(chan int, 1024)} }

func (p *pauses) ObserveRetry(stage string, attempt int, err error) {
	p.mu.Lock()
	p.retries++
	p.paused = true
	p.mu.Unlock()
	select {
	case p.attempts <- attempt:
	default:
	}
}

func (p *pauses) ObserveResume(string) {
	p.mu.Lock()
	p.paused = false
	p.resumes++
	p.mu.Unlock()
}

func (p *pauses) state() (retries int, paused bool, resumes int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.retries, p.paused, p.resumes
}

// waitAttempt waits until a retry of attempt n or later is observed.
func (p *pauses) waitAttempt(t *testing.T, n int) {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case a := <-p.attempts:
			if a >= n {
				return
			}
		case <-timeout:
			t.Fatalf("no retry of attempt %d observed", n)
		}
	}
}

// lag is the stage's uncommitted records over all input partitions.
func (e *env) lag() int64 {
	e.t.Helper()
	lags, err := kafka.Lag(context.Background(), e.cfg, e.stage.Group(), e.stage.Reads)
	if err != nil {
		e.t.Fatalf("lag: %v", err)
	}
	var n int64
	for _, l := range lags {
		n += l.Lag()
	}
	return n
}

// A transient error pauses the stage instead of dead-lettering: while the
// handler's dependency is down, the input is retried well past
// Config.RetryAttempts (which used to dead-letter it), nothing is
// dead-lettered and nothing is committed (the lag stays whole); once the
// dependency is back, every input is handled exactly once and the stage
// resumes.
func TestTransientErrorPausesTheStage(t *testing.T) {
	e := newEnv(t)
	fx := e.newEffects()
	fx.down.Store(true)
	inputs := docs("p", 12)
	e.publish(inputs...)
	obs := newPauses()
	col := &collector{}
	r := e.run(fx.handle, kafka.Options{Deduper: e.seen, Observer: col, Retries: obs})

	obs.waitAttempt(t, e.cfg.RetryAttempts+3)
	if _, paused, _ := obs.state(); !paused {
		t.Error("the stage retries but is not reported paused")
	}
	if lag := e.lag(); lag != int64(len(inputs)) {
		t.Errorf("lag %d while the dependency is down, want all %d inputs uncommitted", lag, len(inputs))
	}
	if dead := e.readAll(topology.DLT(e.in)); len(dead) != 0 {
		t.Fatalf("%d inputs dead-lettered while the dependency was down", len(dead))
	}

	fx.down.Store(false)
	e.waitIdle()
	if err := r.stop(); err != nil {
		t.Fatalf("run: %v", err)
	}
	count, _ := outputsByDoc(t, e.readAll(e.out))
	for _, d := range inputs {
		if n := e.sideEffects("ev-" + d.DocID); n != 1 || count[d.DocID] != 1 {
			t.Errorf("%s: %d side effects and %d outputs, want 1 and 1", d.DocID, n, count[d.DocID])
		}
	}
	if dead := e.readAll(topology.DLT(e.in)); len(dead) != 0 {
		t.Errorf("%d inputs dead-lettered after the dependency came back", len(dead))
	}
	retries, paused, resumes := obs.state()
	if paused || resumes == 0 || retries < e.cfg.RetryAttempts+3 {
		t.Errorf("after recovery: paused %v, %d resumes, %d retries; want resumed after at least %d retries",
			paused, resumes, retries, e.cfg.RetryAttempts+3)
	}
	if tot := col.total(); tot.Handled != len(inputs) || tot.DeadLettered != 0 {
		t.Errorf("stats: handled %d dead-lettered %d, want %d and 0", tot.Handled, tot.DeadLettered, len(inputs))
	}
}

// A shutdown while the stage is paused ends the wait at once: with a
// backoff of an hour, Run still drains within the drain timeout (it
// returns nil, not ErrDrainTimeout), the input is neither dead-lettered
// nor committed, and the next owner handles it once the dependency is
// back.
func TestShutdownWhilePausedLeavesInputUncommitted(t *testing.T) {
	e := newEnv(t)
	e.cfg.RetryBackoffBase = time.Hour
	e.cfg.RetryBackoffMax = time.Hour
	e.cfg.MaxBackoff = time.Hour
	fx := e.newEffects()
	fx.down.Store(true)
	e.publish(doc("r", "ok"))
	obs := newPauses()
	col := &collector{}
	r := e.run(fx.handle, kafka.Options{Deduper: e.seen, Observer: col, Retries: obs})
	obs.waitAttempt(t, 1)

	if err := r.stop(); err != nil {
		t.Fatalf("stop while paused: %v, want a prompt drain", err)
	}
	if errors.Is(r.err, kafka.ErrDrainTimeout) {
		t.Fatal("the paused wait held the shutdown until the drain timeout")
	}
	if dead := e.readAll(topology.DLT(e.in)); len(dead) != 0 {
		t.Fatalf("input dead-lettered on shutdown")
	}
	if lag := e.lag(); lag != 1 {
		t.Fatalf("lag %d after the shutdown, want the input left uncommitted (1)", lag)
	}
	if _, paused, resumes := obs.state(); paused || resumes != 1 {
		t.Errorf("after the shutdown: paused %v, %d resumes; want the pause ended once", paused, resumes)
	}
	if tot := col.total(); tot.Abandoned != 1 || tot.Handled != 0 {
		t.Errorf("stats: abandoned %d handled %d, want 1 and 0", tot.Abandoned, tot.Handled)
	}

	fx.down.Store(false)
	e.cfg.RetryBackoffBase, e.cfg.RetryBackoffMax, e.cfg.MaxBackoff = time.Millisecond, 5*time.Millisecond, 5*time.Millisecond
	r2 := e.run(fx.handle, kafka.Options{Deduper: e.seen})
	e.waitIdle()
	if err := r2.stop(); err != nil {
		t.Fatal(err)
	}
	if n := e.sideEffects("ev-r"); n != 1 {
		t.Fatalf("the abandoned input was handled %d times by the next owner, want 1", n)
	}
}
