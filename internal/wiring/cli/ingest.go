package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/annalist-dev/annalist/internal/kit/progress"
	"github.com/annalist-dev/annalist/internal/lang/quotes"
	"github.com/annalist-dev/annalist/internal/wiring/app"
	"github.com/annalist-dev/annalist/producers"
)

// cmdIngest publishes files, directories or JSONL on stdin ("-") as
// documents; `ingest --collection quotes FILE` a quotation collection in
// the quotable format, one document per quotation (ingestQuotes); `ingest discussions FILE` publishes discussions instead
// (ingestDiscussions: a directory named discussions is ./discussions). Embedded (no --brokers): the ingestion stages run in this
// process, or in the process that owns --data-dir (serve, demo), which
// this one then joins: it only publishes and waits until the owner's
// stages have finished its documents. Distributed: it publishes and, with
// --wait, waits for the `consume` services to catch up.
func cmdIngest(ctx context.Context, io IO, args []string) error {
	fs := newFlagSet("ingest", io.Stderr)
	var s service
	s.register(fs)
	var opts producers.Options
	fs.StringVar(&opts.Collection, "collection", "", "collection of the documents (default: the directory's name)")
	fs.StringVar(&opts.Profile, "profile", "", "chunker profile for every document (default: detected per document)")
	wait := fs.Bool("wait", true, "wait until the ingestion stages have consumed the documents")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 && pos[0] == "discussions" {
		return ingestDiscussions(ctx, io, s, *wait, pos[1:])
	}
	if len(pos) == 0 {
		return fmt.Errorf("%w: want PATH... (files, directories, or - for JSONL on stdin), or `discussions FILE`", errUsage)
	}
	quoteCollection := opts.Collection == quotes.Collection
	if quoteCollection && len(pos) != 1 {
		return fmt.Errorf("%w: want `ingest --collection %s FILE` (one quotable JSON file, or - for stdin)", errUsage, quotes.Collection)
	}
	// Refused before any service starts, with the names to choose from.
	if err := producers.CheckProfile(opts.Profile); err != nil {
		return fmt.Errorf("%w: --profile: %w", errUsage, err)
	}
	a, log, err := s.open(ctx, io, ingestNeeds(s.embedded(), s.app.VectorStore))
	if err != nil {
		return err
	}
	defer a.Close()
	publish := func(ctx context.Context, sink producers.Sink) (producers.Summary, error) {
		if quoteCollection {
			return ingestQuotes(ctx, io, pos[0], s.tenant, sink)
		}
		if len(pos) == 1 && pos[0] == "-" {
			return producers.IngestJSONL(ctx, io.Stdin, "stdin", producers.JSONLDefaults(opts), s.tenant, sink)
		}
		files, err := producers.Walk(pos, opts)
		if err != nil {
			return producers.Summary{}, err
		}
		rep := progress.New(int64(len(files)), "ingest", log)
		return producers.IngestFiles(ctx, pos, opts, s.tenant, sink, rep)
	}
	var res app.IngestResult
	if a.Joined {
		res, err = joinedIngest(ctx, a, s.tenant, *wait, log, publish)
	} else {
		res, err = a.Ingest(ctx, s.tenant, s.embedded(), *wait, publish)
	}
	if err != nil {
		return err
	}
	for _, e := range res.Errors {
		log.Warn().Str("error", e).Msg("input skipped")
	}
	if s.json {
		if err := writeJSON(io.Stdout, res); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(io.Stdout, "ingested %d documents (%d characters) from %d files in %.2fs; %d skipped\n",
			res.Documents, res.Chars, res.Files, res.Seconds, len(res.Errors))
		fmt.Fprintf(io.Stdout, "store: %d documents, %d chunks, %d KG nodes, %d edges, %d aliases, %d vectors\n",
			res.Store.Documents, res.Store.Chunks, res.Store.Nodes, res.Store.Edges, res.Store.Aliases, res.Store.Vectors)
	}
	return nothingIngested(res.Summary)
}

// ingestNeeds is what `ingest` opens. Embedded, the ingestion stages'
// services, which it runs (or joins the owner of). Distributed, the
// broker and Redis it publishes through and counts in, and Milvus when the
// vectors are there: the store the `consume` services write, whose count
// the summary reports. An embedded index under --data-dir is left closed:
// it is the index of the process that runs the embedder, not this one's.
func ingestNeeds(embedded bool, vectorStore string) app.Needs {
	if embedded {
		return app.NeedsFor(app.IngestStages())
	}
	return app.Needs{Broker: true, Redis: true, Vectors: vectorStore == app.VectorMilvus}
}

// joinedIngest is ingest in a process that joined the owner of the data
// directory: it publishes, then waits until the owner's ingestion stages
// have finished the documents it published, following them in the
// document store (App.WaitDocuments), and reads the store's size. It never
// runs a stage: the owner's are the ones that write the data directory.
func joinedIngest(ctx context.Context, a *app.App, tenant string, wait bool, log zerolog.Logger,
	publish func(context.Context, producers.Sink) (producers.Summary, error)) (app.IngestResult, error) {
	stages := app.IngestStages()
	if err := a.OwnerRuns(stages); err != nil {
		return app.IngestResult{}, err
	}
	var (
		mu  sync.Mutex
		ids []string
	)
	start := time.Now()
	res, err := a.Ingest(ctx, tenant, false, false, func(ctx context.Context, sink producers.Sink) (producers.Summary, error) {
		return publish(ctx, sinkFunc(func(ctx context.Context, tenant string, items []producers.Item) error {
			if err := sink.Send(ctx, tenant, items); err != nil {
				return err
			}
			mu.Lock()
			for _, it := range items {
				ids = append(ids, it.Doc.DocID)
			}
			mu.Unlock()
			return nil
		}))
	})
	if err != nil || !wait || len(ids) == 0 {
		return res, err
	}
	owner, _ := a.Owner()
	log.Info().Int("documents", len(ids)).Str("owner", owner.Owner()).
		Msg("published; waiting for the owner's stages to finish the documents")
	rep := progress.New(int64(len(ids)), "processed by "+owner.Owner(), log)
	last := 0
	err = a.WaitDocuments(ctx, tenant, ids, stages, func(done, _ int) {
		rep.Add(done - last)
		last = done
	})
	rep.Finish()
	if err != nil {
		return res, fmt.Errorf("wait for %s to process the documents: %w", owner.Owner(), err)
	}
	res.Seconds = time.Since(start).Seconds()
	if res.Store, err = a.Counts(ctx, tenant); err != nil {
		return res, err
	}
	return res, nil
}

// sinkFunc is a producers.Sink made of a function.
type sinkFunc func(ctx context.Context, tenant string, items []producers.Item) error

func (f sinkFunc) Send(ctx context.Context, tenant string, items []producers.Item) error {
	return f(ctx, tenant, items)
}

// nothingIngested is the exit status of a run: an error when no document
// was published although inputs were given, because every one was refused
// (the first reason is named; the rest were logged). A run that publishes
// documents the store already holds has ingested them (the same ids change
// nothing) and succeeds.
func nothingIngested(sum producers.Summary) error {
	if sum.Documents > 0 {
		return nil
	}
	switch len(sum.Errors) {
	case 0:
		return errors.New("nothing ingested: no document in the input")
	case 1:
		return fmt.Errorf("nothing ingested: the input was refused: %s", sum.Errors[0])
	default:
		return fmt.Errorf("nothing ingested: all %d inputs were refused; the first: %s", len(sum.Errors), sum.Errors[0])
	}
}

// ingestQuotes publishes the quotation collection of path ("-" is stdin)
// to sink: one document per quotation, refused records in the summary's
// errors.
func ingestQuotes(ctx context.Context, io IO, path, tenant string, sink producers.Sink) (producers.Summary, error) {
	if path == "-" {
		return producers.IngestQuotes(ctx, io.Stdin, "stdin", tenant, sink)
	}
	f, err := os.Open(path)
	if err != nil {
		return producers.Summary{}, fmt.Errorf("ingest quotations: %w", err)
	}
	defer f.Close()
	return producers.IngestQuotes(ctx, f, filepath.Base(path), tenant, sink)
}
