// Package app assembles annalist's runtime from its parts: it starts or
// joins the broker, Redis and the vector store, declares every stage once
// in the stage registry (DefaultStages: graph node, group, needs, how to
// build it), and runs stages on the Kafka runtime inside the middleware
// chain. The CLI commands (demo, ingest, consume, bench, kg show …) are
// thin layers over it, so the embedded and the distributed mode run the
// same code and differ only in what is at the other end of the
// connections.
//
// Embedded mode is chosen per service: no --brokers means an in-process
// kfake broker persisted under <data-dir>/kafka; no --redis-addr means a
// supervised child redis-server with AOF under <data-dir>/redis, restarted
// when it dies and never outliving this process (miniredis when no binary
// is installed); --vector-store embedded (the default) keeps the
// HNSW index under <data-dir>/vectors. The process that starts embedded
// services holds an exclusive lock on the data directory and publishes
// their addresses in <data-dir>/endpoints.json; a second command on the
// same directory joins those services instead of starting its own.
package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/annalist-dev/annalist/internal/ports/vectors"

	"github.com/cloudwego/eino/components/model"
	"github.com/rs/zerolog"

	"github.com/annalist-dev/annalist/consumers/chunker"
	"github.com/annalist-dev/annalist/consumers/extractor"
	"github.com/annalist-dev/annalist/infra/broker"
	"github.com/annalist-dev/annalist/infra/discussionstore"
	"github.com/annalist-dev/annalist/infra/embed"
	"github.com/annalist-dev/annalist/infra/hnsw"
	"github.com/annalist-dev/annalist/infra/kafka"
	"github.com/annalist-dev/annalist/infra/kg"
	"github.com/annalist-dev/annalist/infra/llm"
	"github.com/annalist-dev/annalist/infra/memory"
	"github.com/annalist-dev/annalist/infra/milvus"
	"github.com/annalist-dev/annalist/infra/pages"
	"github.com/annalist-dev/annalist/infra/redisdb"
	"github.com/annalist-dev/annalist/topology"
)

// Vector store names.
const (
	VectorEmbedded = "embedded"
	VectorMilvus   = "milvus"
)

// Config is everything a process needs to reach or start its services.
type Config struct {
	DataDir     string
	Kafka       kafka.Config
	Broker      broker.Config
	Redis       redisdb.Config
	VectorStore string
	Vector      hnsw.Config
	Milvus      milvus.Config
	Embed       embed.Config
	Chunker     chunker.Config
	Extractor   extractor.Config
	// LLM selects the LLM engine; without a base URL and model the
	// offline engine runs.
	LLM llm.Config
	// ChatModel, when set, is used as the LLM engine instead of one built
	// from LLM (tests pass scripted models here); it gets the same
	// timeouts, retries and accounting.
	ChatModel model.BaseChatModel
	// Generate bounds and tunes the generation loop.
	Generate GenerateConfig
	// Stages is the stage registry the process runs stages from; nil means
	// DefaultStages. Tests pass a registry with a stage of their own.
	Stages Registry
	// Command is the annalist command this process runs; an owner of the
	// data directory records it in endpoints.json for the messages of the
	// commands that join it.
	Command string
	// JoinToken is the bearer token a joined command sends to the owner's
	// API (its read or API token), when the owner requires one.
	JoinToken string
}

// RegisterFlags binds the service flags. --data-dir is registered by the
// caller (every command has it).
func (c *Config) RegisterFlags(fs *flag.FlagSet) {
	c.Kafka.RegisterFlags(fs)
	c.Broker.RegisterFlags(fs)
	c.Redis.RegisterFlags(fs)
	c.Embed.RegisterFlags(fs)
	c.LLM.RegisterFlags(fs)
	if c.VectorStore == "" {
		c.VectorStore = VectorEmbedded
	}
	fs.StringVar(&c.VectorStore, "vector-store", c.VectorStore, "vector store: embedded (HNSW under --data-dir) or milvus")
	c.Vector.RegisterFlags(fs)
	c.Milvus.RegisterFlags(fs)
	c.Generate.RegisterFlags(fs)
}

// Validate checks the config at start-up.
func (c Config) Validate() error {
	if c.DataDir == "" {
		return errors.New("data dir is required")
	}
	switch c.VectorStore {
	case VectorEmbedded, "":
	case VectorMilvus:
		if c.Milvus.Address == "" {
			return errors.New("--vector-store milvus needs --milvus-addr")
		}
	default:
		return fmt.Errorf("vector store %q: want embedded or milvus", c.VectorStore)
	}
	for _, v := range []interface{ Validate() error }{c.Kafka, c.Redis, c.Embed, c.Chunker, c.LLM, c.Generate, c.stages()} {
		if err := v.Validate(); err != nil {
			return err
		}
	}
	return nil
}

// Needs says which services a command uses; Open starts or joins only
// those.
type Needs struct {
	Broker  bool
	Redis   bool
	Vectors bool
	// SearchOnly, on a stage's Needs, says it only searches the vectors
	// (the writer's topic curation): a joined process may run it on the
	// owner's index, read over the owner's API. A stage that needs the
	// vectors without it writes them.
	SearchOnly bool
}

// App is a process's view of the running services. Fields for services
// that were not needed are nil.
type App struct {
	Config Config
	Log    zerolog.Logger

	Redis  redisdb.Client
	Chunks *redisdb.Chunks
	Seen   *redisdb.Seen
	KG     *kg.Store

	Embedder vectors.Embedder
	Vectors  vectors.Store

	// Chat is the LLM engine, nil when the offline engine runs.
	Chat *llm.Model
	// Regexes is the agent memory of validated extraction regexes.
	Regexes *memory.Regexes
	// Requests is the generation loop's per-request agent memory.
	Requests *memory.Requests
	// Pages holds published pages, request status and reviews.
	Pages *pages.Store
	// Discussions holds the discussions received and the summaries feed.
	Discussions *discussionstore.Store

	// Joined is true when the services belong to another process that
	// owns the data directory.
	Joined bool
	// owner is that process's endpoints.json, when Joined.
	owner Endpoints
	// published is what this process, owning the data directory, has
	// written to endpoints.json.
	published Endpoints
	// remoteVectors: the embedded index is the owner's, asked over its
	// API.
	remoteVectors bool

	agents   Agents
	gen      generationAgents
	producer *kafka.Producer
	lock     *dirLock
	broker   *broker.Broker
	redisSrv *redisdb.Server
	closers  []func() error
}

// Open starts or joins the services of need.
func Open(ctx context.Context, cfg Config, log zerolog.Logger, need Needs) (*App, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	a := &App{Config: cfg, Log: log}
	if err := a.open(ctx, need); err != nil {
		return nil, errors.Join(err, a.Close())
	}
	return a, nil
}

func (a *App) open(ctx context.Context, need Needs) error {
	cfg, log := a.Config, a.Log
	embeddedBroker := need.Broker && len(cfg.Kafka.Brokers) == 0
	embeddedRedis := need.Redis && cfg.Redis.Addr == ""
	embeddedVectors := need.Vectors && (cfg.VectorStore == VectorEmbedded || cfg.VectorStore == "")
	if embeddedBroker || embeddedRedis || embeddedVectors {
		lock, err := lockDir(cfg.DataDir)
		switch {
		case errors.Is(err, errLocked):
			ep, err := readEndpoints(cfg.DataDir)
			if err != nil {
				return err
			}
			if embeddedVectors {
				// The index files are the owner's (one writer); what a
				// joined command needs of them, search and count, it asks
				// the owner's API for.
				if ep.API == "" {
					return fmt.Errorf("%w: %s owns %s, whose embedded vector index only the owner opens and serves over its API: %s",
						ErrOwnerServesNoAPI, ep.Owner(), cfg.DataDir, ownerAdvice(ep))
				}
				a.remoteVectors = true
			}
			a.Joined, a.owner = true, ep
			if embeddedBroker {
				a.Config.Kafka.Brokers = ep.Brokers
			}
			if embeddedRedis {
				a.Config.Redis.Addr = ep.Redis
			}
			log.Info().Strs("brokers", ep.Brokers).Str("redis", ep.Redis).Str("api", ep.API).Int("pid", ep.PID).
				Str("owner", ep.Command).Msg("joining the services of the annalist process that owns the data directory")
			embeddedBroker, embeddedRedis = false, false
		case err != nil:
			return err
		default:
			a.lock = lock
		}
	}
	if embeddedBroker {
		bcfg := cfg.Broker
		bcfg.DataDir = filepath.Join(cfg.DataDir, kafkaDir)
		bcfg.Logger = log
		b, err := broker.Start(ctx, bcfg)
		if err != nil {
			return fmt.Errorf("start embedded broker: %w", err)
		}
		a.broker = b
		a.Config.Kafka.Brokers = b.Addrs()
	}
	if embeddedRedis {
		s, err := redisdb.StartEmbedded(ctx, filepath.Join(cfg.DataDir, redisDir), log)
		if err != nil {
			return err
		}
		a.redisSrv = s
		a.Config.Redis.Addr = s.Addr()
	}
	if a.lock != nil {
		a.published = Endpoints{Brokers: a.Config.Kafka.Brokers, Redis: a.Config.Redis.Addr, PID: pid(), Command: cfg.Command}
		if err := a.lock.publish(a.published); err != nil {
			return err
		}
	}
	if need.Redis {
		c, err := redisdb.Connect(a.Log.WithContext(ctx), a.Config.Redis)
		if err != nil {
			return err
		}
		a.Redis = c
		a.closers = append(a.closers, c.Close)
		a.Chunks = redisdb.NewChunks(c)
		a.Seen = redisdb.NewSeen(c, 0)
		store, err := kg.New(c, kg.Config{})
		if err != nil {
			return err
		}
		a.KG = store
		a.Regexes = memory.NewRegexes(c, 0)
		a.Requests = memory.NewRequests(c, cfg.Generate.MemoryTTL)
		a.Pages = pages.New(c)
		a.Discussions = discussionstore.New(c)
	}
	switch {
	case cfg.ChatModel != nil:
		a.Chat = llm.Wrap(cfg.ChatModel, cfg.LLM)
	case cfg.LLM.Enabled():
		m, err := llm.NewChatModel(ctx, cfg.LLM)
		if err != nil {
			return fmt.Errorf("LLM engine: %w", err)
		}
		a.Chat = m
		log.Info().Str("model", cfg.LLM.Model).Msg("LLM engine on")
	}
	if need.Vectors {
		if err := a.openVectors(ctx); err != nil {
			return err
		}
	}
	if a.lock != nil && a.Embedder != nil && !a.remoteVectors {
		a.published.Embedder = embedderID(a.Config.Embed, a.Embedder)
		if err := a.lock.publish(a.published); err != nil {
			return err
		}
	}
	// Metrics before any stage or handler starts: the embedder then uses
	// the timed vector store.
	a.Metrics()
	return nil
}

func (a *App) openVectors(ctx context.Context) error {
	emb, err := embed.New(ctx, a.Config.Embed)
	if err != nil {
		return fmt.Errorf("embedder: %w", err)
	}
	a.Embedder = emb
	switch {
	case a.remoteVectors:
		return a.joinVectors()
	case a.Config.VectorStore == VectorMilvus:
		mc := a.Config.Milvus
		mc.Dim = emb.Dim()
		st, err := milvus.New(ctx, mc)
		if err != nil {
			return fmt.Errorf("connect milvus: %w", err)
		}
		a.Vectors = st
		a.closers = append(a.closers, func() error { return st.Close(context.Background()) })
	default:
		vc := a.Config.Vector
		vc.Dir = filepath.Join(a.Config.DataDir, vectorDir)
		st, err := hnsw.Open(vc)
		if err != nil {
			return fmt.Errorf("open vector index: %w", err)
		}
		a.Vectors = st
		a.closers = append(a.closers, st.Close)
	}
	return nil
}

// ErrOwnerServesNoAPI says the process that owns the data directory
// serves no HTTP API, so a command that needs its vector index or its
// stages cannot join it.
var ErrOwnerServesNoAPI = errors.New("the annalist process that owns the data directory serves no API")

// ownerAdvice is what to do about an owner that serves no API.
func ownerAdvice(ep Endpoints) string {
	switch ep.Command {
	case "serve", "demo":
		return "it has not opened its listener yet; try again once it serves"
	}
	return "wait for it to end, or run `annalist serve` on that directory and run this command beside it"
}

// joinVectors makes the vector store the owner's, over its API. The
// embedder stays this process's own, for query vectors only; it must be
// the owner's, or the vectors would not compare.
func (a *App) joinVectors() error {
	ep := a.owner
	if mine := embedderID(a.Config.Embed, a.Embedder); ep.Embedder != "" && mine != ep.Embedder {
		return fmt.Errorf("%s indexed %s with the embedder %s, this command embeds with %s: give it the owner's embedder flags",
			ep.Owner(), a.Config.DataDir, ep.Embedder, mine)
	}
	st, err := hnsw.NewRemote(hnsw.RemoteConfig{BaseURL: ep.API, Token: a.Config.JoinToken})
	if err != nil {
		return err
	}
	a.Vectors = st
	return nil
}

// embedderID names an embedder and its dimension, the two things that
// decide whether vectors compare.
func embedderID(c embed.Config, e vectors.Embedder) string {
	name := c.Resolved()
	if name == embed.ProviderOpenAI {
		name += ":" + c.OpenAI.Model
	}
	return fmt.Sprintf("%s/%d", name, e.Dim())
}

// Serving records in endpoints.json, for the commands that join this
// process, that its HTTP API answers at url and that it runs stages for as
// long as it serves. A process that does not own the data directory has
// nothing to record.
func (a *App) Serving(url string, stages []string) error {
	if a.lock == nil {
		return nil
	}
	a.published.API, a.published.Stages = url, stages
	return a.lock.publish(a.published)
}

// Owner returns the endpoints of the process that owns the data directory;
// ok is false unless this process joined it.
func (a *App) Owner() (Endpoints, bool) { return a.owner, a.Joined }

// OwnerRuns checks, in a joined process, that the owner will do the work
// of stages (names), which a joined command only publishes for and waits
// on: an owner that serves no API is a one-shot command whose stages end
// with its own work, an error; an owner that serves but runs none of them
// (serve --stages=false) leaves them to `consume` processes, a warning.
func (a *App) OwnerRuns(names []string) error {
	if !a.Joined {
		return nil
	}
	ep := a.owner
	if ep.API == "" {
		return fmt.Errorf("%w: %s owns %s and runs no stages for other commands: %s",
			ErrOwnerServesNoAPI, ep.Owner(), a.Config.DataDir, ownerAdvice(ep))
	}
	var missing []string
	for _, n := range names {
		if !slices.Contains(ep.Stages, n) {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		a.Log.Warn().Strs("stages", missing).Str("owner", ep.Owner()).
			Msg("the process that owns the data directory does not run these stages; waiting for `annalist consume` processes to run them")
	}
	return nil
}

// JoinedStagesMayRun refuses, in a process that joined the owner of the
// embedded vector index, stages that need vectors: they write it (the
// embedder upserts, the retractor deletes), which only its owner does
// (hnsw.ErrReadOnly says why). Stages that need none join the owner's
// broker and Redis like any other replica.
func (a *App) JoinedStagesMayRun(names []string) error {
	if !a.remoteVectors {
		return nil
	}
	var writers []string
	for _, n := range names {
		if st, err := a.Stages().Lookup(n); err == nil && st.Needs.Vectors && !st.Needs.SearchOnly {
			writers = append(writers, n)
		}
	}
	if len(writers) == 0 {
		return nil
	}
	return fmt.Errorf("stages %s write the vector index of %s, which %s owns: run them there, or give the pipeline a vector store of its own (--vector-store milvus)",
		strings.Join(writers, ", "), a.Config.DataDir, a.owner.Owner())
}

// WaitDocuments waits, in a process that runs no stages, until the stages
// (names) are done with the documents docIDs: each stage that records its
// progress in the document store (Stage.Progress) has marked every
// document — those that read chunks only documents that have chunks — and
// then the stages that record none (the KG writer) have consumed their
// topics. progress, when set, is called with the number of documents done
// whenever it grows. A document no stage will mark (dead-lettered, or
// skipped as seen in a run before a stage existed) does not hold the wait:
// it also ends once every stage's consumer group has consumed everything,
// when nothing of the run is left to do.
func (a *App) WaitDocuments(ctx context.Context, tenant string, docIDs, names []string, progress func(done, total int)) error {
	if a.Chunks == nil {
		return errors.New("wait for documents: no document store (Redis) open")
	}
	reg := a.Stages()
	var marking []Stage
	var others []string
	for _, n := range names {
		st, err := reg.Lookup(n)
		if err != nil {
			return err
		}
		if st.Progress {
			marking = append(marking, st)
		} else {
			others = append(others, n)
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	idle := make(chan error, 1)
	go func() { idle <- a.WaitIdle(ctx, names) }()

	pending := slices.Compact(slices.Sorted(slices.Values(docIDs)))
	total, reported := len(pending), -1
	tick := time.NewTicker(documentPoll)
	defer tick.Stop()
	// allIdle: every group has consumed everything; the documents are
	// read once more for the progress, then nothing is left to wait for.
	allIdle := false
	for {
		still := pending[:0]
		for _, id := range pending {
			info, found, err := a.Chunks.Document(ctx, tenant, id)
			if err != nil {
				return err
			}
			if !found || !finished(info, marking) {
				still = append(still, id)
			}
		}
		pending = still
		if done := total - len(pending); progress != nil && done != reported {
			progress(done, total)
			reported = done
		}
		if allIdle {
			return nil
		}
		if len(pending) == 0 {
			break
		}
		select {
		case err := <-idle:
			if err != nil {
				return err
			}
			allIdle = true
		case <-tick.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if len(others) == 0 {
		return nil
	}
	return a.WaitIdle(ctx, others)
}

// documentPoll is how often WaitDocuments reads the documents' marks.
const documentPoll = 100 * time.Millisecond

// finished says whether every marking stage has marked the document: a
// stage that reads documents marks each, one that reads chunks only those
// with chunks (a document without text has none).
func finished(info redisdb.DocInfo, marking []Stage) bool {
	for _, st := range marking {
		if info.Stages[st.Name] != "" {
			continue
		}
		if info.Chunks > 0 || slices.Contains(st.Reads, topology.Documents) {
			return false
		}
	}
	return true
}

// Brokers are the bootstrap addresses in use.
func (a *App) Brokers() []string { return a.Config.Kafka.Brokers }

// Close stops what Open started, in reverse order. Safe to call twice.
func (a *App) Close() error {
	var errs []error
	for i := len(a.closers) - 1; i >= 0; i-- {
		if err := a.closers[i](); err != nil {
			errs = append(errs, err)
		}
	}
	a.closers = nil
	if a.redisSrv != nil {
		if err := a.redisSrv.Close(); err != nil {
			errs = append(errs, err)
		}
		a.redisSrv = nil
	}
	if a.broker != nil {
		if err := a.broker.Close(); err != nil {
			errs = append(errs, err)
		}
		a.broker = nil
	}
	if a.lock != nil {
		a.lock.release()
		a.lock = nil
	}
	return errors.Join(errs...)
}

// Describe is a one-line summary of where the services are.
func (a *App) Describe() string {
	var parts []string
	if len(a.Config.Kafka.Brokers) > 0 {
		parts = append(parts, "brokers="+strings.Join(a.Config.Kafka.Brokers, ","))
	}
	if a.Config.Redis.Addr != "" {
		parts = append(parts, "redis="+a.Config.Redis.Addr)
	}
	return strings.Join(parts, " ")
}
