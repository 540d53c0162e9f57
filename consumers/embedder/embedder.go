// Package embedder is the embedder stage: it reads chunks, embeds their text
// in batches and upserts one vector per chunk into a vector store keyed by
// chunk id. It writes no topic; its side effect is the vector store, and
// because the key is the chunk id (itself derived from the document id and
// position), redelivering a chunk replaces its vector instead of adding one.
//
// The stage knows two small interfaces, vectors.Embedder and vectors.Store. infra/embed
// provides the embedders (an offline hashed n-gram embedder and an
// OpenAI-compatible one through eino-ext); infra/hnsw (the embedded HNSW
// index) and infra/milvus provide the stores.
package embedder

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/annalist-dev/annalist/internal/ports/vectors"

	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
)

// DefaultMaxBatch is the number of texts sent in one embedding call when
// Config.MaxBatch is zero: large enough to amortise a remote call, small
// enough to stay under typical provider limits (OpenAI allows 2048 inputs).
const DefaultMaxBatch = 64

// Config configures the stage. The zero value is usable.
type Config struct {
	// MaxBatch is the most texts per Embed call; 0 means DefaultMaxBatch.
	// A batch of inputs larger than this is embedded in several calls.
	MaxBatch int
	// Retracted, when set, tells which documents are marked retracted
	// (*redis.Chunks); the vectors of their chunks are deleted right after
	// they are upserted (see Handle).
	Retracted RetractionMarks
}

// RetractionMarks reports which of docIDs are marked retracted.
type RetractionMarks interface {
	RetractedDocs(ctx context.Context, tenant string, docIDs []string) (map[string]bool, error)
}

// Validate reports a configuration the stage cannot run with.
func (c Config) Validate() error {
	if c.MaxBatch < 0 {
		return fmt.Errorf("embedder config: max batch %d is negative", c.MaxBatch)
	}
	return nil
}

func (c Config) maxBatch() int {
	if c.MaxBatch == 0 {
		return DefaultMaxBatch
	}
	return c.MaxBatch
}

// Stage embeds chunks and stores their vectors.
type Stage struct {
	emb   vectors.Embedder
	store vectors.Store
	cfg   Config
}

// New returns the stage. emb and store are required.
func New(emb vectors.Embedder, store vectors.Store, cfg Config) (*Stage, error) {
	if emb == nil || store == nil {
		return nil, errors.New("new embedder stage: embedder and store are required")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if emb.Dim() <= 0 {
		return nil, fmt.Errorf("new embedder stage: embedder dimension %d", emb.Dim())
	}
	return &Stage{emb: emb, store: store, cfg: cfg}, nil
}

// Handler returns the stage as a pipeline.BatchHandler.
func (s *Stage) Handler() pipeline.BatchHandler { return s.Handle }

// Handle embeds the chunks of a batch and upserts them, one vectors.Store.Upsert per
// tenant present in the batch. It produces no outputs: the returned slice
// has one empty entry per input. Any input that is not a chunk fails the
// whole batch with a permanent error before anything is embedded, so the
// runtime's one-at-a-time retry isolates it. Idempotent: the same chunk
// twice leaves one vector.
func (s *Stage) Handle(ctx context.Context, ins []pipeline.Input) ([][]pipeline.Output, error) {
	type pending struct {
		tenant string
		chunk  schemas.Chunk
	}
	batch := make([]pending, 0, len(ins))
	for _, in := range ins {
		c, ok := chunkOf(in.Msg)
		if !ok {
			return nil, pipeline.Permanentf("embed input %s at %s/%d/%d: %T is not a chunk",
				in.Meta.EventID, in.Topic, in.Partition, in.Offset, in.Msg)
		}
		tenant := in.Tenant()
		if tenant == "" {
			tenant = schemas.DefaultTenant
		}
		batch = append(batch, pending{tenant: tenant, chunk: c})
	}

	// One item per (tenant, chunk id): a chunk redelivered within the same
	// batch is embedded once, its last copy wins.
	type key struct{ tenant, id string }
	where := make(map[key]int, len(batch))
	var tenants []string
	byTenant := make(map[string][]schemas.Chunk)
	for _, p := range batch {
		k := key{p.tenant, p.chunk.ChunkID}
		if _, seen := byTenant[p.tenant]; !seen {
			tenants = append(tenants, p.tenant)
		}
		if i, dup := where[k]; dup {
			byTenant[p.tenant][i] = p.chunk
			continue
		}
		where[k] = len(byTenant[p.tenant])
		byTenant[p.tenant] = append(byTenant[p.tenant], p.chunk)
	}

	for _, t := range tenants {
		chunks := byTenant[t]
		items, err := s.embed(ctx, chunks)
		if err != nil {
			return nil, err
		}
		if err := s.store.Upsert(ctx, t, items); err != nil {
			return nil, fmt.Errorf("upsert %d vectors of tenant %s: %w", len(items), t, err)
		}
		if err := s.dropRetracted(ctx, t, items); err != nil {
			return nil, err
		}
	}
	return make([][]pipeline.Output, len(ins)), nil
}

// dropRetracted deletes the vectors just upserted whose document is marked
// retracted. A vector store cannot check the mark atomically with its
// write, so the check comes after it: the edge sets the mark before it
// publishes the retraction, hence either the retractor's delete runs after
// this upsert (and removes the vector), or the mark was set before this
// check (and the delete here removes it). Checking before the upsert
// instead would leave a vector behind when the retraction lands between
// the check and the write.
func (s *Stage) dropRetracted(ctx context.Context, tenant string, items []vectors.Item) error {
	if s.cfg.Retracted == nil {
		return nil
	}
	var docs []string
	seen := map[string]bool{}
	for _, it := range items {
		if !seen[it.DocID] {
			seen[it.DocID] = true
			docs = append(docs, it.DocID)
		}
	}
	marked, err := s.cfg.Retracted.RetractedDocs(ctx, tenant, docs)
	if err != nil {
		return fmt.Errorf("check the retraction marks of tenant %s: %w", tenant, err)
	}
	var gone []string
	for _, it := range items {
		if marked[it.DocID] {
			gone = append(gone, it.ChunkID)
		}
	}
	if len(gone) == 0 {
		return nil
	}
	if err := s.store.Delete(ctx, tenant, gone); err != nil {
		return fmt.Errorf("delete %d vectors of retracted documents of tenant %s: %w", len(gone), tenant, err)
	}
	return nil
}

// embed embeds chunks in calls of at most MaxBatch texts and checks every
// vector the embedder returns.
func (s *Stage) embed(ctx context.Context, chunks []schemas.Chunk) ([]vectors.Item, error) {
	dim := s.emb.Dim()
	items := make([]vectors.Item, 0, len(chunks))
	step := s.cfg.maxBatch()
	texts := make([]string, 0, min(step, len(chunks)))
	for lo := 0; lo < len(chunks); lo += step {
		part := chunks[lo:min(lo+step, len(chunks))]
		texts = texts[:0]
		for _, c := range part {
			texts = append(texts, EmbedText(c))
		}
		vecs, err := s.emb.Embed(ctx, texts)
		if err != nil {
			return nil, fmt.Errorf("embed %d chunks from %s: %w", len(part), part[0].ChunkID, err)
		}
		if len(vecs) != len(part) {
			return nil, fmt.Errorf("embed %d chunks from %s: embedder returned %d vectors",
				len(part), part[0].ChunkID, len(vecs))
		}
		for i, v := range vecs {
			if len(v) != dim {
				return nil, fmt.Errorf("embed chunk %s: %w: got %d, want %d", part[i].ChunkID, vectors.ErrDimension, len(v), dim)
			}
			if !finite(v) {
				return nil, fmt.Errorf("embed chunk %s: vector has NaN or infinite components", part[i].ChunkID)
			}
			items = append(items, vectors.Item{ChunkID: part[i].ChunkID, DocID: part[i].DocID, Vector: v})
		}
	}
	return items, nil
}

// EmbedText is the text embedded for a chunk: its text, preceded by the name
// of the person whose entry it belongs to when the text does not already
// begin with it. A continuation chunk of a long biography rarely repeats the
// person's name, and without it a query by name could not reach it.
func EmbedText(c schemas.Chunk) string {
	if c.Entry == "" || strings.HasPrefix(c.Text, c.Entry) {
		return c.Text
	}
	return c.Entry + "\n" + c.Text
}

func chunkOf(m schemas.Message) (schemas.Chunk, bool) {
	switch c := m.(type) {
	case schemas.Chunk:
		return c, true
	case *schemas.Chunk:
		if c != nil {
			return *c, true
		}
	}
	return schemas.Chunk{}, false
}

func finite(v []float32) bool {
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return false
		}
	}
	return true
}
