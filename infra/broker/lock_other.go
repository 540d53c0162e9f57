//go:build !unix

package broker

// lockDir is a no-op where advisory file locks are not available: running
// two brokers on one data directory is then the operator's to avoid.
func lockDir(string) (func() error, error) { return func() error { return nil }, nil }
