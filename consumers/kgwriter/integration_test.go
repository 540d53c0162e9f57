package kgwriter_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/consumers/kgwriter"
	"github.com/annalist-dev/annalist/infra/kg"
	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/pipeline/pipelinetest"
	"github.com/annalist-dev/annalist/schemas"
)

// The Redis store is the stage's graph.
var _ kgwriter.Graph = (*kg.Store)(nil)

// entryTriplets are the facts of one restated entry: 叶向高, courtesy name
// 进卿, of 福清, jinshi of 万历十一年, and a continuation chunk.
func entryTriplets() []schemas.Triplet {
	mk := func(chunk, rel, tail, tailType string, start, end int, ev string) schemas.Triplet {
		return schemas.Triplet{
			TripletID: pipeline.ContentID(chunk, rel, tail, fmt.Sprint(start)),
			Head:      "叶向高", HeadType: schemas.EntityPerson, Relation: rel, Tail: tail, TailType: tailType,
			ChunkID: chunk, DocID: "doc-128", Entry: "叶向高", EntryChunk: "c-ye",
			Span: schemas.Span{Start: start, End: end}, Evidence: ev, Method: "regex", Confidence: 0.95,
		}
	}
	return []schemas.Triplet{
		mk("c-ye", schemas.RelCourtesyName, "进卿", schemas.EntityName, 0, 7, "叶向高，字进卿"),
		mk("c-ye", schemas.RelNativePlace, "福清", schemas.EntityPlace, 8, 11, "福清人"),
		mk("c-ye", schemas.RelJinshi, "万历十一年", schemas.EntityTime, 40, 49, "举万历十一年进士"),
		mk("c-ye2", schemas.RelOffice, "吏部尚书", schemas.EntityOffice, 5, 9, "吏部尚书"),
	}
}

// updates flattens outputs to "event id entity" strings, sorted.
func updates(t *testing.T, out [][]pipeline.Output) []string {
	t.Helper()
	var s []string
	for _, per := range out {
		for _, o := range per {
			u := o.Msg.(schemas.KGUpdate)
			if err := u.Validate(); err != nil {
				t.Fatal(err)
			}
			s = append(s, o.EventID+" "+u.EntityID)
		}
	}
	slices.Sort(s)
	return s
}

func TestStageOnRedis(t *testing.T) {
	ctx := context.Background()
	store, err := kg.New(redistest.Client(t), kg.Config{})
	if err != nil {
		t.Fatal(err)
	}
	s := newStage(t, store)
	ts := entryTriplets()

	first, err := s.Handle(ctx, pipelinetest.Inputs(ts, "ev", onTriplets))
	if err != nil {
		t.Fatal(err)
	}
	person := kg.PersonID("叶向高", "c-ye")
	got := updates(t, first)
	var entities []string
	for _, g := range got {
		entities = append(entities, strings.Fields(g)[1])
	}
	slices.Sort(entities)
	want := []string{"office:吏部尚书", person, "place:福清", "time:万历十一年"}
	if !slices.Equal(entities, want) {
		t.Fatalf("updates = %v, want one per entity of %v", got, want)
	}
	// The person changed through every input: its update rides on the last.
	last := first[len(first)-1]
	var pu schemas.KGUpdate
	for _, o := range last {
		if u := o.Msg.(schemas.KGUpdate); u.EntityID == person {
			pu = u
		}
	}
	if !pu.Created || len(pu.Edges) != 4 || !slices.Equal(pu.Chunks, []string{"c-ye", "c-ye2"}) ||
		!slices.Equal(pu.Aliases, []string{"进卿"}) || pu.Name != "叶向高" {
		t.Fatalf("person update = %+v", pu)
	}
	counts, err := store.Counts(ctx, schemas.DefaultTenant)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("a redelivery after a crash announces the same updates", func(t *testing.T) {
		again, err := s.Handle(ctx, pipelinetest.Inputs(ts, "ev", onTriplets))
		if err != nil {
			t.Fatal(err)
		}
		if a := updates(t, again); !slices.Equal(a, got) {
			t.Fatalf("redelivery updates = %v, want %v", a, got)
		}
	})

	t.Run("a re-ingest announces nothing and changes nothing", func(t *testing.T) {
		again, err := s.Handle(ctx, pipelinetest.Inputs(ts, "reingest", onTriplets))
		if err != nil {
			t.Fatal(err)
		}
		if a := updates(t, again); len(a) != 0 {
			t.Fatalf("re-ingest updates = %v", a)
		}
		c, err := store.Counts(ctx, schemas.DefaultTenant)
		if err != nil {
			t.Fatal(err)
		}
		if c != counts {
			t.Fatalf("counts %+v after re-ingest, %+v before", c, counts)
		}
	})

	t.Run("the courtesy name finds the person", func(t *testing.T) {
		ids, err := store.Resolve(ctx, schemas.DefaultTenant, "进卿")
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ids, []string{person}) {
			t.Fatalf("Resolve(进卿) = %v", ids)
		}
	})
}

// BenchmarkHandleOnRedis measures the stage end to end on loopback Redis:
// batches of 500 triplets of fresh entries.
func BenchmarkHandleOnRedis(b *testing.B) {
	ctx := context.Background()
	store, err := kg.New(redistest.Client(b), kg.Config{})
	if err != nil {
		b.Fatal(err)
	}
	s := newStage(b, store)
	const batch = 500
	n := 0
	b.ReportAllocs()
	for b.Loop() {
		ins := make([]pipeline.Input, 0, batch)
		for len(ins) < batch {
			entry := fmt.Sprintf("人%d", n)
			chunk := fmt.Sprintf("c%d", n)
			for k, f := range []struct{ rel, tail, typ string }{
				{schemas.RelCourtesyName, "字" + entry, schemas.EntityName},
				{schemas.RelNativePlace, fmt.Sprintf("县%d", n%150), schemas.EntityPlace},
				{schemas.RelJinshi, fmt.Sprintf("年%d", n%90), schemas.EntityTime},
				{schemas.RelOffice, fmt.Sprintf("官%d", n%60), schemas.EntityOffice},
				{schemas.RelDeath, fmt.Sprintf("年%d", (n+30)%90), schemas.EntityTime},
			} {
				t := schemas.Triplet{TripletID: fmt.Sprint(chunk, k), Head: entry, HeadType: schemas.EntityPerson,
					Relation: f.rel, Tail: f.tail, TailType: f.typ, ChunkID: chunk, DocID: "d", Entry: entry,
					EntryChunk: chunk, Span: schemas.Span{Start: 10 * k, End: 10*k + 5}, Method: "regex", Confidence: 1}
				ins = append(ins, pipelinetest.Input(t, onTriplets, pipelinetest.Event(fmt.Sprint("ev", chunk, k)), pipelinetest.Offset(int64(len(ins)))))
			}
			n++
		}
		if _, err := s.Handle(ctx, ins); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(batch*b.N)/b.Elapsed().Seconds(), "triplets/s")
}
