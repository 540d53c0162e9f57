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

	kafkago "github.com/segmentio/kafka-go"

	"github.com/annalist-dev/annalist/infra/kafka"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
)

// The contract suite: the delivery guarantees of ARCHITECTURE.md §10, against the
// kfake broker over TCP and a real redis-server holding the seen: markers.
// Each contract is a function of the env's constructor: TestContract…
// runs it on kfake (newEnv), and the engines suite (engines_test.go) runs
// the same function on a real Kafka broker.

// envMaker makes a test's env: newEnv on kfake, or an env on a real
// broker.
type envMaker func(t testing.TB) *env

func TestContractRedeliveryHasOneSideEffect(t *testing.T) {
	contractRedeliveryHasOneSideEffect(t, newEnv)
}

func TestContractPoisonGoesToDLT(t *testing.T) { contractPoisonGoesToDLT(t, newEnv) }

func TestContractCrashBetweenProduceAndCommit(t *testing.T) {
	contractCrashBetweenProduceAndCommit(t, newEnv)
}

func TestContractShutdownMidStreamLosesNothing(t *testing.T) {
	contractShutdownMidStreamLosesNothing(t, newEnv)
}

func TestContractNoGoroutineLeak(t *testing.T) { contractNoGoroutineLeak(t, newEnv) }

// (a) A redelivered message produces exactly one side effect: the same
// event published again, both within one batch and after the first copy
// was finished, is handled once.
func contractRedeliveryHasOneSideEffect(t *testing.T, newEnv envMaker) {
	e := newEnv(t)
	fx := e.newEffects()
	col := &collector{}
	// The same event three times in a row: the copies share a partition
	// (same key) and arrive in one fetch.
	e.publish(doc("dup", "ok"), doc("dup", "ok"), doc("dup", "ok"))
	e.publish(docs("a", 20)...)
	r := e.run(fx.handle, kafka.Options{Deduper: e.seen, Observer: col})
	e.waitIdle()
	// Redelivery after the first copy was finished and committed: only the
	// seen: marker can catch it.
	e.publish(doc("dup", "ok"), doc("a-3", "ok"))
	e.waitIdle()
	if err := r.stop(); err != nil {
		t.Fatalf("run: %v", err)
	}

	for _, id := range []string{"ev-dup", "ev-a-0", "ev-a-3", "ev-a-19"} {
		if n := e.sideEffects(id); n != 1 {
			t.Errorf("side effects of %s = %d, want 1", id, n)
		}
	}
	count, _ := outputsByDoc(t, e.readAll(e.out))
	if count["dup"] != 1 || count["a-3"] != 1 || len(count) != 21 {
		t.Errorf("outputs: dup=%d a-3=%d distinct=%d, want 1, 1, 21", count["dup"], count["a-3"], len(count))
	}
	tot := col.total()
	if tot.Skipped != 4 || tot.Handled != 21 {
		t.Errorf("stats: skipped %d handled %d, want 4 and 21", tot.Skipped, tot.Handled)
	}
}

// (b) Poison messages land in the DLT with their headers, and the stage
// goes on with the next messages. Only what can never succeed is poison:
// an input failing with transient errors ("flaky", its backend down for
// two calls) is retried until it succeeds and is handled, not
// dead-lettered. (This test used to expect an input failing transiently on
// every call in the DLT after RetryAttempts calls; a transient error now
// pauses the stage instead, which TestTransientErrorPausesTheStage
// covers.)
func contractPoisonGoesToDLT(t *testing.T, newEnv envMaker) {
	e := newEnv(t)
	fx := e.newEffects()
	e.publish(doc("good-1", "ok"))
	key := []byte("poison")
	e.publishRaw(
		// Headers fine, value not JSON.
		kafkago.Message{Topic: e.in, Key: key, Value: []byte("{not json"), Headers: []kafkago.Header{
			{Key: schemas.HeaderType, Value: []byte(schemas.TypeDocument)},
			{Key: schemas.HeaderSchemaVersion, Value: []byte("1")},
			{Key: schemas.HeaderEventID, Value: []byte("ev-garbage")},
		}},
		// A schema version this build does not know.
		kafkago.Message{Topic: e.in, Key: key, Value: []byte(`{"doc_id":"v9","text":"x"}`), Headers: []kafkago.Header{
			{Key: schemas.HeaderType, Value: []byte(schemas.TypeDocument)},
			{Key: schemas.HeaderSchemaVersion, Value: []byte("9")},
			{Key: schemas.HeaderEventID, Value: []byte("ev-v9")},
		}},
	)
	e.publish(doc("refused", "permanent"), doc("good-2", "ok"), doc("down", "flaky"), doc("good-3", "ok"))
	r := e.run(fx.handle, kafka.Options{Deduper: e.seen})
	e.waitIdle()
	// The stage is still consuming after the poison.
	e.publish(doc("good-4", "ok"))
	e.waitIdle()
	if err := r.stop(); err != nil {
		t.Fatalf("run: %v", err)
	}

	for _, id := range []string{"ev-good-1", "ev-good-2", "ev-good-3", "ev-good-4", "ev-down"} {
		if n := e.sideEffects(id); n != 1 {
			t.Errorf("side effects of %s = %d, want 1", id, n)
		}
	}
	originals := map[string]kafkago.Message{}
	for _, m := range e.readAll(e.in) {
		originals[header(m, schemas.HeaderEventID)] = m
	}
	dead := e.readAll(topology.DLT(e.in))
	want := map[string]struct {
		permanent bool
		attempts  int
		errText   string
	}{
		"ev-garbage": {true, 0, "decode"},
		"ev-v9":      {true, 0, "unknown schema version"},
		"ev-refused": {true, 1, "document refused is refused"},
	}
	if len(dead) != len(want) {
		t.Fatalf("%d dead letters, want %d", len(dead), len(want))
	}
	for _, d := range dead {
		id := header(d, schemas.HeaderEventID)
		w, ok := want[id]
		if !ok {
			t.Errorf("unexpected dead letter %s", id)
			continue
		}
		orig := originals[id]
		checks := []struct{ name, got, want string }{
			{kafka.HeaderDLTTopic, header(d, kafka.HeaderDLTTopic), e.in},
			{kafka.HeaderDLTPartition, header(d, kafka.HeaderDLTPartition), strconv.Itoa(orig.Partition)},
			{kafka.HeaderDLTOffset, header(d, kafka.HeaderDLTOffset), strconv.FormatInt(orig.Offset, 10)},
			{kafka.HeaderDLTGroup, header(d, kafka.HeaderDLTGroup), e.stage.Group()},
			{kafka.HeaderDLTAttempts, header(d, kafka.HeaderDLTAttempts), strconv.Itoa(w.attempts)},
			{kafka.HeaderDLTPermanent, header(d, kafka.HeaderDLTPermanent), strconv.FormatBool(w.permanent)},
			{"key", string(d.Key), string(orig.Key)},
			{"value", string(d.Value), string(orig.Value)},
			{schemas.HeaderType, header(d, schemas.HeaderType), header(orig, schemas.HeaderType)},
		}
		for _, c := range checks {
			if c.got != c.want {
				t.Errorf("dead letter %s: %s = %q, want %q", id, c.name, c.got, c.want)
			}
		}
		if got := header(d, kafka.HeaderDLTError); !strings.Contains(got, w.errText) {
			t.Errorf("dead letter %s: error %q does not mention %q", id, got, w.errText)
		}
		if n := e.sideEffects(id); n != 0 {
			t.Errorf("dead-lettered %s had %d side effects", id, n)
		}
	}
}

// (c) A crash between produce and commit causes reprocessing by the next
// member of the group, never loss. Crashing after the seen: markers are
// set, side effects stay exactly once; crashing before, the handler runs
// again and its outputs repeat with the same event ids, so downstream
// deduplication collapses them.
func contractCrashBetweenProduceAndCommit(t *testing.T, newEnv envMaker) {
	for _, tc := range []struct {
		point       string
		exactlyOnce bool
	}{
		{kafka.PointBeforeCommit, true},
		{kafka.PointAfterProduce, false},
	} {
		t.Run(tc.point, func(t *testing.T) {
			e := newEnv(t)
			fx := e.newEffects()
			inputs := docs("c", 30)
			e.publish(inputs...)

			crash := errors.New("simulated crash")
			var crashed atomic.Bool
			opts := kafka.WithCrash(kafka.Options{Deduper: e.seen}, func(point string) error {
				if point == tc.point && !crashed.Swap(true) {
					return crash
				}
				return nil
			})
			if err := e.run(fx.handle, opts).wait(e.patience); !errors.Is(err, crash) {
				t.Fatalf("first runner returned %v, want the crash", err)
			}
			firstCalls := fx.callsSnapshot()
			if len(firstCalls) == 0 {
				t.Fatal("the first runner handled nothing before crashing")
			}

			r := e.run(fx.handle, kafka.Options{Deduper: e.seen})
			e.waitIdle()
			if err := r.stop(); err != nil {
				t.Fatalf("second run: %v", err)
			}

			count, eventIDs := outputsByDoc(t, e.readAll(e.out))
			reprocessed := 0
			for _, d := range inputs {
				id := "ev-" + d.DocID
				if count[d.DocID] == 0 {
					t.Errorf("input %s lost: no output", d.DocID)
				}
				if len(eventIDs[d.DocID]) != 1 {
					t.Errorf("outputs of %s carry %d event ids (%s), want 1", d.DocID, len(eventIDs[d.DocID]), joinIDs(eventIDs[d.DocID]))
				}
				n := e.sideEffects(id)
				if tc.exactlyOnce && (n != 1 || count[d.DocID] != 1) {
					t.Errorf("%s: %d side effects, %d outputs, want exactly 1 of each", d.DocID, n, count[d.DocID])
				}
				if n > 1 {
					reprocessed++
				}
			}
			if !tc.exactlyOnce && reprocessed == 0 {
				t.Errorf("no input was handled again after a crash before the markers: the batch was not redelivered")
			}
		})
	}
}

// (d) Shutting down mid-stream loses nothing: after a restart every input
// has its output, and a clean drain duplicates nothing either.
func contractShutdownMidStreamLosesNothing(t *testing.T, newEnv envMaker) {
	e := newEnv(t)
	fx := e.newEffects()
	const total = 300
	var handled atomic.Int64
	midway := make(chan struct{})
	fx.onHandled = func(n int) {
		if handled.Add(int64(n)) >= 40 {
			select {
			case <-midway:
			default:
				close(midway)
			}
		}
	}
	inputs := docs("s", total)
	published := make(chan struct{})
	go func() {
		defer close(published)
		for i := 0; i < total; i += 10 {
			e.publish(inputs[i : i+10]...)
			time.Sleep(2 * time.Millisecond)
		}
	}()

	r := e.run(fx.handle, kafka.Options{Deduper: e.seen})
	select {
	case <-midway:
	case <-time.After(e.patience):
		t.Fatal("the stage never got going")
	}
	if err := r.stop(); err != nil {
		t.Fatalf("drain: %v", err)
	}
	atStop := handled.Load()
	<-published
	t.Logf("handled %d of %d inputs before the shutdown", atStop, total)

	r2 := e.run(fx.handle, kafka.Options{Deduper: e.seen})
	e.waitIdle()
	if err := r2.stop(); err != nil {
		t.Fatalf("second run: %v", err)
	}
	count, _ := outputsByDoc(t, e.readAll(e.out))
	for _, d := range inputs {
		if n := e.sideEffects("ev-" + d.DocID); n != 1 || count[d.DocID] != 1 {
			t.Errorf("%s: %d side effects and %d outputs, want 1 and 1", d.DocID, n, count[d.DocID])
		}
	}
}

// (e) No goroutine outlives Run, the Producer or the admin calls.
func contractNoGoroutineLeak(t *testing.T, newEnv envMaker) {
	e := newEnv(t)
	fx := e.newEffects()
	baseline := settledGoroutines()

	p := kafka.NewProducer(e.cfg)
	ctx, cancel := context.WithTimeout(context.Background(), e.patience)
	defer cancel()
	recs := make([]kafka.Record, 50)
	for i := range recs {
		d := doc(fmt.Sprintf("l-%d", i), "ok")
		recs[i] = kafka.Record{Topic: e.in, Msg: d, Meta: schemas.Meta{EventID: "ev-" + d.DocID}}
	}
	if err := p.Publish(ctx, recs...); err != nil {
		t.Fatalf("publish: %v", err)
	}
	r := e.run(fx.handle, kafka.Options{Deduper: e.seen})
	e.waitIdle()
	if err := r.stop(); err != nil {
		t.Fatalf("run: %v", err)
	}
	if err := p.Close(); err != nil {
		t.Fatalf("close producer: %v", err)
	}
	if _, err := kafka.Lag(ctx, e.cfg, e.stage.Group(), e.stage.Reads); err != nil {
		t.Fatalf("lag: %v", err)
	}
	if n := e.sideEffects("ev-l-49"); n != 1 {
		t.Fatalf("the stage did not run: %d side effects", n)
	}
	checkNoLeak(t, baseline)
}

var _ pipeline.BatchHandler = (*effects)(nil).handle
