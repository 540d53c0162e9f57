package middleware

import (
	"context"
	"errors"
	"sync"

	"github.com/annalist-dev/annalist/pipeline"
)

// AckHook is work deferred until the broker has acknowledged the outputs
// of a batch. acked are the inputs of the batch that were handled (their
// outputs, possibly none, are acknowledged); skipped, dead-lettered and
// abandoned inputs are not among them.
type AckHook func(ctx context.Context, acked []pipeline.Input) error

// Acks holds the hooks registered for one batch. The runtime makes one per
// batch with WithAcks and calls Acked after its produce step and before it
// commits the batch's offsets.
type Acks struct {
	mu    sync.Mutex
	hooks []AckHook
}

type acksKey struct{}

// WithAcks returns ctx carrying a fresh Acks for one batch, and the Acks.
func WithAcks(ctx context.Context) (context.Context, *Acks) {
	a := &Acks{}
	return context.WithValue(ctx, acksKey{}, a), a
}

// AfterAck registers h to run once the outputs of ctx's batch are
// acknowledged. It reports false, and h never runs, when ctx carries no
// Acks: the caller then runs outside a runtime that acknowledges outputs,
// and work that must follow the acknowledgement must not be done at all.
func AfterAck(ctx context.Context, h AckHook) bool {
	a, _ := ctx.Value(acksKey{}).(*Acks)
	if a == nil {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.hooks = append(a.hooks, h)
	return true
}

// Acked runs the registered hooks in registration order, every one of them
// even when some fail, and returns their errors joined. A failure cannot
// undo the outputs, which are on the broker: the runtime logs it and goes
// on.
func (a *Acks) Acked(ctx context.Context, acked []pipeline.Input) error {
	a.mu.Lock()
	hooks := a.hooks
	a.hooks = nil
	a.mu.Unlock()
	var errs []error
	for _, h := range hooks {
		if err := h(ctx, acked); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
