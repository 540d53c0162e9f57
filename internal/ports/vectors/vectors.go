// Package vectors is the vector port: the two small interfaces the embedder
// stage, the writer's hybrid retrieval and the evaluation code use
// (Embedder, Store) and the values that cross them (Item, Hit). Adapters
// implement them (infra/embed: offline hashed n-grams and an
// OpenAI-compatible embedder; infra/hnsw: the embedded HNSW index;
// infra/milvus: Milvus), and every Store adapter passes the contract suite
// in vectors/vectortest, which checks each promise documented here. The
// package imports nothing of the project, so an adapter never imports a
// stage to name what it implements.
package vectors

import (
	"context"
	"errors"
)

// Embedder turns texts into vectors of a fixed dimension.
type Embedder interface {
	// Embed returns one vector of Dim() components per text, in order.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	// Dim is the length of every vector Embed returns.
	Dim() int
}

// Item is one vector to store, keyed by ChunkID.
type Item struct {
	ChunkID string
	DocID   string
	Vector  []float32
}

// Hit is one search result. Score is a similarity: higher is closer (the
// cosine of the angle for the stores of this project).
type Hit struct {
	ChunkID string
	Score   float32
}

// Store keeps vectors per tenant. Tenants are isolated: what one holds is
// never counted or found in another. Implementations are safe for
// concurrent use, and a call whose context has ended fails with an error
// wrapping the context's error (context.Canceled, DeadlineExceeded).
//
// Invalid input fails the whole call, stores nothing of it, and is marked
// permanent (the runtime's pipeline.Permanent): retrying cannot fix it. That
// is a vector whose length differs from the vectors the tenant holds (an
// error wrapping ErrDimension; an empty vector included), a NaN or
// infinite component, or an empty chunk id.
type Store interface {
	// Upsert stores items by chunk id: an id stored before has its vector
	// replaced, never duplicated, and within one call the last item of an
	// id wins. When it returns nil the items are durable to the store's
	// own guarantee.
	Upsert(ctx context.Context, tenant string, items []Item) error
	// Search returns at most k hits, best first; k ≤ 0 asks for none. A
	// tenant with no vectors has no hits and no error.
	Search(ctx context.Context, tenant string, vec []float32, k int) ([]Hit, error)
	// Count is the number of distinct chunk ids stored for the tenant.
	Count(ctx context.Context, tenant string) (int, error)
	// Delete removes the vectors of chunkIDs from the tenant, so that no
	// later Search finds them and Count no longer counts them. Deleting an
	// id the tenant does not hold (never stored, deleted before, or a
	// tenant with no vectors at all) is no error: a retraction delivered
	// twice deletes twice. An empty list does nothing.
	Delete(ctx context.Context, tenant string, chunkIDs []string) error
}

// ErrDimension reports a vector whose length is not the expected one.
var ErrDimension = errors.New("vector dimension mismatch")
