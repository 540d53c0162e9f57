package redisdb

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/annalist-dev/annalist/internal/kit/backoff"
)

// Supervision bounds.
const (
	// readyTimeout bounds how long a started child may take to answer PING
	// (loading a large AOF included).
	readyTimeout = 10 * time.Second
	// stopTimeout bounds a clean shutdown after SIGTERM before SIGKILL.
	stopTimeout = 10 * time.Second
	// minBackoff and maxBackoff bound the wait before a restart; it doubles
	// after every failed or short-lived restart.
	minBackoff = 100 * time.Millisecond
	maxBackoff = 5 * time.Second
	// stableAfter is how long a child must have run for its death to count
	// as a new fault (backoff back to minBackoff) rather than a crash loop.
	stableAfter = 30 * time.Second
	// startTries is how many free ports the first start tries: another
	// process can take a free port between the probe and redis-server's
	// bind.
	startTries = 5
)

// errStopped says Close was called while the supervisor waited.
var errStopped = errors.New("embedded redis-server is shutting down")

// supervisor runs one child redis-server and keeps it running: when the
// child dies without being asked to, it is started again with capped
// exponential backoff on the same port and the same AOF, so clients (and
// processes that joined through endpoints.json) reconnect to the same
// address and find the data. While the child is down, PING on that address
// fails, which is what readiness checks see.
//
// All children are started by the supervisor's own goroutine, which is
// locked to its OS thread for as long as it supervises. This is what makes
// Pdeathsig (see sysProcAttr) mean "the child dies with this process": the
// kernel sends the signal when the thread that forked the child exits, not
// when the process does. An ordinary goroutine may fork from a thread the
// Go runtime later exits (a thread whose locked goroutine returned), which
// would kill a healthy child; a thread this goroutine keeps locked is not
// exited while the goroutine lives, and the goroutine lives until the child
// is stopped. When the process dies, every thread dies and the signal is
// sent.
type supervisor struct {
	bin, dir string
	args     []string
	log      zerolog.Logger
	unlock   func() error

	port     int
	pid      atomic.Int64
	restarts atomic.Int64

	stop      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
	closeErr  error
}

// child is one started redis-server; done is closed when it has exited and
// been reaped, err then holds cmd.Wait's result.
type child struct {
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

func newSupervisor(bin, dir string, args []string, unlock func() error, log zerolog.Logger) *supervisor {
	return &supervisor{bin: bin, dir: dir, args: args, unlock: unlock, log: log,
		stop: make(chan struct{}), done: make(chan struct{})}
}

// start starts the first child and the supervision, and returns the
// child's address once it answers PING. On error nothing is left running
// and the directory is released.
func (s *supervisor) start(ctx context.Context) (string, error) {
	started := make(chan error, 1)
	go s.run(ctx, started)
	if err := <-started; err != nil {
		<-s.done
		return "", err
	}
	return s.addr(), nil
}

func (s *supervisor) addr() string {
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port))
}

// close stops supervision and the child, and waits for both.
func (s *supervisor) close() error {
	s.closeOnce.Do(func() {
		close(s.stop)
		<-s.done
	})
	return s.closeErr
}

// run is the supervisor's goroutine. It never unlocks its OS thread (see
// supervisor): when it returns, the runtime exits the thread, by which
// time its child has been reaped.
func (s *supervisor) run(ctx context.Context, started chan<- error) {
	runtime.LockOSThread()
	defer close(s.done)
	defer func() {
		_ = os.Remove(filepath.Join(s.dir, pidFile))
		if err := s.unlock(); err != nil && s.closeErr == nil {
			s.closeErr = fmt.Errorf("release %s: %w", s.dir, err)
		}
	}()
	c, err := s.first(ctx)
	started <- err
	if err != nil {
		return
	}
	s.supervise(c)
}

// first starts the first child on a free port.
func (s *supervisor) first(ctx context.Context) (*child, error) {
	var lastErr error
	for try := 0; try < startTries; try++ {
		port, err := freePort()
		if err != nil {
			return nil, fmt.Errorf("start redis-server: %w", err)
		}
		s.port = port
		c, err := s.spawn()
		if err != nil {
			return nil, err
		}
		err = s.ready(c, ctx.Done(), errStopped)
		if err == nil {
			return c, nil
		}
		kill(c)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		lastErr = err
	}
	return nil, lastErr
}

// supervise waits for the child to die or for close, restarting the child
// after every unexpected death.
func (s *supervisor) supervise(c *child) {
	restart := backoff.Exponential{Base: minBackoff, Cap: maxBackoff}
	// attempt counts the restarts since the last stable run.
	attempt := 0
	for {
		up := time.Now()
		select {
		case <-s.stop:
			s.closeErr = terminate(c)
			s.pid.Store(0)
			return
		case <-c.done:
		}
		s.pid.Store(0)
		if time.Since(up) >= stableAfter {
			attempt = 0
		}
		s.log.Error().Err(c.err).Str("addr", s.addr()).Dur("retry_in", restart.Delay(attempt+1)).
			Msgf("embedded redis-server died; restarting it on the same port and AOF (see %s)", filepath.Join(s.dir, logFile))
		for c = nil; c == nil; {
			attempt++
			t := time.NewTimer(restart.Delay(attempt))
			select {
			case <-s.stop:
				t.Stop()
				return
			case <-t.C:
			}
			nc, err := s.spawn()
			if err == nil {
				if err = s.ready(nc, s.stop, errStopped); err != nil {
					kill(nc)
				}
			}
			switch {
			case errors.Is(err, errStopped):
				return
			case err != nil:
				s.log.Error().Err(err).Str("addr", s.addr()).Dur("retry_in", restart.Delay(attempt+1)).Msg("restarting the embedded redis-server failed")
			default:
				c = nc
				s.restarts.Add(1)
				s.log.Info().Str("addr", s.addr()).Int("pid", nc.cmd.Process.Pid).Msg("embedded redis-server restarted")
			}
		}
	}
}

// spawn starts a redis-server on s.port and records its pid in the pid
// file. Only the supervisor's goroutine calls it (see supervisor).
func (s *supervisor) spawn() (*child, error) {
	// The child is not tied to a context: it must outlive the start-up
	// context and is stopped by close, which asks it to shut down cleanly.
	cmd := exec.Command(s.bin, append([]string{"--port", strconv.Itoa(s.port)}, s.args...)...)
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start redis-server: %w", err)
	}
	c := &child{cmd: cmd, done: make(chan struct{})}
	go func() {
		c.err = cmd.Wait()
		close(c.done)
	}()
	s.pid.Store(int64(cmd.Process.Pid))
	if err := writePidFile(s.dir, cmd.Process.Pid); err != nil {
		kill(c)
		s.pid.Store(0)
		return nil, fmt.Errorf("start redis-server: %w", err)
	}
	return c, nil
}

// ready waits until c answers PING on s.port. It fails when c exits, when
// it has not answered within readyTimeout, and with aborted when abort is
// closed; the caller then kills c.
func (s *supervisor) ready(c *child, abort <-chan struct{}, aborted error) error {
	deadline := time.Now().Add(readyTimeout)
	for time.Now().Before(deadline) {
		select {
		case <-c.done:
			return fmt.Errorf("redis-server exited at start-up (%v); see %s", c.err, filepath.Join(s.dir, logFile))
		case <-abort:
			return aborted
		default:
		}
		if ping(s.addr()) {
			return nil
		}
		t := time.NewTimer(20 * time.Millisecond)
		select {
		case <-t.C:
		case <-abort:
			t.Stop()
		case <-c.done:
			t.Stop()
		}
	}
	return fmt.Errorf("redis-server on %s did not answer within %s", s.addr(), readyTimeout)
}

// terminate asks c to shut down cleanly (SIGTERM: redis-server flushes its
// AOF and exits), kills it after stopTimeout, and waits for it.
func terminate(c *child) error {
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	t := time.NewTimer(stopTimeout)
	defer t.Stop()
	select {
	case <-c.done:
		var exit *exec.ExitError
		if c.err != nil && !errors.As(c.err, &exit) {
			return fmt.Errorf("stop redis-server: %w", c.err)
		}
		return nil
	case <-t.C:
		kill(c)
		return fmt.Errorf("stop redis-server: killed after %s without exiting", stopTimeout)
	}
}

// kill kills c and waits for it.
func kill(c *child) {
	_ = c.cmd.Process.Kill()
	<-c.done
}
