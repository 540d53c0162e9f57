package cli

import (
	"testing"

	"github.com/annalist-dev/annalist/internal/wiring/app"
)

// TestIngestNeedsCountsMilvus: distributed, `ingest` opens the vector
// store when it is Milvus, so the store counts it prints once the pipeline
// is idle include the vectors the `consume` services wrote; an embedded
// index stays closed there, and embedded the command opens what the
// ingestion stages need.
func TestIngestNeedsCountsMilvus(t *testing.T) {
	if n := ingestNeeds(false, app.VectorMilvus); !n.Broker || !n.Redis || !n.Vectors {
		t.Errorf("distributed with milvus: %+v, want broker, Redis and vectors", n)
	}
	if n := ingestNeeds(false, app.VectorEmbedded); !n.Broker || !n.Redis || n.Vectors {
		t.Errorf("distributed with the embedded index: %+v, want broker and Redis only", n)
	}
	if n, want := ingestNeeds(true, app.VectorEmbedded), app.NeedsFor(app.IngestStages()); n != want {
		t.Errorf("embedded: %+v, want the ingestion stages' %+v", n, want)
	}
}
