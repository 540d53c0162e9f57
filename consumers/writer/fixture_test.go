package writer_test

import (
	"testing"

	"github.com/annalist-dev/annalist/consumers/chunker"
	"github.com/annalist-dev/annalist/consumers/extractor"
	"github.com/annalist-dev/annalist/consumers/writer/internal/writertest"
	"github.com/annalist-dev/annalist/schemas"
)

// tenant is the fixtures' tenant: the graph fixtures are writertest's,
// shared with the biography planner's tests.
const tenant = writertest.Tenant

// ingest writes docs into w through the offline chunker and extractor.
func ingest(tb testing.TB, w *writertest.World, docs []schemas.Document) []schemas.Chunk {
	tb.Helper()
	return w.Ingest(tb, chunker.New(chunker.Config{}).Chunk, extractor.New(extractor.Config{}).Extract, docs)
}
