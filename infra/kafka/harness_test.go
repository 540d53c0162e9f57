package kafka_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/annalist-dev/annalist/infra/kafka"
	"github.com/annalist-dev/annalist/infra/redisdb"
	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
)

// Names of the topics and the stage of the kfake env, which has a broker
// of its own; an env on a shared broker prefixes them (see newEnvOn).
const (
	defaultIn    = "in"
	defaultOut   = "out"
	defaultStage = "echo"
)

// env is one test's broker, Redis and runtime config, with the names of
// its input and output topics and of its stage.
type env struct {
	t     testing.TB
	cfg   kafka.Config
	redis redisdb.Client
	seen  *redisdb.Seen
	prod  *kafka.Producer

	// in and out are the stage's input and output topics.
	in, out string
	// topics declares in and out.
	topics []topology.Topic
	// stage reads in and writes out; its consumer group is the env's own.
	stage topology.Stage
	// patience bounds each wait of the harness for the stage or the broker
	// (a stage going idle, a group forming, a runner returning).
	patience time.Duration
}

// newEnv starts a one-broker kfake cluster on a loopback port with the
// test topics, and a real redis-server.
func newEnv(t testing.TB) *env {
	t.Helper()
	c, err := kfake.NewCluster(
		kfake.NumBrokers(1),
		kfake.GroupMinSessionTimeout(100*time.Millisecond),
		kfake.BrokerConfigs(map[string]string{"message.max.bytes": strconv.Itoa(kafka.Config{}.BrokerMaxMessageBytes())}),
	)
	if err != nil {
		t.Fatalf("start kfake: %v", err)
	}
	t.Cleanup(c.Close)
	cfg := kafka.Config{
		Brokers:           c.ListenAddrs(),
		SessionTimeout:    3 * time.Second,
		HeartbeatInterval: 100 * time.Millisecond,
		RebalanceTimeout:  3 * time.Second,
		RetryAttempts:     3,
		RetryBackoffBase:  time.Millisecond,
		RetryBackoffMax:   5 * time.Millisecond,
		MaxBackoff:        5 * time.Millisecond,
		DrainTimeout:      10 * time.Second,
	}
	return newEnvOn(t, cfg, "", 20*time.Second)
}

// newEnvOn creates the test topics, each name prefixed with prefix, on the
// brokers of cfg, and starts a real redis-server. The stage is named
// prefix+"echo", so a unique prefix gives the test topics and a consumer
// group no other test uses.
func newEnvOn(t testing.TB, cfg kafka.Config, prefix string, patience time.Duration) *env {
	t.Helper()
	e := &env{t: t, cfg: cfg, in: prefix + defaultIn, out: prefix + defaultOut, patience: patience}
	e.topics = []topology.Topic{
		{Name: e.in, Partitions: 3, Key: "doc_id", Message: schemas.TypeDocument},
		{Name: e.out, Partitions: 2, Key: "doc_id", Message: schemas.TypeDocument},
	}
	e.stage = topology.Stage{Name: prefix + defaultStage, Reads: []string{e.in}, Writes: []string{e.out}}
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	if err := kafka.EnsureTopics(ctx, cfg, e.topics); err != nil {
		t.Fatalf("ensure topics: %v", err)
	}
	e.redis = redistest.Client(t)
	e.seen = redisdb.NewSeen(e.redis, time.Hour)
	e.prod = kafka.NewProducer(cfg)
	t.Cleanup(func() { _ = e.prod.Close() })
	return e
}

// doc is the test message: a document whose text says how the handler
// treats it.
func doc(id, text string) schemas.Document {
	return schemas.Document{DocID: id, Source: "test", Text: text}
}

// publish sends documents to the input topic, event id = "ev-" + doc id.
func (e *env) publish(docs ...schemas.Document) {
	e.t.Helper()
	recs := make([]kafka.Record, len(docs))
	for i, d := range docs {
		recs[i] = kafka.Record{Topic: e.in, Msg: d, Meta: schemas.Meta{EventID: "ev-" + d.DocID, TraceID: "tr-" + d.DocID, Tenant: "acme"}}
	}
	ctx, cancel := context.WithTimeout(context.Background(), e.patience)
	defer cancel()
	if err := e.prod.Publish(ctx, recs...); err != nil {
		e.t.Fatalf("publish: %v", err)
	}
}

// publishRaw writes records as they are, bypassing the codec (poison).
func (e *env) publishRaw(msgs ...kafkago.Message) {
	e.t.Helper()
	w := &kafkago.Writer{Addr: kafkago.TCP(e.cfg.Brokers...), RequiredAcks: kafkago.RequireAll, BatchTimeout: time.Millisecond, Balancer: kafkago.Murmur2Balancer{}, Transport: &kafkago.Transport{}}
	defer w.Close()
	defer w.Transport.(*kafkago.Transport).CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), e.patience)
	defer cancel()
	if err := w.WriteMessages(ctx, msgs...); err != nil {
		e.t.Fatalf("write raw: %v", err)
	}
}

// docs makes n documents id prefix-0 … prefix-(n-1) with text "ok".
func docs(prefix string, n int) []schemas.Document {
	out := make([]schemas.Document, n)
	for i := range out {
		out[i] = doc(fmt.Sprintf("%s-%d", prefix, i), "ok")
	}
	return out
}

// effects is the handler of the tests. For each input it increments a Redis
// counter keyed by event id (a side effect that is NOT idempotent, so a
// second run shows) and produces one document on the output topic. The
// input text decides the behaviour:
//
//	"ok"           success
//	"permanent"    a permanent error
//	"flaky"        a transient error on the first two calls
//
// While down is set every call fails with a transient error, as when the
// store of the side effects is unreachable, and the inputs are untouched.
//
// Like a transactional batch handler, it checks every input before it
// touches Redis, so a failed batch has no side effect.
type effects struct {
	rc redisdb.Client
	// out is the topic of the outputs.
	out string

	down atomic.Bool

	mu        sync.Mutex
	calls     map[string]int // handler calls per event id
	maxBatch  int
	batches   int
	onHandled func(n int)
}

// newEffects returns the handler of the env's stage.
func (e *env) newEffects() *effects {
	return &effects{rc: e.redis, out: e.out, calls: map[string]int{}}
}

func (f *effects) handle(ctx context.Context, ins []pipeline.Input) ([][]pipeline.Output, error) {
	f.mu.Lock()
	f.batches++
	f.maxBatch = max(f.maxBatch, len(ins))
	var failure error
	for _, in := range ins {
		id := in.Meta.EventID
		f.calls[id]++
		d := in.Msg.(schemas.Document)
		switch {
		case d.Text == "permanent":
			failure = pipeline.Permanentf("document %s is refused", d.DocID)
		case d.Text == "flaky" && f.calls[id] <= 2:
			failure = fmt.Errorf("document %s: flaky backend", d.DocID)
		}
	}
	f.mu.Unlock()
	if f.down.Load() {
		return nil, errors.New("side-effect store unavailable")
	}
	if failure != nil {
		return nil, failure
	}
	p := f.rc.Pipeline()
	for _, in := range ins {
		p.Incr(ctx, "fx:"+in.Meta.EventID)
	}
	if _, err := p.Exec(ctx); err != nil {
		return nil, fmt.Errorf("record side effects: %w", err)
	}
	out := make([][]pipeline.Output, len(ins))
	for i, in := range ins {
		d := in.Msg.(schemas.Document)
		out[i] = []pipeline.Output{{Topic: f.out, Msg: doc(d.DocID, "echo "+d.Text)}}
	}
	if f.onHandled != nil {
		f.onHandled(len(ins))
	}
	return out, nil
}

// callsSnapshot copies the handler calls per event id.
func (f *effects) callsSnapshot() map[string]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make(map[string]int, len(f.calls))
	for k, v := range f.calls {
		out[k] = v
	}
	return out
}

// sideEffects reads the counter of an event id.
func (e *env) sideEffects(eventID string) int {
	e.t.Helper()
	n, err := e.redis.Get(context.Background(), "fx:"+eventID).Int()
	if errors.Is(err, redisdb.Nil) {
		return 0
	}
	if err != nil {
		e.t.Fatalf("read side effect of %s: %v", eventID, err)
	}
	return n
}

// runner is a stage running in the background.
type runner struct {
	cancel context.CancelFunc
	done   chan struct{}
	err    error
}

// wait returns Run's error once it has returned, or a timeout error.
func (r *runner) wait(d time.Duration) error {
	select {
	case <-r.done:
		return r.err
	case <-time.After(d):
		return fmt.Errorf("runner did not return within %s", d)
	}
}

// stop cancels the runner's context (drain) and returns Run's error.
func (r *runner) stop() error {
	r.cancel()
	return r.wait(time.Minute)
}

// run starts the stage in the background; the test's cleanup stops it.
func (e *env) run(h pipeline.BatchHandler, opts kafka.Options) *runner {
	e.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r := &runner{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		r.err = kafka.Run(ctx, e.cfg, e.stage, h, opts)
	}()
	e.t.Cleanup(func() { _ = r.stop() })
	return r
}

// waitIdle waits until the stage has finished its input.
func (e *env) waitIdle() {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), e.patience)
	defer cancel()
	if err := kafka.WaitIdle(ctx, e.cfg, e.stage); err != nil {
		e.t.Fatalf("wait idle: %v", err)
	}
}

// readAll returns every record of topic, partition by partition.
func (e *env) readAll(topic string) []kafkago.Message {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), e.patience)
	defer cancel()
	lags, err := kafka.Lag(ctx, e.cfg, "nobody", []string{topic})
	if err != nil {
		e.t.Fatalf("offsets of %s: %v", topic, err)
	}
	var out []kafkago.Message
	for _, l := range lags {
		for off := l.Start; off < l.End; {
			msgs := e.readBatch(ctx, topic, l.Partition, off)
			if len(msgs) == 0 {
				e.t.Fatalf("read %s/%d@%d: no records below the end %d", topic, l.Partition, off, l.End)
			}
			out = append(out, msgs...)
			off = msgs[len(msgs)-1].Offset + 1
		}
	}
	return out
}

// readBatch reads the records of one fetch from a partition, on a
// connection of its own (no consumer group, no prefetching).
func (e *env) readBatch(ctx context.Context, topic string, partition int, offset int64) []kafkago.Message {
	e.t.Helper()
	conn, err := (&kafkago.Dialer{Timeout: 5 * time.Second}).DialLeader(ctx, "tcp", e.cfg.Brokers[0], topic, partition)
	if err != nil {
		e.t.Fatalf("dial leader of %s/%d: %v", topic, partition, err)
	}
	defer conn.Close()
	if _, err := conn.Seek(offset, kafkago.SeekAbsolute); err != nil {
		e.t.Fatalf("seek %s/%d@%d: %v", topic, partition, offset, err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(15 * time.Second))
	batch := conn.ReadBatchWith(kafkago.ReadBatchConfig{MinBytes: 1, MaxBytes: 2 * e.cfg.BrokerMaxMessageBytes(), MaxWait: 100 * time.Millisecond})
	var msgs []kafkago.Message
	for {
		m, err := batch.ReadMessage()
		if err != nil {
			break
		}
		msgs = append(msgs, m)
	}
	if err := batch.Close(); err != nil {
		e.t.Fatalf("read %s/%d@%d: %v", topic, partition, offset, err)
	}
	return msgs
}

// outputsByDoc counts output records per document id, and collects their
// event ids.
func outputsByDoc(t testing.TB, msgs []kafkago.Message) (count map[string]int, eventIDs map[string]map[string]bool) {
	t.Helper()
	count = map[string]int{}
	eventIDs = map[string]map[string]bool{}
	for _, m := range msgs {
		msg, meta, err := schemas.Decode(headersOf(m), m.Value)
		if err != nil {
			t.Fatalf("decode output %s/%d@%d: %v", m.Topic, m.Partition, m.Offset, err)
		}
		id := msg.(schemas.Document).DocID
		count[id]++
		if eventIDs[id] == nil {
			eventIDs[id] = map[string]bool{}
		}
		eventIDs[id][meta.EventID] = true
	}
	return count, eventIDs
}

func headersOf(m kafkago.Message) []schemas.Header {
	hs := make([]schemas.Header, len(m.Headers))
	for i, h := range m.Headers {
		hs[i] = schemas.Header{Key: h.Key, Value: h.Value}
	}
	return hs
}

func header(m kafkago.Message, key string) string {
	v := ""
	for _, h := range m.Headers {
		if h.Key == key {
			v = string(h.Value)
		}
	}
	return v
}

// collector gathers BatchStats.
type collector struct {
	mu    sync.Mutex
	stats []kafka.BatchStats
}

func (c *collector) ObserveBatch(s kafka.BatchStats) {
	c.mu.Lock()
	c.stats = append(c.stats, s)
	c.mu.Unlock()
}

func (c *collector) total() kafka.BatchStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	var t kafka.BatchStats
	for _, s := range c.stats {
		t.Fetched += s.Fetched
		t.Skipped += s.Skipped
		t.Handled += s.Handled
		t.DeadLettered += s.DeadLettered
		t.Abandoned += s.Abandoned
		t.Produced += s.Produced
		t.Failed += s.Failed
	}
	return t
}

// settledGoroutines waits for the goroutine count to stop changing and
// returns it.
func settledGoroutines() int {
	n := runtime.NumGoroutine()
	for i := 0; i < 40; i++ {
		time.Sleep(25 * time.Millisecond)
		m := runtime.NumGoroutine()
		if m == n {
			return n
		}
		n = m
	}
	return n
}

// checkNoLeak fails t when more goroutines than baseline are still running
// after a settle period, printing the stacks of all goroutines.
func checkNoLeak(t testing.TB, baseline int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		n := runtime.NumGoroutine()
		if n <= baseline {
			return
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			t.Fatalf("%d goroutines still running, %d before:\n%s", n, baseline, buf)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func joinIDs(m map[string]bool) string {
	var ids []string
	for id := range m {
		ids = append(ids, id)
	}
	return strings.Join(ids, ",")
}

// The Redis marker store is the Deduper the CLI wires in.
var _ kafka.Deduper = (*redisdb.Seen)(nil)
