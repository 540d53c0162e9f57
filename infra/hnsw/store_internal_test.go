package hnsw

import (
	"context"
	"testing"

	"github.com/annalist-dev/annalist/internal/ports/vectors"
)

// A log that cannot be written: the upsert fails, nothing is applied, and
// the tenant refuses further writes rather than log out of order.
func TestStoreWriteFailureChangesNothing(t *testing.T) {
	ctx := context.Background()
	s, err := Open(Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	item := func(id string, x float32) []vectors.Item {
		return []vectors.Item{{ChunkID: id, Vector: []float32{x, 1, 0}}}
	}
	if err := s.Upsert(ctx, "t", item("a", 1)); err != nil {
		t.Fatal(err)
	}
	tn, _ := s.tenant("t", false)
	tn.log.Close() // every write and truncate now fails
	if err := s.Upsert(ctx, "t", item("b", 2)); err == nil {
		t.Fatal("upsert into an unwritable log succeeded")
	}
	if n, _ := s.Count(ctx, "t"); n != 1 {
		t.Fatalf("count = %d after a failed write, want 1", n)
	}
	if tn.broken == nil {
		t.Fatal("a log that could not be cut back is not marked broken")
	}
	if err := s.Upsert(ctx, "t", item("c", 3)); err == nil {
		t.Fatal("a broken tenant accepted a write")
	}
	tn.log = nil // already closed
}
