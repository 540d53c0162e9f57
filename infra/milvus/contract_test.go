package milvus_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/annalist-dev/annalist/infra/milvus"
	"github.com/annalist-dev/annalist/internal/ports/vectors"
	"github.com/annalist-dev/annalist/internal/ports/vectors/vectortest"
)

// TestStoreContractOnFake runs the vector port's contract suite against
// the adapter talking gRPC to the fake server, one fresh server per case.
// The fake searches by brute force, so it checks what the adapter sends
// and decodes, not Milvus's own index; TestEnginesStoreContract (build
// tag engines) runs the same suite against Milvus Lite.
func TestStoreContractOnFake(t *testing.T) {
	vectortest.Run(t, func(tb testing.TB) vectors.Store {
		_, addr := startFake(tb)
		return newStore(tb, addr, milvus.Config{})
	})
}

// A call that ends while Milvus is still answering reports the context's
// error, not only the gRPC status the client makes of it: the contract
// suite cancels before the call, this cancels during it. The fake holds
// the search until the client gives up, so the outcome does not depend on
// timing.
func TestStoreReportsContextEndingDuringCall(t *testing.T) {
	f, addr := startFake(t)
	s := newStore(t, addr, milvus.Config{})
	items := testItems(4, 4, 9)
	if err := s.Upsert(context.Background(), "t", items); err != nil {
		t.Fatal(err)
	}
	entered := make(chan struct{}, 1)
	f.mu.Lock()
	f.holdSearch = entered
	f.mu.Unlock()

	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		done := make(chan struct{})
		var wg sync.WaitGroup
		wg.Go(func() {
			select {
			case <-entered:
				cancel()
			case <-done:
			}
		})
		_, err := s.Search(ctx, "t", items[0].Vector, 2)
		close(done)
		wg.Wait()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("search cancelled in flight: %v, want context.Canceled", err)
		}
	})
	t.Run("adapter timeout", func(t *testing.T) {
		short := newStore(t, addr, milvus.Config{Timeout: 200 * time.Millisecond})
		_, err := short.Search(context.Background(), "t", items[0].Vector, 2)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("search past the adapter's timeout: %v, want context.DeadlineExceeded", err)
		}
	})
}
