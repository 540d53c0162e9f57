package redis

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/rs/zerolog"
)

// Server is a Redis server owned by this process: a child redis-server or,
// failing that, in-process miniredis. The caller closes it.
type Server struct {
	addr string
	cmd  *exec.Cmd
	done chan error
	mini *miniredis.Miniredis
}

// Addr is the server's host:port on loopback.
func (s *Server) Addr() string { return s.addr }

// Persistent reports whether the server keeps its data across restarts
// (true for the child redis-server with AOF, false for miniredis).
func (s *Server) Persistent() bool { return s.cmd != nil }

// StartEmbedded starts a server for the embedded mode. With redis-server on
// PATH it runs it as a child process with append-only persistence in dir
// (fsync every second) on a free loopback port; otherwise it starts
// miniredis and logs a warning that nothing will survive the process.
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
	var lastErr error
	for try := 0; try < 5; try++ {
		port, err := freePort()
		if err != nil {
			return nil, fmt.Errorf("start redis-server: %w", err)
		}
		s, err := spawn(ctx, bin, abs, port)
		if err == nil {
			log.Info().Str("addr", s.addr).Str("dir", abs).Msg("embedded redis-server started (AOF)")
			return s, nil
		}
		lastErr = err
	}
	return nil, lastErr
}

func spawn(ctx context.Context, bin, dir string, port int) (*Server, error) {
	// The child is not tied to ctx: it must outlive the start-up context and
	// be stopped by Close, which asks it to shut down cleanly.
	cmd := exec.Command(bin,
		"--bind", "127.0.0.1",
		"--port", strconv.Itoa(port),
		"--dir", dir,
		"--appendonly", "yes",
		"--appendfsync", "everysec",
		"--save", "",
		"--daemonize", "no",
		"--protected-mode", "yes",
		"--logfile", "redis.log",
	)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start redis-server: %w", err)
	}
	s := &Server{addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), cmd: cmd, done: make(chan error, 1)}
	go func() { s.done <- cmd.Wait() }()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-s.done:
			s.done <- err
			return nil, fmt.Errorf("redis-server exited at start-up (%v); see %s", err, filepath.Join(dir, "redis.log"))
		case <-ctx.Done():
			_ = s.Close()
			return nil, ctx.Err()
		default:
		}
		if ping(s.addr) {
			return s, nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	_ = s.Close()
	return nil, fmt.Errorf("redis-server on %s did not answer within 10s", s.addr)
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

// Close stops the server. A child redis-server gets SIGTERM, on which it
// flushes its AOF and exits; it is killed if it has not exited in 10 s.
func (s *Server) Close() error {
	if s.mini != nil {
		s.mini.Close()
		return nil
	}
	if s.cmd == nil || s.cmd.Process == nil {
		return nil
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-s.done:
		s.done <- err
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			return fmt.Errorf("stop redis-server: %w", err)
		}
		return nil
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		return errors.New("stop redis-server: killed after 10s without exiting")
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
