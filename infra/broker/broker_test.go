package broker_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/annalist-dev/annalist/internal/kit/logging/logtest"

	"github.com/rs/zerolog"

	"github.com/annalist-dev/annalist/infra/broker"
	"github.com/annalist-dev/annalist/infra/kafka"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
)

// childEnv makes the test binary run a broker instead of the tests (see
// TestMain), so a test can kill it with SIGKILL.
const childEnv = "ANNALIST_BROKER_TEST_CHILD_DIR"

func TestMain(m *testing.M) {
	if dir := os.Getenv(childEnv); dir != "" {
		b, err := broker.Start(context.Background(), broker.Config{DataDir: dir})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println(b.Addrs()[0])
		select {} // until killed
	}
	os.Exit(m.Run())
}

// sink is a stage with no outputs that counts what it handles.
var sink = topology.Stage{Name: "broker-test", Reads: []string{topology.Documents}}

func kafkaConfig(b *broker.Broker) kafka.Config {
	return kafka.Config{
		Brokers:           b.Addrs(),
		SessionTimeout:    2 * time.Second,
		HeartbeatInterval: 100 * time.Millisecond,
		RebalanceTimeout:  2 * time.Second,
	}
}

func publish(t *testing.T, cfg kafka.Config, from, to int) {
	t.Helper()
	p := kafka.NewProducer(cfg)
	defer p.Close()
	var recs []kafka.Record
	for i := from; i < to; i++ {
		d := schemas.Document{DocID: fmt.Sprintf("doc-%d", i), Source: "test", Text: fmt.Sprintf("text %d", i)}
		recs = append(recs, kafka.Record{Topic: topology.Documents, Msg: d, Meta: schemas.Meta{EventID: d.DocID}})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.Publish(ctx, recs...); err != nil {
		t.Fatalf("publish: %v", err)
	}
}

// consume runs the sink stage until its group has caught up and returns
// the documents it handled.
func consume(t *testing.T, cfg kafka.Config) []string {
	t.Helper()
	var handled []string
	h := pipeline.Batch(func(_ context.Context, in pipeline.Input) ([]pipeline.Output, error) {
		handled = append(handled, in.Msg.(schemas.Document).DocID)
		return nil, nil
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- kafka.Run(ctx, cfg, sink, h, kafka.Options{}) }()
	wctx, wcancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer wcancel()
	err := kafka.WaitIdle(wctx, cfg, sink)
	cancel()
	if rerr := <-done; rerr != nil {
		t.Fatalf("run: %v", rerr)
	}
	if err != nil {
		t.Fatalf("wait idle: %v", err)
	}
	return handled
}

// lag sums the sink group's lag and committed offsets on documents.
func lag(t *testing.T, cfg kafka.Config) (lag, committed, end int64) {
	t.Helper()
	ls, err := kafka.Lag(context.Background(), cfg, sink.Group(), sink.Reads)
	if err != nil {
		t.Fatalf("lag: %v", err)
	}
	for _, l := range ls {
		lag += l.Lag()
		committed += max(l.Committed, 0)
		end += l.End
	}
	return lag, committed, end
}

// The broker's state survives a restart: the records, the topics and the
// group's committed offsets are read back from the data directory, and the
// group resumes exactly where it stopped.
func TestStateSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	b, err := broker.Start(ctx, broker.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	cfg := kafkaConfig(b)
	publish(t, cfg, 0, 6)
	if got := consume(t, cfg); len(got) != 6 {
		t.Fatalf("first run handled %d documents, want 6", len(got))
	}
	publish(t, cfg, 6, 10) // published, not consumed
	if l, c, e := lag(t, cfg); l != 4 || c != 6 || e != 10 {
		t.Fatalf("before restart: lag %d committed %d end %d, want 4, 6, 10", l, c, e)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}

	b2, err := broker.Start(ctx, broker.Config{DataDir: dir})
	if err != nil {
		t.Fatalf("restart: %v", err)
	}
	defer b2.Close()
	cfg = kafkaConfig(b2)
	if l, c, e := lag(t, cfg); l != 4 || c != 6 || e != 10 {
		t.Fatalf("after restart: lag %d committed %d end %d, want 4, 6, 10", l, c, e)
	}
	got := consume(t, cfg)
	slices.Sort(got)
	if want := []string{"doc-6", "doc-7", "doc-8", "doc-9"}; !slices.Equal(got, want) {
		t.Fatalf("after restart the group handled %v, want exactly %v, the documents it had not finished", got, want)
	}
}

// Killing the broker process (no Close, no final snapshot) loses no
// acknowledged record and no committed offset.
func TestStateSurvivesKill(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("child broker did not start: %v: %s", err, stderr.String())
	}
	cfg := kafka.Config{Brokers: []string{strings.TrimSpace(line)}, SessionTimeout: 2 * time.Second, HeartbeatInterval: 100 * time.Millisecond, RebalanceTimeout: 2 * time.Second}
	publish(t, cfg, 0, 5)
	if got := consume(t, cfg); len(got) != 5 {
		t.Fatalf("handled %d documents, want 5", len(got))
	}
	publish(t, cfg, 5, 8)
	if err := cmd.Process.Signal(os.Kill); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()

	b, err := broker.Start(context.Background(), broker.Config{DataDir: dir})
	if err != nil {
		t.Fatalf("restart after kill: %v", err)
	}
	defer b.Close()
	if l, c, e := lag(t, kafkaConfig(b)); l != 3 || c != 5 || e != 8 {
		t.Fatalf("after kill -9: lag %d committed %d end %d, want 3, 5, 8", l, c, e)
	}
}

func TestDataDirIsExclusive(t *testing.T) {
	dir := t.TempDir()
	b, err := broker.Start(context.Background(), broker.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, err := broker.Start(context.Background(), broker.Config{DataDir: dir}); !errors.Is(err, broker.ErrDataDirInUse) {
		t.Fatalf("second broker on the same dir: %v, want ErrDataDirInUse", err)
	}
}

// Start creates every topic of the topology and its dead-letter topic.
func TestStartCreatesTopology(t *testing.T) {
	b, err := broker.Start(context.Background(), broker.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	cfg := kafka.Config{Brokers: b.Addrs()}
	for _, tp := range topology.Topics() {
		for name, parts := range map[string]int{tp.Name: tp.Partitions, topology.DLT(tp.Name): topology.DLTPartitions} {
			ls, err := kafka.Lag(context.Background(), cfg, "nobody", []string{name})
			if err != nil {
				t.Fatalf("topic %s: %v", name, err)
			}
			if len(ls) != parts {
				t.Errorf("topic %s: %d partitions, want %d", name, len(ls), parts)
			}
		}
	}
	if a := b.Addrs()[0]; !strings.HasPrefix(a, "127.0.0.1:") {
		t.Errorf("broker listens on %s, want loopback", a)
	}
}

// Serve logs its address, runs until the context ends and then stops.
func TestServe(t *testing.T) {
	var logs logtest.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- broker.Serve(ctx, broker.Config{DataDir: t.TempDir(), Logger: zerolog.New(&logs)}) }()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(logs.String(), "broker listening") {
		if time.Now().After(deadline) {
			t.Fatalf("no listening log: %s", logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.Contains(logs.String(), `"addrs":["127.0.0.1:`) {
		t.Errorf("listening log without the address: %s", logs.String())
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop")
	}
}

func TestConfigValidate(t *testing.T) {
	for _, c := range []broker.Config{{Addr: "nope"}, {Addr: "127.0.0.1:99999"}, {MaxMessageBytes: -1}} {
		if err := c.Validate(); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
	if err := (broker.Config{Addr: "127.0.0.1:9092"}).Validate(); err != nil {
		t.Error(err)
	}
}

// Closing the broker and its clients leaves no goroutine behind.
func TestNoGoroutineLeak(t *testing.T) {
	before := runtime.NumGoroutine()
	b, err := broker.Start(context.Background(), broker.Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	cfg := kafkaConfig(b)
	publish(t, cfg, 0, 20)
	if got := consume(t, cfg); len(got) != 20 {
		t.Fatalf("handled %d documents, want 20", len(got))
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines after Close, %d before:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(50 * time.Millisecond)
	}
}
