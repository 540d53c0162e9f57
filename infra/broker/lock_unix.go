//go:build unix

package broker

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// lockDir takes an exclusive advisory lock on dir, so a second broker on
// the same state fails at start instead of corrupting it. The lock dies
// with the process, so a crash leaves nothing to clean up.
func lockDir(dir string) (unlock func() error, err error) {
	path := filepath.Join(dir, "broker.lock")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock data dir %s: %w", dir, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("lock data dir %s: %w", dir, ErrDataDirInUse)
		}
		return nil, fmt.Errorf("lock data dir %s: %w", dir, err)
	}
	return f.Close, nil
}
