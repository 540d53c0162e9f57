// Package kafka is annalist's runtime on the Kafka protocol: the one loop
// every stage runs, the producer used outside the stage graph, topic
// creation and consumer-lag queries. It speaks to a real Kafka cluster and to
// the embedded kfake broker alike, through github.com/segmentio/kafka-go.
//
// # The loop
//
// Run joins the stage's consumer group (one Reader whose GroupTopics are the
// stage's input topics) and repeats:
//
//  1. fetch a micro-batch: the first record blocks, further records are taken
//     while they are immediately available, up to Config.MaxBatch or until
//     Config.BatchLinger has passed;
//  2. decode each record with schemas.Decode; a record that cannot be decoded
//     is dead-lettered at once;
//  3. call the stage's pipeline.BatchHandler inside the middleware chain
//     (pipeline/middleware.Runtime), outermost first: Idempotent skips
//     records whose seen: marker exists (Options.Deduper) and repeated
//     event ids within the batch; DeadLetter decides the fate of each
//     failed input; Isolate runs a failing batch again one input at a
//     time; Trace puts the record's log fields and trace id in the context
//     of a call of one input; Retry calls an input that failed with a
//     transient error again, without limit, waiting Config.PauseBackoff
//     (exponential with jitter, capped at Config.MaxBackoff) between
//     calls: the stage is paused, holding the input's offset, until the
//     dependency is back; Measure times every call for BatchStats;
//     Recover turns a panic into a permanent error (the same input would
//     panic again); CheckShape refuses an answer without one output list
//     per input. Only a permanent error (pipeline.IsPermanent) is
//     dead-lettered; middleware.Transient decides which errors are
//     transient, and the package middleware explains the order;
//  4. encode the outputs (an output to a topic the stage does not write, or
//     too large, dead-letters its input) and produce every output and dead
//     letter with acks=all, waiting for the acknowledgements;
//  5. run the work the chain deferred to the acknowledgement: the seen:
//     markers of the inputs whose outputs were acknowledged;
//  6. commit the offsets of the batch.
//
// The runtime keeps the mechanics of the broker (fetch, decode, encode,
// produce, dead-letter records, commit); everything decided per input is
// middleware, unit-tested without a broker. The markers are set after the
// acknowledgement, not when the handler returns, because the produce step
// is the batch's, outside the chain: a marker set earlier would make a
// redelivery after a failed produce skip the input and lose its outputs.
//
// Offsets are committed only after the outputs are acknowledged, so a crash
// at any point redelivers rather than loses (at-least-once). Outputs carry
// deterministic event ids (pipeline.DeriveEventID), so a redelivered input
// produces the same records and downstream deduplication holds; the seen:
// markers make redeliveries skip the handler, so expensive or non-idempotent
// work runs once.
//
// Each dead letter keeps the record's key, value and headers and adds the
// HeaderDLT* headers (error, original topic, partition and offset, group,
// attempts). Dead-lettered inputs get no seen: marker on purpose: a dead
// letter replayed to its topic after a fix must be handled, not skipped.
//
// # Shutdown
//
// Cancelling the context passed to Run drains: the in-flight batch is
// finished (handled, produced, committed), the reader leaves the group and
// the writers are closed; Run then returns nil. Draining is bounded by
// Config.DrainTimeout, after which the work still in flight is abandoned
// uncommitted (it is redelivered to the next member of the group, never
// lost) and Run returns an error wrapping ErrDrainTimeout. A transient error
// seen while draining is not retried, and a cancellation ends the wait of
// a stage paused on one at once: the input and the rest of its batch are
// left uncommitted for the next owner, never dead-lettered.
//
// # Pauses
//
// A stage paused on a transient error keeps its membership of the group
// (kafka-go heartbeats on its own goroutine), so its partitions stay
// with it; Options.Retries (or an Observer that implements RetryObserver)
// is told when it pauses, of each retry, and when it resumes.
package kafka
