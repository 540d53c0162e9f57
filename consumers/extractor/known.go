package extractor

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/annalist-dev/annalist/internal/lang/factkit"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
)

// Persons reads what the extractor needs of the knowledge graph's persons
// and of the chunk store to read the facts of a person named in a chunk
// outside entries (infra/kg.Store and infra/redisdb.Chunks implement it
// together, see WithPersons).
type Persons interface {
	// PersonNames returns the surface forms of a person: the canonical
	// name, courtesy and art names, other aliases.
	PersonNames(ctx context.Context, tenant, id string) ([]string, error)
}

// ChunkReader reads stored chunks.
type ChunkReader interface {
	Get(ctx context.Context, tenant string, ids []string) ([]schemas.Chunk, error)
}

// WithPersons lets the extractor anchor facts to the known persons a chunk
// outside every entry names as the subject of a sentence (an archive
// book's "叶向高，万历十一年进士"): the narrative patterns then run on that
// sentence with the name, as written, as the head.
//
// It does so when a person is linked to the chunk — a kg-update naming
// the chunk among the person's Chunks (the entity linker's, or the
// kg-writer's for a fact) — not when the chunk first arrives. Which
// persons the graph knows when a chunk arrives depends on the order
// documents come in; which chunks end up linked to a person does not (the
// linker's backfill links chunks stored before a name, see
// consumers/linker), so the facts read this way are the same whatever
// that order. Without it a chunk outside entries yields only the facts of
// the people it introduces ("Name，字X，Place人").
func WithPersons(p Persons, chunks ChunkReader) Option {
	return func(e *Extractor) { e.persons, e.chunkReader = p, chunks }
}

// Linked returns the facts the chunks newly linked to a person (u.Chunks
// of a person's kg-update) give about that person where he opens a
// sentence of a chunk outside entries; nothing without WithPersons, for
// an update of another entity type, or for chunks inside entries (their
// heads are anchored to the entry). Errors reading the graph or the chunk
// store are transient.
func (e *Extractor) Linked(ctx context.Context, tenant string, u schemas.KGUpdate) ([]schemas.Triplet, error) {
	if e.persons == nil || e.chunkReader == nil || len(u.Chunks) == 0 || u.Type != schemas.EntityPerson {
		return nil, nil
	}
	if tenant == "" {
		tenant = schemas.DefaultTenant
	}
	outside, ids := e.knownOutside(tenant, e.notInside(tenant, u.Chunks))
	if len(ids) > 0 {
		cs, err := e.chunkReader.Get(ctx, tenant, ids)
		if err != nil {
			return nil, fmt.Errorf("read the chunks linked to %s: %w", u.EntityID, err)
		}
		for _, c := range cs {
			if !outsideEntries(c) {
				e.rememberInside(tenant, c.ChunkID)
				continue
			}
			if c.Validate() != nil {
				continue
			}
			rd := e.readerOf(c)
			if rd == nil {
				continue
			}
			r, err := rd.Read(e.profileOf(c), c)
			if err != nil {
				return nil, pipeline.Permanent(fmt.Errorf("extract chunk %s: %w", c.ChunkID, err))
			}
			if r.Known == nil {
				continue
			}
			e.rememberOutside(tenant, c, r.Known)
			outside = append(outside, outsideChunk{c: c, known: r.Known})
		}
	}
	if len(outside) == 0 {
		return nil, nil
	}
	// In the update's order, whichever were remembered.
	at := make(map[string]int, len(u.Chunks))
	for i, id := range u.Chunks {
		at[id] = i
	}
	slices.SortStableFunc(outside, func(a, b outsideChunk) int { return cmp.Compare(at[a.c.ChunkID], at[b.c.ChunkID]) })
	names, err := e.personNames(ctx, tenant, u.EntityID)
	if err != nil {
		return nil, fmt.Errorf("read the names of %s: %w", u.EntityID, err)
	}
	known := map[string]bool{}
	for _, n := range names {
		known[n] = true
	}
	var out []schemas.Triplet
	for _, o := range outside {
		c := o.c
		facts := o.known(func(n string) bool { return known[n] })
		for _, t := range triplets(c, facts) {
			if err := t.Validate(); err != nil {
				return nil, pipeline.Permanent(fmt.Errorf("extract chunk %s: %w", c.ChunkID, err))
			}
			out = append(out, t)
		}
	}
	e.stats.triplets.Add(int64(len(out)))
	return out, nil
}

// rememberInside records that chunk id of tenant lies inside an entry: a
// chunk id names one text, so the record holds for as long as the id.
func (e *Extractor) rememberInside(tenant, id string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.inside == nil || len(e.inside) >= maxInside {
		e.inside = map[string]struct{}{}
	}
	e.inside[tenant+"\x00"+id] = struct{}{}
}

// outsideChunk is a chunk outside every entry whose reader reads the
// facts of known persons, and that reading (factkit.Reading.Known).
type outsideChunk struct {
	c     schemas.Chunk
	known func(known func(name string) bool) []factkit.Fact
}

// rememberOutside keeps chunk c of tenant, which lies outside every
// entry, with its reading of known persons: a chunk outside entries (an
// archive book's) names many persons, each of whom announces it when
// linked, so Linked reads it again and again.
func (e *Extractor) rememberOutside(tenant string, c schemas.Chunk, known func(func(string) bool) []factkit.Fact) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.outside == nil || len(e.outside) >= maxOutside {
		e.outside = map[string]outsideChunk{}
	}
	e.outside[tenant+"\x00"+c.ChunkID] = outsideChunk{c: c, known: known}
}

// knownOutside splits ids into the chunks remembered as outside entries
// and the ids to read.
func (e *Extractor) knownOutside(tenant string, ids []string) ([]outsideChunk, []string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	var known []outsideChunk
	var read []string
	for _, id := range ids {
		if o, ok := e.outside[tenant+"\x00"+id]; ok {
			known = append(known, o)
		} else {
			read = append(read, id)
		}
	}
	return known, read
}

// notInside are the ids this process has not seen inside an entry: the
// chunks Linked must read to know where they lie. During an ingestion the
// extractor sees a chunk before the linker links it, so most of a
// person's linked chunks are known to be inside his entry and are not
// read back.
func (e *Extractor) notInside(tenant string, ids []string) []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for _, id := range ids {
		if _, ok := e.inside[tenant+"\x00"+id]; !ok {
			out = append(out, id)
		}
	}
	return out
}

// outsideEntries reports whether a chunk belongs to no biography entry:
// its people are resolved by name in the KG, not anchored to an entry.
func outsideEntries(c schemas.Chunk) bool {
	return c.Entry == "" && c.EntryChunk == "" && c.Subject == "" && c.SubEntry == ""
}
