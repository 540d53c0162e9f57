package cli_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/annalist-dev/annalist/infra/broker"
	"github.com/annalist-dev/annalist/infra/kafka"
	"github.com/annalist-dev/annalist/infra/redisdb"
	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
	"github.com/annalist-dev/annalist/topology"
)

// `annalist generate timeline X` names a kind this process has not
// registered: it exits 1 with the registry's message, and nothing was
// recorded or published (no request status in Redis, no record on the
// requests topic).
func TestGenerateRefusesAnUnregisteredKind(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := broker.Start(ctx, broker.Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	rs := redistest.Server(t)
	common := []string{"--brokers", b.Addrs()[0], "--redis-addr", rs.Addr(), "--data-dir", t.TempDir(), "--log-level", "error"}

	for _, args := range [][]string{{"timeline", "翰林院"}} {
		_, stderr, code := run(t, append(append([]string{"generate"}, args...), common...)...)
		const want = "kind timeline is not registered (registered: answer, biography, discussion_summary, topic_page)"
		if code != 1 || !strings.Contains(stderr, want) {
			t.Fatalf("generate %s: exit %d, stderr %q; want exit 1 saying %q", strings.Join(args, " "), code, stderr, want)
		}
	}

	c, err := redisdb.Connect(ctx, redisdb.Config{Addr: rs.Addr()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if keys, err := c.Keys(ctx, "req:*").Result(); err != nil || len(keys) != 0 {
		t.Fatalf("request statuses after the refusal: %v, %v; want none", keys, err)
	}
	// The command created the topics when it opened the app, so the
	// requests topic exists and its high watermarks say what was produced.
	lag, err := kafka.Lag(ctx, kafka.Config{Brokers: b.Addrs()}, "", []string{topology.Requests})
	if err != nil || len(lag) == 0 {
		t.Fatalf("offsets of the requests topic: %v, %v", lag, err)
	}
	for _, p := range lag {
		if p.End != 0 {
			t.Fatalf("requests partition %d holds %d records after the refusal", p.Partition, p.End)
		}
	}
}
