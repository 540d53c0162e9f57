// Package enginestest hands the real-engine suite the engines
// deploy/engines.sh started: Apache Kafka, Milvus Lite and a model server
// on loopback. The suite's tests are built with the tag engines and named
// TestEngines…; .ci/run starts the engines, then runs
//
//	ANNALIST_ENGINES_DIR=D go test -p 1 -tags engines -run '^TestEngines' ./...
//
// where D is the folder given to `deploy/engines.sh up --dir D`. A test of
// the suite calls Require, which fails it when ANNALIST_ENGINES_DIR is not
// set: with the tag on, the engines are part of the test, never skipped.
// -p 1 runs one package at a time, because some tests kill or restart an
// engine every other test shares.
package enginestest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// EnvDir names the engines' folder (deploy/engines.sh up --dir).
const EnvDir = "ANNALIST_ENGINES_DIR"

// Engines are the running engines' addresses, as engines.sh printed them
// (and wrote to DIR/engines.json).
type Engines struct {
	// Dir is the engines' folder: state, logs, pids.
	Dir string `json:"-"`
	// Brokers is the Kafka bootstrap address host:port.
	Brokers string `json:"brokers"`
	// Milvus is Milvus Lite's gRPC address host:port.
	Milvus string `json:"milvus"`
	// LLMBaseURL is the model server's OpenAI-compatible API root (…/v1).
	LLMBaseURL string `json:"llm_base_url"`
	// LLMModel is the model's name on that server.
	LLMModel string `json:"llm_model"`
}

// Require returns the engines, failing t when the suite was started
// without them.
func Require(t testing.TB) Engines {
	t.Helper()
	dir := os.Getenv(EnvDir)
	if dir == "" {
		t.Fatalf("%s is not set: the engines suite needs `deploy/engines.sh up --dir D` and %s=D", EnvDir, EnvDir)
	}
	e, err := Read(dir)
	if err != nil {
		t.Fatalf("engines: %v", err)
	}
	return e
}

// Read reads DIR/engines.json.
func Read(dir string) (Engines, error) {
	b, err := os.ReadFile(filepath.Join(dir, "engines.json"))
	if err != nil {
		return Engines{}, fmt.Errorf("read the engines of %s (did `deploy/engines.sh up --dir %s` run?): %w", dir, dir, err)
	}
	var e Engines
	if err := json.Unmarshal(b, &e); err != nil {
		return Engines{}, fmt.Errorf("decode %s/engines.json: %w", dir, err)
	}
	if e.Brokers == "" || e.Milvus == "" || e.LLMBaseURL == "" || e.LLMModel == "" {
		return Engines{}, fmt.Errorf("%s/engines.json lacks an engine: %s", dir, bytes.TrimSpace(b))
	}
	e.Dir = dir
	return e, nil
}

// Names of the engines, as engines.sh names their pid files.
const (
	Kafka  = "kafka"
	Milvus = "milvus"
	LLM    = "llm"
)

// PID is the process id of an engine.
func (e Engines) PID(t testing.TB, name string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(e.Dir, "pids", name+".pid"))
	if err != nil {
		t.Fatalf("pid of %s: %v", name, err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("pid of %s: %v", name, err)
	}
	return pid
}

// Kill sends SIGKILL to an engine's process group and waits until its
// process is gone.
func (e Engines) Kill(t testing.TB, name string) {
	t.Helper()
	pid := e.PID(t, name)
	if err := syscall.Kill(-pid, syscall.SIGKILL); err != nil {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	deadline := time.Now().Add(30 * time.Second)
	for Running(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("%s (pid %d) still runs 30s after SIGKILL", name, pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Running reports whether pid is a process that has not exited (a zombie,
// exited but not yet reaped, counts as exited).
func Running(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// pid (comm) state …: the state follows the last ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// Up runs `deploy/engines.sh up --dir` again: the engines that stopped
// start on the ports they had, the others are left alone.
func (e Engines) Up(t testing.TB) {
	t.Helper()
	script := filepath.Join(RepoRoot(t), "deploy", "engines.sh")
	cmd := exec.Command("bash", script, "up", "--dir", e.Dir)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("engines.sh up: %v\n%s", err, out.String())
	}
}

// RepoRoot is the folder of the module's go.mod, found from the test's
// working directory up.
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatalf("working directory: %v", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatalf("no go.mod above the working directory")
		}
		dir = parent
	}
}
