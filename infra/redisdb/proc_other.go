//go:build unix && !linux

package redisdb

import (
	"os/exec"
	"strconv"
	"strings"
	"syscall"
)

// sysProcAttr puts the child in a process group of its own, so a Ctrl-C on
// the terminal reaches only annalist, which then stops the child cleanly.
// Without Pdeathsig a child outlives an owner that is killed; the next
// start finds it through the pid file and stops it (stopLeftovers).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// serversIn lists nothing: without /proc only the pid file names a
// leftover.
func serversIn(string) []int { return nil }

// servesDir reports whether pid is a live redis-server whose command line
// has --dir dir (as ps shows it).
func servesDir(pid int, dir string) bool {
	out, err := exec.Command("ps", "-p", strconv.Itoa(pid), "-o", "command=").Output()
	if err != nil {
		return false
	}
	cmd := strings.TrimSpace(string(out))
	return strings.Contains(cmd, "redis-server") && strings.Contains(cmd, "--dir "+dir)
}
