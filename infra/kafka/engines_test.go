//go:build engines

package kafka_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"
	kafkago "github.com/segmentio/kafka-go"

	"github.com/annalist-dev/annalist/infra/kafka"
	"github.com/annalist-dev/annalist/internal/kit/enginestest"
	"github.com/annalist-dev/annalist/internal/kit/logging/logtest"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
)

// The engines suite of the package: the contract suite (contract_test.go)
// and the runner where kafka-go has known problems with real brokers
// (compacted topics, rebalances, a broker restart, topics used right after
// their creation, records at the size limit), against the Apache Kafka
// broker of internal/kit/enginestest. The broker is shared: every test has
// topics and a consumer group of its own (enginePrefix), and
// TestEnginesBrokerRestartMidConsumption restarts it, so the suite runs
// with go test -p 1.

// enginePatience bounds each wait of the harness on the real broker: group
// joins and rebalances take seconds there, and the machine may be busy.
const enginePatience = 90 * time.Second

var (
	engineRun = strconv.FormatInt(time.Now().UnixNano(), 36)
	engineSeq atomic.Int64
)

// enginePrefix is a prefix of topic and stage names that no other test,
// of this run or of an earlier one on the same broker, uses.
func enginePrefix(t testing.TB) string {
	name := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-':
			return r
		}
		return '-'
	}, strings.TrimPrefix(t.Name(), "TestEngines"))
	if len(name) > 60 {
		name = name[:60]
	}
	return fmt.Sprintf("%s-%s-%d-", name, engineRun, engineSeq.Add(1))
}

// engineConfig is the kfake env's config for the real broker: a session
// timeout the broker accepts (group.min.session.timeout.ms is 6s by
// default) and a rebalance timeout that leaves members time to rejoin.
func engineConfig(eng enginestest.Engines) kafka.Config {
	return kafka.Config{
		Brokers:           []string{eng.Brokers},
		SessionTimeout:    6 * time.Second,
		HeartbeatInterval: 200 * time.Millisecond,
		RebalanceTimeout:  10 * time.Second,
		RetryAttempts:     3,
		RetryBackoffBase:  time.Millisecond,
		RetryBackoffMax:   5 * time.Millisecond,
		MaxBackoff:        5 * time.Millisecond,
		DrainTimeout:      30 * time.Second,
	}
}

// engineEnv is an env on the real broker, with topics and a stage (hence a
// consumer group) of the test's own.
func engineEnv(t testing.TB) *env {
	t.Helper()
	return newEnvOn(t, engineConfig(enginestest.Require(t)), enginePrefix(t), enginePatience)
}

// prefixOf is the prefix of the env's names.
func (e *env) prefixOf() string { return strings.TrimSuffix(e.in, defaultIn) }

// The contract suite on the real broker.

func TestEnginesContractRedeliveryHasOneSideEffect(t *testing.T) {
	contractRedeliveryHasOneSideEffect(t, engineEnv)
}

func TestEnginesContractPoisonGoesToDLT(t *testing.T) { contractPoisonGoesToDLT(t, engineEnv) }

func TestEnginesContractCrashBetweenProduceAndCommit(t *testing.T) {
	contractCrashBetweenProduceAndCommit(t, engineEnv)
}

func TestEnginesContractShutdownMidStreamLosesNothing(t *testing.T) {
	contractShutdownMidStreamLosesNothing(t, engineEnv)
}

func TestEnginesContractNoGoroutineLeak(t *testing.T) { contractNoGoroutineLeak(t, engineEnv) }

// adminClient is a kafka-go client of the env's brokers, for what the
// package does not do itself.
func (e *env) adminClient() *kafkago.Client {
	tr := &kafkago.Transport{}
	e.t.Cleanup(tr.CloseIdleConnections)
	return &kafkago.Client{Addr: kafkago.TCP(e.cfg.Brokers...), Timeout: 30 * time.Second, Transport: tr}
}

// waitHandled waits until n reaches at least want.
func (e *env) waitHandled(n *atomic.Int64, want int64) {
	e.t.Helper()
	deadline := time.Now().Add(e.patience)
	for n.Load() < want {
		if time.Now().After(deadline) {
			e.t.Fatalf("the stage handled %d inputs, never %d", n.Load(), want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// publishUntilAcknowledged publishes recs again until the broker
// acknowledges them all, for a broker that may still be starting; a
// record published twice keeps its event id, so the stage skips the copy.
func (e *env) publishUntilAcknowledged(recs ...kafka.Record) {
	e.t.Helper()
	deadline := time.Now().Add(e.patience)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := e.prod.Publish(ctx, recs...)
		cancel()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("publish: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// checkOnceEach fails t unless every input had exactly one side effect and
// one output, and nothing was dead-lettered.
func checkOnceEach(t *testing.T, e *env, inputs []schemas.Document) {
	t.Helper()
	count, eventIDs := outputsByDoc(t, e.readAll(e.out))
	bad := 0
	for _, d := range inputs {
		n := e.sideEffects("ev-" + d.DocID)
		if n != 1 || count[d.DocID] != 1 || len(eventIDs[d.DocID]) != 1 {
			bad++
			if bad <= 20 {
				t.Errorf("%s: %d side effects, %d outputs with %d event ids; want 1, 1, 1", d.DocID, n, count[d.DocID], len(eventIDs[d.DocID]))
			}
		}
	}
	if bad > 20 {
		t.Errorf("… %d inputs in all were not handled exactly once", bad)
	}
	if dead := e.readAll(topology.DLT(e.in)); len(dead) != 0 {
		t.Errorf("%d inputs dead-lettered", len(dead))
	}
}

// A compacted input topic whose log the cleaner has really compacted
// (offsets with gaps, the group's committed offset inside a gap) is read to
// its end by the stage: no stall at a gap, no panic, every surviving record
// handled once and the latest value of every key handled.
func TestEnginesCompactedTopicIsReadToTheEnd(t *testing.T) {
	e := engineEnv(t)
	ctx := context.Background()
	c := e.adminClient()
	pages := e.prefixOf() + "pages"
	const partitions, keys = 2, 8

	// The cleaner looks for work every log.cleaner.backoff.ms (15s by
	// default); a shorter pause on the broker makes the test quicker, and
	// the broker's value comes back after it.
	md, err := c.Metadata(ctx, &kafkago.MetadataRequest{})
	if err != nil || len(md.Brokers) != 1 {
		t.Fatalf("metadata: %v, %+v", err, md)
	}
	cleaner := func(op kafkago.ConfigOperation, v string) error {
		resp, err := c.IncrementalAlterConfigs(ctx, &kafkago.IncrementalAlterConfigsRequest{Resources: []kafkago.IncrementalAlterConfigsRequestResource{{
			ResourceType: kafkago.ResourceTypeBroker, ResourceName: strconv.Itoa(md.Brokers[0].ID),
			Configs: []kafkago.IncrementalAlterConfigsRequestConfig{{Name: "log.cleaner.backoff.ms", Value: v, ConfigOperation: op}},
		}}})
		if err == nil && len(resp.Resources) > 0 {
			err = resp.Resources[0].Error
		}
		return err
	}
	if err := cleaner(kafkago.ConfigOperationSet, "200"); err != nil {
		t.Logf("log.cleaner.backoff.ms stays at the broker's value: %v", err)
	} else {
		t.Cleanup(func() { _ = cleaner(kafkago.ConfigOperationDelete, "") })
	}

	// Segments roll every 100ms of appends and are cleaned as soon as
	// anything in them is superseded.
	resp, err := c.CreateTopics(ctx, &kafkago.CreateTopicsRequest{Topics: []kafkago.TopicConfig{{
		Topic: pages, NumPartitions: partitions, ReplicationFactor: 1,
		ConfigEntries: []kafkago.ConfigEntry{
			{ConfigName: "cleanup.policy", ConfigValue: "compact"},
			{ConfigName: "segment.ms", ConfigValue: "100"},
			{ConfigName: "min.cleanable.dirty.ratio", ConfigValue: "0.01"},
			{ConfigName: "min.compaction.lag.ms", ConfigValue: "0"},
			{ConfigName: "max.message.bytes", ConfigValue: strconv.Itoa(e.cfg.BrokerMaxMessageBytes())},
		},
	}}})
	if err == nil {
		err = resp.Errors[pages]
	}
	if err != nil {
		t.Fatalf("create %s: %v", pages, err)
	}
	// The dead-letter topic; the compacted topic exists and is left alone.
	if err := kafka.EnsureTopics(ctx, e.cfg, []topology.Topic{{Name: pages, Partitions: partitions, Key: "doc_id", Message: schemas.TypeDocument, Compacted: true}}); err != nil {
		t.Fatal(err)
	}
	if cfgs := describeTopic(t, e, pages); cfgs["cleanup.policy"] != "compact" || cfgs["segment.ms"] != "100" {
		t.Fatalf("%s is not the compacted topic the test needs: %v", pages, cfgs)
	}

	eventID := func(key, round int) string { return fmt.Sprintf("ev-k%d-r%d", key, round) }
	publishRounds := func(from, to int) {
		for round := from; round < to; round++ {
			recs := make([]kafka.Record, keys)
			for k := range recs {
				recs[k] = kafka.Record{Topic: pages, Msg: doc(fmt.Sprintf("k%d", k), "ok"), Meta: schemas.Meta{EventID: eventID(k, round), Tenant: "acme"}}
			}
			e.publishUntilAcknowledged(recs...)
			time.Sleep(120 * time.Millisecond)
		}
	}
	stage := topology.Stage{Name: e.stage.Name + "-pages", Reads: []string{pages}, Writes: []string{e.out}}
	fx := e.newEffects()
	runOnce := func() {
		ctx, cancel := context.WithCancel(context.Background())
		r := &runner{cancel: cancel, done: make(chan struct{})}
		go func() {
			defer close(r.done)
			r.err = kafka.Run(ctx, e.cfg, stage, fx.handle, kafka.Options{Deduper: e.seen})
		}()
		t.Cleanup(func() { _ = r.stop() })
		wctx, wcancel := context.WithTimeout(context.Background(), e.patience)
		defer wcancel()
		if err := kafka.WaitIdle(wctx, e.cfg, stage); err != nil {
			t.Fatalf("the stage did not reach the end of %s: %v", pages, err)
		}
		if err := r.stop(); err != nil {
			t.Fatalf("run: %v", err)
		}
	}

	// The stage reads the first rounds and commits their end.
	const firstRounds, rounds = 6, 24
	publishRounds(0, firstRounds)
	runOnce()
	lags, err := kafka.Lag(ctx, e.cfg, stage.Group(), stage.Reads)
	if err != nil {
		t.Fatal(err)
	}
	committed := map[int]int64{}
	for _, l := range lags {
		committed[l.Partition] = l.Committed
	}

	// More rounds supersede every key many times over; wait until the
	// cleaner has removed records, the one at the group's committed offset
	// among them, on every partition.
	publishRounds(firstRounds, rounds)
	deadline := time.Now().Add(e.patience)
	for {
		lags, err := kafka.Lag(ctx, e.cfg, "", []string{pages})
		if err != nil {
			t.Fatal(err)
		}
		held := map[int]map[int64]bool{}
		msgs := e.readAll(pages)
		for _, m := range msgs {
			if held[m.Partition] == nil {
				held[m.Partition] = map[int64]bool{}
			}
			held[m.Partition][m.Offset] = true
		}
		gapped := 0
		for _, l := range lags {
			if int64(len(held[l.Partition])) < l.End-l.Start && !held[l.Partition][committed[l.Partition]] {
				gapped++
			}
		}
		if gapped == len(lags) {
			t.Logf("compacted: %d of %d records left", len(msgs), rounds*keys)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the log cleaner did not compact %s at the committed offsets within %s", pages, e.patience)
		}
		time.Sleep(500 * time.Millisecond)
	}

	runOnce()
	calls := fx.callsSnapshot()
	for id, n := range calls {
		if n != 1 || e.sideEffects(id) != 1 {
			t.Errorf("%s: %d handler calls, %d side effects; want 1 and 1", id, n, e.sideEffects(id))
		}
	}
	for k := 0; k < keys; k++ {
		for _, round := range []int{firstRounds - 1, rounds - 1} {
			if n := e.sideEffects(eventID(k, round)); n != 1 {
				t.Errorf("the latest value of k%d of round %d: %d side effects, want 1", k, round, n)
			}
		}
	}
	if outs := e.readAll(e.out); len(outs) != len(calls) {
		t.Errorf("%d outputs for %d records handled", len(outs), len(calls))
	}
	if dead := e.readAll(topology.DLT(pages)); len(dead) != 0 {
		t.Errorf("%d records of the compacted topic dead-lettered", len(dead))
	}
	t.Logf("handled %d of %d records published", len(calls), rounds*keys)
}

// Members join and leave the group while records stream in: a member
// joins, the first leaves, a third joins. Every record is handled, its
// side effect happens once and its output is produced once: no member
// handles records of partitions it no longer owns, and a member whose id
// the coordinator forgot rejoins.
func TestEnginesRebalanceMidStream(t *testing.T) {
	e := engineEnv(t)
	fx := e.newEffects()
	var handled atomic.Int64
	fx.onHandled = func(n int) {
		handled.Add(int64(n))
		// A little work per batch keeps a backlog in the members' queues
		// while the partitions move.
		time.Sleep(2 * time.Millisecond)
	}
	inputs := docs("rb", 600)
	published := make(chan error, 1)
	go func() {
		for i := 0; i < len(inputs); i += 10 {
			recs := make([]kafka.Record, 0, 10)
			for _, d := range inputs[i : i+10] {
				recs = append(recs, kafka.Record{Topic: e.in, Msg: d, Meta: schemas.Meta{EventID: "ev-" + d.DocID, TraceID: "tr-" + d.DocID, Tenant: "acme"}})
			}
			ctx, cancel := context.WithTimeout(context.Background(), e.patience)
			err := e.prod.Publish(ctx, recs...)
			cancel()
			if err != nil {
				published <- err
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
		published <- nil
	}()

	var logs logtest.Buffer
	opts := kafka.Options{Deduper: e.seen, Logger: zerolog.New(&logs).Level(zerolog.WarnLevel)}
	a := e.run(fx.handle, opts)
	e.waitHandled(&handled, 100)
	e.run(fx.handle, opts)
	e.waitMembers(2)
	e.waitHandled(&handled, 300)
	if err := a.stop(); err != nil {
		t.Fatalf("member a: %v", err)
	}
	e.waitHandled(&handled, 400)
	e.run(fx.handle, opts)
	if err := <-published; err != nil {
		t.Fatalf("publish: %v", err)
	}
	e.waitIdle()
	t.Logf("handled %d inputs", handled.Load())
	checkOnceEach(t, e, inputs)
	// What the members met while the partitions moved.
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		if line != "" {
			t.Log(line)
		}
	}
}

// The broker is killed (SIGKILL) while the stage consumes and restarted on
// its port: the stage goes on by itself, finishes the backlog and what is
// published after the restart, and nothing is lost or handled twice.
func TestEnginesBrokerRestartMidConsumption(t *testing.T) {
	eng := enginestest.Require(t)
	e := engineEnv(t)
	e.cfg.MaxBatch = 10
	fx := e.newEffects()
	var handled atomic.Int64
	fx.onHandled = func(n int) {
		handled.Add(int64(n))
		time.Sleep(20 * time.Millisecond)
	}
	before := docs("bk", 400)
	e.publish(before...)
	r := e.run(fx.handle, kafka.Options{Deduper: e.seen})
	e.waitHandled(&handled, 60)

	restarted := false
	t.Cleanup(func() {
		if !restarted {
			eng.Up(t)
		}
	})
	eng.Kill(t, enginestest.Kafka)
	atKill := handled.Load()
	// The stage meets the dead broker for a while.
	time.Sleep(3 * time.Second)
	upAt := time.Now()
	eng.Up(t)
	restarted = true
	t.Logf("handled %d of %d inputs when the broker was killed, %d when it was back (restart took %s)", atKill, len(before), handled.Load(), time.Since(upAt).Round(time.Millisecond))
	backAt := time.Now()

	after := docs("ak", 50)
	recs := make([]kafka.Record, len(after))
	for i, d := range after {
		recs[i] = kafka.Record{Topic: e.in, Msg: d, Meta: schemas.Meta{EventID: "ev-" + d.DocID, TraceID: "tr-" + d.DocID, Tenant: "acme"}}
	}
	e.publishUntilAcknowledged(recs...)
	e.waitIdle()
	t.Logf("the stage was idle %s after the restart", time.Since(backAt).Round(time.Millisecond))
	if err := r.stop(); err != nil {
		t.Fatalf("run: %v", err)
	}
	if handled.Load() <= atKill {
		t.Fatal("the stage handled nothing after the broker restart")
	}
	// A produce request the broker wrote but whose acknowledgement the
	// kill cut off is sent again: its outputs may repeat, with their event
	// ids. Side effects and inputs do not repeat.
	count, eventIDs := outputsByDoc(t, e.readAll(e.out))
	for _, d := range append(before, after...) {
		n := e.sideEffects("ev-" + d.DocID)
		if n != 1 || count[d.DocID] == 0 || len(eventIDs[d.DocID]) != 1 {
			t.Errorf("%s: %d side effects, %d outputs with %d event ids; want 1, at least 1, 1", d.DocID, n, count[d.DocID], len(eventIDs[d.DocID]))
		}
	}
	if dead := e.readAll(topology.DLT(e.in)); len(dead) != 0 {
		t.Errorf("%d inputs dead-lettered", len(dead))
	}
}

// Topics are used the moment EnsureTopics returns: a publish and a stage on
// new topics neither fail nor stall while their partitions get leaders.
func TestEnginesTopicsUsableRightAfterCreation(t *testing.T) {
	e := engineEnv(t)
	for round := 0; round < 2; round++ {
		in := fmt.Sprintf("%sfresh%d-in", e.prefixOf(), round)
		out := fmt.Sprintf("%sfresh%d-out", e.prefixOf(), round)
		ctx, cancel := context.WithTimeout(context.Background(), e.patience)
		err := kafka.EnsureTopics(ctx, e.cfg, []topology.Topic{
			{Name: in, Partitions: 6, Key: "doc_id", Message: schemas.TypeDocument},
			{Name: out, Partitions: 6, Key: "doc_id", Message: schemas.TypeDocument},
		})
		if err != nil {
			cancel()
			t.Fatalf("round %d: ensure topics: %v", round, err)
		}
		inputs := docs(fmt.Sprintf("f%d", round), 30)
		recs := make([]kafka.Record, len(inputs))
		for i, d := range inputs {
			recs[i] = kafka.Record{Topic: in, Msg: d, Meta: schemas.Meta{EventID: "ev-" + d.DocID, Tenant: "acme"}}
		}
		// A producer of the default config, as the edge has, and the
		// env's, which retries little and fast.
		fresh := kafka.NewProducer(kafka.Config{Brokers: e.cfg.Brokers})
		err = fresh.Publish(ctx, recs[:15]...)
		_ = fresh.Close()
		if err != nil {
			cancel()
			t.Fatalf("round %d: publish with the default config right after EnsureTopics: %v", round, err)
		}
		if err := e.prod.Publish(ctx, recs[15:]...); err != nil {
			cancel()
			t.Fatalf("round %d: publish right after EnsureTopics: %v", round, err)
		}
		cancel()

		fx := e.newEffects()
		fx.out = out
		stage := topology.Stage{Name: fmt.Sprintf("%s-fresh%d", e.stage.Name, round), Reads: []string{in}, Writes: []string{out}}
		rctx, rcancel := context.WithCancel(context.Background())
		r := &runner{cancel: rcancel, done: make(chan struct{})}
		go func() {
			defer close(r.done)
			r.err = kafka.Run(rctx, e.cfg, stage, fx.handle, kafka.Options{Deduper: e.seen})
		}()
		t.Cleanup(func() { _ = r.stop() })
		wctx, wcancel := context.WithTimeout(context.Background(), e.patience)
		err = kafka.WaitIdle(wctx, e.cfg, stage)
		wcancel()
		if err != nil {
			t.Fatalf("round %d: the stage on new topics: %v", round, err)
		}
		if err := r.stop(); err != nil {
			t.Fatalf("round %d: run: %v", round, err)
		}
		count, _ := outputsByDoc(t, e.readAll(out))
		for _, d := range inputs {
			if n := e.sideEffects("ev-" + d.DocID); n != 1 || count[d.DocID] != 1 {
				t.Errorf("round %d: %s: %d side effects and %d outputs, want 1 and 1", round, d.DocID, n, count[d.DocID])
			}
		}
	}
}

// A record exactly at Config.MaxMessageBytes goes through the Producer, the
// broker, the stage's reader and the stage's writer; one byte more is
// refused at once with an error that says so, by the Producer and, for an
// output, by the stage, which dead-letters its input and goes on.
func TestEnginesRecordsAtTheSizeLimit(t *testing.T) {
	e := engineEnv(t)
	limit := kafka.DefaultMaxMessageBytes
	if e.cfg.MaxMessageBytes != 0 {
		limit = e.cfg.MaxMessageBytes
	}
	// sized returns a document whose record has exactly size bytes.
	sized := func(id, topic string, meta schemas.Meta, size int) schemas.Document {
		t.Helper()
		base, err := kafka.EncodedSize(topic, doc(id, "x"), meta)
		if err != nil {
			t.Fatal(err)
		}
		d := doc(id, strings.Repeat("x", size-base+1))
		if got, err := kafka.EncodedSize(topic, d, meta); err != nil || got != size {
			t.Fatalf("document of %d bytes: %d, %v", size, got, err)
		}
		return d
	}
	metaOf := func(id string) schemas.Meta {
		return schemas.Meta{EventID: "ev-" + id, TraceID: "tr-" + id, Tenant: "acme"}
	}
	atLimit := sized("big", e.in, metaOf("big"), limit)
	overLimit := sized("huge", e.in, metaOf("huge"), limit+1)

	ctx, cancel := context.WithTimeout(context.Background(), e.patience)
	defer cancel()
	err := e.prod.Publish(ctx, kafka.Record{Topic: e.in, Msg: overLimit, Meta: metaOf("huge")})
	if err == nil || !errors.Is(err, schemas.ErrInvalid) || !strings.Contains(err.Error(), "exceeds the limit") {
		t.Fatalf("publish of a record one byte over the limit = %v, want an error saying it exceeds the limit", err)
	}
	if err := e.prod.Publish(ctx, kafka.Record{Topic: e.in, Msg: atLimit, Meta: metaOf("big")}); err != nil {
		t.Fatalf("publish of a record at the limit: %v", err)
	}
	e.publish(doc("grow", "ok"), doc("small", "ok"))

	// The stage echoes big as it is (same event id, so the output has the
	// input's size), makes of grow an output one byte over the limit, and
	// echoes small.
	grown := sized("grow", e.out, metaOf("grow"), limit+1)
	h := func(_ context.Context, ins []pipeline.Input) ([][]pipeline.Output, error) {
		out := make([][]pipeline.Output, len(ins))
		for i, in := range ins {
			d := in.Msg.(schemas.Document)
			switch d.DocID {
			case "grow":
				out[i] = []pipeline.Output{{Topic: e.out, Msg: grown, EventID: in.Meta.EventID}}
			default:
				out[i] = []pipeline.Output{{Topic: e.out, Msg: d, EventID: in.Meta.EventID}}
			}
		}
		return out, nil
	}
	r := e.run(h, kafka.Options{})
	e.waitIdle()
	if err := r.stop(); err != nil {
		t.Fatalf("run: %v", err)
	}
	outs := e.readAll(e.out)
	got := map[string]int{}
	for _, m := range outs {
		msg, _, err := schemas.Decode(headersOf(m), m.Value)
		if err != nil {
			t.Fatalf("decode output: %v", err)
		}
		got[msg.(schemas.Document).DocID] = len(msg.(schemas.Document).Text)
	}
	if len(outs) != 2 || got["big"] != len(atLimit.Text) || got["small"] != 2 {
		t.Errorf("outputs %v, want big (text of %d bytes) and small once each", got, len(atLimit.Text))
	}
	if n := len(e.readAll(e.in)); n != 3 {
		t.Errorf("%d inputs on %s, want big, grow and small", n, e.in)
	}
	dead := e.readAll(topology.DLT(e.in))
	if len(dead) != 1 || header(dead[0], schemas.HeaderEventID) != "ev-grow" || !strings.Contains(header(dead[0], kafka.HeaderDLTError), "exceeds the limit") {
		t.Fatalf("want grow dead-lettered for an output over the limit, got %d dead letters", len(dead))
	}
}
