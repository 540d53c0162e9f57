package cli

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/annalist-dev/annalist/internal/kit/progress"
	"github.com/annalist-dev/annalist/internal/wiring/app"
	"github.com/annalist-dev/annalist/producers"
	"github.com/annalist-dev/annalist/schemas"
)

// IngestDiscussions is the JSON of `annalist ingest discussions`.
type IngestDiscussions struct {
	// IDs are the discussions published, in input order.
	IDs []string `json:"ids"`
	// Summaries are what became of their summaries, with --wait.
	Summaries []app.SummaryOutcome `json:"summaries,omitempty"`
	Failed    int                  `json:"failed"`
}

// ingestDiscussions is `annalist ingest discussions FILE|-`: the
// discussions of FILE (KGDS shape: one object, an array or JSON lines; -
// for stdin), every one checked before any is published, go to the
// discussions topic. Embedded, every stage runs in this process (or in
// the owner of --data-dir, which this one joins) and, with --wait, the
// command waits until each discussion's summary is on the feed;
// distributed, it publishes and, with --wait, waits for the `consume`
// services. It prints the ids, one a line (with --wait, each with its
// summary's page version and title); bad input and failed summaries exit
// non-zero.
func ingestDiscussions(ctx context.Context, io IO, s service, wait bool, pos []string) error {
	if len(pos) != 1 {
		return fmt.Errorf("%w: want `ingest discussions FILE` (FILE: a KGDS-style JSON object, an array of them, JSON lines, or - for stdin)", errUsage)
	}
	ds, err := readDiscussionFile(pos[0], io)
	if err != nil {
		return err
	}
	stages := app.AllStages()
	need := app.Needs{Broker: true, Redis: true}
	if s.embedded() && wait {
		need = app.NeedsFor(stages)
	}
	a, log, err := s.open(ctx, io, need)
	if err != nil {
		return err
	}
	defer a.Close()
	// The summary kind must be served, or every discussion would be
	// dead-lettered by the discussions stage.
	if err := a.ValidateRequest(schemas.Request{RequestID: "-", Kind: schemas.KindDiscussionSummary, Subject: "-"}); err != nil {
		return err
	}
	stageCtx, stopStages := context.WithCancel(ctx)
	defer stopStages()
	var stageErr chan error
	switch {
	case !wait:
	case a.Joined:
		if err := a.OwnerRuns(stages); err != nil {
			return err
		}
	case s.embedded():
		stageErr = make(chan error, 1)
		go func() { stageErr <- a.RunStages(stageCtx, stages, nil) }()
	}
	stopped := func() error {
		stopStages()
		if stageErr == nil {
			return nil
		}
		return <-stageErr
	}
	ids, err := producers.PublishDiscussions(ctx, a, s.tenant, ds)
	if err != nil {
		return errors.Join(err, stopped())
	}
	out := IngestDiscussions{IDs: ids}
	if wait {
		rep := progress.New(int64(len(ds)), "discussions summarised", log)
		out.Summaries, err = a.WaitSummaries(ctx, s.tenant, ds, func(app.SummaryOutcome) { rep.Add(1) })
		rep.Finish()
		if err != nil {
			return errors.Join(err, stopped())
		}
	}
	if err := stopped(); err != nil {
		return err
	}
	var firstFailure string
	for _, o := range out.Summaries {
		if o.Item == nil {
			out.Failed++
			if firstFailure == "" {
				firstFailure = o.ID + ": " + o.Error
			}
		}
	}
	if s.json {
		if err := writeJSON(io.Stdout, out); err != nil {
			return err
		}
	} else if wait {
		for _, o := range out.Summaries {
			if o.Item == nil {
				fmt.Fprintf(io.Stdout, "%s\tfailed: %s\n", o.ID, o.Error)
				continue
			}
			fmt.Fprintf(io.Stdout, "%s\tv%d\t%s\n", o.ID, o.Item.Version, o.Item.Title)
		}
	} else {
		for _, id := range ids {
			fmt.Fprintln(io.Stdout, id)
		}
	}
	if out.Failed > 0 {
		return fmt.Errorf("%d of %d summaries failed; the first: %s", out.Failed, len(ds), firstFailure)
	}
	return nil
}

// readDiscussionFile reads and checks the discussions of path (- for
// stdin); an error names the file and the record.
func readDiscussionFile(path string, io IO) ([]schemas.Discussion, error) {
	r := io.Stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	ds, err := producers.ReadDiscussions(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ds, nil
}
