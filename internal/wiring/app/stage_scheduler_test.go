package app

import (
	"context"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/annalist-dev/annalist/consumers/scheduler"
	"github.com/annalist-dev/annalist/infra/kafka"
	"github.com/annalist-dev/annalist/infra/llm"
	"github.com/annalist-dev/annalist/infra/pages"
	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
)

// The scheduler stage on the embedded kfake broker (over TCP) and a child
// redis-server: a kg-update on the page's entity, consumed by the stage,
// becomes one regeneration request on the requests topic after the
// window, recorded queued like any request, and the page is stale until
// that request's page is published.
func TestSchedulerStagePublishesRegenerations(t *testing.T) {
	redistest.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	reg := DefaultStages()
	if _, err := reg.Lookup(topology.StageScheduler); err != nil {
		reg = reg.With(schedulerStage)
	}
	cfg := Config{DataDir: t.TempDir(), Stages: reg,
		Kafka:    kafka.Config{SessionTimeout: 6 * time.Second, RebalanceTimeout: 6 * time.Second},
		Generate: GenerateConfig{ScheduleWindow: 100 * time.Millisecond}}
	a, err := Open(ctx, cfg, zerolog.Nop(), reg.Needs([]string{topology.StageScheduler}))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	const tenant, subject = schemas.DefaultTenant, "叶向高"
	p := schemas.Page{Subject: subject, Kind: schemas.KindBiography, RequestID: "r-user", Version: 1,
		Sentences: []schemas.PageSentence{{Text: "叶向高，字进卿。", Status: schemas.StatusSupported,
			Citations: []schemas.Citation{{ChunkID: "d1-0000"}}}}}
	if _, _, err := a.Pages.Publish(ctx, tenant, p, "e-ye"); err != nil {
		t.Fatal(err)
	}
	stageCtx, stop := context.WithCancel(ctx)
	stageErr := make(chan error, 1)
	go func() { stageErr <- a.RunStages(stageCtx, []string{topology.StageScheduler}, nil) }()
	u := schemas.KGUpdate{EntityID: "e-ye", Name: subject, Type: schemas.EntityPerson, Edges: []string{"x1"}, DocIDs: []string{"d7"}}
	other := schemas.KGUpdate{EntityID: "e-nobody", Name: "无名", Type: schemas.EntityPerson, Edges: []string{"x2"}}
	if err := a.Producer().Publish(ctx, kafka.Record{Topic: topology.KGUpdates, Msg: u, Meta: schemasMeta("ev-1", tenant)},
		kafka.Record{Topic: topology.KGUpdates, Msg: other, Meta: schemasMeta("ev-2", tenant)}); err != nil {
		t.Fatal(err)
	}
	sched := a.Pages.Schedule()
	var rid string
	for rid == "" {
		if ctx.Err() != nil {
			t.Fatal("no regeneration was published")
		}
		st, err := sched.Stats(ctx, tenant)
		if err != nil {
			t.Fatal(err)
		}
		if st.Pending == 0 && st.Stale == 1 {
			v, err := a.Redis.HGet(ctx, "page:{"+tenant+"}:stale", subject).Result()
			if err == nil && v != "pending" {
				rid = v
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	stop()
	if err := <-stageErr; err != nil {
		t.Fatal(err)
	}
	st, err := a.Pages.Request(ctx, tenant, rid)
	if err != nil || st.State != pages.RequestQueued || st.Subject != subject || st.Deadline == "" {
		t.Fatalf("status of %s = %+v, %v; want queued with a deadline", rid, st, err)
	}
	lags, err := kafka.Lag(ctx, a.Config.Kafka, "", []string{topology.Requests})
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, l := range lags {
		n += l.End - l.Start
	}
	if n != 1 {
		t.Fatalf("%d records on %s; want the one regeneration", n, topology.Requests)
	}
	if stale, err := a.Pages.Stale(ctx, tenant, schemas.KindBiography, subject); err != nil || !stale {
		t.Fatalf("stale before the regeneration's page = %v, %v; want true", stale, err)
	}
	p.RequestID = rid
	if _, _, err := a.Pages.Publish(ctx, tenant, p, "e-ye"); err != nil {
		t.Fatal(err)
	}
	if stale, err := a.Pages.Stale(ctx, tenant, schemas.KindBiography, subject); err != nil || stale {
		t.Fatalf("stale after the regeneration's page = %v, %v; want false", stale, err)
	}
}

// TestScheduleRateByEngine: the offline engine's regenerations are
// bounded by what a writer takes (DefaultScheduleRate), a model's by the
// scheduler's cost guard; a rate set wins either way.
func TestScheduleRateByEngine(t *testing.T) {
	var a App
	if got := a.ScheduleRate(); got != DefaultScheduleRate {
		t.Errorf("offline: %v, want %v", got, DefaultScheduleRate)
	}
	a.Chat = &llm.Model{}
	if got := a.ScheduleRate(); got != scheduler.DefaultRate {
		t.Errorf("with a model: %v, want %v", got, scheduler.DefaultRate)
	}
	a.Config.Generate.ScheduleRate = 7
	if got := a.ScheduleRate(); got != 7 {
		t.Errorf("set: %v, want 7", got)
	}
}
