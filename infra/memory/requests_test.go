package memory_test

import (
	"context"
	"errors"
	"testing"

	"github.com/annalist-dev/annalist/internal/genmem"

	"github.com/annalist-dev/annalist/infra/memory"
	"github.com/annalist-dev/annalist/infra/redis/redistest"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
)

func TestReferencesRoundTripAndMissingIsPermanent(t *testing.T) {
	ctx := context.Background()
	m := memory.NewRequests(redistest.Client(t), 0)
	rs := &schemas.ReferenceSet{Subject: "进卿", Name: "叶向高", References: []schemas.Reference{{ChunkID: "c1", Text: "叶向高，字进卿。"}}}
	if err := m.PutReferences(ctx, "t", "r1", rs); err != nil {
		t.Fatal(err)
	}
	got, err := m.References(ctx, "t", "r1")
	if err != nil || got.Name != "叶向高" || len(got.References) != 1 {
		t.Fatalf("read back %+v, %v", got, err)
	}
	_, err = m.References(ctx, "t", "missing")
	if !errors.Is(err, genmem.ErrNoReferences) || !pipeline.IsPermanent(err) {
		t.Fatalf("missing reference set: %v; want a permanent error wrapping genmem.ErrNoReferences", err)
	}
	if _, err := m.References(ctx, "other", "r1"); !errors.Is(err, genmem.ErrNoReferences) {
		t.Fatalf("another tenant's request: %v", err)
	}
}
