package chunker

import (
	"context"
	"errors"
	"fmt"

	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
)

// Sink stores a chunked document. It must be an idempotent upsert: a
// redelivered document is stored again under the same ids.
// *infra/redisdb.Chunks satisfies it.
type Sink interface {
	PutDocument(ctx context.Context, tenant string, doc schemas.Document, chunks []schemas.Chunk) error
}

// Handler is the chunker stage: it chunks a document, stores document and
// chunks through sink, and emits one message per chunk on the chunks
// topic, in order. An input that is not a document, or cannot be chunked,
// is a permanent error; a sink error is transient.
//
// Without a model the stage is deterministic, so a redelivered document
// yields the same chunks and ids. With a model, a redelivery (after a crash
// before commit) may place boundaries differently; the store then holds the
// newer chunks under the same ids.
func (c *Chunker) Handler(sink Sink) pipeline.Handler {
	return func(ctx context.Context, in pipeline.Input) ([]pipeline.Output, error) {
		var doc schemas.Document
		switch m := in.Msg.(type) {
		case schemas.Document:
			doc = m
		case *schemas.Document:
			if m == nil {
				return nil, pipeline.Permanentf("chunker: nil document at %s/%d/%d", in.Topic, in.Partition, in.Offset)
			}
			doc = *m
		default:
			return nil, pipeline.Permanentf("chunker: input at %s/%d/%d is %T, want a document", in.Topic, in.Partition, in.Offset, in.Msg)
		}
		chunks, err := c.Chunk(ctx, doc)
		if err != nil {
			return nil, err
		}
		if err := sink.PutDocument(ctx, in.Tenant(), doc, chunks); err != nil {
			// A document retracted before it was chunked: nothing of it
			// is stored, so there is nothing to pass on (the store says so
			// through its error, which the stage cannot name).
			var r interface{ Retracted() bool }
			if errors.As(err, &r) && r.Retracted() {
				return nil, nil
			}
			return nil, fmt.Errorf("store chunks of %s: %w", doc.DocID, err)
		}
		out := make([]pipeline.Output, len(chunks))
		for i, ch := range chunks {
			out[i] = pipeline.Output{Topic: topology.Chunks, Msg: ch}
		}
		return out, nil
	}
}

// ChunkJSON is the view of a chunk that `annalist chunk FILE --json`
// prints: offsets in runes into the document, subject empty for
// continuation and generic chunks.
type ChunkJSON struct {
	ID      string `json:"id"`
	Subject string `json:"subject"`
	// Attached says Subject's entry opens inside another person's: a
	// person attached to the entry of Main.
	Attached bool   `json:"attached"`
	Main     string `json:"main"`
	Start    int    `json:"start"`
	End      int    `json:"end"`
	Text     string `json:"text"`
}

// ToJSON returns the printable view of chunks, in order.
func ToJSON(chunks []schemas.Chunk) []ChunkJSON {
	out := make([]ChunkJSON, len(chunks))
	for i, c := range chunks {
		out[i] = ChunkJSON{ID: c.ChunkID, Subject: c.Subject, Attached: c.Attached, Main: c.Main, Start: c.Start, End: c.End, Text: c.Text}
	}
	return out
}
