package redisdb_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/annalist-dev/annalist/infra/redisdb"
	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
	"github.com/annalist-dev/annalist/schemas"
)

func TestEmbeddedServerKeepsDataAcrossRestart(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := redistest.ServerIn(t, dir)
	if !s.Persistent() {
		t.Fatal("child redis-server should report persistence")
	}
	c, err := redisdb.Connect(ctx, redisdb.Config{Addr: s.Addr()})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	_ = c.Close()
	if err := s.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}

	s2 := redistest.ServerIn(t, dir)
	c2, err := redisdb.Connect(ctx, redisdb.Config{Addr: s2.Addr()})
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	got, err := c2.Get(ctx, "k").Result()
	if err != nil || got != "v" {
		t.Fatalf("after restart got %q, %v; want v", got, err)
	}
}

// childEnv makes the test binary start an embedded server in the directory
// it names, print the child's pid and wait to be killed (see TestMain).
const childEnv = "ANNALIST_REDIS_TEST_CHILD_DIR"

func TestMain(m *testing.M) {
	// Keep the main thread to the main goroutine, so a test goroutine that
	// locks its thread and returns makes the runtime exit that thread (the
	// main thread itself is never exited).
	runtime.LockOSThread()
	if dir := os.Getenv(childEnv); dir != "" {
		s, err := redisdb.StartEmbedded(context.Background(), dir, zerolog.Nop())
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println(s.PID())
		select {} // until killed
	}
	os.Exit(m.Run())
}

// TestEmbeddedServerDiesWithItsOwner: kill -9 of the process that owns an
// embedded server leaves no redis-server on the directory.
func TestEmbeddedServerDiesWithItsOwner(t *testing.T) {
	redistest.Require(t)
	dir := t.TempDir()
	redistest.KillServersInAtCleanup(t, dir)
	owner := exec.Command(os.Args[0], "-test.run=^$")
	owner.Env = append(os.Environ(), childEnv+"="+dir)
	out, err := owner.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := owner.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = owner.Process.Kill(); _ = owner.Wait() }()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("the owner process printed no pid: %v", err)
	}
	if pids := redistest.ServersIn(t, dir); len(pids) != 1 || strconv.Itoa(pids[0])+"\n" != line {
		t.Fatalf("redis-servers on the directory: %v, want the owner's child %s", pids, line)
	}
	if err := owner.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = owner.Wait()
	if pids := redistest.WaitNoServersIn(t, dir, 3*time.Second); len(pids) != 0 {
		t.Fatalf("redis-servers left 3s after kill -9 of their owner: %v", pids)
	}
}

// TestEmbeddedServerOutlivesTheStartingThread: the child must not die when
// the OS thread that called StartEmbedded exits (Pdeathsig is tied to the
// forking thread; children are forked by the supervisor's own thread).
func TestEmbeddedServerOutlivesTheStartingThread(t *testing.T) {
	redistest.Require(t)
	type started struct {
		s   *redisdb.Server
		err error
	}
	ch := make(chan started, 1)
	go func() {
		// Returning while locked makes the runtime exit this thread.
		runtime.LockOSThread()
		s, err := redisdb.StartEmbedded(context.Background(), t.TempDir(), zerolog.Nop())
		ch <- started{s, err}
	}()
	st := <-ch
	if st.err != nil {
		t.Fatal(st.err)
	}
	s := st.s
	defer s.Close()
	pid := s.PID()
	time.Sleep(300 * time.Millisecond)
	c, err := redisdb.Connect(context.Background(), redisdb.Config{Addr: s.Addr()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Ping(context.Background()).Err(); err != nil || s.PID() != pid || s.Restarts() != 0 {
		t.Fatalf("after the starting thread exited: ping %v, pid %d (was %d), restarts %d", err, s.PID(), pid, s.Restarts())
	}
}

// TestEmbeddedServerIsRestartedAfterKill: kill -9 of the child
// redis-server makes the supervisor start another on the same port and
// AOF; the address refuses connections meanwhile; a client reconnects and
// finds what was written before the kill.
// Close then leaves no redis-server, no pid file and no goroutine behind.
func TestEmbeddedServerIsRestartedAfterKill(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	redistest.Require(t)
	goroutines := runtime.NumGoroutine()
	dir := t.TempDir()
	s, err := redisdb.StartEmbedded(ctx, dir, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c, err := redisdb.Connect(ctx, redisdb.Config{Addr: s.Addr()})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Set(ctx, "k", "before the kill", 0).Err(); err != nil {
		t.Fatal(err)
	}
	first := s.PID()
	if pids := redistest.ServersIn(t, dir); !slices.Equal(pids, []int{first}) {
		t.Fatalf("redis-servers on the directory: %v, want only the child %d", pids, first)
	}
	if err := syscall.Kill(first, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// The address refuses connections while the child is down (what
	// readiness checks see), then answers again.
	for {
		conn, err := net.DialTimeout("tcp", s.Addr(), 100*time.Millisecond)
		if err != nil {
			break
		}
		conn.Close()
		if ctx.Err() != nil {
			t.Fatal("the address kept accepting connections after the kill")
		}
		time.Sleep(5 * time.Millisecond)
	}
	for s.PID() == first || s.PID() == 0 {
		if ctx.Err() != nil {
			t.Fatal("the killed redis-server was not restarted")
		}
		time.Sleep(10 * time.Millisecond)
	}
	var got string
	for {
		got, err = c.Get(ctx, "k").Result()
		if err == nil || ctx.Err() != nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got != "before the kill" {
		t.Fatalf("after the restart got %q, %v", got, err)
	}
	// The supervisor counts the restart once the new child answers, which
	// the client may see first.
	for s.Restarts() == 0 && ctx.Err() == nil {
		time.Sleep(5 * time.Millisecond)
	}
	if s.Restarts() != 1 {
		t.Fatalf("restarts = %d, want 1", s.Restarts())
	}
	if pids := redistest.ServersIn(t, dir); !slices.Equal(pids, []int{s.PID()}) {
		t.Fatalf("redis-servers on the directory after the restart: %v, want only %d", pids, s.PID())
	}
	_ = c.Close()
	if err := s.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	if pids := redistest.ServersIn(t, dir); len(pids) != 0 {
		t.Fatalf("redis-servers left after Close: %v", pids)
	}
	if _, err := os.Stat(filepath.Join(dir, "redis.pid")); !os.IsNotExist(err) {
		t.Fatalf("pid file left after Close: %v", err)
	}
	waitGoroutines(t, goroutines)
}

// waitGoroutines fails unless the goroutine count comes back to at most
// want within a few seconds (the client's pool goroutines end a little
// after Close).
func waitGoroutines(t *testing.T, want int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > want {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines, want at most %d:\n%s", runtime.NumGoroutine(), want, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestEmbeddedServerStopsALeftover: a redis-server left running on the
// directory by a dead owner (here one started by hand, named by the pid
// file) is stopped before the new child starts, so exactly one runs on
// the AOF files; a pid file naming a process that is not a redis-server on
// the directory is removed without signalling it.
func TestEmbeddedServerStopsALeftover(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	redistest.Require(t)
	dir := t.TempDir()
	bin, _ := exec.LookPath("redis-server")
	orphan := exec.Command(bin, "--bind", "127.0.0.1", "--port", "0", "--dir", dir,
		"--appendonly", "yes", "--save", "", "--set-proc-title", "no", "--logfile", "orphan.log")
	if err := orphan.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- orphan.Wait() }()
	defer func() { _ = orphan.Process.Kill() }()
	if err := os.WriteFile(filepath.Join(dir, "redis.pid"), []byte(strconv.Itoa(orphan.Process.Pid)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for len(redistest.ServersIn(t, dir)) == 0 {
		if ctx.Err() != nil {
			t.Fatal("the hand-started redis-server does not show")
		}
		time.Sleep(10 * time.Millisecond)
	}

	s := redistest.ServerIn(t, dir)
	select {
	case <-exited:
	case <-ctx.Done():
		t.Fatal("the leftover redis-server was not stopped")
	}
	if pids := redistest.ServersIn(t, dir); !slices.Equal(pids, []int{s.PID()}) {
		t.Fatalf("redis-servers on the directory: %v, want only the new child %d", pids, s.PID())
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	// A stale pid file naming a live process of another kind.
	sleeper := exec.Command("sleep", "30")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = sleeper.Process.Kill(); _ = sleeper.Wait() }()
	if err := os.WriteFile(filepath.Join(dir, "redis.pid"), []byte(strconv.Itoa(sleeper.Process.Pid)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s = redistest.ServerIn(t, dir)
	if err := sleeper.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("the process a stale pid file named was signalled: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestEmbeddedServerOwnsItsDirectory: a second server on a directory in
// use fails instead of running a second redis-server on the same AOF.
func TestEmbeddedServerOwnsItsDirectory(t *testing.T) {
	dir := t.TempDir()
	s := redistest.ServerIn(t, dir)
	if _, err := redisdb.StartEmbedded(context.Background(), dir, zerolog.Nop()); err == nil {
		t.Fatal("a second server started on a directory in use")
	}
	if pids := redistest.ServersIn(t, dir); !slices.Equal(pids, []int{s.PID()}) {
		t.Fatalf("redis-servers on the directory: %v, want only %d", pids, s.PID())
	}
}

func TestSeenMarkers(t *testing.T) {
	ctx := context.Background()
	c := redistest.Client(t)
	s := redisdb.NewSeen(c, 0)
	got, err := s.Seen(ctx, "g", []string{"a", "b"})
	if err != nil || got[0] || got[1] {
		t.Fatalf("fresh markers: %v %v", got, err)
	}
	if err := s.Mark(ctx, "g", []string{"b"}); err != nil {
		t.Fatal(err)
	}
	got, err = s.Seen(ctx, "g", []string{"a", "b"})
	if err != nil || got[0] || !got[1] {
		t.Fatalf("after mark: %v %v", got, err)
	}
	other, _ := s.Seen(ctx, "other-group", []string{"b"})
	if other[0] {
		t.Fatal("markers must be per consumer group")
	}
	ttl, _ := c.TTL(ctx, "seen:g:b").Result()
	if ttl <= 0 {
		t.Fatalf("marker has no TTL: %v", ttl)
	}
}

func TestChunksStoreIsIdempotent(t *testing.T) {
	ctx := context.Background()
	c := redistest.Client(t)
	st := redisdb.NewChunks(c)
	doc := schemas.Document{DocID: "d1", Source: "a.txt", Text: "甲乙丙丁"}
	chunks := []schemas.Chunk{
		{ChunkID: "d1-0000", DocID: "d1", Seq: 0, Total: 2, Profile: "generic", Start: 0, End: 2, Text: "甲乙"},
		{ChunkID: "d1-0001", DocID: "d1", Seq: 1, Total: 2, Profile: "generic", Start: 2, End: 4, Text: "丙丁", Subject: "丙",
			Listed: []string{"子丙", "丁戊等"}},
	}
	for i := 0; i < 2; i++ {
		if err := st.PutDocument(ctx, "t1", doc, chunks); err != nil {
			t.Fatal(err)
		}
	}
	docs, n, err := st.Counts(ctx, "t1")
	if err != nil || docs != 1 || n != 2 {
		t.Fatalf("counts = %d docs, %d chunks, %v; want 1, 2", docs, n, err)
	}
	got, err := st.Get(ctx, "t1", []string{"d1-0001", "missing", "d1-0000"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !reflect.DeepEqual(got[0], chunks[1]) || !reflect.DeepEqual(got[1], chunks[0]) {
		t.Fatalf("Get = %+v", got)
	}
	if other, _ := st.Get(ctx, "t2", []string{"d1-0000"}); len(other) != 0 {
		t.Fatal("another tenant must not see the chunk")
	}
	info, ok, err := st.Document(ctx, "t1", "d1")
	if err != nil || !ok || info.Chars != 4 || info.Chunks != 2 || info.Stages["chunker"] == "" {
		t.Fatalf("Document = %+v %v %v", info, ok, err)
	}
}
