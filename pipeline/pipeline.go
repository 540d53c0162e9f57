// Package pipeline is the contract between a stage's logic and the runtime
// that feeds it: a stage is a Handler, a plain function from one decoded
// input message to the messages it produces. The runtime (infra/kafka) does
// fetch → handle → produce (acks=all, waited) → commit around it, and wraps
// the handler in the middleware of pipeline/middleware (idempotency, retry,
// dead-letter decision, batch isolation, tracing, metrics, panic
// recovery), so a stage is tested without a broker, each middleware on its
// own, and the loop once, hard.
package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/annalist-dev/annalist/schemas"
)

// Input is one decoded message and where it came from.
type Input struct {
	Meta      schemas.Meta
	Msg       schemas.Message
	Topic     string
	Partition int
	Offset    int64
}

// Tenant is the tenant the input belongs to.
func (in Input) Tenant() string { return in.Meta.Tenant }

// Output is one message a handler asks the runtime to produce.
type Output struct {
	Topic string
	Msg   schemas.Message
	// EventID may be left empty: the runtime then derives it from the input
	// event id, the topic and the output's position, so a redelivered input
	// produces outputs with the same ids and downstream dedup holds.
	EventID string
}

// Handler is a stage. It must be idempotent: at-least-once delivery means it
// may see the same input again after a crash. A returned error marked with
// Permanent is dead-lettered at once; any other error is retried with
// backoff, then dead-lettered.
type Handler func(ctx context.Context, in Input) ([]Output, error)

// ErrPermanent marks errors that no retry can fix: malformed input, failed
// validation. Branch on it with errors.Is.
var ErrPermanent = errors.New("permanent error")

type permanent struct{ err error }

func (p permanent) Error() string        { return p.err.Error() }
func (p permanent) Unwrap() []error      { return []error{p.err, ErrPermanent} }
func (p permanent) Is(target error) bool { return target == ErrPermanent }

// Permanent marks err as permanent; nil stays nil.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return permanent{err}
}

// Permanentf formats a permanent error; %w works as in fmt.Errorf.
func Permanentf(format string, args ...any) error {
	return permanent{fmt.Errorf(format, args...)}
}

// IsPermanent reports whether err should skip retries. Decode errors of the
// envelope codec are permanent too.
func IsPermanent(err error) bool {
	return errors.Is(err, ErrPermanent) || errors.Is(err, schemas.ErrDecode) || errors.Is(err, schemas.ErrInvalid)
}

// DeriveEventID is the deterministic id of output i of an input event on a
// topic: the same input yields the same output ids on every redelivery.
func DeriveEventID(inputEventID, topic string, i int) string {
	h := sha256.New()
	h.Write([]byte(inputEventID))
	h.Write([]byte{0})
	h.Write([]byte(topic))
	h.Write([]byte{0})
	h.Write([]byte(strconv.Itoa(i)))
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// ContentID is a short stable id for a list of parts, used for document,
// chunk and triplet ids.
func ContentID(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// BatchHandler is a stage that handles several inputs at once (one Redis
// pipeline, one embedding call). It returns one output slice per input, in
// input order. It must be idempotent as a whole: when it fails, the runtime
// runs the inputs again one at a time through the same function (as batches
// of one) to isolate the input that fails.
type BatchHandler func(ctx context.Context, ins []Input) ([][]Output, error)

// Batch adapts a Handler to a BatchHandler that handles inputs in order.
func Batch(h Handler) BatchHandler {
	return func(ctx context.Context, ins []Input) ([][]Output, error) {
		out := make([][]Output, len(ins))
		for i, in := range ins {
			o, err := h(ctx, in)
			if err != nil {
				return nil, err
			}
			out[i] = o
		}
		return out, nil
	}
}

// Concurrent adapts a Handler to a BatchHandler that handles up to n
// inputs at a time: inputs of one tenant and partition key (one request's
// steps, one document's chunks) in order, one after the other, and inputs
// of different keys side by side. It is for stages whose work on an input
// is mostly waiting (on Redis, on a model), so that a batch takes about
// as long as its longest key instead of the sum of all. On an error the
// inputs not started are not started, and the first error in input order
// is returned once the others have stopped; as with Batch, the runtime
// then runs the batch again one input at a time. n below 2 is Batch.
func Concurrent(h Handler, n int) BatchHandler {
	if n < 2 {
		return Batch(h)
	}
	return func(ctx context.Context, ins []Input) ([][]Output, error) {
		if len(ins) < 2 {
			return Batch(h)(ctx, ins)
		}
		var keys []string
		groups := map[string][]int{}
		for i, in := range ins {
			k := in.Meta.Tenant + "\x00"
			if in.Msg != nil {
				k += in.Msg.PartitionKey()
			}
			if _, ok := groups[k]; !ok {
				keys = append(keys, k)
			}
			groups[k] = append(groups[k], i)
		}
		out := make([][]Output, len(ins))
		errs := make([]error, len(ins))
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		work := make(chan []int)
		var wg sync.WaitGroup
		var mu sync.Mutex
		var panicked any
		for range min(n, len(keys)) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				// A panic is raised again in the caller's goroutine, where
				// the runtime's recovery sees it.
				defer func() {
					if v := recover(); v != nil {
						mu.Lock()
						if panicked == nil {
							panicked = v
						}
						mu.Unlock()
						cancel()
						for range work {
						}
					}
				}()
				for g := range work {
					for _, i := range g {
						if ctx.Err() != nil {
							break
						}
						o, err := h(ctx, ins[i])
						if err != nil {
							errs[i] = err
							cancel()
							break
						}
						out[i] = o
					}
				}
			}()
		}
		for _, k := range keys {
			work <- groups[k]
		}
		close(work)
		wg.Wait()
		if panicked != nil {
			panic(panicked)
		}
		for _, err := range errs {
			if err != nil {
				return nil, err
			}
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return out, nil
	}
}

// As returns the message as a value of type T, whether the codec produced
// a T or a *T; ok is false for anything else.
func As[T schemas.Message](m schemas.Message) (T, bool) {
	switch v := any(m).(type) {
	case T:
		return v, true
	case *T:
		if v != nil {
			return *v, true
		}
	}
	var zero T
	return zero, false
}

type traceKey struct{}

// WithTraceID returns ctx carrying a trace id that producers put on the
// records they publish for it (the API sets it from a caller's traceparent
// or X-Request-ID header).
func WithTraceID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, traceKey{}, id)
}

// TraceID is the trace id ctx carries, "" when none.
func TraceID(ctx context.Context) string {
	id, _ := ctx.Value(traceKey{}).(string)
	return id
}
