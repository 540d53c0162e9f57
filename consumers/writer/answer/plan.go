package answer

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/annalist-dev/annalist/internal/ports/graph"
	"github.com/annalist-dev/annalist/internal/ports/kind"
	"github.com/annalist-dev/annalist/internal/ports/vectors"
	"github.com/annalist-dev/annalist/schemas"
)

// Source of a reference that is one of the request's given documents.
const SourceDocument = "document"

// DefaultReferences is how many passages a retrieval keeps for a
// question without documents (ALCE gives five; a KG retrieval is noisier).
const DefaultReferences = 8

// maxSurfaceWords bounds the word n-grams of a question looked up in the
// knowledge graph as names.
const maxSurfaceWords = 4

// Graph is the part of the knowledge graph the retrieval reads
// (infra/kg's Store implements it).
type Graph interface {
	Resolve(ctx context.Context, tenant, surface string) ([]string, error)
	Entity(ctx context.Context, tenant, id string) (graph.Entity, error)
}

// Linked is the entity linker's resolutions (infra/kg's Store implements
// it): a Graph that implements it adds the chunks the linker found an
// entity named in.
type Linked interface {
	LinkedOf(ctx context.Context, tenant string, entities []string) ([][]string, error)
}

// Chunks reads stored chunks (infra/redisdb's Chunks implements it).
type Chunks interface {
	Get(ctx context.Context, tenant string, ids []string) ([]schemas.Chunk, error)
}

// Planner is the kind's planner: a request's given documents, else a
// retrieval (see the package doc).
type Planner struct {
	g      Graph
	chunks Chunks
	emb    vectors.Embedder
	vec    vectors.Store
	k      int
	max    int
}

var _ kind.Planner = (*Planner)(nil)

// Option configures a Planner.
type Option func(*Planner)

// WithRetrieval lets the planner answer a question without documents
// from the knowledge graph and its chunks (g, c not nil).
func WithRetrieval(g Graph, c Chunks) Option {
	return func(p *Planner) { p.g, p.chunks = g, c }
}

// WithVectors adds the k nearest chunks of the question's embedding to a
// retrieval.
func WithVectors(e vectors.Embedder, s vectors.Store, k int) Option {
	return func(p *Planner) { p.emb, p.vec, p.k = e, s, k }
}

// WithMaxReferences bounds the passages a retrieval keeps
// (DefaultReferences when not positive).
func WithMaxReferences(n int) Option { return func(p *Planner) { p.max = n } }

// NewPlanner returns a planner; without WithRetrieval it answers only
// requests that carry their documents.
func NewPlanner(opts ...Option) *Planner {
	p := &Planner{max: DefaultReferences}
	for _, o := range opts {
		o(p)
	}
	if p.max <= 0 {
		p.max = DefaultReferences
	}
	return p
}

// Plan returns the reference set of r: its documents (Documents), or the
// passages a retrieval finds for the question. A question nothing is
// found for fails with an error wrapping kind.ErrUnknownSubject.
func (p *Planner) Plan(ctx context.Context, tenant string, r schemas.Request) (*schemas.ReferenceSet, error) {
	if len(r.Documents) > 0 {
		return Documents(r.Subject, r.Documents), nil
	}
	if p.g == nil || p.chunks == nil {
		return nil, fmt.Errorf("question %q: %w: no documents were given and this process retrieves none", r.Subject, kind.ErrUnknownSubject)
	}
	refs, err := p.retrieve(ctx, tenant, r.Subject)
	if err != nil {
		return nil, err
	}
	if len(refs) == 0 {
		return nil, fmt.Errorf("question %q: %w: no passage names what it asks about", r.Subject, kind.ErrUnknownSubject)
	}
	return &schemas.ReferenceSet{Subject: r.Subject, Name: r.Subject, Lang: "en", References: refs}, nil
}

// Documents is the reference set of an answer to question from docs:
// document k (1-based) is reference schemas.AnswerDocRef(k), its text the
// Passage (title and text).
func Documents(question string, docs []schemas.AnswerDocument) *schemas.ReferenceSet {
	rs := &schemas.ReferenceSet{Subject: question, Name: question, Lang: "en"}
	for i, d := range docs {
		rs.References = append(rs.References, schemas.Reference{ChunkID: schemas.AnswerDocRef(i + 1),
			DocID: d.Title, Text: Passage(d), Score: 1, Source: SourceDocument})
	}
	return rs
}

// DocumentsOf are a reference set's references as the documents an
// answer cites, in order: reference i is document i+1.
func DocumentsOf(refs *schemas.ReferenceSet) []schemas.AnswerDocument {
	out := make([]schemas.AnswerDocument, len(refs.References))
	for i, r := range refs.References {
		out[i] = schemas.AnswerDocument{Text: r.Text}
	}
	return out
}

// retrieve finds the question's passages: the chunks that mention the
// entities its word n-grams name (and those the linker resolved to
// them), and its nearest chunks by vector; ranked by their relevance to
// the question (Rank's score of their best sentence), best p.max kept.
func (p *Planner) retrieve(ctx context.Context, tenant, question string) ([]schemas.Reference, error) {
	source := map[string]string{}
	var ids []string
	add := func(id, src string) {
		if _, ok := source[id]; !ok {
			source[id] = src
			ids = append(ids, id)
		}
	}
	var ents []string
	words := strings.Fields(strings.Map(func(r rune) rune {
		if strings.ContainsRune("?!.,;:\"“”", r) {
			return ' '
		}
		return r
	}, question))
	for n := maxSurfaceWords; n >= 1; n-- {
		for i := 0; i+n <= len(words); i++ {
			found, err := p.g.Resolve(ctx, tenant, strings.Join(words[i:i+n], " "))
			if err != nil {
				return nil, fmt.Errorf("resolve %q: %w", strings.Join(words[i:i+n], " "), err)
			}
			for _, id := range found {
				if !slices.Contains(ents, id) {
					ents = append(ents, id)
				}
			}
		}
	}
	for _, id := range ents {
		e, err := p.g.Entity(ctx, tenant, id)
		if errors.Is(err, graph.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("entity %s: %w", id, err)
		}
		for _, c := range e.Chunks {
			add(c, schemas.SourceEntity)
		}
	}
	if l, ok := p.g.(Linked); ok && len(ents) > 0 {
		linked, err := l.LinkedOf(ctx, tenant, ents)
		if err != nil {
			return nil, fmt.Errorf("linked chunks: %w", err)
		}
		for _, cs := range linked {
			for _, c := range cs {
				add(c, schemas.SourceMention)
			}
		}
	}
	if p.emb != nil && p.vec != nil && p.k > 0 {
		vs, err := p.emb.Embed(ctx, []string{question})
		if err != nil {
			return nil, fmt.Errorf("embed the question: %w", err)
		}
		hits, err := p.vec.Search(ctx, tenant, vs[0], p.k)
		if err != nil {
			return nil, fmt.Errorf("vector search: %w", err)
		}
		for _, h := range hits {
			add(h.ChunkID, schemas.SourceVector)
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	chunks, err := p.chunks.Get(ctx, tenant, ids)
	if err != nil {
		return nil, fmt.Errorf("read chunks: %w", err)
	}
	docs := make([]schemas.AnswerDocument, len(chunks))
	pool := make([]int, len(chunks))
	for i, c := range chunks {
		docs[i], pool[i] = schemas.AnswerDocument{Text: c.Text}, i+1
	}
	best := map[int]float64{}
	for _, c := range Rank(question, docs, pool) {
		for _, k := range c.Docs {
			best[k] = max(best[k], c.Score)
		}
	}
	var refs []schemas.Reference
	for i, c := range chunks {
		if s := best[i+1]; s > 0 {
			refs = append(refs, schemas.Reference{ChunkID: c.ChunkID, DocID: c.DocID, Text: c.Text, Score: s, Source: source[c.ChunkID]})
		}
	}
	slices.SortStableFunc(refs, func(a, b schemas.Reference) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return 0
	})
	if len(refs) > p.max {
		refs = refs[:p.max]
	}
	return refs, nil
}
