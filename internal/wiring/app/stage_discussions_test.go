package app_test

import (
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/annalist-dev/annalist/consumers/discussions"
	"github.com/annalist-dev/annalist/infra/kafka"
	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
	"github.com/annalist-dev/annalist/internal/evaluation/dataset"
	"github.com/annalist-dev/annalist/internal/lang/en/discourse"
	"github.com/annalist-dev/annalist/internal/wiring/app"
	"github.com/annalist-dev/annalist/producers"
	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
)

// Two KGDS discussions through every stage, embedded (kfake over TCP, a
// child redis-server): each is stored, its paragraphs are ingested as
// documents of its collection, its summary is written, verified and
// assembled, and the feed stage stores, announces and publishes its feed
// item, whose summary has background sentences citing paragraphs and
// opinions citing turns. Published again, nothing new is asked for; one
// of them sent again with another turn gets a new page version on the
// feed.
func TestDiscussionsThroughTheStream(t *testing.T) {
	redistest.Require(t)
	path := dataset.Path("kgds/dev.json")
	f, err := os.Open(path)
	if err != nil {
		t.Skipf("no KGDS data: %v", err)
	}
	ds, err := producers.ReadDiscussions(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	ds = ds[:2]
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cfg := app.Config{DataDir: t.TempDir(),
		Kafka: kafka.Config{SessionTimeout: 6 * time.Second, RebalanceTimeout: 6 * time.Second}}
	stages := app.AllStages()
	a, err := app.Open(ctx, cfg, zerolog.Nop(), app.NeedsFor(stages))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	stageCtx, stop := context.WithCancel(ctx)
	stageErr := make(chan error, 1)
	go func() { stageErr <- a.RunStages(stageCtx, stages, nil) }()
	defer func() {
		stop()
		if err := <-stageErr; err != nil {
			t.Error(err)
		}
	}()
	const tenant = schemas.DefaultTenant
	w, err := a.WatchSummaries(ctx, tenant)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	ids, err := producers.PublishDiscussions(ctx, a, tenant, ds)
	if err != nil {
		t.Fatal(err)
	}
	outs, err := w.Wait(ctx, ds, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, o := range outs {
		if o.ID != ids[i] || o.Item == nil {
			t.Fatalf("discussion %s: %+v, want its feed item", ids[i], o)
		}
		it := o.Item
		if it.Version != 1 || it.RequestID != discussions.Request(ds[i]).RequestID || it.Title == "" {
			t.Errorf("item of %s = v%d request %s title %q", o.ID, it.Version, it.RequestID, it.Title)
		}
		if len(it.Summary.Background.Sentences) == 0 || len(it.Summary.Opinions) == 0 {
			t.Errorf("summary of %s = %+v, want background and opinions", o.ID, it.Summary)
		}
		// The stream publishes what `annalist summarize discussion` (the
		// command contract) writes: every offline sentence is verified and
		// none is dropped or rewritten.
		got, _ := json.Marshal(it.Summary)
		want, _ := json.Marshal(discourse.Summarize(ds[i]))
		if string(got) != string(want) {
			t.Errorf("feed summary of %s differs from the offline summary:\n got %s\nwant %s", o.ID, got, want)
		}
		for _, op := range it.Summary.Opinions {
			for _, s := range op.Sentences {
				if turn := s.Citations[0].Turn; turn >= len(ds[i].Turns) || ds[i].Turns[turn].Participant != op.Participant {
					t.Errorf("%s: opinion %q of %s cites turn %d of another participant", o.ID, s.Text, op.Participant, turn)
				}
			}
		}
		st, err := a.Pages.Request(ctx, tenant, it.RequestID)
		if err != nil || st.State != "published" {
			t.Errorf("request %s: %+v, %v; want published", it.RequestID, st, err)
		}
		stored, found, err := a.Discussions.Discussion(ctx, tenant, o.ID)
		if err != nil || !found || len(stored.Turns) != len(ds[i].Turns) {
			t.Errorf("stored %s: found=%v err=%v", o.ID, found, err)
		}
	}
	// The paragraphs went through ingestion.
	var docIDs []string
	for _, d := range ds {
		for _, doc := range discussions.Documents(d) {
			docIDs = append(docIDs, doc.DocID)
		}
	}
	if err := a.WaitDocuments(ctx, tenant, docIDs, app.IngestStages(), nil); err != nil {
		t.Fatal(err)
	}
	for _, id := range docIDs {
		info, found, err := a.Chunks.Document(ctx, tenant, id)
		if err != nil || !found || info.Chunks == 0 || info.Stages[topology.StageChunker] == "" {
			t.Fatalf("paragraph document %s: %+v found=%v err=%v; want it chunked", id, info, found, err)
		}
	}
	if n := records(ctx, t, a, topology.Feed); n != 2 {
		t.Errorf("%d records on the feed topic, want 2", n)
	}

	// The same discussions again: the stage skips them (seen), nothing is
	// asked for; the first with another turn: version 2.
	if _, err := producers.PublishDiscussions(ctx, a, tenant, ds); err != nil {
		t.Fatal(err)
	}
	changed := ds[0]
	changed.Turns = append([]schemas.Turn(nil), ds[0].Turns...)
	changed.Turns[0].Utterance += " I mean it."
	if _, err := producers.PublishDiscussions(ctx, a, tenant, []schemas.Discussion{changed}); err != nil {
		t.Fatal(err)
	}
	again, err := w.Wait(ctx, []schemas.Discussion{changed}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if it := again[0].Item; it == nil || it.Version != 2 || it.ID != ds[0].ID {
		t.Fatalf("changed discussion: %+v, want version 2 of its summary", again[0])
	}
	if err := a.WaitIdle(ctx, stages); err != nil {
		t.Fatal(err)
	}
	if n := records(ctx, t, a, topology.Requests); n != 3 {
		t.Errorf("%d requests, want 3 (two summaries, one new version)", n)
	}
	items, err := a.Discussions.Items(ctx, tenant, 0)
	if err != nil || len(items) != 2 || items[0].ID != ds[0].ID || items[0].Version != 2 {
		t.Errorf("feed = %d items, %v; want 2, the changed one first at version 2", len(items), err)
	}
}

// records counts the records on a topic.
func records(ctx context.Context, t *testing.T, a *app.App, topic string) int64 {
	t.Helper()
	lags, err := kafka.Lag(ctx, a.Config.Kafka, "", []string{topic})
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, l := range lags {
		n += l.End - l.Start
	}
	return n
}
