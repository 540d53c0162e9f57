//go:build race

package hnsw_test

// raceEnabled shrinks the recall tests under the race detector, which
// slows graph construction about tenfold; the full-size runs are the ones
// without it.
const raceEnabled = true
