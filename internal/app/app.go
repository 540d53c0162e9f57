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
	"strings"

	"github.com/annalist-dev/annalist/internal/vectors"

	"github.com/cloudwego/eino/components/model"
	"github.com/rs/zerolog"

	"github.com/annalist-dev/annalist/consumers/chunker"
	"github.com/annalist-dev/annalist/consumers/extractor"
	"github.com/annalist-dev/annalist/infra/broker"
	"github.com/annalist-dev/annalist/infra/embed"
	"github.com/annalist-dev/annalist/infra/kafka"
	"github.com/annalist-dev/annalist/infra/kg"
	"github.com/annalist-dev/annalist/infra/llm"
	"github.com/annalist-dev/annalist/infra/memory"
	"github.com/annalist-dev/annalist/infra/milvus"
	"github.com/annalist-dev/annalist/infra/pages"
	"github.com/annalist-dev/annalist/infra/redis"
	"github.com/annalist-dev/annalist/infra/vector"
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
	Redis       redis.Config
	VectorStore string
	Vector      vector.Config
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
}

// App is a process's view of the running services. Fields for services
// that were not needed are nil.
type App struct {
	Config Config
	Log    zerolog.Logger

	Redis  redis.Client
	Chunks *redis.Chunks
	Seen   *redis.Seen
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

	// Joined is true when the services belong to another process that
	// owns the data directory.
	Joined bool

	agents   Agents
	gen      generationAgents
	producer *kafka.Producer
	lock     *dirLock
	broker   *broker.Broker
	redisSrv *redis.Server
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
			if embeddedVectors {
				return fmt.Errorf("%w (%s): the embedded vector index is open there; stop it first or use --vector-store milvus", err, cfg.DataDir)
			}
			ep, err := readEndpoints(cfg.DataDir)
			if err != nil {
				return err
			}
			a.Joined = true
			if embeddedBroker {
				a.Config.Kafka.Brokers = ep.Brokers
			}
			if embeddedRedis {
				a.Config.Redis.Addr = ep.Redis
			}
			log.Info().Strs("brokers", ep.Brokers).Str("redis", ep.Redis).Int("pid", ep.PID).
				Msg("joining the services of the annalist process that owns the data directory")
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
		s, err := redis.StartEmbedded(ctx, filepath.Join(cfg.DataDir, redisDir), log)
		if err != nil {
			return err
		}
		a.redisSrv = s
		a.Config.Redis.Addr = s.Addr()
	}
	if a.lock != nil {
		ep := Endpoints{Brokers: a.Config.Kafka.Brokers, Redis: a.Config.Redis.Addr, PID: pid()}
		if err := a.lock.publish(ep); err != nil {
			return err
		}
	}
	if need.Redis {
		c, err := redis.Connect(a.Log.WithContext(ctx), a.Config.Redis)
		if err != nil {
			return err
		}
		a.Redis = c
		a.closers = append(a.closers, c.Close)
		a.Chunks = redis.NewChunks(c)
		a.Seen = redis.NewSeen(c, 0)
		store, err := kg.New(c, kg.Config{})
		if err != nil {
			return err
		}
		a.KG = store
		a.Regexes = memory.NewRegexes(c, 0)
		a.Requests = memory.NewRequests(c, cfg.Generate.MemoryTTL)
		a.Pages = pages.New(c)
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
	switch a.Config.VectorStore {
	case VectorMilvus:
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
		st, err := vector.Open(vc)
		if err != nil {
			return fmt.Errorf("open vector index: %w", err)
		}
		a.Vectors = st
		a.closers = append(a.closers, st.Close)
	}
	return nil
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
