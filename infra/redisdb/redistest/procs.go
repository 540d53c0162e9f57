package redistest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// ServersIn lists the live redis-server processes with an argument that is
// dir or a path under it, as found in /proc: the embedded server runs redis-server with
// --dir <dir> and keeps its command line, so this finds every child ever
// started on dir, whoever its parent is now. Exited processes not yet
// reaped have an empty command line and are not listed. The test is
// skipped where there is no /proc.
func ServersIn(t testing.TB, dir string) []int {
	t.Helper()
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Skipf("no /proc to scan for redis-server processes: %v", err)
	}
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(string(data), "\x00")
		if !strings.Contains(args[0], "redis-server") {
			continue
		}
		for _, a := range args[1:] {
			if a == abs || strings.HasPrefix(a, abs+string(filepath.Separator)) {
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids
}

// WaitNoServersIn waits up to within for no redis-server to run on dir
// (ServersIn) and returns those still running then.
func WaitNoServersIn(t testing.TB, dir string, within time.Duration) []int {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		pids := ServersIn(t, dir)
		if len(pids) == 0 || time.Now().After(deadline) {
			return pids
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// KillServersInAtCleanup kills, when t ends, every redis-server still
// running on dir (ServersIn), so a test that finds an orphan does not
// leave it running.
func KillServersInAtCleanup(t testing.TB, dir string) {
	t.Helper()
	t.Cleanup(func() {
		for _, pid := range ServersIn(t, dir) {
			if p, err := os.FindProcess(pid); err == nil {
				_ = p.Kill()
			}
		}
	})
}
