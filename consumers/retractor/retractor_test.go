package retractor_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/annalist-dev/annalist/consumers/retractor"
	"github.com/annalist-dev/annalist/infra/hnsw"
	"github.com/annalist-dev/annalist/infra/kg"
	"github.com/annalist-dev/annalist/infra/redisdb"
	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
	"github.com/annalist-dev/annalist/internal/ports/vectors"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/pipeline/pipelinetest"
	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
)

// onRetractions places an input on the retractions topic.
var onRetractions = pipelinetest.Topic(topology.Retractions)

// TestRetractorRemovesGraphAndVectors: on real Redis and the embedded
// index, a retraction removes the document's edges and its chunks'
// vectors and announces the person and the document; delivered again it
// announces the same under the same event ids; an unknown document yields
// nothing; an input that is not a retraction is permanent.
func TestRetractorRemovesGraphAndVectors(t *testing.T) {
	ctx := context.Background()
	const tenant = "t1"
	c := redistest.Client(t)
	g, err := kg.New(c, kg.Config{})
	if err != nil {
		t.Fatal(err)
	}
	docs := redisdb.NewChunks(c)
	vs, err := hnsw.Open(hnsw.Config{})
	if err != nil {
		t.Fatal(err)
	}
	chunks := []schemas.Chunk{
		{ChunkID: "d1-0000", DocID: "d1", Seq: 0, Total: 2, Start: 0, End: 7, Text: "叶向高，字进卿"},
		{ChunkID: "d1-0001", DocID: "d1", Seq: 1, Total: 2, Start: 7, End: 10, Text: "福清人"},
	}
	if err := docs.PutDocument(ctx, tenant, schemas.Document{DocID: "d1", Source: "ye.txt", Text: "叶向高，字进卿福清人"}, chunks); err != nil {
		t.Fatal(err)
	}
	tr := schemas.Triplet{TripletID: "tr1", Head: "叶向高", HeadType: schemas.EntityPerson, Relation: schemas.RelCourtesyName,
		Tail: "进卿", ChunkID: "d1-0000", DocID: "d1", Span: schemas.Span{Start: 0, End: 7}, Method: "regex", Confidence: 0.9}
	if _, err := g.Apply(ctx, tenant, []schemas.Triplet{tr}, nil); err != nil {
		t.Fatal(err)
	}
	if err := vs.Upsert(ctx, tenant, []vectors.Item{
		{ChunkID: "d1-0000", DocID: "d1", Vector: []float32{1, 0, 0}},
		{ChunkID: "d1-0001", DocID: "d1", Vector: []float32{0, 1, 0}},
		{ChunkID: "d2-0000", DocID: "d2", Vector: []float32{0, 0, 1}},
	}); err != nil {
		t.Fatal(err)
	}
	r := schemas.Retraction{DocID: "d1", Source: "ye.txt", Reason: schemas.RetractRetracted, At: "2026-01-01T00:00:00Z"}
	if _, _, err := docs.MarkRetracted(ctx, tenant, r); err != nil {
		t.Fatal(err)
	}
	s, err := retractor.New(g, vs)
	if err != nil {
		t.Fatal(err)
	}
	out, err := s.Handle(ctx, []pipeline.Input{
		pipelinetest.Input(r, onRetractions, pipelinetest.Tenant(tenant), pipelinetest.Event("ev1"), pipelinetest.Offset(1)),
		pipelinetest.Input(schemas.Retraction{DocID: "nobody", Reason: schemas.RetractRetracted}, onRetractions,
			pipelinetest.Tenant(tenant), pipelinetest.Event("ev2"), pipelinetest.Offset(2)),
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 2 || len(out[1]) != 0 {
		t.Fatalf("outputs = %+v, want none for the unknown document", out)
	}
	if len(out[0]) != 2 {
		t.Fatalf("outputs of d1 = %+v, want the person and the document", out[0])
	}
	person, doc := out[0][0].Msg.(schemas.KGUpdate), out[0][1].Msg.(schemas.KGUpdate)
	if person.Type != schemas.EntityPerson || len(person.RemovedEdges) != 1 || len(person.RemovedAliases) != 1 || person.Reason != schemas.ReasonRetracted {
		t.Fatalf("person update = %+v", person)
	}
	if doc.EntityID != "doc:d1" || len(doc.RemovedChunks) != 2 || out[0][1].Topic != topology.KGUpdates {
		t.Fatalf("document update = %+v on %s", doc, out[0][1].Topic)
	}
	if n, _ := vs.Count(ctx, tenant); n != 1 {
		t.Fatalf("%d vectors left, want d2's only", n)
	}
	if k, _ := g.Counts(ctx, tenant); k.Edges != 0 {
		t.Fatalf("%d edges left", k.Edges)
	}
	again, err := s.Handle(ctx, []pipeline.Input{pipelinetest.Input(r, onRetractions, pipelinetest.Tenant(tenant), pipelinetest.Event("ev1"), pipelinetest.Offset(1))})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(again[0]) != fmt.Sprint(out[0]) {
		t.Fatalf("redelivery answered\n%+v\nwant\n%+v", again[0], out[0])
	}
	_, err = s.Handle(ctx, []pipeline.Input{pipelinetest.Input(schemas.Document{DocID: "x", Text: "x"}, onRetractions, pipelinetest.Tenant(tenant), pipelinetest.Event("ev3"), pipelinetest.Offset(3))})
	if err == nil || !pipeline.IsPermanent(err) {
		t.Fatalf("a document on retractions: %v, want a permanent error", err)
	}
	if _, err := retractor.New(g, nil); err == nil {
		t.Fatal("New without a vector store succeeded")
	}
}
