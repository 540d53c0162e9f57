package redisdb

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/rs/zerolog"
)

// Files the embedded server keeps in its directory besides the AOF.
const (
	// pidFile names the running child redis-server, so that the next start
	// finds and stops a child its owner left behind.
	pidFile = "redis.pid"
	// lockFile is flocked by the Server that owns the directory; any live
	// redis-server found working there by the owner is therefore a
	// leftover.
	lockFile = "redis.lock"
	logFile  = "redis.log"
)

// Server is a Redis server owned by this process: a supervised child
// redis-server or, failing that, in-process miniredis. The caller closes
// it.
type Server struct {
	addr string
	mini *miniredis.Miniredis
	sup  *supervisor
}

// Addr is the server's host:port on loopback. It does not change when the
// supervisor restarts the child.
func (s *Server) Addr() string { return s.addr }

// Persistent reports whether the server keeps its data across restarts
// (true for the child redis-server with AOF, false for miniredis).
func (s *Server) Persistent() bool { return s.sup != nil }

// PID is the process id of the running child redis-server; 0 while it is
// down (between a death and its restart), after Close, and for miniredis.
func (s *Server) PID() int {
	if s.sup == nil {
		return 0
	}
	return int(s.sup.pid.Load())
}

// Restarts counts the times the supervisor restarted the child after it
// died.
func (s *Server) Restarts() int {
	if s.sup == nil {
		return 0
	}
	return int(s.sup.restarts.Load())
}

// StartEmbedded starts a server for the embedded mode. With redis-server on
// PATH it runs it as a supervised child process (see supervisor) with
// append-only persistence in dir (fsync every second) on a free loopback
// port; otherwise it starts miniredis and logs a warning that nothing will
// survive the process.
//
// The Server owns dir while it runs: a second StartEmbedded on the same
// directory fails instead of starting another redis-server on the same AOF
// files, and a redis-server still working in dir when the Server starts
// (left by an owner that died without stopping it) is stopped first.
// ctx bounds the start-up only.
func StartEmbedded(ctx context.Context, dir string, log zerolog.Logger) (*Server, error) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		m, err := miniredis.Run()
		if err != nil {
			return nil, fmt.Errorf("start miniredis: %w", err)
		}
		log.Warn().Str("addr", m.Addr()).
			Msg("redis-server is not on PATH: using in-process miniredis; the knowledge graph and agent memory will NOT survive a restart (install redis-server to persist them)")
		return &Server{addr: m.Addr(), mini: m}, nil
	}
	return startChild(ctx, bin, dir, log)
}

func startChild(ctx context.Context, bin, dir string, log zerolog.Logger) (*Server, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("start redis-server: %w", err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("start redis-server: %w", err)
	}
	unlock, err := lockDir(abs)
	if err != nil {
		return nil, fmt.Errorf("start redis-server: %w", err)
	}
	if err := stopLeftovers(abs, log); err != nil {
		_ = unlock()
		return nil, fmt.Errorf("start redis-server: %w", err)
	}
	sup := newSupervisor(bin, abs, serverArgs(bin, abs), unlock, log)
	addr, err := sup.start(ctx)
	if err != nil {
		return nil, err
	}
	log.Info().Str("addr", addr).Str("dir", abs).Int("pid", int(sup.pid.Load())).Msg("embedded redis-server started (AOF, supervised)")
	return &Server{addr: addr, sup: sup}, nil
}

// serverArgs are the redis-server arguments for dir, without the port.
func serverArgs(bin, dir string) []string {
	args := []string{
		"--bind", "127.0.0.1",
		"--dir", dir,
		"--appendonly", "yes",
		"--appendfsync", "everysec",
		"--save", "",
		"--daemonize", "no",
		"--protected-mode", "yes",
		"--logfile", logFile,
	}
	// By default redis-server rewrites its command line to "redis-server
	// host:port"; keeping it makes the directory visible to ps and to the
	// leftover check on systems without /proc/<pid>/cwd. The option exists
	// from Redis 6.2 on; older servers refuse unknown options.
	if atLeast(serverVersion(bin), 6, 2) {
		args = append(args, "--set-proc-title", "no")
	}
	return args
}

var versionRE = regexp.MustCompile(`v=(\d+)\.(\d+)`)

// serverVersion is redis-server's major and minor version, zeros when it
// cannot be told.
func serverVersion(bin string) [2]int {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "--version").Output()
	if err != nil {
		return [2]int{}
	}
	m := versionRE.FindStringSubmatch(string(out))
	if m == nil {
		return [2]int{}
	}
	major, _ := strconv.Atoi(m[1])
	minor, _ := strconv.Atoi(m[2])
	return [2]int{major, minor}
}

func atLeast(v [2]int, major, minor int) bool {
	return v[0] > major || v[0] == major && v[1] >= minor
}

// lockDir takes an exclusive flock on dir's lock file. The file is opened
// close-on-exec, so a child redis-server never holds the lock: it is free
// as soon as its owner is gone, whatever became of the child.
func lockDir(dir string) (unlock func() error, err error) {
	f, err := os.OpenFile(filepath.Join(dir, lockFile), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%s is in use by another embedded redis-server owner", dir)
		}
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	return f.Close, nil
}

func ping(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
	if err != nil {
		return false
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(500 * time.Millisecond))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return false
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	return err == nil && strings.HasPrefix(line, "+PONG")
}

// Close stops the server. For the child redis-server it stops supervision
// first, so nothing restarts the child, then sends it SIGTERM, on which it
// flushes its AOF and exits (SIGKILL if it has not exited in 10 s), waits
// for it, removes the pid file and releases the directory. Safe to call
// more than once.
func (s *Server) Close() error {
	if s.mini != nil {
		s.mini.Close()
		return nil
	}
	if s.sup == nil {
		return nil
	}
	return s.sup.close()
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
