package app_test

import (
	"context"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
	"github.com/annalist-dev/annalist/internal/wiring/app"
)

// TestEmbeddedRedisIsSupervised: when the embedded redis-server keeps
// dying under an open App, readiness fails; once it stays up, the
// supervisor's restart on the same address and AOF makes readiness recover
// with the data there; Close leaves no redis-server on the data directory.
func TestEmbeddedRedisIsSupervised(t *testing.T) {
	redistest.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir := t.TempDir()
	redistest.KillServersInAtCleanup(t, dir)
	a, err := app.Open(ctx, app.Config{DataDir: dir}, zerolog.Nop(), app.Needs{Redis: true})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if err := a.Ready(ctx); err != nil {
		t.Fatalf("not ready after Open: %v", err)
	}
	if err := a.Redis.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	pids := redistest.ServersIn(t, filepath.Join(dir, "redis"))
	if len(pids) != 1 {
		t.Fatalf("redis-servers on the data directory: %v, want 1", pids)
	}
	// A single death is bridged by the client's retries (the restart takes
	// about 100 ms); killing every restarted server makes the supervisor
	// back off until the outage is long enough to be seen.
	stop := make(chan struct{})
	killed := make(chan int)
	go func() {
		n := 0
		defer func() { killed <- n }()
		for {
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
			for _, pid := range redistest.ServersIn(t, dir) {
				if syscall.Kill(pid, syscall.SIGKILL) == nil {
					n++
				}
			}
		}
	}()
	down := time.Now()
	for a.Ready(ctx) == nil {
		if ctx.Err() != nil {
			close(stop)
			t.Fatalf("still ready after %d kills of redis-server", <-killed)
		}
		time.Sleep(5 * time.Millisecond)
	}
	close(stop)
	t.Logf("not ready after %d kills in %s", <-killed, time.Since(down).Round(10*time.Millisecond))
	down = time.Now()
	for a.Ready(ctx) != nil {
		if ctx.Err() != nil {
			t.Fatal("not ready again after the restart")
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("ready again %s later", time.Since(down).Round(10*time.Millisecond))
	if got, err := a.Redis.Get(ctx, "k").Result(); err != nil || got != "v" {
		t.Fatalf("after the restart: %q, %v", got, err)
	}
	if now := redistest.ServersIn(t, dir); len(now) != 1 || now[0] == pids[0] {
		t.Fatalf("redis-servers after the restart: %v (killed %d)", now, pids[0])
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if left := redistest.ServersIn(t, dir); len(left) != 0 {
		t.Fatalf("redis-servers left after Close: %v", left)
	}
}
