package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"sync"
	"time"

	"github.com/cloudwego/eino/components/model"

	"github.com/annalist-dev/annalist/consumers/assembler"
	"github.com/annalist-dev/annalist/consumers/router"
	"github.com/annalist-dev/annalist/consumers/solver"
	"github.com/annalist-dev/annalist/consumers/verifier"
	"github.com/annalist-dev/annalist/consumers/writer"
	"github.com/annalist-dev/annalist/infra/kafka"
	"github.com/annalist-dev/annalist/infra/pages"
	"github.com/annalist-dev/annalist/internal/era"
	"github.com/annalist-dev/annalist/internal/glossary"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
)

// GenerateConfig bounds and tunes the generation loop. The zero value
// means the defaults.
type GenerateConfig struct {
	// MaxAttempts is how many drafts one sentence may take before it is
	// dropped (default writer.DefaultMaxAttempts).
	MaxAttempts int
	// MaxSentences ends a page (default writer.DefaultMaxSentences).
	MaxSentences int
	// MemoryTTL is how long a request's agent memory is kept (default
	// memory.DefaultRequestTTL).
	MemoryTTL time.Duration
	// VectorK, when positive, fuses the top VectorK vector-search hits
	// that mention the subject into the reference set.
	VectorK int
	// Verifier chooses the verifier engine: "auto" (default: the LLM
	// judge when an LLM is configured, else offline), "offline" or "llm".
	Verifier string
}

// RegisterFlags binds the generation flags.
func (c *GenerateConfig) RegisterFlags(fs *flag.FlagSet) {
	fs.IntVar(&c.MaxAttempts, "max-attempts", c.MaxAttempts, fmt.Sprintf("drafts per sentence before it is dropped (default %d)", writer.DefaultMaxAttempts))
	fs.IntVar(&c.MaxSentences, "max-sentences", c.MaxSentences, fmt.Sprintf("sentences per page at most (default %d)", writer.DefaultMaxSentences))
	fs.DurationVar(&c.MemoryTTL, "memory-ttl", c.MemoryTTL, "how long a request's agent memory is kept (default 24h)")
	fs.IntVar(&c.VectorK, "vector-k", c.VectorK, "fuse this many vector-search hits into reference sets (default 0: KG only)")
	fs.StringVar(&c.Verifier, "verifier", c.Verifier, "verifier engine: auto (LLM judge when an LLM is configured), offline or llm")
}

// Validate checks the bounds.
func (c GenerateConfig) Validate() error {
	if c.MaxAttempts < 0 || c.MaxSentences < 0 || c.MemoryTTL < 0 || c.VectorK < 0 {
		return errors.New("generation bounds must not be negative")
	}
	switch c.Verifier {
	case "", "auto", "offline", "llm":
	default:
		return fmt.Errorf("verifier %q: want auto, offline or llm", c.Verifier)
	}
	return nil
}

// Retriever is the writer's retriever on the app's stores.
func (a *App) Retriever() (*writer.Retriever, error) {
	if a.KG == nil || a.Chunks == nil {
		return nil, errors.New("retrieval needs redis")
	}
	opts := []writer.RetrieverOption{writer.WithDecisions(a.Pages)}
	if a.Config.Generate.VectorK > 0 && a.Vectors != nil && a.Embedder != nil {
		opts = append(opts, writer.WithVectors(a.Embedder, a.Vectors, a.Config.Generate.VectorK))
	}
	return writer.NewRetriever(a.KG, a.Chunks, opts...), nil
}

// generationAgents are the generation agents built once per process and
// shared: they hold no per-request state, the verifier keeps a cache of
// reference-set indexes worth reusing, and the era table is parsed once.
type generationAgents struct {
	mu      sync.Mutex
	era     *era.Table
	checker verifier.Checker
	solvers map[string]solver.Solver
}

// eraTable is the process's era table.
func (a *App) eraTable() *era.Table {
	a.gen.mu.Lock()
	defer a.gen.mu.Unlock()
	return a.eraTableLocked()
}

func (a *App) eraTableLocked() *era.Table {
	if a.gen.era == nil {
		a.gen.era = era.Default()
	}
	return a.gen.era
}

// Drafter is the writer's drafter: the LLM engine when configured, else
// the offline extractive one.
func (a *App) Drafter() writer.Drafter {
	off := writer.NewOffline(writer.OfflineConfig{Era: a.eraTable()})
	if a.Chat != nil {
		return writer.NewLLM(a.Chat, off, writer.LLMConfig{})
	}
	return off
}

// Checker is the verifier: the LLM judge when configured, else the
// offline checker. It is built once and shared (safe for concurrent use).
func (a *App) Checker() verifier.Checker {
	a.gen.mu.Lock()
	defer a.gen.mu.Unlock()
	if a.gen.checker == nil {
		off := verifier.NewOffline(verifier.Config{Era: a.eraTableLocked()})
		a.gen.checker = off
		if a.Chat != nil && a.Config.Generate.Verifier != "offline" {
			a.gen.checker = verifier.NewJudge(a.Chat, off, verifier.JudgeConfig{})
		}
	}
	return a.gen.checker
}

// Solver returns the solver a solver stage runs, built once per name and
// shared (solvers hold no state of their own).
func (a *App) Solver(name string) (solver.Solver, error) {
	a.gen.mu.Lock()
	defer a.gen.mu.Unlock()
	if s := a.gen.solvers[name]; s != nil {
		return s, nil
	}
	var s solver.Solver
	switch name {
	case "era":
		s = solver.NewEra(a.eraTableLocked())
	case "alias":
		s = solver.NewAlias()
	case "refconflict":
		s = solver.NewRefConflict()
	case "knowledge":
		s = solver.NewKnowledge(a.Glossary())
	case "regenerate":
		s = solver.NewRegenerate(solver.RegenerateConfig{MaxAttempts: a.Config.Generate.MaxAttempts}, a.chatModel())
	default:
		return nil, fmt.Errorf("unknown solver %q", name)
	}
	if a.gen.solvers == nil {
		a.gen.solvers = map[string]solver.Solver{}
	}
	a.gen.solvers[name] = s
	return s, nil
}

// generationHandler builds the handler of a generation stage.
func (a *App) generationHandler(stage string) (pipeline.BatchHandler, error) {
	if a.Requests == nil || a.Pages == nil {
		return nil, fmt.Errorf("%s needs redis", stage)
	}
	switch stage {
	case topology.StageWriter:
		r, err := a.Retriever()
		if err != nil {
			return nil, err
		}
		loop := writer.NewLoop(r, a.Drafter(), a.Requests, writer.LoopConfig{
			MaxAttempts: a.Config.Generate.MaxAttempts, MaxSentences: a.Config.Generate.MaxSentences})
		return pipeline.Batch(loop.Handler()), nil
	case topology.StageVerifier:
		return pipeline.Batch(verifier.Handler(a.Checker(), a.Requests)), nil
	case topology.StageRouter:
		return pipeline.Batch(router.Handler()), nil
	case topology.StageAssembler:
		return pipeline.Batch(assembler.New(a.Requests, a.Pages, a.Chunks).Handler()), nil
	}
	s, err := a.Solver(topology.Solver(stage))
	if err != nil {
		return nil, err
	}
	return pipeline.Batch(solver.Handler(s, a.Requests, a.Pages)), nil
}

// Request publishes a generation request and records it as queued. The
// request id and time are filled in when empty. The trace id that follows
// it through every stage onto the page is ctx's (pipeline.WithTraceID),
// else the request id.
func (a *App) Request(ctx context.Context, tenant string, r schemas.Request) (schemas.Request, error) {
	if r.RequestID == "" {
		r.RequestID = NewRequestID()
	}
	if r.RequestedAt == "" {
		r.RequestedAt = time.Now().UTC().Format(time.RFC3339Nano)
	}
	if r.Reason == "" {
		r.Reason = "user"
	}
	if err := r.Validate(); err != nil {
		return r, err
	}
	if a.Pages != nil {
		if err := a.Pages.SetRequest(ctx, tenant, pages.RequestStatus{RequestID: r.RequestID,
			Kind: r.Kind, Subject: r.Subject, State: pages.RequestQueued, RequestedAt: r.RequestedAt}); err != nil {
			return r, err
		}
	}
	meta := schemasMeta(r.RequestID, tenant)
	if t := pipeline.TraceID(ctx); t != "" {
		meta.TraceID = t
	}
	err := a.Producer().Publish(ctx, kafka.Record{Topic: topology.Requests, Msg: r, Meta: meta})
	return r, err
}

// NewRequestID returns a fresh request id: the time in milliseconds and 48
// random bits, so ids sort by creation.
func NewRequestID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("r%011x%s", time.Now().UnixMilli(), hex.EncodeToString(b[:]))
}

// chatModel is the LLM engine as an eino model, nil when offline.
func (a *App) chatModel() model.BaseChatModel {
	if a.Chat == nil {
		return nil
	}
	return a.Chat
}

// GenerateResult is one request's outcome.
type GenerateResult struct {
	Request schemas.Request     `json:"request"`
	Status  pages.RequestStatus `json:"status"`
	// Page is the published page, nil when the request failed or was not
	// waited for.
	Page *schemas.Page `json:"page,omitempty"`
}

// Generate publishes the requests and, when wait is set, waits for their
// pages. When runStages is set the generation stages run in this process
// for the duration (the embedded mode of a one-shot command); otherwise
// they run elsewhere (a serve or demo process, or `consume` services).
func (a *App) Generate(ctx context.Context, tenant string, runStages, wait bool, reqs []schemas.Request) ([]GenerateResult, error) {
	stageCtx, stopStages := context.WithCancel(ctx)
	defer stopStages()
	var stageErr chan error
	if runStages {
		stageErr = make(chan error, 1)
		go func() { stageErr <- a.RunStages(stageCtx, GenerateStages(), nil) }()
	}
	stopped := func() error {
		stopStages()
		if stageErr == nil {
			return nil
		}
		return <-stageErr
	}
	out := make([]GenerateResult, len(reqs))
	ids := make([]string, len(reqs))
	for i, r := range reqs {
		r, err := a.Request(ctx, tenant, r)
		if err != nil {
			return nil, errors.Join(err, stopped())
		}
		out[i].Request = r
		out[i].Status = pages.RequestStatus{RequestID: r.RequestID, Kind: r.Kind, Subject: r.Subject,
			State: pages.RequestQueued, RequestedAt: r.RequestedAt}
		ids[i] = r.RequestID
	}
	if !wait {
		return out, stopped()
	}
	type waited struct {
		st  []pages.RequestStatus
		err error
	}
	done := make(chan waited, 1)
	go func() {
		st, err := a.Pages.Wait(stageCtx, tenant, ids...)
		done <- waited{st, err}
	}()
	var w waited
	select {
	case w = <-done:
	case err := <-stageErr:
		stageErr = nil
		if err == nil {
			err = errors.New("stages stopped before the requests finished")
		}
		return out, err
	}
	if err := errors.Join(w.err, stopped()); err != nil {
		return out, err
	}
	for i, st := range w.st {
		out[i].Status = st
		if st.State != pages.RequestPublished {
			continue
		}
		p, err := a.Pages.Version(ctx, tenant, st.Page, st.Version)
		if err != nil {
			return out, err
		}
		out[i].Page = &p
	}
	return out, nil
}

// Glossary is the glossary collection's lookup over the KG and chunk
// store (terms ingested with --collection glossary).
func (a *App) Glossary() *glossary.Store { return glossary.NewStore(a.KG, a.Chunks) }
