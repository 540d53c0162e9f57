package cli

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"time"

	"github.com/rs/zerolog"

	"github.com/annalist-dev/annalist/consumers/feed"
	"github.com/annalist-dev/annalist/internal/evaluation/dataset"
	"github.com/annalist-dev/annalist/internal/kit/progress"
	"github.com/annalist-dev/annalist/internal/wiring/app"
	"github.com/annalist-dev/annalist/producers"
	"github.com/annalist-dev/annalist/schemas"
)

// BenchDiscussions is the JSON of `annalist bench discussions`.
type BenchDiscussions struct {
	Data        string `json:"data"`
	Discussions int    `json:"discussions"`
	// Summaries are the discussions whose summary reached the feed;
	// Failed those whose request failed.
	Summaries int `json:"summaries"`
	Failed    int `json:"failed"`
	// Latency is per discussion, from its publication on the discussions
	// topic to its feed item being stored, in milliseconds.
	P50Ms  float64 `json:"p50_ms"`
	P95Ms  float64 `json:"p95_ms"`
	MaxMs  float64 `json:"max_ms"`
	MeanMs float64 `json:"mean_ms"`
	// SummariesPerSecond is summaries over the wall time from the first
	// publication to the last feed item.
	SummariesPerSecond float64 `json:"summaries_per_second"`
	Seconds            float64 `json:"seconds"`
	// Sentences are the sentences of the feed items: Background and
	// Opinion ones.
	Sentences           int `json:"sentences"`
	BackgroundSentences int `json:"background_sentences"`
	OpinionSentences    int `json:"opinion_sentences"`
	// Dropped are the sentences that never reached the feed: those the
	// generation loop gave up on (not verified after bounded attempts)
	// and those of a page the feed could not read as a background or an
	// opinion sentence (FeedSkipped).
	Dropped     int `json:"dropped_sentences"`
	FeedSkipped int `json:"feed_skipped"`
	// Paragraphs are the background paragraphs sent to ingestion as
	// documents.
	Paragraphs int `json:"paragraphs"`
	// StartupSeconds is the services' start and the warm-up discussion.
	StartupSeconds float64 `json:"startup_seconds"`
	Engine         string  `json:"engine"`
	CPUs           int     `json:"cpus"`
}

// benchDiscussions is `annalist bench discussions --data FILE [--n N]`:
// in a fresh embedded data directory with every stage running in this
// process, one warm-up discussion goes through end to end (so consumer
// group joins are not measured), then the first n discussions of FILE
// (all when n ≤ 0) are published at once and each is timed from its
// publication to its feed item.
func benchDiscussions(ctx context.Context, io IO, s service, data string, n int, keep bool) error {
	if data == "" {
		data = dataset.Path("kgds/dev.json")
	}
	if data == "" {
		return fmt.Errorf("%w: --data FILE is required (KGDS discussions: an array or JSON lines)", errUsage)
	}
	ds, err := readDiscussionFile(data, io)
	if err != nil {
		return err
	}
	if n > 0 && n < len(ds) {
		ds = ds[:n]
	}
	cleanup, err := s.freshDataDir("bench discussions", "bench-discussions-", keep)
	if err != nil {
		return err
	}
	defer cleanup()
	startup := time.Now()
	stages := app.AllStages()
	a, log, err := s.open(ctx, io, app.NeedsFor(stages))
	if err != nil {
		return err
	}
	defer a.Close()
	opened := time.Since(startup).Seconds()
	if err := a.ValidateRequest(schemas.Request{RequestID: "-", Kind: schemas.KindDiscussionSummary, Subject: "-"}); err != nil {
		return err
	}
	stageCtx, stop := context.WithCancel(ctx)
	defer stop()
	stageErr := make(chan error, 1)
	go func() { stageErr <- a.RunStages(stageCtx, stages, nil) }()
	out, err := benchDiscussionRun(ctx, a, s, log, ds, stageErr)
	out.StartupSeconds += opened
	stop()
	if serr := <-stageErr; serr != nil && err == nil {
		err = serr
	}
	if err != nil {
		return err
	}
	out.Data = data
	if s.json {
		return writeJSON(io.Stdout, out)
	}
	fmt.Fprintf(io.Stdout, "%d discussions: %d summaries, %d failed in %.2fs (%.2f summaries/s); per discussion p50 %.0f ms, p95 %.0f ms, max %.0f ms\n",
		out.Discussions, out.Summaries, out.Failed, out.Seconds, out.SummariesPerSecond, out.P50Ms, out.P95Ms, out.MaxMs)
	fmt.Fprintf(io.Stdout, "%d sentences (%d background, %d opinions); %d dropped (%d not readable by the feed); %d paragraphs ingested\n",
		out.Sentences, out.BackgroundSentences, out.OpinionSentences, out.Dropped, out.FeedSkipped, out.Paragraphs)
	return nil
}

// benchDiscussionRun warms the stages up, then publishes ds and waits for
// their summaries. The startup time is set by the caller.
func benchDiscussionRun(ctx context.Context, a *app.App, s service, log zerolog.Logger, ds []schemas.Discussion, stageErr chan error) (BenchDiscussions, error) {
	out := BenchDiscussions{Discussions: len(ds), Engine: "offline", CPUs: runtime.NumCPU()}
	if a.Chat != nil {
		out.Engine = "llm"
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// A stage that stops ends the wait; its error is the caller's to read.
	go func() {
		select {
		case err := <-stageErr:
			stageErr <- err
			cancel()
		case <-ctx.Done():
		}
	}()
	// The warm-up is another discussion (its own id and event id), so the
	// measured one is not skipped as seen.
	warm := ds[0]
	warm.ID = "warm-up-" + warm.ID
	t0 := time.Now()
	if _, _, err := benchPublishAndWait(ctx, a, s.tenant, []schemas.Discussion{warm}, nil); err != nil {
		return out, fmt.Errorf("warm-up discussion: %w", err)
	}
	out.StartupSeconds = time.Since(t0).Seconds()
	rep := progress.New(int64(len(ds)), "bench discussions", log)
	outcomes, start, err := benchPublishAndWait(ctx, a, s.tenant, ds, func(app.SummaryOutcome) { rep.Add(1) })
	rep.Finish()
	if err != nil {
		return out, err
	}
	var lat []float64
	var last time.Time
	for i, o := range outcomes {
		out.Paragraphs += len(ds[i].Background)
		if o.Item == nil {
			out.Failed++
			continue
		}
		out.Summaries++
		lat = append(lat, float64(o.At.Sub(start).Microseconds())/1000)
		if o.At.After(last) {
			last = o.At
		}
		sum := o.Item.Summary
		out.BackgroundSentences += len(sum.Background.Sentences)
		for _, op := range sum.Opinions {
			out.OpinionSentences += len(op.Sentences)
		}
		p, err := a.Pages.CurrentOf(ctx, s.tenant, schemas.KindDiscussionSummary, o.ID)
		if err != nil {
			return out, fmt.Errorf("page of discussion %s: %w", o.ID, err)
		}
		d := ds[i]
		_, skipped := feed.Summary(p, &d)
		out.FeedSkipped += skipped
		out.Dropped += len(p.Dropped) + skipped
	}
	out.Sentences = out.BackgroundSentences + out.OpinionSentences
	if len(lat) > 0 {
		slices.Sort(lat)
		out.P50Ms, out.P95Ms, out.MaxMs = quantile(lat, 0.50), quantile(lat, 0.95), lat[len(lat)-1]
		var sum float64
		for _, v := range lat {
			sum += v
		}
		out.MeanMs = sum / float64(len(lat))
		out.Seconds = last.Sub(start).Seconds()
		if out.Seconds > 0 {
			out.SummariesPerSecond = float64(out.Summaries) / out.Seconds
		}
	}
	return out, nil
}

// benchPublishAndWait listens to the feed, publishes ds (all in one
// batch, at the returned time) and waits for their summaries; done is
// called per discussion.
func benchPublishAndWait(ctx context.Context, a *app.App, tenant string, ds []schemas.Discussion, done func(app.SummaryOutcome)) ([]app.SummaryOutcome, time.Time, error) {
	w, err := a.WatchSummaries(ctx, tenant)
	if err != nil {
		return nil, time.Time{}, err
	}
	defer w.Close()
	start := time.Now()
	if _, err := producers.PublishDiscussions(ctx, a, tenant, ds); err != nil {
		return nil, start, err
	}
	out, err := w.Wait(ctx, ds, done)
	return out, start, err
}
