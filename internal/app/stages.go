package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/annalist-dev/annalist/consumers/chunker"
	"github.com/annalist-dev/annalist/consumers/embedder"
	"github.com/annalist-dev/annalist/consumers/extractor"
	"github.com/annalist-dev/annalist/consumers/kgwriter"
	"github.com/annalist-dev/annalist/infra/kafka"
	"github.com/annalist-dev/annalist/internal/logging"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/producers"
	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
)

func pid() int { return os.Getpid() }

// IngestStages are the stages of the ingestion half of the pipeline, in
// graph order.
func IngestStages() []string { return topology.IngestStages() }

// GenerateStages are the stages of the generation half, in graph order.
func GenerateStages() []string { return topology.GenerateStages() }

// AllStages are every stage of the pipeline, in graph order.
func AllStages() []string { return append(IngestStages(), GenerateStages()...) }

// needsFor says which services running the stages requires.
func NeedsFor(stages []string) Needs {
	n := Needs{Broker: true, Redis: true}
	for _, s := range stages {
		if s == topology.StageEmbedder {
			n.Vectors = true
		}
	}
	return n
}

// Agents are the stage objects built by Handler, kept so their counters
// can be read (LLM calls, chunks, triplets).
type Agents struct {
	Chunker   *chunker.Chunker
	Extractor *extractor.Extractor
}

// Handler builds the handler of a stage from the app's services.
func (a *App) Handler(stage string) (pipeline.BatchHandler, error) {
	switch stage {
	case topology.StageChunker:
		if a.Chunks == nil {
			return nil, errors.New("chunker needs redis")
		}
		return a.marking(stage, pipeline.Batch(a.chunker().Handler(a.Chunks))), nil
	case topology.StageExtractor:
		return a.marking(stage, pipeline.Batch(a.extractor().Handler())), nil
	case topology.StageKGWriter:
		if a.KG == nil {
			return nil, errors.New("kg-writer needs redis")
		}
		st, err := kgwriter.New(a.KG)
		if err != nil {
			return nil, err
		}
		return st.Handler(), nil
	case topology.StageEmbedder:
		if a.Vectors == nil || a.Embedder == nil {
			return nil, errors.New("embedder needs a vector store")
		}
		st, err := embedder.New(a.Embedder, a.Vectors, embedder.Config{})
		if err != nil {
			return nil, err
		}
		return a.marking(stage, st.Handler()), nil
	}
	if _, err := topology.LookupStage(stage); err != nil {
		return nil, err
	}
	return a.generationHandler(stage)
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

// RunStages runs the named stages, each as its own consumer group, until
// ctx is cancelled (they then drain) or one of them fails (the others are
// then stopped). It returns when all have stopped.
func (a *App) RunStages(ctx context.Context, names []string, obs kafka.Observer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type built struct {
		st topology.Stage
		h  pipeline.BatchHandler
	}
	var all []built
	for _, n := range names {
		st, err := topology.LookupStage(n)
		if err != nil {
			return err
		}
		h, err := a.Handler(n)
		if err != nil {
			return fmt.Errorf("stage %s: %w", n, err)
		}
		all = append(all, built{st, h})
	}
	var wg sync.WaitGroup
	errs := make([]error, len(all))
	for i, b := range all {
		wg.Add(1)
		go func() {
			defer wg.Done()
			opts := kafka.Options{
				Deduper:  a.Seen,
				Logger:   a.Log.With().Str(logging.FieldStage, b.st.Name).Logger(),
				Observer: a.StageObserver(b.st.Name, obs),
			}
			if err := kafka.Run(ctx, a.Config.Kafka, b.st, b.h, opts); err != nil {
				errs[i] = fmt.Errorf("stage %s: %w", b.st.Name, err)
				cancel()
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// WaitIdle blocks until the named stages have consumed everything on their
// input topics.
func (a *App) WaitIdle(ctx context.Context, names []string) error {
	var stages []topology.Stage
	for _, n := range names {
		st, err := topology.LookupStage(n)
		if err != nil {
			return err
		}
		stages = append(stages, st)
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

// marking wraps an ingestion stage so that it records, in the document's
// hash, when it has finished a document: the chunker once it stored the
// document's chunks, the chunk stages once they handled its last chunk
// (a document's chunks share a partition and arrive in order, so the last
// one handled means all were). Users see the progress through the API.
func (a *App) marking(stage string, h pipeline.BatchHandler) pipeline.BatchHandler {
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
				return nil, err
			}
		}
		return outs, nil
	}
}
