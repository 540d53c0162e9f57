package kafka

import (
	"context"
	"errors"
	"fmt"
	"runtime/pprof"
	"slices"
	"sync"
	"time"

	"github.com/rs/zerolog"
	kafkago "github.com/segmentio/kafka-go"

	"github.com/annalist-dev/annalist/internal/kit/logging"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/pipeline/middleware"
	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
)

// Deduper remembers which events a consumer group has finished: the seen:
// markers. *infra/redisdb.Seen implements it. The runtime uses it through
// middleware.Idempotent, which sets markers only after the broker
// acknowledged the events' outputs.
type Deduper = middleware.Deduper

// Observer receives the outcome of every batch the loop finishes; metrics
// plug in here. ObserveBatch is called from the loop's goroutine, so it
// must be quick and must not block.
type Observer interface {
	ObserveBatch(BatchStats)
}

// ObserverFunc adapts a function to Observer.
type ObserverFunc func(BatchStats)

// ObserveBatch calls f.
func (f ObserverFunc) ObserveBatch(s BatchStats) { f(s) }

// RetryObserver is told when a stage pauses on a transient error, retries,
// and resumes: metrics plug in here (a gauge of paused stages, a counter
// of retries). Its methods are called from the stage's goroutine while
// the stage waits, so they must be quick and must not block.
type RetryObserver interface {
	// ObserveRetry reports that a call of one input of stage failed with
	// a transient error and will be made again after a backoff; attempt
	// is the number of the call that failed, 1 when the stage has just
	// paused.
	ObserveRetry(stage string, attempt int, err error)
	// ObserveResume reports that the input stage was retrying stopped
	// waiting (it was handled, failed permanently, or a shutdown left it
	// uncommitted): the stage is no longer paused.
	ObserveResume(stage string)
}

// BatchStats counts what happened to one fetched batch. Every fetched record
// ends up in exactly one of Skipped, Handled, DeadLettered or Abandoned.
type BatchStats struct {
	Stage string
	// Fetched is the number of records taken from the broker.
	Fetched int
	// Skipped records had a seen: marker or repeated an event id of the
	// same batch.
	Skipped int
	// Handled records had their outputs acknowledged.
	Handled int
	// DeadLettered records went to their topic's DLT.
	DeadLettered int
	// Abandoned records were left uncommitted by a shutdown; they are
	// redelivered to the next member of the group.
	Abandoned int
	// Produced is the number of output records acknowledged (dead letters
	// not included).
	Produced int
	// Failed is the number of handler calls that returned an error,
	// including the calls retried successfully afterwards.
	Failed int
	// Committed reports whether the offsets of the finished records were
	// committed (a failed commit means redelivery, not loss).
	Committed bool
	// HandleTime is the time spent in the handler.
	HandleTime time.Duration
	// Latency runs from the first record fetched to the commit.
	Latency time.Duration
}

// Options are the dependencies of a Run besides the config.
type Options struct {
	// Deduper skips inputs the group has finished and records those it
	// finishes (middleware.Idempotent). Nil disables skipping across
	// batches: the handler's idempotence alone then absorbs redeliveries.
	Deduper Deduper
	// Logger receives the runtime's log; the zero value logs nothing. Run
	// adds the stage field (logging.FieldStage) to every line itself, so
	// the logger must not carry it already: zerolog would write it twice.
	Logger zerolog.Logger
	// Observer receives per-batch counts; nil observes nothing.
	Observer Observer
	// Retries is told of the stage's pauses on transient errors and of
	// each retry. Nil means Observer, when it implements RetryObserver,
	// else nothing.
	Retries RetryObserver

	// crash, when set, is called at the named points of a batch; an error
	// stops the runner there as a crash would (no further step of the batch
	// runs). Only tests set it.
	crash func(point string) error
}

// Points of a batch where a test can simulate a crash.
const (
	pointAfterProduce = "after-produce" // outputs acknowledged, no seen: markers yet
	pointBeforeCommit = "before-commit" // markers set, offsets not committed
)

// ErrDrainTimeout is returned by Run when the in-flight batch did not
// finish within Config.DrainTimeout after the context was cancelled.
var ErrDrainTimeout = errors.New("drain timed out")

// Run runs stage: it consumes the stage's input topics as the stage's
// consumer group, calls h inside the middleware chain (middleware.Runtime:
// idempotency, dead-letter decision, batch isolation, tracing, retries,
// measurement, panic recovery) and produces its outputs, until ctx is
// cancelled. It returns nil after a graceful drain (see the package
// documentation), and an error when the stage cannot start (invalid
// config, missing topics) or the drain timed out.
//
// Outputs must go to topics the stage declares in Writes: anything else is
// a bug of the stage and dead-letters the input. The handler's context
// carries the stage's logger (zerolog.Ctx) and outlives ctx by up to
// Config.DrainTimeout, so a batch in flight can finish.
//
// Several processes may run the same stage: they share the partitions of
// its topics. When partitions move between them, a batch in flight may be
// handled by the old and the new owner at once; the seen: markers do not
// prevent that, the handler's idempotence does.
func Run(ctx context.Context, cfg Config, stage topology.Stage, h pipeline.BatchHandler, opts Options) error {
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("run stage %s: %w", stage.Name, err)
	}
	cfg = cfg.withDefaults()
	if h == nil {
		return fmt.Errorf("run stage %s: nil handler", stage.Name)
	}
	if len(stage.Reads) == 0 {
		return fmt.Errorf("run stage %s: the stage reads no topic", stage.Name)
	}
	log := opts.Logger.With().Str(logging.FieldStage, stage.Name).Logger()
	// The stage's goroutines, and those the reader and writer start, carry
	// its name as a profiler label: `go tool pprof -tagfocus stage=linker`.
	ctx = pprof.WithLabels(ctx, pprof.Labels("stage", stage.Name))
	pprof.SetGoroutineLabels(ctx)

	transport := newTransport(cfg)
	defer transport.CloseIdleConnections()
	if err := checkTopics(ctx, newClient(cfg, transport), stage); err != nil {
		return fmt.Errorf("run stage %s: %w", stage.Name, err)
	}

	rc := kafkago.ReaderConfig{
		Brokers:               cfg.Brokers,
		GroupID:               stage.Group(),
		GroupTopics:           stage.Reads,
		Dialer:                newDialer(cfg),
		QueueCapacity:         cfg.MaxBatch,
		MinBytes:              cfg.FetchMinBytes,
		MaxBytes:              cfg.MaxMessageBytes,
		MaxWait:               cfg.FetchMaxWait,
		ReadLagInterval:       -1,
		HeartbeatInterval:     cfg.HeartbeatInterval,
		CommitInterval:        0, // synchronous commits: CommitMessages returns once the broker has them
		WatchPartitionChanges: true,
		SessionTimeout:        cfg.SessionTimeout,
		RebalanceTimeout:      cfg.RebalanceTimeout,
		JoinGroupBackoff:      cfg.HeartbeatInterval,
		StartOffset:           kafkago.FirstOffset,
		ReadBackoffMin:        min(cfg.RetryBackoffBase, cfg.RetryBackoffMax),
		ReadBackoffMax:        cfg.RetryBackoffMax,
		Logger:                traceLogger(log),
		ErrorLogger:           errorLogger(log),
	}
	if err := rc.Validate(); err != nil {
		return fmt.Errorf("run stage %s: reader config: %w", stage.Name, err)
	}
	reader := kafkago.NewReader(rc)
	writer := newWriter(cfg, transport, log)

	// The work context outlives ctx by at most DrainTimeout: the in-flight
	// batch finishes after a cancellation, but a stuck handler or broker
	// cannot hold the shutdown forever.
	workCtx, cancelWork := context.WithCancelCause(context.WithoutCancel(ctx))
	stopWatch := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		select {
		case <-stopWatch:
			return
		case <-ctx.Done():
		}
		log.Info().Dur("drain_timeout", cfg.DrainTimeout).Msg("draining")
		t := time.NewTimer(cfg.DrainTimeout)
		defer t.Stop()
		select {
		case <-stopWatch:
		case <-t.C:
			cancelWork(ErrDrainTimeout)
		}
	}()

	r := &runner{cfg: cfg, stage: stage, group: stage.Group(), opts: opts, log: log, reader: reader, writer: writer}
	r.chain = middleware.Runtime{
		Deduper: opts.Deduper,
		Group:   r.group,
		Logger:  log,
		Fields:  inputFields,
		// Stop is ctx, not the work context: a shutdown ends the wait for
		// a retry at once, leaving the input to the next owner.
		Retry:   retryPolicy(cfg, stage.Name, ctx.Done(), retryObserver(opts)),
		Observe: observeCall,
	}.Wrap(h)
	log.Info().Str("group", r.group).Strs("reads", stage.Reads).Msg("stage started")
	err := r.loop(ctx, workCtx)

	close(stopWatch)
	wg.Wait()
	cancelWork(nil)
	// Closing the reader leaves the group, so the partitions move to the
	// other members at once instead of after a session timeout.
	if cerr := reader.Close(); cerr != nil {
		log.Warn().Err(cerr).Msg("close reader")
	}
	if cerr := writer.Close(); cerr != nil {
		log.Warn().Err(cerr).Msg("close writer")
	}
	if err != nil {
		return fmt.Errorf("run stage %s: %w", stage.Name, err)
	}
	log.Info().Msg("stage drained")
	return nil
}

// retryObserver is the RetryObserver of opts, nil when there is none.
func retryObserver(opts Options) RetryObserver {
	if opts.Retries != nil {
		return opts.Retries
	}
	if ro, ok := opts.Observer.(RetryObserver); ok {
		return ro
	}
	return nil
}

// retryPolicy is the stage's transient-error policy: retry without limit,
// waiting Config.PauseBackoff (capped at Config.MaxBackoff) between calls,
// until stop is closed; the pauses and retries go to ro.
func retryPolicy(cfg Config, stage string, stop <-chan struct{}, ro RetryObserver) middleware.RetryPolicy {
	p := middleware.RetryPolicy{Backoff: cfg.PauseBackoff, Stop: stop}
	if ro != nil {
		p.OnRetry = func(_ context.Context, attempt int, err error) { ro.ObserveRetry(stage, attempt, err) }
		p.OnResume = func(context.Context, int) { ro.ObserveResume(stage) }
	}
	return p
}

// checkTopics fails fast when a topic the stage needs is missing, instead of
// a reader that never gets an assignment or a writer that retries forever.
func checkTopics(ctx context.Context, c *kafkago.Client, stage topology.Stage) error {
	var names []string
	for _, t := range stage.Reads {
		names = append(names, t, topology.DLT(t))
	}
	names = append(names, stage.Writes...)
	missing, err := missingTopics(ctx, c, names)
	if err != nil {
		return err
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: %q (create them with EnsureTopics or `annalist topology apply`)", ErrMissingTopic, missing)
	}
	return nil
}

// ErrMissingTopic is returned when a topic the caller needs does not exist.
var ErrMissingTopic = errors.New("missing topic")

type runner struct {
	cfg   Config
	stage topology.Stage
	group string
	// chain is the stage's handler inside the middleware chain.
	chain  pipeline.BatchHandler
	opts   Options
	log    zerolog.Logger
	reader *kafkago.Reader
	writer *kafkago.Writer
}

// loop fetches and processes batches until ctx is cancelled. It returns nil
// on a drain and an error only when a batch could not be finished.
func (r *runner) loop(ctx, workCtx context.Context) error {
	fetchErrors := 0
	for ctx.Err() == nil {
		msgs, first, err := r.fetch(ctx)
		if len(msgs) == 0 {
			if ctx.Err() != nil {
				return nil
			}
			// The reader retries connections and group joins itself; an
			// error here means it gave up for now. Back off and ask again.
			fetchErrors++
			r.log.Warn().Err(err).Int("attempt", fetchErrors).Msg("fetch")
			if !sleep(ctx, r.cfg.Backoff(fetchErrors)) {
				return nil
			}
			continue
		}
		fetchErrors = 0
		if err := r.process(workCtx, msgs, first); err != nil {
			return err
		}
	}
	return nil
}

// fetch takes a micro-batch: it blocks for the first record, then takes
// more while they arrive within the linger, up to MaxBatch.
func (r *runner) fetch(ctx context.Context) ([]kafkago.Message, time.Time, error) {
	first, err := r.reader.FetchMessage(ctx)
	if err != nil {
		return nil, time.Time{}, err
	}
	at := time.Now()
	msgs := make([]kafkago.Message, 1, r.cfg.MaxBatch)
	msgs[0] = first
	lctx, cancel := context.WithTimeout(ctx, r.cfg.BatchLinger)
	defer cancel()
	for len(msgs) < r.cfg.MaxBatch {
		m, err := r.reader.FetchMessage(lctx)
		if err != nil {
			if lctx.Err() == nil {
				r.log.Warn().Err(err).Msg("fetch")
			}
			break
		}
		msgs = append(msgs, m)
	}
	return msgs, at, nil
}

// itemState is where one record of a batch stands once the chain is done.
type itemState int

const (
	stateSkipped   itemState = iota // finished before: nothing to do but commit
	stateDone                       // handled: outputs ready
	stateDead                       // to be dead-lettered
	stateAbandoned                  // left uncommitted by a shutdown
)

type item struct {
	msg   kafkago.Message
	in    pipeline.Input
	state itemState
	outs  []kafkago.Message
	dead  kafkago.Message
}

// recordPos identifies a record of a batch.
type recordPos struct {
	topic     string
	partition int
	offset    int64
}

func posOf(in pipeline.Input) recordPos { return recordPos{in.Topic, in.Partition, in.Offset} }

// batch is the working state of one loop turn.
type batch struct {
	items []item
	stats BatchStats
	// calls counts the handler calls made for each record alone: the
	// attempts a dead letter reports.
	calls map[recordPos]int
}

type batchKey struct{}

// observeCall is the chain's Measure hook: it adds each handler call to
// the statistics of the batch in ctx.
func observeCall(ctx context.Context, c middleware.Call) {
	b, _ := ctx.Value(batchKey{}).(*batch)
	if b == nil {
		return
	}
	b.stats.HandleTime += c.Took
	if c.Err != nil {
		b.stats.Failed++
	}
	if len(c.Inputs) == 1 {
		b.calls[posOf(c.Inputs[0])]++
	}
}

// attempts is how many times the handler was called for it: its calls
// alone, or the one batch call that handled it.
func (b *batch) attempts(it *item) int { return max(1, b.calls[posOf(it.in)]) }

// process finishes one batch: decode, run the chain, produce outputs and
// dead letters, run the work deferred to the acknowledgement (the seen:
// markers), commit. Only a drain timeout or a simulated crash makes it
// return an error.
func (r *runner) process(workCtx context.Context, msgs []kafkago.Message, start time.Time) error {
	b := &batch{items: make([]item, len(msgs)), stats: BatchStats{Stage: r.stage.Name, Fetched: len(msgs)},
		calls: make(map[recordPos]int)}
	var ins []pipeline.Input
	var idx []int
	for i, m := range msgs {
		it := &b.items[i]
		it.msg = m
		msg, meta, err := schemas.Decode(toSchemaHeaders(m.Headers), m.Value)
		if err != nil {
			r.kill(b, it, fmt.Errorf("decode %s/%d@%d: %w", m.Topic, m.Partition, m.Offset, err), true, 0)
			continue
		}
		it.in = pipeline.Input{Meta: meta, Msg: msg, Topic: m.Topic, Partition: m.Partition, Offset: m.Offset}
		ins = append(ins, it.in)
		idx = append(idx, i)
	}

	// The handler's context carries the stage's logger, the batch (for
	// observeCall) and the batch's Acks; it is the work context, which
	// outlives a cancellation by up to the drain timeout.
	hctx, acks := middleware.WithAcks(context.WithValue(r.log.WithContext(workCtx), batchKey{}, b))
	// cut is the end of the decided prefix of the batch: everything before
	// it is committed; a shutdown can leave the rest.
	cut := len(b.items)
	if len(ins) > 0 {
		outs, err := r.chain(hctx, ins)
		for k, i := range idx {
			it := &b.items[i]
			var rj *middleware.Rejected
			switch e := middleware.ErrorOf(err, k); {
			case e == nil && k < len(outs):
				r.accept(b, it, outs[k])
			case e == nil:
				r.kill(b, it, pipeline.Permanentf("handler chain returned %d output lists for %d inputs", len(outs), len(ins)), true, b.attempts(it))
			case errors.Is(e, middleware.ErrSkipped):
				it.state = stateSkipped
			case errors.Is(e, middleware.ErrAbandoned):
				it.state = stateAbandoned
				cut = min(cut, i)
			case errors.As(e, &rj):
				r.kill(b, it, rj.Err, rj.Permanent, b.attempts(it))
			default:
				r.kill(b, it, e, pipeline.IsPermanent(e), b.attempts(it))
			}
		}
	}
	done := b.items[:cut]
	b.stats.Abandoned = len(b.items) - cut

	var records []kafkago.Message
	var acked []pipeline.Input
	for i := range done {
		switch it := &done[i]; it.state {
		case stateDone:
			records = append(records, it.outs...)
			acked = append(acked, it.in)
			b.stats.Produced += len(it.outs)
			b.stats.Handled++
		case stateDead:
			records = append(records, it.dead)
			b.stats.DeadLettered++
		case stateSkipped:
			b.stats.Skipped++
		}
	}
	if err := r.produce(workCtx, records); err != nil {
		return err
	}
	if err := r.crashAt(pointAfterProduce); err != nil {
		return err
	}
	// The outputs are acknowledged: now the seen: markers may be set. A
	// failure only means the inputs run again on a redelivery.
	if err := acks.Acked(hctx, acked); err != nil {
		r.log.Warn().Err(err).Int("inputs", len(acked)).Msg("work after the acknowledgement")
	}
	if err := r.crashAt(pointBeforeCommit); err != nil {
		return err
	}
	if cut > 0 {
		commit := make([]kafkago.Message, cut)
		for i := range done {
			commit[i] = done[i].msg
		}
		if err := r.reader.CommitMessages(workCtx, commit...); err != nil {
			// The outputs are acknowledged and the markers set: a failed
			// commit only means these records are delivered again, and
			// skipped then. A later commit on the partition covers them.
			r.log.Warn().Err(err).Int("records", cut).Msg("commit offsets")
		} else {
			b.stats.Committed = true
		}
	}
	b.stats.Latency = time.Since(start)
	r.log.Debug().Int("fetched", b.stats.Fetched).Int("handled", b.stats.Handled).Int("skipped", b.stats.Skipped).
		Int("dead_lettered", b.stats.DeadLettered).Int("produced", b.stats.Produced).Dur("latency", b.stats.Latency).Msg("batch")
	if r.opts.Observer != nil {
		r.opts.Observer.ObserveBatch(b.stats)
	}
	if b.stats.Abandoned > 0 {
		r.log.Info().Int("abandoned", b.stats.Abandoned).Msg("shutdown left records uncommitted for redelivery")
		if cause := context.Cause(workCtx); errors.Is(cause, ErrDrainTimeout) {
			return cause
		}
	}
	return nil
}

func (r *runner) crashAt(point string) error {
	if r.opts.crash == nil {
		return nil
	}
	return r.opts.crash(point)
}

// inputFields adds a record's fields to the logger of a call of one input
// (middleware.Trace): topic, partition, offset, event id, and the trace
// and request ids when it has them.
func inputFields(c zerolog.Context, in pipeline.Input) zerolog.Context {
	c = c.Str(logging.FieldTopic, in.Topic).Int(logging.FieldPartition, in.Partition).
		Int64(logging.FieldOffset, in.Offset).Str(logging.FieldEventID, in.Meta.EventID)
	if in.Meta.TraceID != "" {
		c = c.Str(logging.FieldTraceID, in.Meta.TraceID)
	}
	if id := requestID(in.Msg); id != "" {
		c = c.Str(logging.FieldRequestID, id)
	}
	return c
}

// requestID is the generation request a message belongs to, "" for the
// messages of ingestion.
func requestID(m schemas.Message) string {
	if r, ok := m.(interface{ RequestRef() string }); ok {
		return r.RequestRef()
	}
	return ""
}

// accept encodes the outputs of a handled item. An output that cannot be
// encoded, is too large or goes to a topic the stage does not write makes
// the whole input dead: producing some of an input's outputs would leave
// its effect half visible downstream.
func (r *runner) accept(b *batch, it *item, outs []pipeline.Output) {
	recs := make([]kafkago.Message, 0, len(outs))
	for k, o := range outs {
		rec, err := r.encodeOutput(it.in, k, o)
		if err != nil {
			r.kill(b, it, err, true, b.attempts(it))
			return
		}
		recs = append(recs, rec)
	}
	it.outs = recs
	it.state = stateDone
}

func (r *runner) encodeOutput(in pipeline.Input, k int, o pipeline.Output) (kafkago.Message, error) {
	if !slices.Contains(r.stage.Writes, o.Topic) {
		return kafkago.Message{}, fmt.Errorf("output %d: stage %s does not write topic %q", k, r.stage.Name, o.Topic)
	}
	id := o.EventID
	if id == "" {
		id = pipeline.DeriveEventID(in.Meta.EventID, o.Topic, k)
	}
	rec, err := encodeRecord(o.Topic, o.Msg, schemas.Meta{EventID: id, TraceID: in.Meta.TraceID, Tenant: in.Meta.Tenant})
	if err != nil {
		return kafkago.Message{}, fmt.Errorf("output %d to %s: %w", k, o.Topic, err)
	}
	if n := recordSize(rec); n > r.cfg.MaxMessageBytes {
		return kafkago.Message{}, fmt.Errorf("output %d to %s: record of %d bytes exceeds the limit of %d", k, o.Topic, n, r.cfg.MaxMessageBytes)
	}
	return rec, nil
}

// kill marks an item for the dead-letter topic and logs it: the one log
// line of every dead letter, whoever decided it (decode, the chain's
// DeadLetter, an output that cannot be produced).
func (r *runner) kill(b *batch, it *item, err error, permanent bool, attempts int) {
	it.state = stateDead
	it.outs = nil
	it.dead = deadLetter(it.msg, r.group, err, permanent, attempts)
	r.log.Warn().Err(err).
		Str(logging.FieldTopic, it.msg.Topic).
		Int(logging.FieldPartition, it.msg.Partition).
		Int64(logging.FieldOffset, it.msg.Offset).
		Str(logging.FieldEventID, it.in.Meta.EventID).
		Str(logging.FieldTraceID, it.in.Meta.TraceID).
		Str(logging.FieldRequestID, requestID(it.in.Msg)).
		Bool("permanent", permanent).
		Int("attempts", attempts).
		Msg("dead-lettered")
}

// produce writes records with acks=all and waits, retrying the records
// that failed until all are acknowledged; only the drain timeout stops it,
// because committing past unacknowledged outputs would lose them.
func (r *runner) produce(ctx context.Context, records []kafkago.Message) error {
	return writeRetrying(ctx, r.writer, r.cfg, records, 0, r.log)
}

// sleep waits d or until ctx is done; it reports whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
