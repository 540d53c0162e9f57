package cli_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/infra/broker"
	"github.com/annalist-dev/annalist/infra/kafka"
	"github.com/annalist-dev/annalist/infra/redisdb"
	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
	"github.com/annalist-dev/annalist/internal/wiring/app"
	"github.com/annalist-dev/annalist/internal/wiring/cli"
)

// stageRun is one stage of a registry run by `annalist consume` (the
// command's own code) against a fresh broker, with every topic applied,
// and a fresh redis-server, as a separate deployment would run it.
type stageRun struct {
	kafka    kafka.Config
	redis    redisdb.Config
	conn     []string // the flags that join the broker and redis-server
	producer *kafka.Producer
	consumed chan error    // what consume returned
	stderr   *bytes.Buffer // consume's stderr
	stop     context.CancelFunc
}

func runStage(ctx context.Context, t *testing.T, reg app.Registry, name string) *stageRun {
	t.Helper()
	b, err := broker.Start(ctx, broker.Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	rs := redistest.Server(t)
	if _, stderr, code := run(t, "topology", "apply", "--brokers", b.Addrs()[0]); code != 0 {
		t.Fatalf("topology apply: exit %d %s", code, stderr)
	}
	r := &stageRun{
		kafka:    kafka.Config{Brokers: b.Addrs()},
		redis:    redisdb.Config{Addr: rs.Addr()},
		conn:     []string{"--brokers", b.Addrs()[0], "--redis-addr", rs.Addr(), "--data-dir", t.TempDir(), "--log-level", "warn"},
		consumed: make(chan error, 1),
		stderr:   &bytes.Buffer{},
	}
	consumeCtx, stop := context.WithCancel(ctx)
	r.stop = stop
	t.Cleanup(stop)
	go func() {
		r.consumed <- cli.Consume(consumeCtx, cli.IO{Stdin: strings.NewReader(""), Stdout: &bytes.Buffer{}, Stderr: r.stderr},
			append([]string{name}, r.conn...), reg)
	}()
	r.producer = kafka.NewProducer(r.kafka)
	t.Cleanup(func() { _ = r.producer.Close() })
	return r
}
