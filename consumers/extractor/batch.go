package extractor

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/annalist-dev/annalist/internal/ports/regexmem"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
)

// BatchHandler is Handler over a whole batch, with the regexes from memory
// read once per batch, tenant and profile instead of once per entry
// chunk: every entry chunk with a gap reads them, and during a bulk
// ingestion those reads queue behind every other stage's work on Redis.
// A regex the model writes in the batch is seen by the chunks after it
// (saving one forgets what was read).
//
// The names of the persons whose updates link chunks outside entries are
// read for the whole batch in one round trip too, when the graph offers
// it (PersonNamesOf).
func (e *Extractor) BatchHandler() pipeline.BatchHandler {
	batch := pipeline.Batch(e.Handler())
	return func(ctx context.Context, ins []pipeline.Input) ([][]pipeline.Output, error) {
		m := &patternMemo{read: map[string][]regexmem.Pattern{}}
		if err := e.readNames(ctx, m, ins); err != nil {
			return nil, err
		}
		return batch(context.WithValue(ctx, patternsKey{}, m), ins)
	}
}

// PersonsOf is what a Persons may offer to read many persons' names at once.
type PersonsOf interface {
	// PersonNamesOf returns the surface forms of each person, sorted.
	PersonNamesOf(ctx context.Context, tenant string, ids []string) ([][]string, error)
}

type patternsKey struct{}

// patternMemo holds what a batch read once for all its inputs: the
// regexes from memory by tenant and profile, and persons' names by tenant
// and id.
type patternMemo struct {
	mu    sync.Mutex
	read  map[string][]regexmem.Pattern
	names map[string][]string
}

// readNames reads into m the names of the persons whose updates in ins
// link chunks not known to lie inside entries: the updates Linked reads
// names for.
func (e *Extractor) readNames(ctx context.Context, m *patternMemo, ins []pipeline.Input) error {
	p, ok := e.persons.(PersonsOf)
	if !ok || e.chunkReader == nil {
		return nil
	}
	byTenant := map[string][]string{}
	var tenants []string
	for _, in := range ins {
		u, ok := in.Msg.(schemas.KGUpdate)
		if !ok || u.Type != schemas.EntityPerson || len(u.Chunks) == 0 {
			continue
		}
		tenant := in.Tenant()
		if tenant == "" {
			tenant = schemas.DefaultTenant
		}
		if len(e.notInside(tenant, u.Chunks)) == 0 {
			continue
		}
		if _, seen := byTenant[tenant]; !seen {
			tenants = append(tenants, tenant)
		}
		if !slices.Contains(byTenant[tenant], u.EntityID) {
			byTenant[tenant] = append(byTenant[tenant], u.EntityID)
		}
	}
	m.names = map[string][]string{}
	for _, tenant := range tenants {
		ids := byTenant[tenant]
		names, err := p.PersonNamesOf(ctx, tenant, ids)
		if err != nil {
			return fmt.Errorf("read the names of %d persons: %w", len(ids), err)
		}
		for i, id := range ids {
			m.names[tenant+"\x00"+id] = names[i]
		}
	}
	return nil
}

// personNames returns a person's names, from the batch's memo when it
// read them.
func (e *Extractor) personNames(ctx context.Context, tenant, id string) ([]string, error) {
	if m, _ := ctx.Value(patternsKey{}).(*patternMemo); m != nil {
		m.mu.Lock()
		names, ok := m.names[tenant+"\x00"+id]
		m.mu.Unlock()
		if ok {
			return names, nil
		}
	}
	return e.persons.PersonNames(ctx, tenant, id)
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
