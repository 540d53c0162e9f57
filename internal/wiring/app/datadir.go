package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// The layout of the data directory in embedded mode.
const (
	kafkaDir      = "kafka"
	redisDir      = "redis"
	vectorDir     = "vectors"
	lockFile      = "annalist.lock"
	endpointsFile = "endpoints.json"
	// ignoreFile keeps the directory out of git wherever it is made, as a
	// Python virtual environment does: runtime state never belongs to a
	// commit.
	ignoreFile = ".gitignore"
)

// Endpoints are the addresses of the embedded services of the process that
// owns a data directory, so that a second command (kg show, ingest) joins
// them instead of starting its own on the same files.
type Endpoints struct {
	Brokers []string `json:"brokers"`
	Redis   string   `json:"redis"`
	PID     int      `json:"pid"`
	// Command is the owner's annalist command (serve, demo, ingest …),
	// named in the errors of a command that cannot join it.
	Command string `json:"command,omitempty"`
	// API is the root URL of the owner's HTTP API, set once its listener
	// serves (serve, demo): a joined command asks it for vectors, the
	// embedded index being the owner's alone. Empty while it serves none.
	API string `json:"api,omitempty"`
	// Stages are the stages the owner runs for as long as it serves, the
	// ones a joined ingest or generate waits on.
	Stages []string `json:"stages,omitempty"`
	// Embedder names the owner's embedder and its dimension (offline/384,
	// openai:MODEL/1536): the vectors a joined command searches with must
	// come from the same one.
	Embedder string `json:"embedder,omitempty"`
}

// Owner names the process in messages: "annalist serve (pid 4711)".
func (e Endpoints) Owner() string {
	cmd := e.Command
	if cmd == "" {
		cmd = "process"
	}
	return fmt.Sprintf("annalist %s (pid %d)", cmd, e.PID)
}

// dirLock is an exclusive flock on the data directory: two processes must
// never run a broker or redis-server on the same files.
type dirLock struct {
	f   *os.File
	dir string
}

// errLocked says another live process owns the data directory.
var errLocked = errors.New("data directory is in use by another annalist process")

func lockDir(dir string) (*dirLock, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create data dir %s: %w", dir, err)
	}
	if err := ignoreAll(dir); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, lockFile), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open lock in %s: %w", dir, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, errLocked
		}
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	return &dirLock{f: f, dir: dir}, nil
}

func (l *dirLock) publish(ep Endpoints) error {
	data, err := json.Marshal(ep)
	if err != nil {
		return err
	}
	tmp := filepath.Join(l.dir, endpointsFile+".tmp")
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return fmt.Errorf("write endpoints: %w", err)
	}
	return os.Rename(tmp, filepath.Join(l.dir, endpointsFile))
}

func (l *dirLock) release() {
	_ = os.Remove(filepath.Join(l.dir, endpointsFile))
	_ = syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
	_ = l.f.Close()
}

// readEndpoints reads the endpoints of the process that holds the lock.
func readEndpoints(dir string) (Endpoints, error) {
	var ep Endpoints
	data, err := os.ReadFile(filepath.Join(dir, endpointsFile))
	if err != nil {
		return ep, fmt.Errorf("%w, and its endpoints are not published yet: %w", errLocked, err)
	}
	if err := json.Unmarshal(data, &ep); err != nil {
		return ep, fmt.Errorf("read %s: %w", endpointsFile, err)
	}
	return ep, nil
}

// ignoreAll writes dir/.gitignore saying to ignore everything in dir,
// unless the directory has one.
func ignoreAll(dir string) error {
	p := filepath.Join(dir, ignoreFile)
	if _, err := os.Stat(p); err == nil {
		return nil
	}
	if err := os.WriteFile(p, []byte("# annalist's runtime state: never committed\n*\n"), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", p, err)
	}
	return nil
}
