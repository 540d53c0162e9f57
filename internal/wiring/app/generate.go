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

	"github.com/annalist-dev/annalist/consumers/scheduler"
	"github.com/annalist-dev/annalist/consumers/solver"
	"github.com/annalist-dev/annalist/consumers/verifier"
	"github.com/annalist-dev/annalist/consumers/writer"
	"github.com/annalist-dev/annalist/consumers/writer/answer"
	"github.com/annalist-dev/annalist/consumers/writer/biography"
	"github.com/annalist-dev/annalist/consumers/writer/summary"
	"github.com/annalist-dev/annalist/consumers/writer/topic"
	"github.com/annalist-dev/annalist/infra/kafka"
	"github.com/annalist-dev/annalist/infra/pages"
	"github.com/annalist-dev/annalist/internal/kit/supportllm"
	"github.com/annalist-dev/annalist/internal/lang/zh/era"
	"github.com/annalist-dev/annalist/internal/lang/zh/glossary"
	"github.com/annalist-dev/annalist/internal/ports/kind"
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
	// RequestDeadline is how long after it is accepted a request may take
	// to publish its page before it fails with "deadline exceeded"
	// (default DefaultRequestDeadline offline, DefaultLLMRequestDeadline
	// with a model).
	RequestDeadline time.Duration
	// ScheduleWindow is the scheduler's debounce window: a page is asked
	// for again this long after the last change under it (default
	// scheduler.DefaultWindow; never later than ten windows after the
	// first).
	ScheduleWindow time.Duration
	// ScheduleRate is the most regeneration requests one scheduler
	// replica publishes per second (default DefaultScheduleRate offline,
	// scheduler.DefaultRate with a model).
	ScheduleRate float64
	// ScheduleLease is how long a scheduler replica holds the pages it
	// claimed before another may claim them again: the time a crashed
	// replica's claims wait (default scheduler.DefaultLease).
	ScheduleLease time.Duration
	// StageConcurrency is how many requests the writer, the verifier and
	// the assembler each handle at a time within a batch, one request's
	// steps in order (default DefaultStageConcurrency; 1 handles a batch
	// one input after the other).
	StageConcurrency int
}

// DefaultStageConcurrency is the requests a generation stage handles at a
// time. A step mostly waits on Redis (the request's state, its sentences,
// the page), so a batch handled one input after the other takes the sum
// of those waits.
const DefaultStageConcurrency = 8

// stageConcurrency is StageConcurrency or its default.
func (c GenerateConfig) stageConcurrency() int {
	if c.StageConcurrency > 0 {
		return c.StageConcurrency
	}
	return DefaultStageConcurrency
}

// Request deadlines by engine: the offline engine writes a page in well
// under a second, a model may take minutes (and retries outages).
const (
	DefaultRequestDeadline    = 60 * time.Second
	DefaultLLMRequestDeadline = 5 * time.Minute
)

// DefaultScheduleRate is the offline engine's bound on regenerations per
// second: the rate bounds what a model costs, and the offline writer
// costs nothing but its time, so the bound is what a writer replica takes
// at a burst (a hundred documents arriving together are asked for within
// a quarter of a second instead of two), not scheduler.DefaultRate.
const DefaultScheduleRate = 400.0

// DefaultScheduleWindow is the offline engine's debounce window. The
// window is waited on every regeneration; it gathers the changes one
// document makes under a page into one version. Measured with `bench
// regenerate` (200 pages, 300 updates): 300 ms and 100 ms made the same
// number of versions (260), and 100 ms brought doc → page p95 from
// 1,200 ms to 881 ms. A model keeps scheduler.DefaultWindow, where a
// version costs a model's time.
const DefaultScheduleWindow = 100 * time.Millisecond

// RegisterFlags binds the generation flags.
func (c *GenerateConfig) RegisterFlags(fs *flag.FlagSet) {
	fs.IntVar(&c.MaxAttempts, "max-attempts", c.MaxAttempts, fmt.Sprintf("drafts per sentence before it is dropped (default %d)", writer.DefaultMaxAttempts))
	fs.IntVar(&c.MaxSentences, "max-sentences", c.MaxSentences, fmt.Sprintf("sentences per page at most, for a kind that sets no bound of its own (a biography budgets its page by its evidence) (default %d)", writer.DefaultMaxSentences))
	fs.DurationVar(&c.MemoryTTL, "memory-ttl", c.MemoryTTL, "how long a request's agent memory is kept (default 24h)")
	fs.IntVar(&c.VectorK, "vector-k", c.VectorK, "fuse this many vector-search hits into reference sets (default 0: KG only)")
	fs.StringVar(&c.Verifier, "verifier", c.Verifier, "verifier engine: auto (LLM judge when an LLM is configured), offline or llm")
	fs.DurationVar(&c.RequestDeadline, "request-deadline", c.RequestDeadline,
		fmt.Sprintf("a request without a page this long after it was accepted fails (default %s offline, %s with an LLM)",
			DefaultRequestDeadline, DefaultLLMRequestDeadline))
	fs.DurationVar(&c.ScheduleWindow, "schedule-window", c.ScheduleWindow,
		fmt.Sprintf("debounce window of page regenerations (default %s offline, %s with an LLM)", DefaultScheduleWindow, scheduler.DefaultWindow))
	fs.Float64Var(&c.ScheduleRate, "schedule-rate", c.ScheduleRate,
		fmt.Sprintf("regeneration requests per second at most, per scheduler replica (default %g offline, %g with an LLM)",
			DefaultScheduleRate, scheduler.DefaultRate))
	fs.IntVar(&c.StageConcurrency, "stage-concurrency", c.StageConcurrency,
		fmt.Sprintf("requests the writer, the verifier and the assembler each handle at a time, one request's steps in order (default %d)", DefaultStageConcurrency))
	fs.DurationVar(&c.ScheduleLease, "schedule-lease", c.ScheduleLease,
		fmt.Sprintf("how long a scheduler replica holds claimed pages; a crashed replica's claims are taken again after it (default %s)", scheduler.DefaultLease))
}

// Validate checks the bounds.
func (c GenerateConfig) Validate() error {
	if c.MaxAttempts < 0 || c.MaxSentences < 0 || c.MemoryTTL < 0 || c.VectorK < 0 || c.RequestDeadline < 0 ||
		c.ScheduleWindow < 0 || c.ScheduleRate < 0 || c.ScheduleLease < 0 || c.StageConcurrency < 0 {
		return errors.New("generation bounds must not be negative")
	}
	switch c.Verifier {
	case "", "auto", "offline", "llm":
	default:
		return fmt.Errorf("verifier %q: want auto, offline or llm", c.Verifier)
	}
	return nil
}

// Retriever is the biography planner on the app's stores.
func (a *App) Retriever() (*biography.Retriever, error) {
	if a.KG == nil || a.Chunks == nil {
		return nil, errors.New("retrieval needs redis")
	}
	opts := []biography.RetrieverOption{biography.WithDecisions(a.Pages)}
	if a.Config.Generate.VectorK > 0 && a.Vectors != nil && a.Embedder != nil {
		opts = append(opts, biography.WithVectors(a.Embedder, a.Vectors, a.Config.Generate.VectorK))
	}
	return biography.NewRetriever(a.KG, a.Chunks, opts...), nil
}

// generationAgents are the generation agents built once per process and
// shared: they hold no per-request state, the verifier keeps a cache of
// reference-set indexes worth reusing, and the era table is parsed once.
type generationAgents struct {
	mu      sync.Mutex
	era     *era.Table
	checker verifier.Checker
	solvers map[string]solver.Solver
	kinds   *kind.Registry
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

// topicVectorK is how many vector hits seed a free-text topic's curation.
const topicVectorK = 30

// Kinds is the process's kind registry, built once and shared by the
// writer and every entry point (Request, the API): the biography kind,
// planned by Retriever and drafted by the offline extractive drafter and,
// when an LLM is configured, the LLM drafter; the topic page; the
// discussion summary, planned from the stored discussions; and the answer.
// A kind is added by registering it here (or, in a test, on the returned
// registry before the stages run). It needs the KG and chunk store (redis).
func (a *App) Kinds() (*kind.Registry, error) {
	a.gen.mu.Lock()
	defer a.gen.mu.Unlock()
	if a.gen.kinds != nil {
		return a.gen.kinds, nil
	}
	r, err := a.Retriever()
	if err != nil {
		return nil, err
	}
	off := writer.NewOffline(writer.OfflineConfig{Era: a.eraTableLocked()})
	var llm *writer.LLM
	if a.Chat != nil {
		llm = writer.NewLLM(writer.LLMConfig{}, writer.WithModel(a.Chat), writer.WithPlan(off))
	}
	reg := &kind.Registry{}
	if err := reg.Register(biography.Spec(r, off, llm)); err != nil {
		return nil, err
	}
	// The topic page: the curation seeds free text by vector search too
	// (a hit counts only when its text names the topic).
	var topts []topic.Option
	topts = append(topts, topic.WithEra(a.eraTableLocked()))
	if a.Vectors != nil && a.Embedder != nil {
		topts = append(topts, topic.WithVectors(a.Embedder, a.Vectors, max(a.Config.Generate.VectorK, topicVectorK)))
	}
	// Quotations come from the process's own collection, so every
	// process that runs the writer answers requests for them.
	quotes, err := a.QuoteFinder()
	if err != nil {
		return nil, err
	}
	topts = append(topts, topic.WithQuotes(quotes))
	toff := topic.NewOffline(topic.OfflineConfig{})
	var tllm topic.Engine
	if a.Chat != nil {
		tllm = topic.NewLLM(topic.LLMConfig{}, a.Chat, toff)
	}
	if err := reg.Register(topic.Spec(topic.NewCurator(a.KG, a.Chunks, topts...), toff, tllm)); err != nil {
		return nil, err
	}
	// The discussion summary: planned from the discussions the
	// discussions stage stored.
	if a.Discussions != nil {
		doff := summary.NewOffline()
		var dllm *summary.LLM
		if a.Chat != nil {
			dllm = summary.NewLLM(summary.LLMConfig{}, a.Chat, doff)
		}
		if err := reg.Register(summary.Spec(summary.NewPlanner(a.Discussions, summary.WithQuotes(quotes)), doff, dllm)); err != nil {
			return nil, err
		}
	}
	// The answer: a question answered from the documents the request
	// carries, or from a retrieval over the KG, the linker's mentions and
	// the vectors; every sentence cites a minimal supporting set.
	if err := reg.Register(a.answerSpec()); err != nil {
		return nil, err
	}
	a.gen.kinds = reg
	return reg, nil
}

// answerSpec is the answer kind on the app's stores and model, its
// citation agent on the claim-support judge.
func (a *App) answerSpec() kind.Spec {
	popts := []answer.Option{answer.WithRetrieval(a.KG, a.Chunks)}
	if a.Vectors != nil && a.Embedder != nil {
		popts = append(popts, answer.WithVectors(a.Embedder, a.Vectors, max(a.Config.Generate.VectorK, topicVectorK)))
	}
	cfg := answer.Config{Support: answer.SupportJudge{}}
	off := answer.NewOffline(cfg)
	var llm *answer.LLM
	if a.Chat != nil {
		llm = answer.NewLLM(cfg, answer.LLMConfig{}, a.Chat, off)
	}
	return answer.Spec(answer.NewPlanner(popts...), off, llm)
}

// ValidateRequest checks a request against the registered kinds
// (kind.Registry.Validate): what every entry point runs before it
// publishes.
func (a *App) ValidateRequest(r schemas.Request) error {
	kinds, err := a.Kinds()
	if err != nil {
		return err
	}
	return kinds.Validate(r)
}

// Writer is the writer stage on the app's kinds and agent memory; it
// drafts with the LLM engine when one is configured.
func (a *App) Writer() (*writer.Loop, error) {
	if a.Requests == nil {
		return nil, errors.New("the writer needs redis")
	}
	kinds, err := a.Kinds()
	if err != nil {
		return nil, err
	}
	engine := kind.EngineOffline
	if a.Chat != nil {
		engine = kind.EngineLLM
	}
	loop := writer.NewLoop(kinds, a.Requests, writer.LoopConfig{Engine: engine,
		MaxAttempts: a.Config.Generate.MaxAttempts, MaxSentences: a.Config.Generate.MaxSentences})
	if a.Pages != nil {
		// The page store is also the previous version an incremental
		// regeneration keeps sentences from (writer.WithPrevious).
		loop.WithFailures(a.Pages).WithPrevious(a.Pages, func(err error) bool { return errors.Is(err, pages.ErrNotFound) })
	}
	return loop, nil
}

// Checker is the verifier: the LLM judge when configured, else the
// offline checker, either wrapped for discussion summaries
// (verifier.WithDiscussions: an opinion is checked against its turn, a
// background sentence against its paragraphs, a reworded one confirmed
// by the claim-support judge — the LLM one under the LLM judge, else the
// offline one) and for answers
// (verifier.WithAnswers: a sentence against the documents it cites, by
// the offline claim-support judge, as the citation agent judges it), and for quotations (verifier.WithQuotes: a
// quotation verbatim and attributed to its chunk's author, or not
// published). It is built once and shared (safe for
// concurrent use).
func (a *App) Checker() verifier.Checker {
	a.gen.mu.Lock()
	defer a.gen.mu.Unlock()
	if a.gen.checker == nil {
		off := verifier.NewOffline(verifier.Config{Era: a.eraTableLocked()})
		var c verifier.Checker = off
		var claims verifier.ClaimJudge = verifier.OfflineClaims{}
		if a.Chat != nil && a.Config.Generate.Verifier != "offline" {
			c = verifier.NewJudge(verifier.JudgeConfig{}, verifier.WithModel(a.Chat), verifier.WithFallback(off))
			claims = verifier.LLMClaims(supportllm.New(a.Chat, 0))
		}
		a.gen.checker = verifier.WithQuotes(verifier.WithAnswers(verifier.WithDiscussions(c, verifier.JudgeBackground(claims)), verifier.OfflineClaims{}))
	}
	return a.gen.checker
}

// Solver returns the solver named name in the routing table (as
// schemas.Repair.Solver carries it), built by its stage's declaration in
// the app's registry (Stage.NewSolver) once per process and shared:
// solvers hold no state of their own. The solver stages and `annalist
// verify` (CheckSentence) both take their solvers from here.
func (a *App) Solver(name string) (solver.Solver, error) {
	a.gen.mu.Lock()
	s := a.gen.solvers[name]
	a.gen.mu.Unlock()
	if s != nil {
		return s, nil
	}
	st, err := a.Stages().solverStage(name)
	if err != nil {
		return nil, err
	}
	// Built without the lock: constructors take the era table and the
	// chat model, which lock it themselves.
	s = st.NewSolver(a)
	a.gen.mu.Lock()
	defer a.gen.mu.Unlock()
	if prev := a.gen.solvers[name]; prev != nil {
		return prev, nil
	}
	if a.gen.solvers == nil {
		a.gen.solvers = map[string]solver.Solver{}
	}
	a.gen.solvers[name] = s
	return s, nil
}

// ScheduleRate is the most regeneration requests a scheduler replica
// publishes per second (GenerateConfig.ScheduleRate, else the engine's
// default).
func (a *App) ScheduleRate() float64 {
	if r := a.Config.Generate.ScheduleRate; r > 0 {
		return r
	}
	if a.Chat != nil {
		return scheduler.DefaultRate
	}
	return DefaultScheduleRate
}

// ScheduleWindow is the scheduler's debounce window
// (GenerateConfig.ScheduleWindow, else the engine's default).
func (a *App) ScheduleWindow() time.Duration {
	if w := a.Config.Generate.ScheduleWindow; w > 0 {
		return w
	}
	if a.Chat != nil {
		return scheduler.DefaultWindow
	}
	return DefaultScheduleWindow
}

// RequestDeadline is how long a request may take from its acceptance to
// its page (GenerateConfig.RequestDeadline, else the engine's default).
func (a *App) RequestDeadline() time.Duration {
	if d := a.Config.Generate.RequestDeadline; d > 0 {
		return d
	}
	if a.Chat != nil {
		return DefaultLLMRequestDeadline
	}
	return DefaultRequestDeadline
}

// deadlineOf is the deadline of a request made at requestedAt (RFC 3339):
// RequestDeadline after it, or after now when the time does not parse, so
// a failed request reads "deadline exceeded after" the deadline configured.
func (a *App) deadlineOf(requestedAt string) string {
	from, err := time.Parse(time.RFC3339Nano, requestedAt)
	if err != nil {
		from = time.Now()
	}
	return from.Add(a.RequestDeadline()).UTC().Format(time.RFC3339Nano)
}

// Request publishes a generation request and records it as queued, with
// its deadline (RequestDeadline from when it was made): a request with no page by then
// reads as failed to every reader (pages.Store.Request). The
// request id and time are filled in when empty. The trace id that follows
// it through every stage onto the page is ctx's (pipeline.WithTraceID),
// else the request id. A request of a kind the process has not registered
// is refused (ValidateRequest) before anything is recorded or published.
func (a *App) Request(ctx context.Context, tenant string, r schemas.Request) (schemas.Request, error) {
	if r.RequestID == "" {
		r.RequestID = NewRequestID()
	}
	if r.RequestedAt == "" {
		r.RequestedAt = time.Now().UTC().Format(time.RFC3339Nano)
	}
	if r.Reason == "" {
		r.Reason = schemas.RequestUser
	}
	if err := a.ValidateRequest(r); err != nil {
		return r, err
	}
	if a.Pages != nil {
		deadline := a.deadlineOf(r.RequestedAt)
		if err := a.Pages.SetRequest(ctx, tenant, pages.RequestStatus{RequestID: r.RequestID,
			Kind: r.Kind, Subject: r.Subject, State: pages.RequestQueued, RequestedAt: r.RequestedAt,
			Deadline: deadline}); err != nil {
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
// Every request is checked first (ValidateRequest; one without an id as
// if it had the id Request gives it): one that would be refused fails the
// call before any stage starts or any request is published.
func (a *App) Generate(ctx context.Context, tenant string, runStages, wait bool, reqs []schemas.Request) ([]GenerateResult, error) {
	for i, r := range reqs {
		if r.RequestID == "" {
			r.RequestID = "-"
		}
		if err := a.ValidateRequest(r); err != nil {
			return nil, fmt.Errorf("request %d (%s %q): %w", i+1, r.Kind, r.Subject, err)
		}
	}
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
	if w.err != nil {
		return out, errors.Join(w.err, stopped())
	}
	// Every request has ended, published or failed, so the answer stands
	// even when a stage's in-flight batch (a model call past the request's
	// deadline) did not drain in time: that batch is not committed, and is
	// read again by the next run of the stage.
	if err := stopped(); errors.Is(err, kafka.ErrDrainTimeout) {
		a.Log.Warn().Err(err).Msg("generation stages stopped before their in-flight batch finished; it will be read again")
	} else if err != nil {
		return out, err
	}
	for i, st := range w.st {
		out[i].Status = st
		if st.State != pages.RequestPublished {
			continue
		}
		p, err := a.Pages.Published(ctx, tenant, st)
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
