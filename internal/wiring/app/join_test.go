package app_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/annalist-dev/annalist/infra/embed"
	"github.com/annalist-dev/annalist/infra/hnsw"
	"github.com/annalist-dev/annalist/internal/ports/vectors"
	"github.com/annalist-dev/annalist/internal/wiring/api"
	"github.com/annalist-dev/annalist/internal/wiring/app"
	"github.com/annalist-dev/annalist/topology"
)

// TestJoinedProcessAsksTheOwnerForVectors: a command that needs vectors
// on a data directory another process owns is refused, naming the owner,
// while the owner serves no API; once the owner serves its vectors
// (App.Serving), the command joins and searches and counts them over that
// API with its own embedder for queries, never writes them, refuses
// stages that would, and is refused when its embedder is not the owner's.
func TestJoinedProcessAsksTheOwnerForVectors(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	owner := open(t, dir)
	defer owner.Close()
	items := []vectors.Item{
		{ChunkID: "d-0000", DocID: "d", Vector: vec(t, owner, "甲乙，字子明")},
		{ChunkID: "d-0001", DocID: "d", Vector: vec(t, owner, "丁戊，字伯玉")},
	}
	if err := owner.Vectors.Upsert(ctx, "default", items); err != nil {
		t.Fatal(err)
	}
	needs := app.Needs{Redis: true, Vectors: true}
	cfg := app.Config{DataDir: dir, Command: "retrieve"}

	_, err := app.Open(ctx, cfg, zerolog.Nop(), needs)
	if !errors.Is(err, app.ErrOwnerServesNoAPI) || !strings.Contains(err.Error(), "pid") {
		t.Fatalf("joining an owner without an API: %v; want ErrOwnerServesNoAPI naming its pid", err)
	}

	srv := httptest.NewServer(api.New(api.Deps{Vectors: owner.Vectors}))
	defer srv.Close()
	if err := owner.Serving(srv.URL, []string{topology.StageChunker}); err != nil {
		t.Fatal(err)
	}
	guest, err := app.Open(ctx, cfg, zerolog.Nop(), needs)
	if err != nil {
		t.Fatal(err)
	}
	defer guest.Close()
	ep, joined := guest.Owner()
	if !joined || ep.API != srv.URL || ep.Embedder != "offline/384" {
		t.Fatalf("guest joined=%v owner %+v", joined, ep)
	}
	if n, err := guest.Vectors.Count(ctx, "default"); err != nil || n != 2 {
		t.Fatalf("guest counts %d, %v; want the owner's 2", n, err)
	}
	q, err := guest.Embedder.Embed(ctx, []string{"字伯玉"})
	if err != nil {
		t.Fatal(err)
	}
	hits, err := guest.Vectors.Search(ctx, "default", q[0], 1)
	if err != nil || len(hits) != 1 || hits[0].ChunkID != "d-0001" {
		t.Fatalf("guest search: %v, %v; want d-0001", hits, err)
	}
	if err := guest.Vectors.Upsert(ctx, "default", items); !errors.Is(err, hnsw.ErrReadOnly) {
		t.Fatalf("guest upsert: %v; want ErrReadOnly", err)
	}
	if err := guest.JoinedStagesMayRun([]string{topology.StageEmbedder}); err == nil || !strings.Contains(err.Error(), topology.StageEmbedder) {
		t.Fatalf("the embedder in a joined process: %v; want refused", err)
	}
	if err := guest.JoinedStagesMayRun([]string{topology.StageChunker, topology.StageWriter}); err != nil {
		t.Fatalf("stages without vectors in a joined process: %v", err)
	}
	if err := owner.JoinedStagesMayRun([]string{topology.StageEmbedder}); err != nil {
		t.Fatalf("the owner's embedder: %v", err)
	}

	other := cfg
	other.Embed = embed.Config{Offline: embed.OfflineConfig{Dim: 128}}
	if _, err := app.Open(ctx, other, zerolog.Nop(), needs); err == nil || !strings.Contains(err.Error(), "offline/128") {
		t.Fatalf("joining with another embedder: %v; want refused, naming it", err)
	}
}

func vec(t *testing.T, a *app.App, text string) []float32 {
	t.Helper()
	v, err := a.Embedder.Embed(context.Background(), []string{text})
	if err != nil {
		t.Fatal(err)
	}
	return v[0]
}
