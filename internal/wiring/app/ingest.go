package app

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/annalist-dev/annalist/producers"
	"github.com/annalist-dev/annalist/topology"
)

// IngestResult reports an ingest run and the state it left.
type IngestResult struct {
	producers.Summary
	// Chunks and Triplets were produced by the stages of this process
	// during the run (zero when the stages run elsewhere).
	Chunks   int `json:"chunks"`
	Triplets int `json:"triplets"`
	Vectors  int `json:"vectors"`
	// DeadLetters counts inputs the stages of this process dead-lettered.
	DeadLetters int `json:"dead_letters"`
	// Store is the tenant's size after the run.
	Store StoreCounts `json:"store"`
	// Seconds runs from the first publish to the pipeline being idle.
	Seconds float64 `json:"seconds"`
}

// StoreCounts is the size of a tenant's state.
type StoreCounts struct {
	Documents int64 `json:"documents"`
	Chunks    int64 `json:"chunks"`
	Nodes     int64 `json:"nodes"`
	Edges     int64 `json:"edges"`
	Aliases   int64 `json:"aliases"`
	Vectors   int   `json:"vectors"`
}

// Counts reads the size of a tenant's state from the services this app
// has open.
func (a *App) Counts(ctx context.Context, tenant string) (StoreCounts, error) {
	var c StoreCounts
	if a.Chunks != nil {
		d, n, err := a.Chunks.Counts(ctx, tenant)
		if err != nil {
			return c, err
		}
		c.Documents, c.Chunks = d, n
	}
	if a.KG != nil {
		k, err := a.KG.Counts(ctx, tenant)
		if err != nil {
			return c, err
		}
		c.Nodes, c.Edges, c.Aliases = k.Nodes, k.Edges, k.Aliases
	}
	if a.Vectors != nil {
		n, err := a.Vectors.Count(ctx, tenant)
		if err != nil {
			return c, err
		}
		c.Vectors = n
	}
	return c, nil
}

// Ingest publishes documents with publish and, when wait is set, waits
// until the ingestion stages have consumed them. When runStages is set the
// stages run in this process for the duration (the embedded mode of a
// one-shot command); otherwise they run elsewhere (a demo process that
// owns the data directory, or `consume` services).
func (a *App) Ingest(ctx context.Context, tenant string, runStages, wait bool,
	publish func(ctx context.Context, sink producers.Sink) (producers.Summary, error)) (IngestResult, error) {
	var res IngestResult
	stages := IngestStages()
	stageCtx, stopStages := context.WithCancel(ctx)
	defer stopStages()
	counters := &Counters{}
	// stageErr stays nil while no stage runs here: a select on it then
	// never fires, and stopped() has nothing to wait for. The stages start
	// with the first publish, so a run that publishes nothing (every input
	// refused) starts none and leaves no half-started stage to stop.
	var stageErr chan error
	var once sync.Once
	sink := sinkFunc(func(ctx context.Context, tenant string, items []producers.Item) error {
		if runStages {
			once.Do(func() {
				stageErr = make(chan error, 1)
				go func() { stageErr <- a.RunStages(stageCtx, stages, counters) }()
			})
		}
		// Documents are versions of their sources: a new text of a
		// source supersedes the version before it, the same text
		// publishes nothing, and a refused one (a retracted id, an id
		// bound to another text) is logged and skipped.
		return a.Versions(func(it producers.Item, err error) {
			a.Log.Warn().Err(err).Str("doc_id", it.Doc.DocID).Str("source", it.Doc.Source).Msg("document refused")
		}).Send(ctx, tenant, items)
	})
	stopped := func() error {
		stopStages()
		if stageErr == nil {
			return nil
		}
		err := <-stageErr
		// Stages stopped by this function while they were still starting
		// (checking topics, joining their groups: a run whose publishing
		// failed at once ends that soon) report the cancellation it
		// caused. That is the end the run asked for, not a failure to
		// print.
		if ctx.Err() == nil && onlyCanceled(err) {
			return nil
		}
		return err
	}
	start := time.Now()
	sum, err := publish(ctx, sink)
	res.Summary = sum
	if err != nil {
		return res, errors.Join(err, stopped())
	}
	// Nothing published: nothing to wait for.
	if wait && sum.Documents > 0 {
		idle := make(chan error, 1)
		go func() { idle <- a.WaitIdle(stageCtx, stages) }()
		select {
		case err = <-idle:
			if err != nil {
				return res, errors.Join(fmt.Errorf("wait for the pipeline: %w", err), stopped())
			}
		case err = <-stageErr:
			if err == nil {
				err = errors.New("stages stopped before the pipeline was idle")
			}
			return res, err
		}
	}
	res.Seconds = time.Since(start).Seconds()
	if err := stopped(); err != nil {
		return res, err
	}
	res.Chunks = counters.Stage(topology.StageChunker).Produced
	res.Triplets = counters.Stage(topology.StageExtractor).Produced
	res.Vectors = counters.Stage(topology.StageEmbedder).Handled
	for _, s := range stages {
		res.DeadLetters += counters.Stage(s).DeadLettered
	}
	store, err := a.Counts(ctx, tenant)
	if err != nil {
		return res, err
	}
	res.Store = store
	return res, nil
}

// onlyCanceled reports whether err is context.Canceled and nothing else:
// every error it joins or wraps is a cancellation.
func onlyCanceled(err error) bool {
	if err == nil {
		return false
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs := j.Unwrap()
		for _, e := range errs {
			if !onlyCanceled(e) {
				return false
			}
		}
		return len(errs) > 0
	}
	if u := errors.Unwrap(err); u != nil {
		return onlyCanceled(u)
	}
	return err == context.Canceled
}

// sinkFunc is a producers.Sink made of a function.
type sinkFunc func(ctx context.Context, tenant string, items []producers.Item) error

func (f sinkFunc) Send(ctx context.Context, tenant string, items []producers.Item) error {
	return f(ctx, tenant, items)
}
