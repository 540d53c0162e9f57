package hnsw_test

import (
	"testing"

	"github.com/annalist-dev/annalist/infra/hnsw"
	"github.com/annalist-dev/annalist/internal/ports/vectors"
	"github.com/annalist-dev/annalist/internal/ports/vectors/vectortest"
)

// TestStoreContract runs the vector port's contract suite on the search
// paths and storage modes of the store: exact search (the default below
// ExactBelow) and the graph from the first vector on, each in memory and
// on disk with a snapshot every few writes, so the snapshot and the log
// are under the suite too.
func TestStoreContract(t *testing.T) {
	for _, tc := range []struct {
		name   string
		params hnsw.Params
		disk   bool
	}{
		{"exact/memory", hnsw.Params{}, false},
		{"graph/memory", hnsw.Params{ExactBelow: -1}, false},
		{"exact/disk", hnsw.Params{}, true},
		{"graph/disk", hnsw.Params{ExactBelow: -1}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vectortest.Run(t, func(t testing.TB) vectors.Store {
				cfg := hnsw.Config{Params: tc.params}
				if tc.disk {
					cfg.Dir, cfg.SnapshotEvery = t.TempDir(), 16
				}
				s := openStore(t, cfg)
				t.Cleanup(func() {
					if err := s.Close(); err != nil {
						t.Errorf("close: %v", err)
					}
				})
				return s
			})
		})
	}
}
