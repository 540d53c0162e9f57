package redis_test

import (
	"context"
	"testing"

	"github.com/annalist-dev/annalist/infra/redis"
	"github.com/annalist-dev/annalist/infra/redis/redistest"
	"github.com/annalist-dev/annalist/schemas"
)

func TestEmbeddedServerKeepsDataAcrossRestart(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := redistest.ServerIn(t, dir)
	if !s.Persistent() {
		t.Fatal("child redis-server should report persistence")
	}
	c, err := redis.Connect(ctx, redis.Config{Addr: s.Addr()})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	_ = c.Close()
	if err := s.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}

	s2 := redistest.ServerIn(t, dir)
	c2, err := redis.Connect(ctx, redis.Config{Addr: s2.Addr()})
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	got, err := c2.Get(ctx, "k").Result()
	if err != nil || got != "v" {
		t.Fatalf("after restart got %q, %v; want v", got, err)
	}
}

func TestSeenMarkers(t *testing.T) {
	ctx := context.Background()
	c := redistest.Client(t)
	s := redis.NewSeen(c, 0)
	got, err := s.Seen(ctx, "g", []string{"a", "b"})
	if err != nil || got[0] || got[1] {
		t.Fatalf("fresh markers: %v %v", got, err)
	}
	if err := s.Mark(ctx, "g", []string{"b"}); err != nil {
		t.Fatal(err)
	}
	got, err = s.Seen(ctx, "g", []string{"a", "b"})
	if err != nil || got[0] || !got[1] {
		t.Fatalf("after mark: %v %v", got, err)
	}
	other, _ := s.Seen(ctx, "other-group", []string{"b"})
	if other[0] {
		t.Fatal("markers must be per consumer group")
	}
	ttl, _ := c.TTL(ctx, "seen:g:b").Result()
	if ttl <= 0 {
		t.Fatalf("marker has no TTL: %v", ttl)
	}
}

func TestChunksStoreIsIdempotent(t *testing.T) {
	ctx := context.Background()
	c := redistest.Client(t)
	st := redis.NewChunks(c)
	doc := schemas.Document{DocID: "d1", Source: "a.txt", Text: "甲乙丙丁"}
	chunks := []schemas.Chunk{
		{ChunkID: "d1-0000", DocID: "d1", Seq: 0, Total: 2, Profile: "generic", Start: 0, End: 2, Text: "甲乙"},
		{ChunkID: "d1-0001", DocID: "d1", Seq: 1, Total: 2, Profile: "generic", Start: 2, End: 4, Text: "丙丁", Subject: "丙"},
	}
	for i := 0; i < 2; i++ {
		if err := st.PutDocument(ctx, "t1", doc, chunks); err != nil {
			t.Fatal(err)
		}
	}
	docs, n, err := st.Counts(ctx, "t1")
	if err != nil || docs != 1 || n != 2 {
		t.Fatalf("counts = %d docs, %d chunks, %v; want 1, 2", docs, n, err)
	}
	got, err := st.Get(ctx, "t1", []string{"d1-0001", "missing", "d1-0000"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != chunks[1] || got[1] != chunks[0] {
		t.Fatalf("Get = %+v", got)
	}
	if other, _ := st.Get(ctx, "t2", []string{"d1-0000"}); len(other) != 0 {
		t.Fatal("another tenant must not see the chunk")
	}
	info, ok, err := st.Document(ctx, "t1", "d1")
	if err != nil || !ok || info.Chars != 4 || info.Chunks != 2 || info.Stages["chunker"] == "" {
		t.Fatalf("Document = %+v %v %v", info, ok, err)
	}
}
