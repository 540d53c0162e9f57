//go:build !unix

package hnsw

import "os"

// lockDir opens the lock file; without flock on this platform, keeping two
// processes off one directory is the operator's job.
func lockDir(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
}

func unlockDir(f *os.File) error { return f.Close() }
