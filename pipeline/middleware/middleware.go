package middleware

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/rs/zerolog"

	"github.com/annalist-dev/annalist/pipeline"
)

// Middleware wraps a handler with one concern.
type Middleware func(pipeline.BatchHandler) pipeline.BatchHandler

// Chain wraps h in mws, the first outermost: Chain(h, a, b) is a(b(h)), so
// a call goes through a, then b, then h. Nil middleware are left out.
func Chain(h pipeline.BatchHandler, mws ...Middleware) pipeline.BatchHandler {
	for i := len(mws) - 1; i >= 0; i-- {
		if mws[i] != nil {
			h = mws[i](h)
		}
	}
	return h
}

// ErrSkipped is the outcome of an input the consumer group finished before:
// there is nothing to do but commit it.
var ErrSkipped = errors.New("finished before")

// ErrAbandoned is the outcome of an input whose fate a shutdown left
// undecided: it must stay uncommitted, so that the next owner of its
// partition handles it with its retries intact.
var ErrAbandoned = errors.New("abandoned by a shutdown")

// Rejected is the decision to dead-letter an input: Err is its final
// error, Permanent whether the error was permanent (else a chain without
// Retry gave up on a transient one).
type Rejected struct {
	Err       error
	Permanent bool
}

func (r *Rejected) Error() string { return r.Err.Error() }
func (r *Rejected) Unwrap() error { return r.Err }

// InputErrors is the error of a call whose inputs fared differently:
// element i is input i's error, nil for an input that succeeded, whose
// outputs are then at index i of the call's output lists as usual. It does
// not unwrap: its errors belong to different inputs, and errors.Is on the
// whole would take one input's outcome for the batch's.
type InputErrors []error

func (e InputErrors) Error() string {
	n := 0
	var first error
	for _, err := range e {
		if err != nil {
			if first == nil {
				first = err
			}
			n++
		}
	}
	return fmt.Sprintf("%d of %d inputs failed; first: %v", n, len(e), first)
}

// orNil returns e, or nil when no input failed.
func (e InputErrors) orNil() error {
	for _, err := range e {
		if err != nil {
			return e
		}
	}
	return nil
}

// ErrorOf is input i's error in err, the error of a call: element i of an
// InputErrors, else err itself, which failed every input of the call alike.
func ErrorOf(err error, i int) error {
	var ie InputErrors
	if errors.As(err, &ie) && i < len(ie) {
		return ie[i]
	}
	return err
}

// shapeError is the error of an answer with other than one output list
// per input.
func shapeError(outs, ins int) error {
	return pipeline.Permanentf("handler returned %d output lists for %d inputs", outs, ins)
}

// split reads the answer of a call over n inputs into one output list and
// one error per input. An answer without n output lists fails the inputs
// it cannot speak for.
func split(outs [][]pipeline.Output, err error, n int) ([][]pipeline.Output, InputErrors) {
	errs := make(InputErrors, n)
	var short error
	if len(outs) != n {
		short = shapeError(len(outs), n)
	}
	res := make([][]pipeline.Output, n)
	for i := range n {
		switch e := ErrorOf(err, i); {
		case e != nil:
			errs[i] = e
		case short != nil:
			errs[i] = short
		default:
			res[i] = outs[i]
		}
	}
	return res, errs
}

// abandoned marks err as ErrAbandoned, keeping its text.
func abandoned(err error) error {
	switch {
	case err == nil:
		return ErrAbandoned
	case errors.Is(err, ErrAbandoned):
		return err
	}
	return fmt.Errorf("%w: %w", ErrAbandoned, err)
}

// Idempotent skips the inputs group finished before and records the ones
// it finishes now, through d's seen: markers: a redelivered input then
// costs a lookup, not a handler call. Repeats of an event id within one
// batch are skipped too (the first copy is handled), with or without d.
//
// The markers of the inputs the chain below handled are set only once the
// runtime has the broker's acknowledgement of their outputs (AfterAck):
// see the package documentation for why. A failed lookup handles every
// input (the handler is idempotent, so that costs work, not correctness);
// a failed marking leaves the inputs to be handled again on redelivery.
// Dead-lettered inputs get no marker on purpose: a dead letter replayed to
// its topic after a fix must be handled, not skipped.
func Idempotent(d Deduper, group string) Middleware {
	return func(next pipeline.BatchHandler) pipeline.BatchHandler {
		return func(ctx context.Context, ins []pipeline.Input) ([][]pipeline.Output, error) {
			errs := make(InputErrors, len(ins))
			var pending []int
			first := make(map[string]bool, len(ins))
			for i, in := range ins {
				if first[in.Meta.EventID] {
					errs[i] = ErrSkipped
					continue
				}
				first[in.Meta.EventID] = true
				pending = append(pending, i)
			}
			if d != nil {
				pending = skipSeen(ctx, d, group, ins, pending, errs)
			}
			outs := make([][]pipeline.Output, len(ins))
			if len(pending) > 0 {
				sub := make([]pipeline.Input, len(pending))
				for k, i := range pending {
					sub[k] = ins[i]
				}
				o, err := next(ctx, sub)
				o, es := split(o, err, len(sub))
				for k, i := range pending {
					outs[i], errs[i] = o[k], es[k]
				}
			}
			if d != nil && len(pending) > 0 {
				mine := make(map[string]bool, len(pending))
				for _, i := range pending {
					mine[ins[i].Meta.EventID] = true
				}
				AfterAck(ctx, func(ctx context.Context, acked []pipeline.Input) error {
					var ids []string
					for _, in := range acked {
						if mine[in.Meta.EventID] {
							ids = append(ids, in.Meta.EventID)
						}
					}
					if len(ids) == 0 {
						return nil
					}
					if err := d.Mark(ctx, group, ids); err != nil {
						return fmt.Errorf("set %d seen markers: %w", len(ids), err)
					}
					return nil
				})
			}
			return outs, errs.orNil()
		}
	}
}

// Deduper remembers which events a consumer group has finished: the seen:
// markers (*infra/redisdb.Seen implements it).
type Deduper interface {
	// Seen reports, for each event id in order, whether group finished it.
	Seen(ctx context.Context, group string, eventIDs []string) ([]bool, error)
	// Mark records that group finished the events. Idempotent calls it
	// only after the events' outputs were acknowledged by the broker.
	Mark(ctx context.Context, group string, eventIDs []string) error
}

// skipSeen marks the pending inputs whose seen: marker exists as skipped
// and returns the rest.
func skipSeen(ctx context.Context, d Deduper, group string, ins []pipeline.Input, pending []int, errs InputErrors) []int {
	if len(pending) == 0 {
		return pending
	}
	ids := make([]string, len(pending))
	for k, i := range pending {
		ids[k] = ins[i].Meta.EventID
	}
	seen, err := d.Seen(ctx, group, ids)
	if err == nil && len(seen) != len(ids) {
		err = fmt.Errorf("deduper answered %d of %d event ids", len(seen), len(ids))
	}
	if err != nil {
		zerolog.Ctx(ctx).Warn().Err(err).Msg("read seen markers; handling the batch without them")
		return pending
	}
	rest := pending[:0:0]
	for k, i := range pending {
		if seen[k] {
			errs[i] = ErrSkipped
			continue
		}
		rest = append(rest, i)
	}
	return rest
}

// DeadLetter decides the fate of each input that failed below it. An input
// whose call ended while ctx was done (the runtime's drain timeout) is
// abandoned: its fate was not decided, so it is left for the next owner.
// Any other failure, once Isolate and Retry are done with it, is final:
// the input is Rejected, to go to its topic's dead-letter topic, marked
// permanent when pipeline.IsPermanent says so. Below the Runtime's Retry
// that is only ever a permanent error: Retry returns a transient one only
// as abandoned. A chain without Retry rejects transient errors too, marked
// not permanent. Skipped and abandoned inputs pass as they are. Rejecting
// an input never stops the stage: the runtime writes the dead letter and
// goes on.
func DeadLetter() Middleware {
	return func(next pipeline.BatchHandler) pipeline.BatchHandler {
		return func(ctx context.Context, ins []pipeline.Input) ([][]pipeline.Output, error) {
			outs, err := next(ctx, ins)
			if err == nil && len(outs) == len(ins) {
				return outs, nil
			}
			outs, errs := split(outs, err, len(ins))
			for i, e := range errs {
				switch {
				case e == nil, errors.Is(e, ErrSkipped), errors.Is(e, ErrAbandoned):
				case ctx.Err() != nil:
					errs[i] = abandoned(e)
				default:
					errs[i] = &Rejected{Err: e, Permanent: !Transient(e)}
				}
			}
			return outs, errs.orNil()
		}
	}
}

// Isolate runs the inputs of a failed call again one at a time, in order,
// so that one bad input fails alone and the others succeed; the handler's
// idempotence (pipeline.BatchHandler) makes the second run safe. A call of
// one input is not repeated (Retry below does that, pausing the stage on
// a transient error before the inputs after it are run). When the call failed
// because ctx is done, or a single call is abandoned, that input and every
// later one are abandoned: the runtime commits only the decided prefix of
// a batch.
func Isolate() Middleware {
	return func(next pipeline.BatchHandler) pipeline.BatchHandler {
		return func(ctx context.Context, ins []pipeline.Input) ([][]pipeline.Output, error) {
			outs, err := next(ctx, ins)
			if err == nil && len(outs) == len(ins) {
				return outs, nil
			}
			if err == nil || len(ins) <= 1 {
				outs, errs := split(outs, err, len(ins))
				return outs, errs.orNil()
			}
			errs := make(InputErrors, len(ins))
			outs = make([][]pipeline.Output, len(ins))
			if ctx.Err() != nil {
				for i := range errs {
					errs[i] = abandoned(err)
				}
				return outs, errs
			}
			zerolog.Ctx(ctx).Debug().Err(err).Int("inputs", len(ins)).Msg("batch failed; handling its inputs one at a time")
			for i, in := range ins {
				o, e := next(ctx, []pipeline.Input{in})
				o, es := split(o, e, 1)
				if es[0] != nil && (errors.Is(es[0], ErrAbandoned) || ctx.Err() != nil) {
					for j := i; j < len(ins); j++ {
						errs[j] = abandoned(es[0])
					}
					break
				}
				outs[i], errs[i] = o[0], es[0]
			}
			return outs, errs.orNil()
		}
	}
}

// Trace gives a call of one input a context whose logger (zerolog.Ctx)
// is base with the input's fields, as fields adds them, and which carries
// the input's trace id (pipeline.TraceID), so that what the handler logs
// or publishes on its own is tied to the record. A call of several inputs
// gets base alone. fields is the caller's because the field names belong
// to the application's logging, which this layer does not import; nil adds
// none.
func Trace(base zerolog.Logger, fields func(zerolog.Context, pipeline.Input) zerolog.Context) Middleware {
	return func(next pipeline.BatchHandler) pipeline.BatchHandler {
		return func(ctx context.Context, ins []pipeline.Input) ([][]pipeline.Output, error) {
			log := base
			if len(ins) == 1 {
				if fields != nil {
					log = fields(base.With(), ins[0]).Logger()
				}
				if t := ins[0].Meta.TraceID; t != "" {
					ctx = pipeline.WithTraceID(ctx, t)
				}
			}
			return next(log.WithContext(ctx), ins)
		}
	}
}

// Transient reports whether err, a failed call's error, may go away when
// the call is made again later: the one place the runtime decides between
// pausing on an error and dead-lettering its input. Everything that is not
// permanent (pipeline.IsPermanent: a decode or validation error,
// pipeline.ErrPermanent, a handler panic as Recover reports it, an answer
// of the wrong shape) is transient: an error nobody classified is taken
// for an outage of a dependency (Redis, the broker, the vector store, a
// model's 429, 5xx or timeout), because dead-lettering the input of an
// outage loses it while waiting on a bug only holds the stage, visibly.
// ErrSkipped and ErrAbandoned are outcomes, not failures, and nil is no
// error: none of them is transient.
func Transient(err error) bool {
	return err != nil && !pipeline.IsPermanent(err) &&
		!errors.Is(err, ErrSkipped) && !errors.Is(err, ErrAbandoned)
}

// RetryPolicy paces Retry. The zero value retries at once, without end,
// until the context is done.
type RetryPolicy struct {
	// Backoff is the wait after failed call number attempt (1 for the
	// first) before the next; nil waits nothing. The caller caps it (the
	// runtime's is capped exponential with jitter): Retry itself never
	// gives up on a transient error.
	Backoff func(attempt int) time.Duration
	// Stop, when closed, ends a wait: the input is then abandoned for the
	// next owner instead of being retried during a shutdown. Nil never
	// stops.
	Stop <-chan struct{}
	// OnRetry, when set, is told of every retry before its wait: attempt
	// is the number of the call that failed (1 for the first: the stage
	// has just paused) and err its transient error. It runs on the
	// caller's goroutine and must be quick.
	OnRetry func(ctx context.Context, attempt int, err error)
	// OnResume, when set, is called once an input that was retried stops
	// waiting, whatever its end (handled, failed permanently, abandoned);
	// calls is the number of calls it had. It pairs with the OnRetry of
	// attempt 1, so a stage is paused from the one to the other.
	OnResume func(ctx context.Context, calls int)
}

// Retry calls an input again after a transient error (Transient), waiting
// p.Backoff between calls, for as long as it takes: a transient error is
// an outage of a dependency, and the input succeeds once the dependency is
// back. While it waits the stage is paused: the input is not finished, so
// neither it nor anything after it on its partition is committed, and the
// at-least-once loop above resumes where it stopped. Only a permanent
// error (pipeline.IsPermanent) ends the retries with a failure, returned
// as it is; a buggy handler's panics and validation errors are permanent
// (Recover, schemas.ErrInvalid), so they are not retried forever. An error
// seen when ctx is done, or a wait ended by p.Stop (a shutdown), abandons
// the input (ErrAbandoned): it stays uncommitted for the next owner.
//
// Retry retries calls of one input only: a failed batch is first split by
// Isolate above it, so that one input's outage does not run the good
// inputs of its batch again with every retry.
func Retry(p RetryPolicy) Middleware {
	return func(next pipeline.BatchHandler) pipeline.BatchHandler {
		return func(ctx context.Context, ins []pipeline.Input) ([][]pipeline.Output, error) {
			if len(ins) != 1 {
				return next(ctx, ins)
			}
			attempt, paused := 1, false
			defer func() {
				if !paused {
					return
				}
				zerolog.Ctx(ctx).Info().Int("calls", attempt).Msg("the stage is no longer paused on the input")
				if p.OnResume != nil {
					p.OnResume(ctx, attempt)
				}
			}()
			for ; ; attempt++ {
				outs, err := next(ctx, ins)
				if err == nil {
					return outs, nil
				}
				err = ErrorOf(err, 0)
				switch {
				case !Transient(err):
					return nil, err
				case ctx.Err() != nil:
					return nil, abandoned(err)
				}
				log := zerolog.Ctx(ctx)
				if attempt == 1 {
					log.Warn().Err(err).Msg("transient error; the stage pauses and retries until the input succeeds")
				} else {
					log.Debug().Err(err).Int("attempt", attempt).Msg("transient error; retrying")
				}
				paused = true
				if p.OnRetry != nil {
					p.OnRetry(ctx, attempt, err)
				}
				var d time.Duration
				if p.Backoff != nil {
					d = p.Backoff(attempt)
				}
				if !wait(ctx, p.Stop, d) {
					return nil, abandoned(err)
				}
			}
		}
	}
}

// wait waits d, unless stop is closed or ctx done first; it reports
// whether d passed.
func wait(ctx context.Context, stop <-chan struct{}, d time.Duration) bool {
	select {
	case <-stop:
		return false
	case <-ctx.Done():
		return false
	default:
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-stop:
		return false
	case <-ctx.Done():
		return false
	}
}

// Call is one call of the handler as Measure saw it.
type Call struct {
	Inputs []pipeline.Input
	Took   time.Duration
	Err    error
}

// Measure reports every call to observe, after it returns: the runtime
// counts handler time, failed calls and each input's attempts from it.
// observe runs on the caller's goroutine and must be quick.
func Measure(observe func(ctx context.Context, c Call)) Middleware {
	return func(next pipeline.BatchHandler) pipeline.BatchHandler {
		return func(ctx context.Context, ins []pipeline.Input) ([][]pipeline.Output, error) {
			start := time.Now()
			outs, err := next(ctx, ins)
			observe(ctx, Call{Inputs: ins, Took: time.Since(start), Err: err})
			return outs, err
		}
	}
}

// Recover turns a panic below it into a permanent error of the call (the
// same input would panic again), logged with its stack through the
// context's logger, so one bad input cannot stop the stage.
func Recover() Middleware {
	return func(next pipeline.BatchHandler) pipeline.BatchHandler {
		return func(ctx context.Context, ins []pipeline.Input) (outs [][]pipeline.Output, err error) {
			defer func() {
				if p := recover(); p != nil {
					zerolog.Ctx(ctx).Error().Interface("panic", p).Bytes("stack", debug.Stack()).Msg("handler panicked")
					outs, err = nil, pipeline.Permanentf("handler panicked: %v", p)
				}
			}()
			return next(ctx, ins)
		}
	}
}

// CheckShape makes an answer with other than one output list per input a
// permanent error: the layers above index outputs by input, and a handler
// that miscounts is a bug no retry fixes.
func CheckShape() Middleware {
	return func(next pipeline.BatchHandler) pipeline.BatchHandler {
		return func(ctx context.Context, ins []pipeline.Input) ([][]pipeline.Output, error) {
			outs, err := next(ctx, ins)
			if err == nil && len(outs) != len(ins) {
				return nil, shapeError(len(outs), len(ins))
			}
			return outs, err
		}
	}
}

// Runtime is the chain every stage runs in, in the order the package
// documentation gives and explains; infra/kafka wraps each stage's handler
// with it. The zero value skips nothing but repeats within a batch, calls
// an input failing with a transient error again at once until it succeeds
// (set Retry.Backoff to pace it), logs nothing and observes nothing.
type Runtime struct {
	// Deduper and Group are Idempotent's; a nil Deduper only skips repeats
	// within a batch.
	Deduper Deduper
	Group   string
	// Logger and Fields are Trace's.
	Logger zerolog.Logger
	Fields func(zerolog.Context, pipeline.Input) zerolog.Context
	// Retry is Retry's policy: its pacing, its stop and its observers.
	Retry RetryPolicy
	// Observe is Measure's; nil observes nothing.
	Observe func(ctx context.Context, c Call)
}

// Wrap returns h inside the chain.
func (r Runtime) Wrap(h pipeline.BatchHandler) pipeline.BatchHandler {
	var measure Middleware
	if r.Observe != nil {
		measure = Measure(r.Observe)
	}
	return Chain(h,
		Idempotent(r.Deduper, r.Group),
		DeadLetter(),
		Isolate(),
		Trace(r.Logger, r.Fields),
		Retry(r.Retry),
		measure,
		Recover(),
		CheckShape(),
	)
}
