package redisdb

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// sysProcAttr puts the child in a process group of its own, so a Ctrl-C on
// the terminal reaches only annalist, which then stops the child cleanly,
// and makes the kernel SIGKILL the child when its parent dies in any other
// way (kill -9, a crash). Pdeathsig is tied to the thread that forks the
// child, which is why only the supervisor's locked goroutine starts
// children (see supervisor). SIGKILL loses nothing acknowledged: with
// appendonly, redis-server writes a command to the AOF before it replies.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// serversIn lists the live redis-server processes working in dir.
func serversIn(dir string) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		if servesDir(pid, dir) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// servesDir reports whether pid is a live redis-server working in dir:
// its working directory is dir (redis-server changes to its --dir) or its
// command line has --dir dir. An exited process waiting to be reaped has
// neither, so it does not count.
func servesDir(pid int, dir string) bool {
	proc := filepath.Join("/proc", strconv.Itoa(pid))
	cmdline, err := os.ReadFile(filepath.Join(proc, "cmdline"))
	if err != nil || len(cmdline) == 0 {
		return false
	}
	args := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
	comm, _ := os.ReadFile(filepath.Join(proc, "comm"))
	if string(bytes.TrimSpace(comm)) != "redis-server" && !strings.HasPrefix(filepath.Base(args[0]), "redis-server") {
		return false
	}
	if cwd, err := os.Readlink(filepath.Join(proc, "cwd")); err == nil && cwd == dir {
		return true
	}
	for i := 0; i+1 < len(args); i++ {
		if args[i] == "--dir" && args[i+1] == dir {
			return true
		}
	}
	return false
}
