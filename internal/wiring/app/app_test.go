package app_test

import (
	"context"
	"testing"
	"time"

	"github.com/annalist-dev/annalist/infra/redisdb/redistest"

	"github.com/rs/zerolog"

	"github.com/annalist-dev/annalist/infra/kafka"
	"github.com/annalist-dev/annalist/internal/kit/kgview"
	"github.com/annalist-dev/annalist/internal/wiring/app"
	"github.com/annalist-dev/annalist/internal/wiring/demo"
	"github.com/annalist-dev/annalist/producers"
)

func open(t *testing.T, dir string) *app.App {
	t.Helper()
	redistest.Require(t)
	cfg := app.Config{DataDir: dir, Kafka: kafka.Config{SessionTimeout: 6 * time.Second, RebalanceTimeout: 6 * time.Second}}
	a, err := app.Open(context.Background(), cfg, zerolog.Nop(), app.NeedsFor(app.IngestStages()))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func ingestDemo(t *testing.T, a *app.App) app.IngestResult {
	t.Helper()
	items, err := demo.Documents()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := a.Ingest(ctx, "default", true, true, func(ctx context.Context, sink producers.Sink) (producers.Summary, error) {
		return producers.Summary{Documents: len(items)}, sink.Send(ctx, "default", items)
	})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestReingestChangesNothing: the whole embedded pipeline on the demo
// corpus; ingesting it again — with and without the seen: markers that
// short-cut redeliveries — adds no node, edge, alias, chunk or vector; a
// restart on the same data directory keeps everything.
func TestReingestChangesNothing(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a := open(t, dir)
	first := ingestDemo(t, a)
	if first.Store.Documents == 0 || first.Store.Chunks == 0 || first.Store.Nodes == 0 ||
		first.Store.Edges == 0 || first.Store.Vectors == 0 {
		t.Fatalf("first ingest left an empty store: %+v", first.Store)
	}
	if first.Store.Vectors != int(first.Store.Chunks) {
		t.Fatalf("%d vectors for %d chunks", first.Store.Vectors, first.Store.Chunks)
	}
	if first.DeadLetters != 0 {
		t.Fatalf("%d dead letters on clean input", first.DeadLetters)
	}
	v, err := kgview.Show(ctx, a.KG, a.Chunks, "default", "静之", false)
	if err != nil {
		t.Fatal(err)
	}
	if v.Name != "陆文渊" {
		t.Fatalf("courtesy name 静之 resolved to %q, want 陆文渊", v.Name)
	}

	again := ingestDemo(t, a)
	if again.Store != first.Store {
		t.Fatalf("re-ingest changed the store:\n first %+v\n again %+v", first.Store, again.Store)
	}
	if again.Chunks != 0 {
		t.Fatalf("re-ingest produced %d chunks; the seen: markers should skip the documents", again.Chunks)
	}

	// Without the markers every stage really runs again; idempotent
	// writes must still leave the store as it was.
	keys, err := a.Redis.Keys(ctx, "seen:*").Result()
	if err != nil || len(keys) == 0 {
		t.Fatalf("seen markers: %d, %v", len(keys), err)
	}
	if err := a.Redis.Del(ctx, keys...).Err(); err != nil {
		t.Fatal(err)
	}
	// The edge publishes nothing for a text it has (the version check),
	// so the documents are published again as a redelivery would bring
	// them: past that check, once the stages run.
	items, err := demo.Documents()
	if err != nil {
		t.Fatal(err)
	}
	rerun, err := a.Ingest(ctx, "default", true, true, func(ctx context.Context, sink producers.Sink) (producers.Summary, error) {
		if err := sink.Send(ctx, "default", nil); err != nil {
			return producers.Summary{}, err
		}
		return producers.Summary{Documents: len(items)}, a.Send(ctx, "default", items)
	})
	if err != nil {
		t.Fatal(err)
	}
	if rerun.Chunks == 0 || rerun.Triplets == 0 {
		t.Fatalf("with the markers gone the stages should have run: %+v", rerun)
	}
	if rerun.Store != first.Store {
		t.Fatalf("re-running every stage changed the store:\n first %+v\n rerun %+v", first.Store, rerun.Store)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}

	b := open(t, dir)
	defer b.Close()
	after, err := b.Counts(ctx, "default")
	if err != nil {
		t.Fatal(err)
	}
	if after != first.Store {
		t.Fatalf("after restart %+v, want %+v", after, first.Store)
	}
	final := ingestDemo(t, b)
	if final.Store != first.Store || final.Chunks != 0 {
		t.Fatalf("ingest after restart: %+v", final)
	}
}

// TestSecondProcessJoinsTheOwner: a command on a data directory another
// process owns joins that process's broker and Redis instead of starting
// its own on the same files, and refuses to open the embedded vector index
// twice.
func TestSecondProcessJoinsTheOwner(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	owner := open(t, dir)
	defer owner.Close()
	if err := owner.Redis.Set(ctx, "probe", "owner", 0).Err(); err != nil {
		t.Fatal(err)
	}
	guest, err := app.Open(ctx, app.Config{DataDir: dir}, zerolog.Nop(), app.Needs{Broker: true, Redis: true})
	if err != nil {
		t.Fatal(err)
	}
	defer guest.Close()
	if !guest.Joined {
		t.Fatal("second open should join the owner")
	}
	if got, _ := guest.Redis.Get(ctx, "probe").Result(); got != "owner" {
		t.Fatalf("guest reads %q from redis, want the owner's value", got)
	}
	if len(guest.Brokers()) != 1 || guest.Brokers()[0] != owner.Brokers()[0] {
		t.Fatalf("guest brokers %v, owner %v", guest.Brokers(), owner.Brokers())
	}
	if _, err := app.Open(ctx, app.Config{DataDir: dir}, zerolog.Nop(), app.Needs{Redis: true, Vectors: true}); err == nil {
		t.Fatal("opening the embedded vector index of a running owner must fail")
	}
}
