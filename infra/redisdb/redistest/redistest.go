// Package redistest gives tests a real, isolated redis-server: a child
// process on a free loopback port with its data in the test's temporary
// directory, stopped when the test ends.
package redistest

import (
	"context"
	"os/exec"
	"testing"

	"github.com/rs/zerolog"

	"github.com/annalist-dev/annalist/infra/redisdb"
)

// Require fails the test when redis-server is not on PATH: the project's
// tests run against the real server (.ci/run installs it), never skip it
// and never fall back to a double. Every test that needs the binary, not
// only a client, calls this one check.
func Require(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Fatalf("redis-server is not on PATH (install it: apt-get install -y redis-server): %v", err)
	}
}

// Server starts an isolated redis-server for t and returns it; see Require.
func Server(t testing.TB) *redisdb.Server {
	t.Helper()
	return ServerIn(t, t.TempDir())
}

// ServerIn is Server with the data directory chosen by the caller, so a
// test can restart a server on the same AOF.
func ServerIn(t testing.TB, dir string) *redisdb.Server {
	t.Helper()
	Require(t)
	s, err := redisdb.StartEmbedded(context.Background(), dir, zerolog.Nop())
	if err != nil {
		t.Fatalf("start redis-server: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// Client starts an isolated redis-server and returns a client to it.
func Client(t testing.TB) redisdb.Client {
	t.Helper()
	s := Server(t)
	c, err := redisdb.Connect(context.Background(), redisdb.Config{Addr: s.Addr()})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}
