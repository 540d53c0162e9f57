package extractor

import (
	"context"
	"sync"

	"github.com/annalist-dev/annalist/internal/regexmem"
	"github.com/annalist-dev/annalist/pipeline"
)

// BatchHandler is Handler over a whole batch, with the regexes from memory
// read once per batch, tenant and profile instead of once per entry
// chunk: every entry chunk with a gap reads them, and during a bulk
// ingestion those reads queue behind every other stage's work on Redis.
// A regex the model writes in the batch is seen by the chunks after it
// (saving one forgets what was read).
func (e *Extractor) BatchHandler() pipeline.BatchHandler {
	batch := pipeline.Batch(e.Handler())
	return func(ctx context.Context, ins []pipeline.Input) ([][]pipeline.Output, error) {
		return batch(context.WithValue(ctx, patternsKey{}, &patternMemo{read: map[string][]regexmem.Pattern{}}), ins)
	}
}

type patternsKey struct{}

// patternMemo holds the regexes a batch read from memory, by tenant and
// profile.
type patternMemo struct {
	mu   sync.Mutex
	read map[string][]regexmem.Pattern
}

// patterns returns the memory's regexes of a profile, read once per batch
// when the context carries a batch's memo.
func (e *Extractor) patterns(ctx context.Context, tenant, profile string) ([]regexmem.Pattern, error) {
	m, _ := ctx.Value(patternsKey{}).(*patternMemo)
	key := tenant + "\x00" + profile
	if m != nil {
		m.mu.Lock()
		ps, ok := m.read[key]
		m.mu.Unlock()
		if ok {
			return ps, nil
		}
	}
	ps, err := e.memory.Patterns(ctx, tenant, profile, e.cfg.MemoryPatterns)
	if err != nil || m == nil {
		return ps, err
	}
	m.mu.Lock()
	m.read[key] = ps
	m.mu.Unlock()
	return ps, nil
}

// forgetPatterns drops what the batch read of a profile's regexes, before
// one is saved.
func forgetPatterns(ctx context.Context, tenant, profile string) {
	if m, _ := ctx.Value(patternsKey{}).(*patternMemo); m != nil {
		m.mu.Lock()
		delete(m.read, tenant+"\x00"+profile)
		m.mu.Unlock()
	}
}
