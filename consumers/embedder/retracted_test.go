package embedder_test

import (
	"context"
	"testing"

	"github.com/annalist-dev/annalist/consumers/embedder"
	"github.com/annalist-dev/annalist/infra/embed"
	"github.com/annalist-dev/annalist/infra/hnsw"
	"github.com/annalist-dev/annalist/infra/redisdb"
	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/pipeline/pipelinetest"
	"github.com/annalist-dev/annalist/schemas"
)

// TestChunksOfRetractedDocumentsLeaveNoVector: chunks delivered after
// their document was marked retracted (the retraction overtook them) are
// upserted and then deleted, in the same call; the chunks of other
// documents, and of the same document id in another tenant, stay.
func TestChunksOfRetractedDocumentsLeaveNoVector(t *testing.T) {
	ctx := context.Background()
	docs := redisdb.NewChunks(redistest.Client(t))
	for _, tn := range []string{"t1", "t2"} {
		if st, _, err := docs.ClaimVersion(ctx, tn, "gone", "gone.txt", schemas.TextHash("x")); err != nil || st != "new" {
			t.Fatalf("claim: %s %v", st, err)
		}
	}
	if _, found, err := docs.MarkRetracted(ctx, "t1", schemas.Retraction{DocID: "gone", Reason: schemas.RetractRetracted, At: "2026-01-01T00:00:00Z"}); err != nil || !found {
		t.Fatalf("mark: %v %v", found, err)
	}
	emb, err := embed.NewOffline(embed.OfflineConfig{})
	if err != nil {
		t.Fatal(err)
	}
	store, err := hnsw.Open(hnsw.Config{})
	if err != nil {
		t.Fatal(err)
	}
	s := newStage(t, emb, store, embedder.Config{Retracted: docs})
	ins := []pipeline.Input{
		pipelinetest.Input(chunk("gone", 0, 2, bios[0].text), onChunks, pipelinetest.Tenant("t1"), pipelinetest.Event("ev1"), pipelinetest.Offset(1)),
		pipelinetest.Input(chunk("kept", 0, 1, bios[1].text), onChunks, pipelinetest.Tenant("t1"), pipelinetest.Event("ev2"), pipelinetest.Offset(2)),
		pipelinetest.Input(chunk("gone", 1, 2, bios[2].text), onChunks, pipelinetest.Tenant("t1"), pipelinetest.Event("ev3"), pipelinetest.Offset(3)),
		pipelinetest.Input(chunk("gone", 0, 2, bios[0].text), onChunks, pipelinetest.Tenant("t2"), pipelinetest.Event("ev4"), pipelinetest.Offset(4)),
	}
	if _, err := s.Handle(ctx, ins); err != nil {
		t.Fatal(err)
	}
	if n, _ := store.Count(ctx, "t1"); n != 1 {
		t.Fatalf("t1 holds %d vectors, want only the kept document's", n)
	}
	hits, err := store.Search(ctx, "t1", mustEmbed(t, emb, bios[0].text), 5)
	if err != nil || len(hits) != 1 || hits[0].ChunkID != chunk("kept", 0, 1, "").ChunkID {
		t.Fatalf("t1 search = %+v, %v", hits, err)
	}
	if n, _ := store.Count(ctx, "t2"); n != 1 {
		t.Fatalf("t2 holds %d vectors, want its own (not retracted there)", n)
	}
}

func mustEmbed(t *testing.T, emb *embed.Offline, text string) []float32 {
	t.Helper()
	v, err := emb.Embed(context.Background(), []string{text})
	if err != nil {
		t.Fatal(err)
	}
	return v[0]
}
