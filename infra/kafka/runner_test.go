package kafka_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/annalist-dev/annalist/internal/kit/logging/logtest"

	"github.com/rs/zerolog"
	kafkago "github.com/segmentio/kafka-go"

	"github.com/annalist-dev/annalist/infra/kafka"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
)

// One bad input in a batch of many: the batch fails as a whole, the runtime
// isolates the bad input, and every other input succeeds exactly once.
func TestBatchIsolation(t *testing.T) {
	e := newEnv(t)
	fx := e.newEffects()
	col := &collector{}
	good := docs("g", 60)
	// Everything is published before the stage starts, so the first fetch
	// takes a large batch holding the bad inputs.
	e.publish(good[:30]...)
	e.publish(doc("bad", "permanent"), doc("flaky", "flaky"))
	e.publish(good[30:]...)

	r := e.run(fx.handle, kafka.Options{Deduper: e.seen, Observer: col})
	e.waitIdle()
	if err := r.stop(); err != nil {
		t.Fatalf("run: %v", err)
	}

	if fx.maxBatch < 10 {
		t.Fatalf("largest batch handled was %d inputs: the test did not exercise isolation", fx.maxBatch)
	}
	count, _ := outputsByDoc(t, e.readAll(e.out))
	for _, d := range good {
		if n := e.sideEffects("ev-" + d.DocID); n != 1 || count[d.DocID] != 1 {
			t.Errorf("%s: %d side effects and %d outputs, want 1 and 1", d.DocID, n, count[d.DocID])
		}
	}
	if n := e.sideEffects("ev-flaky"); n != 1 || count["flaky"] != 1 {
		t.Errorf("flaky: %d side effects and %d outputs, want 1 and 1 after its retries", n, count["flaky"])
	}
	if count["bad"] != 0 {
		t.Errorf("bad input produced %d outputs", count["bad"])
	}
	dead := e.readAll(topology.DLT(e.in))
	if len(dead) != 1 || header(dead[0], schemas.HeaderEventID) != "ev-bad" {
		t.Fatalf("dead letters: %d, want exactly ev-bad", len(dead))
	}
	if got := header(dead[0], kafka.HeaderDLTAttempts); got != "1" {
		t.Errorf("bad input: %s attempts, want 1 (a permanent error is not retried)", got)
	}
	tot := col.total()
	if tot.Handled != 61 || tot.DeadLettered != 1 || tot.Produced != 61 {
		t.Errorf("stats: handled %d dead %d produced %d, want 61, 1, 61", tot.Handled, tot.DeadLettered, tot.Produced)
	}
}

// Outputs get a derived event id unless the handler names one, and carry
// the input's trace id and tenant; an output to a topic the stage does not
// declare dead-letters its input instead of reaching the broker.
func TestOutputEnvelope(t *testing.T) {
	e := newEnv(t)
	h := func(_ context.Context, ins []pipeline.Input) ([][]pipeline.Output, error) {
		out := make([][]pipeline.Output, len(ins))
		for i, in := range ins {
			d := in.Msg.(schemas.Document)
			switch d.Text {
			case "named":
				out[i] = []pipeline.Output{{Topic: e.out, Msg: doc(d.DocID, "x"), EventID: "chosen-id"}}
			case "stray":
				out[i] = []pipeline.Output{{Topic: e.out, Msg: doc(d.DocID+"-ok", "x")}, {Topic: "elsewhere", Msg: doc(d.DocID, "x")}}
			default:
				out[i] = []pipeline.Output{{Topic: e.out, Msg: doc(d.DocID+"-0", "x")}, {Topic: e.out, Msg: doc(d.DocID+"-1", "x")}}
			}
		}
		return out, nil
	}
	e.publish(doc("two", "plain"), doc("named", "named"), doc("stray", "stray"))
	r := e.run(h, kafka.Options{})
	e.waitIdle()
	if err := r.stop(); err != nil {
		t.Fatalf("run: %v", err)
	}

	got := map[string]schemas.Meta{}
	for _, m := range e.readAll(e.out) {
		msg, meta, err := schemas.Decode(headersOf(m), m.Value)
		if err != nil {
			t.Fatalf("decode output: %v", err)
		}
		got[msg.(schemas.Document).DocID] = meta
	}
	want := map[string]schemas.Meta{
		"two-0": {EventID: pipeline.DeriveEventID("ev-two", e.out, 0), TraceID: "tr-two"},
		"two-1": {EventID: pipeline.DeriveEventID("ev-two", e.out, 1), TraceID: "tr-two"},
		"named": {EventID: "chosen-id", TraceID: "tr-named"},
	}
	if len(got) != len(want) {
		t.Errorf("outputs %v, want %d (the stray input must produce nothing)", got, len(want))
	}
	for id, w := range want {
		m, ok := got[id]
		if !ok {
			t.Errorf("no output %s", id)
			continue
		}
		if m.EventID != w.EventID || m.TraceID != w.TraceID || m.Tenant != "acme" {
			t.Errorf("output %s: event %q trace %q tenant %q; want %q, %q, acme", id, m.EventID, m.TraceID, m.Tenant, w.EventID, w.TraceID)
		}
	}
	dead := e.readAll(topology.DLT(e.in))
	if len(dead) != 1 || header(dead[0], schemas.HeaderEventID) != "ev-stray" {
		t.Fatalf("want exactly the stray input dead-lettered, got %d dead letters", len(dead))
	}
	if msg := header(dead[0], kafka.HeaderDLTError); !strings.Contains(msg, `does not write topic "elsewhere"`) {
		t.Errorf("dead letter error %q does not name the undeclared topic", msg)
	}
}

// Cancelling the context while a batch is in the handler drains: the batch
// finishes, its outputs are produced and its offsets committed, and Run
// returns nil.
func TestDrainFinishesInFlightBatch(t *testing.T) {
	e := newEnv(t)
	entered := make(chan struct{})
	release := make(chan struct{})
	var calls atomic.Int32
	h := func(ctx context.Context, ins []pipeline.Input) ([][]pipeline.Output, error) {
		if calls.Add(1) == 1 {
			close(entered)
			<-release
		}
		out := make([][]pipeline.Output, len(ins))
		for i, in := range ins {
			out[i] = []pipeline.Output{{Topic: e.out, Msg: in.Msg}}
		}
		return out, ctx.Err()
	}
	e.publish(docs("d", 5)...)
	var logs logtest.Buffer
	r := e.run(h, kafka.Options{Logger: zerolog.New(&logs)})
	<-entered
	r.cancel()
	// The handler is released only once the runner has seen the
	// cancellation (it logs that it drains), so the batch is in flight
	// during the drain.
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(logs.String(), `"draining"`); {
		if time.Now().After(deadline) {
			t.Fatalf("the runner did not start draining:\n%s", logs.String())
		}
		time.Sleep(time.Millisecond)
	}
	close(release)
	if err := r.wait(20 * time.Second); err != nil {
		t.Fatalf("drain returned %v, want nil", err)
	}
	lags, err := kafka.Lag(context.Background(), e.cfg, e.stage.Group(), e.stage.Reads)
	if err != nil {
		t.Fatal(err)
	}
	var committed int64
	for _, l := range lags {
		committed += l.End - l.Lag() - l.Start
	}
	outs := e.readAll(e.out)
	if committed == 0 || int64(len(outs)) != committed {
		t.Fatalf("after the drain %d records committed and %d outputs, want the same non-zero number", committed, len(outs))
	}
}

// A handler that outlives the drain timeout is abandoned: Run returns
// ErrDrainTimeout, nothing is committed, and the next runner handles the
// input.
func TestDrainTimeoutAbandonsAndRedelivers(t *testing.T) {
	e := newEnv(t)
	e.cfg.DrainTimeout = 100 * time.Millisecond
	entered := make(chan struct{}, 1)
	stuck := func(ctx context.Context, ins []pipeline.Input) ([][]pipeline.Output, error) {
		select {
		case entered <- struct{}{}:
		default:
		}
		<-ctx.Done()
		return nil, ctx.Err()
	}
	e.publish(doc("slow", "ok"))
	r := e.run(stuck, kafka.Options{Deduper: e.seen})
	<-entered
	if err := r.stop(); !errors.Is(err, kafka.ErrDrainTimeout) {
		t.Fatalf("stop returned %v, want ErrDrainTimeout", err)
	}
	if dead := e.readAll(topology.DLT(e.in)); len(dead) != 0 {
		t.Fatalf("an abandoned input was dead-lettered")
	}
	fx := e.newEffects()
	r2 := e.run(fx.handle, kafka.Options{Deduper: e.seen})
	e.waitIdle()
	if err := r2.stop(); err != nil {
		t.Fatal(err)
	}
	if n := e.sideEffects("ev-slow"); n != 1 {
		t.Fatalf("abandoned input handled %d times by the next runner, want 1", n)
	}
}

func TestRunRefusesMissingTopics(t *testing.T) {
	e := newEnv(t)
	stage := topology.Stage{Name: "lost", Reads: []string{"nowhere"}, Writes: []string{e.out}}
	err := kafka.Run(context.Background(), e.cfg, stage, pipeline.Batch(func(context.Context, pipeline.Input) ([]pipeline.Output, error) { return nil, nil }), kafka.Options{})
	if !errors.Is(err, kafka.ErrMissingTopic) || !strings.Contains(err.Error(), "nowhere") {
		t.Fatalf("Run = %v, want ErrMissingTopic naming the topic", err)
	}
}

func TestEnsureTopicsIsIdempotent(t *testing.T) {
	e := newEnv(t)
	topics := append(e.topics, topology.Topic{Name: "pages-test", Partitions: 2, Compacted: true})
	ctx := context.Background()
	for i := 0; i < 2; i++ {
		if err := kafka.EnsureTopics(ctx, e.cfg, topics); err != nil {
			t.Fatalf("ensure topics, round %d: %v", i+1, err)
		}
	}
	for _, tp := range topics {
		for name, parts := range map[string]int{tp.Name: tp.Partitions, topology.DLT(tp.Name): topology.DLTPartitions} {
			lags, err := kafka.Lag(ctx, e.cfg, "nobody", []string{name})
			if err != nil {
				t.Fatalf("topic %s: %v", name, err)
			}
			if len(lags) != parts {
				t.Errorf("topic %s has %d partitions, want %d", name, len(lags), parts)
			}
		}
	}
	cfgs := describeTopic(t, e, "pages-test")
	if cfgs["cleanup.policy"] != "compact" {
		t.Errorf("pages-test cleanup.policy = %q, want compact", cfgs["cleanup.policy"])
	}
	if want := strconv.Itoa(e.cfg.BrokerMaxMessageBytes()); cfgs["max.message.bytes"] != want {
		t.Errorf("max.message.bytes = %q, want %s", cfgs["max.message.bytes"], want)
	}
	if err := kafka.EnsureTopics(ctx, e.cfg, []topology.Topic{{Name: "zero"}}); err == nil {
		t.Error("a topic without partitions was accepted")
	}
}

// Documents can be several MB: a 5 MB record goes through the loop.
func TestLargeRecord(t *testing.T) {
	e := newEnv(t)
	big := make([]byte, 5<<20)
	for i := range big {
		big[i] = 'a' + byte(i%26)
	}
	e.publish(doc("big", string(big)))
	h := func(_ context.Context, ins []pipeline.Input) ([][]pipeline.Output, error) {
		out := make([][]pipeline.Output, len(ins))
		for i, in := range ins {
			out[i] = []pipeline.Output{{Topic: e.out, Msg: in.Msg}}
		}
		return out, nil
	}
	r := e.run(h, kafka.Options{})
	e.waitIdle()
	if err := r.stop(); err != nil {
		t.Fatal(err)
	}
	outs := e.readAll(e.out)
	if len(outs) != 1 || len(outs[0].Value) < 5<<20 {
		t.Fatalf("got %d outputs, want the 5 MB document echoed", len(outs))
	}
}

func TestProducerRefusesInvalidRecords(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	for name, rec := range map[string]kafka.Record{
		"no event id": {Topic: e.in, Msg: doc("x", "ok")},
		"no topic":    {Msg: doc("x", "ok"), Meta: schemas.Meta{EventID: "e"}},
		"invalid":     {Topic: e.in, Msg: doc("", "ok"), Meta: schemas.Meta{EventID: "e"}},
		"too large":   {Topic: e.in, Msg: doc("x", strings.Repeat("a", e.cfg.BrokerMaxMessageBytes())), Meta: schemas.Meta{EventID: "e"}},
	} {
		ok := kafka.Record{Topic: e.in, Msg: doc("fine", "ok"), Meta: schemas.Meta{EventID: "fine"}}
		if err := e.prod.Publish(ctx, ok, rec); err == nil {
			t.Errorf("%s: published", name)
		}
	}
	if n := len(e.readAll(e.in)); n != 0 {
		t.Fatalf("%d records written although every call had an invalid record", n)
	}
}

// A long-lived Producer publishes to a topic created after it cached the
// cluster's metadata: the write is retried until its transport learns of
// the topic, not given up after Config.RetryAttempts quick attempts.
func TestProducerPublishesToATopicCreatedLater(t *testing.T) {
	e := newEnv(t)
	e.publish(doc("first", "ok"))
	later := e.in + "-later"
	ctx, cancel := context.WithTimeout(context.Background(), e.patience)
	defer cancel()
	if err := kafka.EnsureTopics(ctx, e.cfg, []topology.Topic{{Name: later, Partitions: 2, Key: "doc_id", Message: schemas.TypeDocument}}); err != nil {
		t.Fatal(err)
	}
	if err := e.prod.Publish(ctx, kafka.Record{Topic: later, Msg: doc("x", "ok"), Meta: schemas.Meta{EventID: "ev-x"}}); err != nil {
		t.Fatalf("publish to a topic created after the producer cached the metadata: %v", err)
	}
	if n := len(e.readAll(later)); n != 1 {
		t.Fatalf("%d records on %s, want 1", n, later)
	}
}

func TestLagAndWaitIdle(t *testing.T) {
	e := newEnv(t)
	e.publish(docs("w", 7)...)
	ctx := context.Background()
	lags, err := kafka.Lag(ctx, e.cfg, e.stage.Group(), e.stage.Reads)
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, l := range lags {
		total += l.Lag()
		if l.Committed != -1 {
			t.Errorf("partition %d: committed %d before any consumer, want -1", l.Partition, l.Committed)
		}
	}
	if total != 7 || len(lags) != 3 {
		t.Fatalf("lag %d over %d partitions, want 7 over 3", total, len(lags))
	}
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if err := kafka.WaitIdle(short, e.cfg, e.stage); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("WaitIdle with no consumer = %v, want a deadline error", err)
	}
	r := e.run(e.newEffects().handle, kafka.Options{})
	e.waitIdle()
	if err := r.stop(); err != nil {
		t.Fatal(err)
	}
	lags, err = kafka.Lag(ctx, e.cfg, e.stage.Group(), e.stage.Reads)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lags {
		if l.Lag() != 0 || l.Committed != l.End {
			t.Errorf("partition %d after idle: committed %d end %d", l.Partition, l.Committed, l.End)
		}
	}
	// No group: the offsets alone, as for a dead-letter topic.
	offs, err := kafka.Lag(ctx, e.cfg, "", e.stage.Reads)
	if err != nil {
		t.Fatal(err)
	}
	var held int64
	for _, l := range offs {
		held += l.End - l.Start
		if l.Committed != -1 {
			t.Errorf("partition %d without a group: committed %d, want -1", l.Partition, l.Committed)
		}
	}
	if held != 7 {
		t.Errorf("offsets without a group hold %d records, want 7", held)
	}
}

func TestRunRejectsBadConfig(t *testing.T) {
	for name, cfg := range map[string]kafka.Config{
		"negative batch": {MaxBatch: -1},
		"heartbeat":      {SessionTimeout: time.Second, HeartbeatInterval: 2 * time.Second},
		"broker":         {Brokers: []string{"localhost"}},
	} {
		stage := topology.Stage{Name: defaultStage, Reads: []string{defaultIn}, Writes: []string{defaultOut}}
		err := kafka.Run(context.Background(), cfg, stage, func(context.Context, []pipeline.Input) ([][]pipeline.Output, error) { return nil, nil }, kafka.Options{})
		if err == nil {
			t.Errorf("%s: Run accepted the config", name)
		}
	}
}

// describeTopic reads a topic's configuration from the broker.
func describeTopic(t *testing.T, e *env, topic string) map[string]string {
	t.Helper()
	tr := &kafkago.Transport{}
	defer tr.CloseIdleConnections()
	c := &kafkago.Client{Addr: kafkago.TCP(e.cfg.Brokers...), Transport: tr}
	resp, err := c.DescribeConfigs(context.Background(), &kafkago.DescribeConfigsRequest{
		Resources: []kafkago.DescribeConfigRequestResource{{ResourceType: kafkago.ResourceTypeTopic, ResourceName: topic}},
	})
	if err != nil {
		t.Fatalf("describe %s: %v", topic, err)
	}
	out := map[string]string{}
	for _, r := range resp.Resources {
		if r.Error != nil {
			t.Fatalf("describe %s: %v", topic, r.Error)
		}
		for _, c := range r.ConfigEntries {
			out[c.ConfigName] = c.ConfigValue
		}
	}
	return out
}

// A handler that panics on one input dead-letters that input; the stage
// and the rest of the batch go on.
func TestHandlerPanicDeadLettersTheInput(t *testing.T) {
	e := newEnv(t)
	fx := e.newEffects()
	h := func(ctx context.Context, ins []pipeline.Input) ([][]pipeline.Output, error) {
		for _, in := range ins {
			if in.Msg.(schemas.Document).Text == "explode" {
				boom := make([]int, len(ins))
				boom[len(ins)]++ // index out of range: a runtime panic
			}
		}
		return fx.handle(ctx, ins)
	}
	e.publish(docs("p", 10)...)
	e.publish(doc("bomb", "explode"))
	e.publish(docs("q", 10)...)
	r := e.run(h, kafka.Options{Deduper: e.seen})
	e.waitIdle()
	if err := r.stop(); err != nil {
		t.Fatal(err)
	}
	count, _ := outputsByDoc(t, e.readAll(e.out))
	if len(count) != 20 || count["bomb"] != 0 {
		t.Fatalf("%d documents produced (bomb: %d), want the 20 others", len(count), count["bomb"])
	}
	dead := e.readAll(topology.DLT(e.in))
	if len(dead) != 1 || !strings.Contains(header(dead[0], kafka.HeaderDLTError), "panicked") || header(dead[0], kafka.HeaderDLTPermanent) != "true" {
		t.Fatalf("want the panicking input dead-lettered as permanent, got %d dead letters", len(dead))
	}
}

// Two members of one group share the partitions; together they handle
// every input once, and stopping one hands its partitions to the other.
func TestTwoMembersShareTheWork(t *testing.T) {
	e := newEnv(t)
	fx := e.newEffects()
	var byA, byB atomic.Int64
	count := func(n *atomic.Int64) pipeline.BatchHandler {
		return func(ctx context.Context, ins []pipeline.Input) ([][]pipeline.Output, error) {
			out, err := fx.handle(ctx, ins)
			if err == nil {
				n.Add(int64(len(ins)))
			}
			return out, err
		}
	}
	a := e.run(count(&byA), kafka.Options{Deduper: e.seen})
	b := e.run(count(&byB), kafka.Options{Deduper: e.seen})
	e.waitMembers(2)
	inputs := docs("m", 300)
	for i := 0; i < len(inputs); i += 30 {
		e.publish(inputs[i : i+30]...)
	}
	e.waitIdle()
	if byA.Load() == 0 || byB.Load() == 0 {
		t.Errorf("handled %d by one member and %d by the other: the group did not share the partitions", byA.Load(), byB.Load())
	}
	if err := a.stop(); err != nil {
		t.Fatal(err)
	}
	more := docs("n", 30)
	e.publish(more...)
	e.waitIdle()
	if err := b.stop(); err != nil {
		t.Fatal(err)
	}
	for _, d := range append(inputs, more...) {
		if n := e.sideEffects("ev-" + d.DocID); n != 1 {
			t.Errorf("%s: %d side effects, want 1", d.DocID, n)
		}
	}
}

// waitMembers waits until the stage's group is stable with n members that
// all hold partitions.
func (e *env) waitMembers(n int) {
	e.t.Helper()
	tr := &kafkago.Transport{}
	defer tr.CloseIdleConnections()
	c := &kafkago.Client{Addr: kafkago.TCP(e.cfg.Brokers...), Transport: tr}
	deadline := time.Now().Add(e.patience)
	for {
		resp, err := c.DescribeGroups(context.Background(), &kafkago.DescribeGroupsRequest{GroupIDs: []string{e.stage.Group()}})
		if err == nil && len(resp.Groups) == 1 && resp.Groups[0].GroupState == "Stable" {
			assigned := 0
			for _, m := range resp.Groups[0].Members {
				if len(m.MemberAssignments.Topics) > 0 {
					assigned++
				}
			}
			if assigned == n {
				return
			}
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("group %s did not reach %d members with partitions: %+v, %v", e.stage.Group(), n, resp, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
