package extractor_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/annalist-dev/annalist/consumers/extractor"
	"github.com/annalist-dev/annalist/infra/memory"
	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
	"github.com/annalist-dev/annalist/internal/kit/llmtest"
	"github.com/annalist-dev/annalist/internal/ports/regexmem"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
)

// countingMemory counts the reads of a Memory's patterns.
type countingMemory struct {
	regexmem.Memory
	reads atomic.Int64
}

func (c *countingMemory) Patterns(ctx context.Context, tenant, profile string, n int) ([]regexmem.Pattern, error) {
	c.reads.Add(1)
	return c.Memory.Patterns(ctx, tenant, profile, n)
}

// TestBatchReadsMemoryOncePerBatch: a batch of entry chunks with gaps
// reads the memory's regexes once, and again only after a regex is
// learned in it, which the chunks after it then use without a model
// call; the facts are those of the chunks extracted one at a time.
func TestBatchReadsMemoryOncePerBatch(t *testing.T) {
	ctx := context.Background()
	mem := &countingMemory{Memory: memory.NewRegexes(redistest.Client(t), 0)}
	m := llmtest.Answers(goodRegex)
	ex := extractor.New(extractor.Config{}, extractor.WithModel(m), extractor.WithMemory(mem))
	cs := []schemas.Chunk{chunk("lin", "林远", entryLin), chunk("zhou", "周敬", entryZhou), chunk("wu", "吴达", entryWu)}
	ins := make([]pipeline.Input, len(cs))
	for i, c := range cs {
		ins[i] = pipeline.Input{Msg: c, Meta: schemas.Meta{Tenant: "t1"}}
	}
	out, err := ex.BatchHandler()(ctx, ins)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"子文", "伯安", "子明"}
	for i, o := range out {
		var tails []string
		for _, p := range o {
			if tr, ok := pipeline.As[schemas.Triplet](p.Msg); ok && tr.Relation == schemas.RelCourtesyName {
				tails = append(tails, tr.Tail)
			}
		}
		if len(tails) != 1 || tails[0] != want[i] {
			t.Errorf("chunk %s: courtesy names %v, want %s", cs[i].ChunkID, tails, want[i])
		}
	}
	if m.Calls() != 1 {
		t.Errorf("%d model calls, want 1", m.Calls())
	}
	if n := mem.reads.Load(); n != 2 {
		t.Errorf("%d reads of the memory, want 2 (the batch's, and one after the regex was learned)", n)
	}
	// The next batch reads it again.
	if _, err := ex.BatchHandler()(ctx, ins[:1]); err != nil {
		t.Fatal(err)
	}
	if n := mem.reads.Load(); n != 3 {
		t.Errorf("%d reads after a second batch, want 3", n)
	}
}
