package glossary

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/annalist-dev/annalist/internal/ports/graph"

	"github.com/annalist-dev/annalist/schemas"
)

// Graph is the part of the knowledge graph a Store reads; infra/kg.Store
// implements it.
type Graph interface {
	Resolve(ctx context.Context, tenant, surface string) ([]string, error)
	Entity(ctx context.Context, tenant, id string) (graph.Entity, error)
}

// Chunks reads chunks by id, skipping unknown ids; infra/redisdb.Chunks
// implements it.
type Chunks interface {
	Get(ctx context.Context, tenant string, ids []string) ([]schemas.Chunk, error)
}

// Store looks glossary terms up in an ingested glossary: the term nodes of
// the knowledge graph and the chunks that hold their definitions. It is
// safe for concurrent use when its Graph and Chunks are.
type Store struct {
	g Graph
	c Chunks
}

// NewStore returns a Store reading g and c.
func NewStore(g Graph, c Chunks) *Store { return &Store{g: g, c: c} }

// Scores of looked-up references: a definition found by the entry's own
// term ranks above one found by another of its names.
const (
	ScoreTerm  = 1.0
	ScoreAlias = 0.8
)

// Lookup returns the definition chunks of the glossary entries that have
// term as one of their names, as references of source glossary: the entry
// whose term it is first, then by chunk id. Each chunk's text is the entry
// line (ParseLine reads its category and definition). A term the glossary
// does not know gives no references and no error.
func (s *Store) Lookup(ctx context.Context, tenant, term string) ([]schemas.Reference, error) {
	term = strings.TrimSpace(term)
	if term == "" {
		return nil, nil
	}
	ids, err := s.g.Resolve(ctx, tenant, term)
	if err != nil {
		return nil, fmt.Errorf("look up glossary term %q: %w", term, err)
	}
	var refs []schemas.Reference
	for _, id := range ids {
		if !strings.HasPrefix(id, HeadType+":") {
			continue
		}
		e, err := s.g.Entity(ctx, tenant, id)
		if errors.Is(err, graph.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("look up glossary term %q: %w", term, err)
		}
		var chunkIDs []string
		for _, ed := range e.Edges {
			if ed.Relation == RelCategory && !slices.Contains(chunkIDs, ed.ChunkID) {
				chunkIDs = append(chunkIDs, ed.ChunkID)
			}
		}
		chunks, err := s.c.Get(ctx, tenant, chunkIDs)
		if err != nil {
			return nil, fmt.Errorf("read definitions of glossary term %q: %w", term, err)
		}
		score := ScoreAlias
		if e.Name == term {
			score = ScoreTerm
		}
		for _, c := range chunks {
			refs = append(refs, schemas.Reference{ChunkID: c.ChunkID, DocID: c.DocID, Text: c.Text,
				Score: score, Source: schemas.SourceGlossary, Entity: id})
		}
	}
	slices.SortStableFunc(refs, func(a, b schemas.Reference) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.ChunkID, b.ChunkID)
	})
	return slices.CompactFunc(refs, func(a, b schemas.Reference) bool { return a.ChunkID == b.ChunkID }), nil
}
