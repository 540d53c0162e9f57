//go:build !race

package hnsw_test

const raceEnabled = false
