package app

import (
	"context"
	"errors"
	"time"

	"github.com/annalist-dev/annalist/consumers/scheduler"
	"github.com/annalist-dev/annalist/infra/pages"
	"github.com/annalist-dev/annalist/internal/kit/logging"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
)

// schedulerStage turns kg-updates into regeneration requests: its handler
// records triggers on the pages that depend on what changed, its
// Background emitter publishes the ones that fall due (consumers/scheduler).
var schedulerStage = Stage{
	Stage: topology.Stage{Name: topology.StageScheduler, Reads: []string{topology.KGUpdates}, Writes: []string{topology.Requests},
		Doc: "debounced, deduplicated, rate-limited regeneration of the pages a change rests under"},
	Part: PartGenerate,
	Build: func(a *App) (pipeline.BatchHandler, error) {
		if a.Redis == nil || a.Pages == nil {
			return nil, errors.New("scheduler needs redis")
		}
		return scheduler.Handler(schedulerStore{a.Pages, pages.NewSchedule(a.Redis)},
			scheduler.Config{Window: a.ScheduleWindow()}), nil
	},
	Background: func(a *App) (func(ctx context.Context) error, error) {
		if a.Redis == nil || a.Pages == nil {
			return nil, errors.New("scheduler needs redis")
		}
		// A regeneration is a request like any other (App.Request): checked
		// against the kinds, recorded queued with its deadline, published
		// under its id as event id, so a second publication is dropped by
		// the writer's seen: marker.
		publish := func(ctx context.Context, tenant string, r schemas.Request) error {
			_, err := a.Request(ctx, tenant, r)
			return err
		}
		e := scheduler.NewEmitter(schedulerStore{a.Pages, pages.NewSchedule(a.Redis)}, publish, a.Pages,
			scheduler.EmitterConfig{Rate: a.ScheduleRate(), Lease: a.Config.Generate.ScheduleLease},
			a.Log.With().Str(logging.FieldStage, topology.StageScheduler).Logger())
		// A regenerated answer carries the documents of its current page.
		e = e.WithPages(a.Pages, func(err error) bool { return errors.Is(err, pages.ErrNotFound) })
		return e.Run, nil
	},
}

// schedulerStore adapts the page store and the schedule in Redis to the
// scheduler's interfaces, which speak the stage's own types.
type schedulerStore struct {
	pages *pages.Store
	sched *pages.Schedule
}

func (s schedulerStore) Dependents(ctx context.Context, tenant string, qs []scheduler.Query) ([][]scheduler.Page, error) {
	dq := make([]pages.DependentsQuery, len(qs))
	for i, q := range qs {
		dq[i] = pages.DependentsQuery{Entities: q.Entities, Chunks: q.Chunks}
	}
	refs, err := s.pages.DependentsMany(ctx, tenant, dq)
	if err != nil {
		return nil, err
	}
	out := make([][]scheduler.Page, len(refs))
	for i, rs := range refs {
		for _, r := range rs {
			out[i] = append(out[i], scheduler.Page{Kind: r.Kind, Subject: r.Subject})
		}
	}
	return out, nil
}

func (s schedulerStore) Record(ctx context.Context, tenant string, tr scheduler.Trigger, ps []scheduler.Page, now time.Time, window, maxDelay time.Duration) (int, error) {
	refs := make([]pages.PageRef, len(ps))
	for i, p := range ps {
		refs[i] = pages.PageRef{Kind: p.Kind, Subject: p.Subject}
	}
	return s.sched.Record(ctx, tenant, pages.Trigger{Reason: tr.Reason, DocIDs: tr.DocIDs, Key: tr.Key}, refs, now, window, maxDelay)
}

func (s schedulerStore) Tenants(ctx context.Context) ([]string, error) { return s.sched.Tenants(ctx) }

func (s schedulerStore) Claim(ctx context.Context, tenant string, now time.Time, lease time.Duration, n int) ([]scheduler.Claim, error) {
	cs, err := s.sched.Claim(ctx, tenant, now, lease, n)
	out := make([]scheduler.Claim, len(cs))
	for i, c := range cs {
		out[i] = scheduler.Claim{Request: c.Request(), First: c.First}
	}
	return out, err
}

func (s schedulerStore) Ack(ctx context.Context, tenant string, c scheduler.Claim) (bool, error) {
	return s.sched.Ack(ctx, tenant, claimed(c))
}

func (s schedulerStore) Release(ctx context.Context, tenant string, c scheduler.Claim, now time.Time) error {
	return s.sched.Release(ctx, tenant, claimed(c), now)
}

func (s schedulerStore) Forget(ctx context.Context, tenant string) error {
	return s.sched.Forget(ctx, tenant)
}

// claimed is the schedule's claim a scheduler claim stands for: its page
// and request id are all Ack and Release read.
func claimed(c scheduler.Claim) pages.Claimed {
	return pages.Claimed{Page: pages.PageRef{Kind: c.Request.Kind, Subject: c.Request.Subject},
		RequestID: c.Request.RequestID}
}
