package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/annalist-dev/annalist/consumers/discussions"
	"github.com/annalist-dev/annalist/consumers/feed"
	"github.com/annalist-dev/annalist/infra/discussionstore"
	"github.com/annalist-dev/annalist/infra/kafka"
	"github.com/annalist-dev/annalist/infra/pages"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/producers"
	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
)

// discussionsStage receives discussions (consumers/discussions): it
// stores them for the discussion_summary kind's planner, sends their
// background paragraphs into ingestion as documents and asks for their
// summaries. It belongs to the ingestion half: like the edge, it turns
// outside input into documents (and requests, as the scheduler of the
// generation half turns kg-updates into requests); `consume ingest`
// runs it beside the chunker that reads its documents.
var discussionsStage = Stage{
	Stage: topology.Stage{Name: topology.StageDiscussions, Reads: []string{topology.Discussions},
		Writes: []string{topology.Documents, topology.Requests},
		Doc:    "stores discussions, sends their paragraphs to ingestion as documents and asks for their summaries"},
	Part: PartIngest, Build: buildDiscussions,
}

// feedStage publishes discussion summaries (consumers/feed): it reads the
// pages the assembler publishes and turns each discussion_summary page
// into the discussion's feed item. It is the last step of generation, so
// it belongs to the generation half with the assembler.
var feedStage = Stage{
	Stage: topology.Stage{Name: topology.StageFeed, Reads: []string{topology.Pages}, Writes: []string{topology.Feed},
		Doc: "discussion_summary pages to feed items: background and opinions with their citations, stored and announced"},
	Part: PartGenerate, Build: buildFeed,
}

func buildDiscussions(a *App) (pipeline.BatchHandler, error) {
	if a.Discussions == nil || a.Pages == nil {
		return nil, errors.New("discussions needs redis")
	}
	st, err := discussions.New(a.Discussions, summaryRequests{a})
	if err != nil {
		return nil, err
	}
	return pipeline.Batch(st.Handler()), nil
}

func buildFeed(a *App) (pipeline.BatchHandler, error) {
	if a.Discussions == nil {
		return nil, errors.New("feed needs redis")
	}
	st, err := feed.New(a.Discussions, a.Discussions)
	if err != nil {
		return nil, err
	}
	return pipeline.Batch(st.Handler()), nil
}

// summaryRequests accepts the discussions stage's summary requests as
// App.Request accepts every request: checked against the registered kinds
// and recorded queued with the process's deadline (the stage publishes
// them as its outputs).
type summaryRequests struct{ a *App }

func (s summaryRequests) Accept(ctx context.Context, tenant string, r schemas.Request) error {
	if err := s.a.ValidateRequest(r); err != nil {
		return err
	}
	requested := r.RequestedAt
	if requested == "" {
		requested = time.Now().UTC().Format(time.RFC3339Nano)
	}
	return s.a.Pages.SetRequest(ctx, tenant, pages.RequestStatus{RequestID: r.RequestID, Kind: r.Kind,
		Subject: r.Subject, State: pages.RequestQueued, RequestedAt: requested,
		Deadline: s.a.deadlineOf(requested)})
}

// SendDiscussions implements producers.DiscussionSink: discussions go to
// the discussions topic, each under its item's event id.
func (a *App) SendDiscussions(ctx context.Context, tenant string, items []producers.DiscussionItem) error {
	if len(items) == 0 {
		return nil
	}
	recs := make([]kafka.Record, len(items))
	for i, it := range items {
		meta := schemasMeta(it.EventID, tenant)
		if t := pipeline.TraceID(ctx); t != "" {
			meta.TraceID = t
		}
		recs[i] = kafka.Record{Topic: topology.Discussions, Msg: it.Discussion, Meta: meta}
	}
	return a.Producer().Publish(ctx, recs...)
}

// SummaryOutcome is what became of one discussion's summary request.
type SummaryOutcome struct {
	ID        string `json:"id"`
	RequestID string `json:"request_id"`
	// Item is the feed item of the request's page; nil when it failed.
	Item *schemas.FeedItem `json:"item,omitempty"`
	// Error is why the request failed (its status's error).
	Error string `json:"error,omitempty"`
	// At is when this process saw the item (or the failure).
	At time.Time `json:"-"`
}

// summaryPoll is how often WaitSummaries reads the feed and the request
// statuses besides listening to the feed's announcements.
const summaryPoll = 200 * time.Millisecond

// SummaryWatch listens to the feed's announcements of one tenant, so
// that a caller can start listening before it publishes discussions and
// time their summaries exactly (WatchSummaries).
type SummaryWatch struct {
	a      *App
	tenant string
	events <-chan schemas.FeedItem
	cancel context.CancelFunc
}

// WatchSummaries starts listening to the tenant's feed; the caller
// closes the watch.
func (a *App) WatchSummaries(ctx context.Context, tenant string) (*SummaryWatch, error) {
	if a.Discussions == nil || a.Pages == nil {
		return nil, errors.New("watch summaries: no discussion store (Redis) open")
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	events, err := a.Discussions.Subscribe(ctx, tenant)
	if err != nil {
		cancel()
		return nil, err
	}
	return &SummaryWatch{a: a, tenant: tenant, events: events, cancel: cancel}, nil
}

// Close stops listening.
func (w *SummaryWatch) Close() { w.cancel() }

// WaitSummaries waits until every discussion of ds has its summary on the
// feed (SummaryWatch.Wait), listening from now on.
func (a *App) WaitSummaries(ctx context.Context, tenant string, ds []schemas.Discussion, done func(SummaryOutcome)) ([]SummaryOutcome, error) {
	w, err := a.WatchSummaries(ctx, tenant)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	return w.Wait(ctx, ds, done)
}

// Wait waits until every discussion of ds has its summary on the feed:
// the feed item of the page its summary request made (the request id the
// discussions stage derives from its content, discussions.Request), or a
// failed request. At is when the watch heard of each item (or, for an
// item stored before the watch began and for failures, when a reading
// of the store found it): the store and the request statuses are read
// every summaryPoll besides (a request past its deadline reads failed).
// done, when set, is called once per discussion as it ends. It returns
// the outcomes in the order of ds, or ctx's error.
func (w *SummaryWatch) Wait(ctx context.Context, ds []schemas.Discussion, done func(SummaryOutcome)) ([]SummaryOutcome, error) {
	a, tenant := w.a, w.tenant
	out := make([]SummaryOutcome, len(ds))
	pending := map[string][]int{}
	for i, d := range ds {
		r := discussions.Request(d)
		out[i] = SummaryOutcome{ID: d.ID, RequestID: r.RequestID}
		pending[r.RequestID] = append(pending[r.RequestID], i)
	}
	finish := func(rid string, it *schemas.FeedItem, failure string) {
		now := time.Now()
		for _, i := range pending[rid] {
			out[i].Item, out[i].Error, out[i].At = it, failure, now
			if done != nil {
				done(out[i])
			}
		}
		delete(pending, rid)
	}
	poll := time.NewTicker(summaryPoll)
	defer poll.Stop()
	check := func() error {
		for rid, idx := range pending {
			it, err := a.Discussions.Item(ctx, tenant, out[idx[0]].ID)
			switch {
			case err == nil && it.RequestID == rid:
				finish(rid, &it, "")
				continue
			case err != nil && !errors.Is(err, discussionstore.ErrNotFound):
				return err
			}
			st, err := a.Pages.Request(ctx, tenant, rid)
			switch {
			case errors.Is(err, pages.ErrNotFound):
			case err != nil:
				return err
			case st.State == pages.RequestFailed:
				finish(rid, nil, st.Error)
			}
		}
		return nil
	}
	heard := func(it schemas.FeedItem, ok bool) error {
		if !ok {
			return fmt.Errorf("wait for %d summaries: the feed's announcements ended", len(pending))
		}
		if _, ok := pending[it.RequestID]; ok {
			finish(it.RequestID, &it, "")
		}
		return nil
	}
	for len(pending) > 0 {
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("wait for %d summaries: %w", len(pending), ctx.Err())
		case it, ok := <-w.events:
			if err := heard(it, ok); err != nil {
				return nil, err
			}
		case <-poll.C:
			// What was announced goes first, with its time.
			for drained := false; !drained; {
				select {
				case it, ok := <-w.events:
					if err := heard(it, ok); err != nil {
						return nil, err
					}
				default:
					drained = true
				}
			}
			if err := check(); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}
