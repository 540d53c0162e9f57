package hnsw

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// Datasets Recall can generate.
const (
	// DatasetRandom is vectors with independent Gaussian components: no
	// structure at all, the hardest case for a graph index in high
	// dimension.
	DatasetRandom = "random"
	// DatasetClustered is Gaussian clusters around random centres, closer
	// to what text embeddings look like (topics, near-duplicates).
	DatasetClustered = "clustered"
)

// RecallConfig describes one recall and speed measurement. Zero fields take
// the defaults in brackets.
type RecallConfig struct {
	Dataset  string // DatasetRandom or DatasetClustered [random]
	N        int    // vectors indexed [20000]
	Dim      int    // dimension [256]
	Queries  int    // queries measured [200]
	K        int    // neighbours per query [10]
	Clusters int    // clusters of the clustered dataset [100]
	Seed     uint64 // data seed [42]
	Params   Params // index parameters [the defaults, graph from the first insert]
	// Progress, when set, is called after every 1000 vectors inserted.
	Progress func(done, total int)
}

func (c RecallConfig) withDefaults() RecallConfig {
	if c.Dataset == "" {
		c.Dataset = DatasetRandom
	}
	if c.N == 0 {
		c.N = 20000
	}
	if c.Dim == 0 {
		c.Dim = 256
	}
	if c.Queries == 0 {
		c.Queries = 200
	}
	if c.K == 0 {
		c.K = 10
	}
	if c.Clusters == 0 {
		c.Clusters = 100
	}
	if c.Seed == 0 {
		c.Seed = 42
	}
	return c
}

// RecallReport is the outcome of Recall; the JSON form is what `annalist
// bench` prints.
type RecallReport struct {
	Dataset        string  `json:"dataset"`
	N              int     `json:"n"`
	Dim            int     `json:"dim"`
	K              int     `json:"k"`
	Queries        int     `json:"queries"`
	M              int     `json:"m"`
	EfConstruction int     `json:"ef_construction"`
	EfSearch       int     `json:"ef_search"`
	Recall         float64 `json:"recall"`
	BuildSeconds   float64 `json:"build_seconds"`
	InsertsPerSec  float64 `json:"inserts_per_second"`
	QPS            float64 `json:"qps"`
	ExactQPS       float64 `json:"exact_qps"`
}

// Recall builds an index of generated vectors, then measures recall@K of
// the graph search against exact search and the queries per second of
// both, on one goroutine. Queries are fresh draws from the same
// distribution, not stored vectors.
func Recall(ctx context.Context, cfg RecallConfig) (RecallReport, error) {
	cfg = cfg.withDefaults()
	if cfg.N < 1 || cfg.Dim < 1 || cfg.Queries < 1 || cfg.K < 1 || cfg.Clusters < 1 {
		return RecallReport{}, fmt.Errorf("recall: sizes must be positive: %+v", cfg)
	}
	gen, err := NewGenerator(cfg.Dataset, cfg.Dim, cfg.Clusters, cfg.Seed)
	if err != nil {
		return RecallReport{}, err
	}
	// The graph is what is measured: it is built from the first insert, so
	// the build time is the graph's, whatever ExactBelow would choose.
	params := cfg.Params
	if params.ExactBelow == 0 {
		params.ExactBelow = -1
	}
	ix, err := NewIndex(cfg.Dim, params)
	if err != nil {
		return RecallReport{}, err
	}
	start := time.Now()
	for i := range cfg.N {
		if i%1000 == 0 {
			if err := ctx.Err(); err != nil {
				return RecallReport{}, fmt.Errorf("recall: build: %w", err)
			}
			if cfg.Progress != nil && i > 0 {
				cfg.Progress(i, cfg.N)
			}
		}
		if err := ix.Upsert(fmt.Sprint(i), "", gen.Next()); err != nil {
			return RecallReport{}, fmt.Errorf("recall: insert %d: %w", i, err)
		}
	}
	build := time.Since(start)
	if cfg.Progress != nil {
		cfg.Progress(cfg.N, cfg.N)
	}

	queries := make([][]float32, cfg.Queries)
	for i := range queries {
		queries[i] = gen.Next()
	}
	truth := make([]map[string]bool, len(queries))
	start = time.Now()
	for i, q := range queries {
		hits, err := ix.Exact(q, cfg.K)
		if err != nil {
			return RecallReport{}, fmt.Errorf("recall: exact query %d: %w", i, err)
		}
		truth[i] = make(map[string]bool, len(hits))
		for _, h := range hits {
			truth[i][h.ChunkID] = true
		}
	}
	exact := time.Since(start)
	if err := ctx.Err(); err != nil {
		return RecallReport{}, fmt.Errorf("recall: %w", err)
	}

	found, want := 0, 0
	start = time.Now()
	for i, q := range queries {
		hits, err := ix.SearchGraph(q, cfg.K, 0)
		if err != nil {
			return RecallReport{}, fmt.Errorf("recall: graph query %d: %w", i, err)
		}
		for _, h := range hits {
			if truth[i][h.ChunkID] {
				found++
			}
		}
		want += len(truth[i])
	}
	graph := time.Since(start)

	p := ix.Params()
	return RecallReport{
		Dataset: cfg.Dataset, N: cfg.N, Dim: cfg.Dim, K: cfg.K, Queries: cfg.Queries,
		M: p.M, EfConstruction: p.EfConstruction, EfSearch: p.EfSearch,
		Recall:        float64(found) / float64(want),
		BuildSeconds:  build.Seconds(),
		InsertsPerSec: float64(cfg.N) / build.Seconds(),
		QPS:           float64(len(queries)) / graph.Seconds(),
		ExactQPS:      float64(len(queries)) / exact.Seconds(),
	}, nil
}

// Generator draws vectors of one of the Recall datasets, deterministically
// from its seed.
type Generator struct {
	rnd     *rand.Rand
	dim     int
	centres [][]float32
	spread  float64
}

// NewGenerator returns a generator of dataset ("random" or "clustered").
func NewGenerator(dataset string, dim, clusters int, seed uint64) (*Generator, error) {
	g := &Generator{rnd: rand.New(rand.NewPCG(seed, seed+1)), dim: dim}
	switch dataset {
	case DatasetRandom:
	case DatasetClustered:
		g.centres = make([][]float32, clusters)
		for i := range g.centres {
			g.centres[i] = g.gaussian(1)
		}
		// Points sit at about a third of the centre's norm from it: clusters
		// are well separated, but inside one the neighbours still have to be
		// told apart.
		g.spread = 0.35
	default:
		return nil, fmt.Errorf("generate vectors: unknown dataset %q (want %s or %s)", dataset, DatasetRandom, DatasetClustered)
	}
	return g, nil
}

// Next draws one vector.
func (g *Generator) Next() []float32 {
	if g.centres == nil {
		return g.gaussian(1)
	}
	c := g.centres[g.rnd.IntN(len(g.centres))]
	v := g.gaussian(g.spread)
	for i := range v {
		v[i] += c[i]
	}
	return v
}

func (g *Generator) gaussian(sigma float64) []float32 {
	v := make([]float32, g.dim)
	s := sigma / math.Sqrt(float64(g.dim))
	for i := range v {
		v[i] = float32(g.rnd.NormFloat64() * s)
	}
	return v
}
