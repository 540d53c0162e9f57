// Package middleware composes the cross-cutting behaviour of a stage around
// its handler, in the manner of watermill's handler middleware: each concern
// is a Middleware, a func(pipeline.BatchHandler) pipeline.BatchHandler that
// is unit-tested on its own, without a broker, and the runtime (infra/kafka)
// composes them around every stage in one documented order. The runtime
// itself keeps only the mechanics of the broker: fetch and decode, encode
// and produce with acks=all, write dead letters, commit.
//
// # The chain
//
// Outermost first, as infra/kafka composes it around every stage:
//
//  1. Idempotent skips inputs the consumer group finished before (a seen:
//     marker exists, or the event id repeats within the batch) and, for the
//     inputs that succeed, defers setting their markers until the runtime
//     has the broker's acknowledgement of their outputs (AfterAck).
//  2. DeadLetter decides each input's fate from its final error: a
//     shutdown that cut it short leaves it for the next owner
//     (ErrAbandoned); any other failure, which below Retry is a
//     permanent one, is dead-lettered (*Rejected).
//  3. Isolate runs a failing batch again one input at a time, so one bad
//     input fails alone.
//  4. Trace gives a call of one input a logger with the record's fields
//     and the input's trace id in its context.
//  5. Retry calls an input that fails with a transient error again, with
//     capped backoff, without limit: the stage pauses until the
//     dependency is back; a shutdown ends the waiting.
//  6. Measure reports every call: its inputs, duration and error.
//  7. Recover turns a panic into a permanent error of the call.
//  8. CheckShape makes an answer without one output list per input a
//     permanent error.
//
// Inside them the application adds its own (internal/wiring/app records document
// progress for the ingestion stages), then the stage's handler.
//
// Why this order. Idempotent is outermost so that a skipped input costs
// nothing below it, and so that it sees each input's final outcome.
// DeadLetter sits above Isolate and Retry because it judges the error left
// when both are done. Isolate is above Retry so that a failing batch is
// split before anything is retried: each input then has its own attempts,
// and the good inputs of a batch are not run again with every retry of a
// bad one. Trace is below Isolate because only a call of one input has one
// record's fields, and above Retry so that retries log with them. Measure
// is below Retry so that every call is counted, retried ones included, and
// above Recover so that a panic counts as a failed call.
//
// # Transient is not permanent
//
// An input fails for one of two reasons. Either it can never succeed (it
// does not decode, it is invalid, the handler refuses it or panics on it:
// pipeline.IsPermanent), and then it is dead-lettered at once and the
// stage goes on; or a dependency is down (Redis, the broker, the vector
// store, a model answering 429 or 5xx or timing out), and then nothing is
// wrong with the input: dead-lettering it would lose work that was
// acknowledged to a user. Transient is the one place that tells the two
// apart: whatever is not permanent is transient. On a transient error
// Retry pauses the stage: it waits with capped exponential backoff and
// calls the input again, for as long as the dependency stays down. The
// input's offset, and every later one of its batch, stays uncommitted
// meanwhile, so a crash or a shutdown during the pause (which ends the
// wait at once, ErrAbandoned) leaves the input to the next owner of its
// partition: the at-least-once loop is what makes waiting safe. The
// runtime counts the retries and shows a paused stage (RetryPolicy's
// OnRetry and OnResume; the metrics annalist_stage_paused and
// annalist_stage_retries_total).
//
// The price of "unknown means transient" is that a handler returning a
// plain error for a bad input holds its partition until it is fixed. The
// errors of a buggy handler that the chain can recognise are permanent:
// a panic (Recover), an answer of the wrong shape (CheckShape), an output
// that fails validation or encoding (the runtime). A handler must wrap the
// errors of inputs it cannot handle with pipeline.ErrPermanent.
//
// # Outcomes
//
// A BatchHandler has one error result, so the chain reports each input's
// fate through it: nil, or InputErrors holding one error per input. For an
// input, nil means handled (its outputs are at its index), ErrSkipped means
// finished before, ErrAbandoned means left for the next owner, and
// *Rejected means dead-letter it. The runtime reads them with errors.Is
// and errors.As.
//
// # Marking after the acknowledgement
//
// A seen: marker says "this input's outputs are safely on the broker".
// Setting it when the handler returns would be wrong: if producing the
// outputs then failed, or the process died before the broker acknowledged
// them, the redelivered input would be skipped and its outputs lost. The
// produce step is the runtime's (one acks=all write per batch, outputs and
// dead letters together), so it cannot sit inside the chain; instead
// Idempotent registers the marking with AfterAck, and the runtime runs the
// registered work between the acknowledgement and the commit. A crash
// between the two only means the input runs again, which the handler's
// idempotence absorbs.
package middleware
