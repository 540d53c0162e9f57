package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/annalist-dev/annalist/consumers/assembler"
	"github.com/annalist-dev/annalist/consumers/chunker"
	"github.com/annalist-dev/annalist/consumers/embedder"
	"github.com/annalist-dev/annalist/consumers/extractor"
	"github.com/annalist-dev/annalist/consumers/kgwriter"
	"github.com/annalist-dev/annalist/consumers/router"
	"github.com/annalist-dev/annalist/consumers/solver"
	"github.com/annalist-dev/annalist/consumers/verifier"
	"github.com/annalist-dev/annalist/infra/kafka"
	"github.com/annalist-dev/annalist/internal/kit/logging"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/pipeline/middleware"
	"github.com/annalist-dev/annalist/producers"
	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
)

func pid() int { return os.Getpid() }

// DefaultStages is the application's stage registry: every stage of the
// pipeline, declared once, in graph order. Adding a stage is one entry here
// (and its package under consumers/); adding a solver is one solverStage
// entry and a row of the routing table (topology.Routes).
func DefaultStages() Registry {
	return Registry{
		discussionsStage,
		{Stage: topology.Stage{Name: topology.StageChunker, Reads: []string{topology.Documents}, Writes: []string{topology.Chunks},
			Doc: "pattern-enhanced chunking by corpus profile"},
			Part: PartIngest, Progress: true, Build: buildChunker},
		{Stage: topology.Stage{Name: topology.StageExtractor, Reads: []string{topology.Chunks, topology.KGUpdates}, Writes: []string{topology.Triplets},
			Doc: "regex-driven relation extraction, LLM regex synthesis, plan B; facts of persons linked to chunks outside entries"},
			Part: PartIngest, Progress: true, Build: buildExtractor},
		{Stage: topology.Stage{Name: topology.StageKGWriter, Reads: []string{topology.Triplets}, Writes: []string{topology.KGUpdates, topology.Reviews},
			Doc: "idempotent upsert into the Redis knowledge graph"},
			Part: PartIngest, Build: buildKGWriter},
		linkerStage,
		{Stage: topology.Stage{Name: topology.StageEmbedder, Reads: []string{topology.Chunks},
			Doc: "chunk embeddings into the vector store"},
			Part: PartIngest, Needs: Needs{Vectors: true}, Progress: true, Build: buildEmbedder},
		retractorStage,
		schedulerStage,
		{Stage: topology.Stage{Name: topology.StageWriter, Reads: []string{topology.Requests, topology.Verdicts, topology.Corrections}, Writes: []string{topology.Drafts},
			Doc: "retrieval into agent memory; drafts sentence k+1 once sentence k is final"},
			// Vectors: a topic page's curation seeds free text by vector
			// search over the chunks.
			Part: PartGenerate, Needs: Needs{Vectors: true, SearchOnly: true}, Build: buildWriter},
		{Stage: topology.Stage{Name: topology.StageVerifier, Reads: []string{topology.Drafts}, Writes: []string{topology.Verdicts},
			Doc: "atomic facts checked against the references: supported / not-included / not-supported"},
			Part: PartGenerate, Build: buildVerifier},
		{Stage: topology.Stage{Name: topology.StageRouter, Reads: []string{topology.Verdicts}, Writes: topology.RepairTopics(""),
			Doc: "routes failed verdicts to one solver by error type (topology.Routes)"},
			Part: PartGenerate, Build: buildRouter},
		solverStage(topology.SolverEra, "era names <-> Gregorian years from the shipped era table",
			func(a *App) solver.Solver { return solver.NewEra(a.solverConfig()) }),
		solverStage(topology.SolverAlias, "names the subject from the KG alias set",
			func(a *App) solver.Solver { return solver.NewAlias(a.solverConfig()) }),
		solverStage(topology.SolverRefConflict, "states a reference disagreement with both citations; opens a review",
			func(a *App) solver.Solver { return solver.NewRefConflict(a.solverConfig()) }, topology.Reviews),
		solverStage(topology.SolverKnowledge, "glossary lookups for offices, ranks and old place names",
			func(a *App) solver.Solver { return solver.NewKnowledge(a.solverConfig()) }),
		solverStage(topology.SolverRegenerate, "rewrites from the supporting references; drops after bounded attempts",
			func(a *App) solver.Solver {
				return solver.NewRegenerate(solver.RegenerateConfig{MaxAttempts: a.Config.Generate.MaxAttempts}, solver.WithModel(a.chatModel()))
			}),
		{Stage: topology.Stage{Name: topology.StageAssembler, Reads: []string{topology.Drafts}, Writes: []string{topology.Pages},
			Doc: "publishes page versions with citations and the chunk -> page index"},
			Part: PartGenerate, Build: buildAssembler},
		feedStage,
	}
}

// solverStage declares the stage of a solver: it reads the repairs topics
// the routing table sends to the solver and writes corrections (and
// extra, such as reviews).
func solverStage(name, doc string, newSolver func(a *App) solver.Solver, extra ...string) Stage {
	stage := topology.SolverStage(name)
	return Stage{
		Stage: topology.Stage{Name: stage, Reads: topology.RepairTopics(name),
			Writes: append([]string{topology.Corrections}, extra...), Doc: doc},
		Part: PartGenerate, Solver: name, NewSolver: newSolver,
		Build: func(a *App) (pipeline.BatchHandler, error) {
			if err := a.needGeneration(stage); err != nil {
				return nil, err
			}
			s, err := a.Solver(name)
			if err != nil {
				return nil, err
			}
			return pipeline.Batch(solver.Handler(s, a.Requests, a.Pages)), nil
		},
	}
}

func buildChunker(a *App) (pipeline.BatchHandler, error) {
	if a.Chunks == nil {
		return nil, errors.New("chunker needs redis")
	}
	return pipeline.Batch(a.chunker().Handler(a.Chunks)), nil
}

func buildExtractor(a *App) (pipeline.BatchHandler, error) {
	return a.extractor().BatchHandler(), nil
}

func buildKGWriter(a *App) (pipeline.BatchHandler, error) {
	if a.KG == nil {
		return nil, errors.New("kg-writer needs redis")
	}
	st, err := kgwriter.New(a.KG, kgwriter.WithReviews(a.KG, a.Pages, nil))
	if err != nil {
		return nil, err
	}
	return st.Handler(), nil
}

func buildEmbedder(a *App) (pipeline.BatchHandler, error) {
	if a.Vectors == nil || a.Embedder == nil {
		return nil, errors.New("embedder needs a vector store")
	}
	cfg := embedder.Config{}
	if a.Chunks != nil {
		cfg.Retracted = a.Chunks
	}
	st, err := embedder.New(a.Embedder, a.Vectors, cfg)
	if err != nil {
		return nil, err
	}
	return st.Handler(), nil
}

func buildWriter(a *App) (pipeline.BatchHandler, error) {
	if err := a.needGeneration(topology.StageWriter); err != nil {
		return nil, err
	}
	loop, err := a.Writer()
	if err != nil {
		return nil, err
	}
	return pipeline.Concurrent(loop.Handler(), a.Config.Generate.stageConcurrency()), nil
}

func buildVerifier(a *App) (pipeline.BatchHandler, error) {
	if err := a.needGeneration(topology.StageVerifier); err != nil {
		return nil, err
	}
	return pipeline.Concurrent(verifier.Handler(a.Checker(), a.Requests), a.Config.Generate.stageConcurrency()), nil
}

func buildRouter(*App) (pipeline.BatchHandler, error) {
	return pipeline.Batch(router.Handler()), nil
}

func buildAssembler(a *App) (pipeline.BatchHandler, error) {
	if err := a.needGeneration(topology.StageAssembler); err != nil {
		return nil, err
	}
	return pipeline.Concurrent(assembler.New(a.Requests, a.Pages, a.Chunks).Handler(), a.Config.Generate.stageConcurrency()), nil
}

// needGeneration fails when the generation memory and page store are
// missing (the app was opened without Redis).
func (a *App) needGeneration(stage string) error {
	if a.Requests == nil || a.Pages == nil {
		return fmt.Errorf("%s needs redis", stage)
	}
	return nil
}

// Agents are the stage objects built by Handler, kept so their counters
// can be read (LLM calls, chunks, triplets).
type Agents struct {
	Chunker   *chunker.Chunker
	Extractor *extractor.Extractor
}

// Handler builds the handler of a stage of the app's registry, with the
// app's own middleware (document progress) around it; the runtime adds
// its chain when it runs the stage.
func (a *App) Handler(name string) (pipeline.BatchHandler, error) {
	st, err := a.Stages().Lookup(name)
	if err != nil {
		return nil, err
	}
	h, err := st.Build(a)
	if err != nil {
		return nil, err
	}
	if st.Progress {
		h = a.progress(name)(h)
	}
	return h, nil
}

func (a *App) chunker() *chunker.Chunker {
	if a.agents.Chunker == nil {
		opts := []chunker.Option{chunker.WithLogger(a.Log.With().Str(logging.FieldStage, topology.StageChunker).Logger())}
		if a.Chat != nil {
			opts = append(opts, chunker.WithModel(a.Chat))
		}
		a.agents.Chunker = chunker.New(a.Config.Chunker, opts...)
	}
	return a.agents.Chunker
}

func (a *App) extractor() *extractor.Extractor {
	if a.agents.Extractor == nil {
		opts := []extractor.Option{extractor.WithLogger(a.Log.With().Str(logging.FieldStage, topology.StageExtractor).Logger())}
		if a.Chat != nil {
			opts = append(opts, extractor.WithModel(a.Chat))
		}
		if a.Regexes != nil {
			opts = append(opts, extractor.WithMemory(a.Regexes))
		}
		if a.KG != nil && a.Chunks != nil {
			opts = append(opts, extractor.WithPersons(a.KG, a.Chunks))
		}
		a.agents.Extractor = extractor.New(a.Config.Extractor, opts...)
	}
	return a.agents.Extractor
}

// Counters sums the runtime's batch statistics per stage.
type Counters struct {
	mu     sync.Mutex
	stages map[string]*kafka.BatchStats
}

// ObserveBatch implements kafka.Observer.
func (c *Counters) ObserveBatch(b kafka.BatchStats) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stages == nil {
		c.stages = map[string]*kafka.BatchStats{}
	}
	s := c.stages[b.Stage]
	if s == nil {
		s = &kafka.BatchStats{Stage: b.Stage}
		c.stages[b.Stage] = s
	}
	s.Fetched += b.Fetched
	s.Skipped += b.Skipped
	s.Handled += b.Handled
	s.DeadLettered += b.DeadLettered
	s.Produced += b.Produced
	s.Failed += b.Failed
	s.HandleTime += b.HandleTime
}

// Stage returns the sums for one stage.
func (c *Counters) Stage(name string) kafka.BatchStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s := c.stages[name]; s != nil {
		return *s
	}
	return kafka.BatchStats{Stage: name}
}

// RunStages runs the named stages of the app's registry, each as its own
// consumer group, until ctx is cancelled (they then drain) or one of them
// fails (the others are then stopped). It returns when all have stopped.
// Each stage runs on the Kafka runtime inside the middleware chain, with
// the app's seen: markers, logger and metrics.
func (a *App) RunStages(ctx context.Context, names []string, obs kafka.Observer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if err := a.JoinedStagesMayRun(names); err != nil {
		return err
	}
	type built struct {
		st   topology.Stage
		part Part
		h    pipeline.BatchHandler
		bg   func(context.Context) error
	}
	var all []built
	reg := a.Stages()
	for _, n := range names {
		st, err := reg.Lookup(n)
		if err != nil {
			return err
		}
		h, err := a.Handler(n)
		if err != nil {
			return fmt.Errorf("stage %s: %w", n, err)
		}
		var bg func(context.Context) error
		if st.Background != nil {
			if bg, err = st.Background(a); err != nil {
				return fmt.Errorf("stage %s: %w", n, err)
			}
		}
		all = append(all, built{st.Stage, st.Part, h, bg})
	}
	var wg sync.WaitGroup
	errs := make([]error, 2*len(all))
	for i, b := range all {
		if b.bg != nil {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := b.bg(ctx); err != nil && ctx.Err() == nil {
					errs[len(all)+i] = fmt.Errorf("stage %s: background: %w", b.st.Name, err)
					cancel()
				}
			}()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			// The logger is the app's as it is: Run adds the stage field to
			// every line itself, and a second one here would make each line
			// carry the key twice. Retries goes to the app's metrics even
			// when obs wraps the Observer (pauses, retries per stage).
			opts := kafka.Options{
				Logger:   a.Log,
				Observer: a.StageObserver(b.st.Name, obs),
				Retries:  a.Metrics().Retries(),
			}
			// Assigned only when set: a nil *redis.Seen in the interface
			// would not read as "no deduper".
			if a.Seen != nil {
				opts.Deduper = a.Seen
			}
			// A stage stopped while it was still starting (joining its
			// group) reports the cancellation: being stopped is no failure.
			kc := a.Config.Kafka
			if kc.MaxBatch == 0 && b.part == PartIngest {
				kc.MaxBatch = IngestMaxBatch
			}
			if err := kafka.Run(ctx, kc, b.st, b.h, opts); err != nil &&
				!(ctx.Err() != nil && errors.Is(err, context.Canceled)) {
				errs[i] = fmt.Errorf("stage %s: %w", b.st.Name, err)
				cancel()
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// IngestMaxBatch is the micro-batch bound of the ingestion stages when
// --kafka-max-batch is not given. Their work on a batch is mostly per
// batch (one graph write, one link backfill of the names that arrived,
// one read of the alias sets), so a bulk ingestion goes faster in fewer,
// larger batches: on the Ming volumes (2 cores, `bench ingest`, three
// alternated runs each) 1024 took 7.7–8.3 s against 8.6–9.3 s at 256. The
// generation stages keep kafka.DefaultMaxBatch: at 1024, `bench generate
// --n 400 --concurrency 64` fell from 91 to 79 pages/s.
const IngestMaxBatch = 1024

// WaitIdle blocks until the named stages have consumed everything on their
// input topics.
func (a *App) WaitIdle(ctx context.Context, names []string) error {
	var stages []topology.Stage
	reg := a.Stages()
	for _, n := range names {
		st, err := reg.Lookup(n)
		if err != nil {
			return err
		}
		stages = append(stages, st.Stage)
	}
	return kafka.WaitIdle(ctx, a.Config.Kafka, stages...)
}

// Producer returns the process's producer, created on first use and
// closed by Close.
func (a *App) Producer() *kafka.Producer {
	if a.producer == nil {
		a.producer = kafka.NewProducer(a.Config.Kafka)
		a.closers = append(a.closers, a.producer.Close)
	}
	return a.producer
}

// Send implements producers.Sink: documents go to the documents topic.
func (a *App) Send(ctx context.Context, tenant string, items []producers.Item) error {
	recs := make([]kafka.Record, len(items))
	for i, it := range items {
		recs[i] = kafka.Record{Topic: topology.Documents, Msg: it.Doc,
			Meta: schemasMeta(it.EventID, tenant)}
	}
	return a.Producer().Publish(ctx, recs...)
}

func schemasMeta(eventID, tenant string) schemas.Meta {
	return schemas.Meta{EventID: eventID, TraceID: eventID, Tenant: tenant}
}

// Agents returns the stage objects built so far.
func (a *App) Agents() Agents { return a.agents }

// progress records, in the document's hash, when stage has finished a
// document: the chunker once it stored the document's chunks, the chunk
// stages once they handled its last chunk (a document's chunks share a
// partition and arrive in order, so the last one handled means all were).
// Users see the progress through the API. It marks inside the runtime's
// chain, before the outputs are produced, so that a failed mark is retried
// like any transient error of the stage; the mark is an upsert, and an
// early one only shows a stage done a moment before its outputs are on the
// topic. (The seen: markers, which skip work, are the opposite case: they
// wait for the acknowledgement; see pipeline/middleware.)
func (a *App) progress(stage string) middleware.Middleware {
	return func(h pipeline.BatchHandler) pipeline.BatchHandler {
		if a.Chunks == nil {
			return h
		}
		return func(ctx context.Context, ins []pipeline.Input) ([][]pipeline.Output, error) {
			outs, err := h(ctx, ins)
			if err != nil {
				return outs, err
			}
			for _, in := range ins {
				doc := ""
				if d, ok := pipeline.As[schemas.Document](in.Msg); ok {
					doc = d.DocID
				} else if c, ok := pipeline.As[schemas.Chunk](in.Msg); ok && c.Seq == c.Total-1 {
					doc = c.DocID
				}
				if doc == "" {
					continue
				}
				if err := a.Chunks.MarkStage(ctx, in.Tenant(), doc, stage); err != nil {
					return nil, fmt.Errorf("mark %s done for document %s: %w", stage, doc, err)
				}
			}
			return outs, nil
		}
	}
}

// solverConfig is what every solver is built with: the process's era
// table and the glossary collection on the app's stores.
func (a *App) solverConfig() solver.Config {
	return solver.Config{Era: a.eraTable(), Glossary: a.Glossary()}
}
