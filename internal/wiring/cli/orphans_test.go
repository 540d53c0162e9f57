package cli_test

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
)

// The tests below hold every command to one rule: no redis-server outlives
// the annalist process that started it, however that process ends. They
// find redis-servers by the data directory in their command line (see
// redistest.ServersIn), so a redis-server of anyone else is never counted
// or touched.

// freeAddr is a loopback host:port nobody listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// waitReady waits until the API on addr answers /readyz with 200.
func waitReady(t *testing.T, ctx context.Context, addr string, c *child) {
	t.Helper()
	for {
		resp, err := http.Get("http://" + addr + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if ctx.Err() != nil {
			t.Fatalf("serve on %s not ready: %v\n%s", addr, err, c.stderr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// runToExit runs a command line in a child annalist process to its end
// and returns its stdout, stderr and exit code.
func runToExit(t *testing.T, timeout time.Duration, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childArgs+"="+strings.Join(args, "\x1f"))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("%s did not end within %s:\n%s", args, timeout, errb.String())
	}
	code := 0
	if err != nil {
		exit, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatal(err)
		}
		code = exit.ExitCode()
	}
	return out.String(), errb.String(), code
}

// TestServeKilledLeavesNoRedisServer: kill -9 of serve leaves no
// redis-server on its data directory after 3 s, and the next serve on the
// directory runs exactly one.
func TestServeKilledLeavesNoRedisServer(t *testing.T) {
	redistest.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	data := t.TempDir()
	redistest.KillServersInAtCleanup(t, data)
	for round := 1; round <= 2; round++ {
		addr := freeAddr(t)
		c := startChild(t, "serve", "--addr", addr, "--data-dir", data, "--log-level", "warn")
		waitReady(t, ctx, addr, c)
		if pids := redistest.ServersIn(t, data); len(pids) != 1 {
			t.Fatalf("round %d: %d redis-servers on the data directory (%v), want exactly 1", round, len(pids), pids)
		}
		if err := c.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		_ = c.cmd.Wait()
		if pids := redistest.WaitNoServersIn(t, data, 3*time.Second); len(pids) != 0 {
			t.Fatalf("round %d: redis-servers %v still on the data directory 3s after kill -9 of serve", round, pids)
		}
	}
}

// TestCommandsLeaveNoRedisServer: every command that starts the embedded
// services leaves no redis-server behind when it exits.
func TestCommandsLeaveNoRedisServer(t *testing.T) {
	redistest.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	data := t.TempDir()
	redistest.KillServersInAtCleanup(t, data)
	commands := [][]string{
		{"ingest", "../demo/corpus"},
		{"retrieve", "陆文渊"},
		{"kg", "show", "陆文渊"},
		{"generate", "biography", "陆文渊"},
	}
	for _, args := range commands {
		out, errs, code := runToExit(t, time.Minute, append(args, "--data-dir", data, "--log-level", "warn")...)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s\n%s", args, code, out, errs)
		}
		t.Logf("%s: %.200s", args, out)
		if pids := redistest.ServersIn(t, data); len(pids) != 0 {
			t.Fatalf("%s left redis-servers %v on the data directory", args, pids)
		}
	}

	demoData := t.TempDir()
	redistest.KillServersInAtCleanup(t, demoData)
	if out, errs, code := runToExit(t, 2*time.Minute, "demo", "--once", "--addr", freeAddr(t), "--data-dir", demoData, "--log-level", "warn"); code != 0 {
		t.Fatalf("demo --once: exit %d\n%.2000s\n%s", code, out, errs)
	}
	if pids := redistest.ServersIn(t, demoData); len(pids) != 0 {
		t.Fatalf("demo --once left redis-servers %v on the data directory", pids)
	}

	addr := freeAddr(t)
	c := startChild(t, "serve", "--addr", addr, "--data-dir", data, "--log-level", "warn")
	waitReady(t, ctx, addr, c)
	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := c.cmd.Wait(); err != nil {
		t.Fatalf("serve after SIGTERM: %v\n%s", err, c.stderr)
	}
	if pids := redistest.ServersIn(t, data); len(pids) != 0 {
		t.Fatalf("serve left redis-servers %v on the data directory", pids)
	}
	if _, err := os.Stat(filepath.Join(data, "redis", "redis.pid")); !os.IsNotExist(err) {
		t.Fatalf("pid file left after serve exited: %v", err)
	}
}
