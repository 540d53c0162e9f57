package app

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/annalist-dev/annalist/infra/kafka"
	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
	"github.com/annalist-dev/annalist/producers"
	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
)

// TestSupersedeAndRetractThroughThePipeline: on the embedded broker,
// Redis and vector index, with the ingestion stages and the retractor
// running, a new text of a source supersedes the old version (its chunks,
// facts and vectors go, the new version's stay), the same text again
// changes nothing, and retracting the source leaves the tenant empty.
func TestSupersedeAndRetractThroughThePipeline(t *testing.T) {
	redistest.Require(t)
	stages := DefaultStages()
	if _, err := stages.Lookup(topology.StageRetractor); err != nil {
		stages = stages.With(retractorStage)
	}
	names := stages.Part(PartIngest)
	if !slices.Contains(names, topology.StageRetractor) {
		names = append(names, topology.StageRetractor)
	}
	cfg := Config{DataDir: t.TempDir(), Stages: stages,
		Kafka: kafka.Config{SessionTimeout: 6 * time.Second, RebalanceTimeout: 6 * time.Second}}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	a, err := Open(ctx, cfg, zerolog.Nop(), stages.Needs(names))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- a.RunStages(runCtx, names, nil) }()
	defer func() {
		stop()
		<-done
	}()
	const tenant = schemas.DefaultTenant
	send := func(text string) producers.Item {
		t.Helper()
		it, err := producers.NewItem(schemas.Document{Source: "ye.txt", Text: text, Profile: "liezhuan"})
		if err != nil {
			t.Fatal(err)
		}
		if err := a.SendVersions(ctx, tenant, []producers.Item{it}); err != nil {
			t.Fatal(err)
		}
		if err := a.WaitIdle(ctx, names); err != nil {
			t.Fatal(err)
		}
		return it
	}
	counts := func() StoreCounts {
		t.Helper()
		c, err := a.Counts(ctx, tenant)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	v1 := send("叶向高，字进卿，福清人。万历十一年进士。")
	first := counts()
	if first.Documents != 1 || first.Chunks == 0 || first.Edges == 0 || first.Vectors != int(first.Chunks) {
		t.Fatalf("after v1: %+v", first)
	}
	v2 := send("叶向高，字进卿，福清人。万历十一年进士，授编修。")
	if v2.Doc.DocID == v1.Doc.DocID {
		t.Fatal("a new text of the source kept the id")
	}
	info, _, err := a.Chunks.Document(ctx, tenant, v1.Doc.DocID)
	if err != nil || info.RetractReason != schemas.RetractSuperseded || info.SupersededBy != v2.Doc.DocID {
		t.Fatalf("v1 after v2: %+v %v", info, err)
	}
	second := counts()
	if second.Documents != 1 || second.Vectors != int(second.Chunks) {
		t.Fatalf("after v2: %+v", second)
	}
	if got, _ := a.Chunks.Get(ctx, tenant, []string{v1.Doc.DocID + "-0000"}); len(got) != 0 {
		t.Fatalf("v1's chunk survived its supersession: %+v", got)
	}
	if n, _ := a.Redis.Exists(ctx, "kg:{"+tenant+"}:chunkedges:"+v1.Doc.DocID+"-0000").Result(); n != 0 {
		t.Fatal("v1's edges survived its supersession")
	}
	send("叶向高，字进卿，福清人。万历十一年进士，授编修。")
	if again := counts(); again != second {
		t.Fatalf("the same text again changed %+v into %+v", second, again)
	}
	mark, err := a.Retract(ctx, tenant, "ye.txt")
	if err != nil || mark.DocID != v2.Doc.DocID || mark.Reason != schemas.RetractRetracted {
		t.Fatalf("retract ye.txt: %+v %v", mark, err)
	}
	if err := a.WaitIdle(ctx, names); err != nil {
		t.Fatal(err)
	}
	if left := counts(); left != (StoreCounts{}) {
		t.Fatalf("after retracting the source: %+v, want nothing", left)
	}
	if _, err := a.Retract(ctx, tenant, "nothing-here"); err == nil {
		t.Fatal("retracting an unknown name succeeded")
	}
}
