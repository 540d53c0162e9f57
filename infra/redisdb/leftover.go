package redisdb

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rs/zerolog"
)

// Bounds on stopping a leftover redis-server.
const (
	leftoverTermTimeout = 5 * time.Second
	leftoverKillTimeout = 2 * time.Second
)

func writePidFile(dir string, pid int) error {
	tmp := filepath.Join(dir, pidFile+".tmp")
	if err := os.WriteFile(tmp, []byte(strconv.Itoa(pid)+"\n"), 0o644); err != nil {
		return fmt.Errorf("write pid file: %w", err)
	}
	return os.Rename(tmp, filepath.Join(dir, pidFile))
}

// readPidFile returns the pid the pid file in dir names, 0 when there is
// no readable one.
func readPidFile(dir string) int {
	data, err := os.ReadFile(filepath.Join(dir, pidFile))
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}

// stopLeftovers stops every live redis-server working in dir: the one the
// pid file names and, where the platform can list them (serversIn), any
// other. The caller holds dir's lock, so none of them has a live owner:
// each was left by a process that died without stopping its child (on
// Linux the child dies with its owner, so this is the fallback for the
// platforms and the cases Pdeathsig does not cover, and for children of
// versions that had no pid file). A process the pid file names that is not
// a redis-server working in dir (the pid was reused) is never signalled;
// the stale pid file is removed.
func stopLeftovers(dir string, log zerolog.Logger) error {
	pids := serversIn(dir)
	if pid := readPidFile(dir); pid > 0 && !slices.Contains(pids, pid) && servesDir(pid, dir) {
		pids = append(pids, pid)
	}
	var errs []error
	for _, pid := range pids {
		if pid == os.Getpid() {
			continue
		}
		log.Warn().Int("pid", pid).Str("dir", dir).Msg("stopping a redis-server left running on this directory by a previous process")
		if err := stopProcess(pid, dir); err != nil {
			errs = append(errs, err)
		}
	}
	if err := os.Remove(filepath.Join(dir, pidFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// stopProcess sends SIGTERM to pid, SIGKILL after leftoverTermTimeout, and
// waits until it no longer serves dir (it has exited; its parent, not us,
// reaps it).
func stopProcess(pid int, dir string) error {
	if gone(pid, dir, syscall.SIGTERM, leftoverTermTimeout) || gone(pid, dir, syscall.SIGKILL, leftoverKillTimeout) {
		return nil
	}
	return fmt.Errorf("leftover redis-server %d on %s did not exit after SIGKILL", pid, dir)
}

func gone(pid int, dir string, sig syscall.Signal, timeout time.Duration) bool {
	if err := syscall.Kill(pid, sig); errors.Is(err, syscall.ESRCH) {
		return true
	}
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if !servesDir(pid, dir) {
			return true
		}
	}
	return !servesDir(pid, dir)
}
