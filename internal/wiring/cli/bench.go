package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"runtime"
	"time"

	"github.com/rs/zerolog"

	"github.com/annalist-dev/annalist/consumers/extractor"
	"github.com/annalist-dev/annalist/infra/hnsw"
	"github.com/annalist-dev/annalist/internal/evaluation/eval"
	"github.com/annalist-dev/annalist/internal/kit/progress"
	"github.com/annalist-dev/annalist/internal/wiring/app"
	"github.com/annalist-dev/annalist/producers"
	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
)

// Published anchor: Alstorian indexed 220k characters in 422.65 s (seed
// 000, §3); GraphRAG took 5,279.65 s on the same corpus.
const (
	anchorChars   = 220_000
	anchorSeconds = 422.65
)

// BenchIngest is the JSON of `annalist bench ingest`.
type BenchIngest struct {
	Documents       int     `json:"documents"`
	Chars           int64   `json:"chars"`
	Bytes           int64   `json:"bytes"`
	Chunks          int     `json:"chunks"`
	Triplets        int     `json:"triplets"`
	Vectors         int     `json:"vectors"`
	DeadLetters     int     `json:"dead_letters"`
	Seconds         float64 `json:"seconds"`
	StartupSeconds  float64 `json:"startup_seconds"`
	CharsPerSecond  float64 `json:"chars_per_second"`
	ChunksPerSecond float64 `json:"chunks_per_second"`
	// AnchorCharsPerSecond is the published Alstorian indexing rate.
	AnchorCharsPerSecond float64         `json:"anchor_chars_per_second"`
	SpeedupVsAnchor      float64         `json:"speedup_vs_anchor"`
	Store                app.StoreCounts `json:"store"`
	Engine               string          `json:"engine"`
	CPUs                 int             `json:"cpus"`
	Errors               []string        `json:"errors,omitempty"`
	// LLMCalls and LLMCallsPerChunk (calls over the chunks made), with
	// the engine llm only: every model call of the chunker and the
	// extractor, retries included; LLM splits them.
	LLMCalls         *int64    `json:"llm_calls,omitempty"`
	LLMCallsPerChunk *float64  `json:"llm_calls_per_chunk,omitempty"`
	LLM              *BenchLLM `json:"llm,omitempty"`
	// Redis is what the run spent on Redis, per document ingested.
	Redis *BenchRedis `json:"redis"`
	// StageSeconds is each stage's time in its handler (benchStages): of
	// this process's stages only.
	StageSeconds map[string]float64 `json:"stage_seconds"`
	// Processes is the number of `annalist consume` processes the stages
	// that do not write the vector index ran in (0: all ran in this one).
	// Triplets are then not counted.
	Processes int `json:"processes"`
}

// BenchLLM is where the LLM engine's calls went in `bench ingest --engine
// llm`.
type BenchLLM struct {
	// Model is "scripted" when the bench served internal/evaluation/eval's
	// IngestModel on loopback, else the --llm-model asked.
	Model        string `json:"model"`
	ChunkerCalls int64  `json:"chunker_calls"`
	// ChunkerFallbacks counts documents whose model answers were unusable
	// and were chunked by the pattern engine.
	ChunkerFallbacks int64           `json:"chunker_fallbacks"`
	Extractor        extractor.Stats `json:"extractor"`
	// Relations splits the extractor's gaps per relation.
	Relations map[string]extractor.GapStats `json:"relations"`
	// ServerCalls counts the answers of the scripted model by kind, as the
	// server saw them (absent with an external server).
	ServerCalls map[string]int `json:"server_calls,omitempty"`
	// Unexpected are the prompts the scripted model refused.
	Unexpected []string `json:"unexpected,omitempty"`
}

func cmdBench(ctx context.Context, io IO, args []string) error {
	fs := newFlagSet("bench", io.Stderr)
	var s service
	s.register(fs)
	data := fs.String("data", "", "ingest: folder of documents (default: the mingshi-liezhuan evaluation data); discussions: KGDS file (default: kgds/dev.json)")
	keep := fs.Bool("keep", false, "ingest, discussions: keep the benchmark's data directory instead of deleting it")
	var rc hnsw.RecallConfig
	fs.StringVar(&rc.Dataset, "dataset", hnsw.DatasetRandom, "vector: random or clustered vectors")
	fs.IntVar(&rc.N, "n", 20000, "vector: vectors indexed (default 20000); generate: biographies requested (default 100); discussions: the first N of --data (default all)")
	conc := fs.Int("concurrency", 8, "generate: requests in flight at a time")
	seed := fs.Uint64("seed", 1, "generate, regenerate: seed of the subject sample")
	nPages := fs.Int("pages", 20, "regenerate: pages published before the updates")
	nUpdates := fs.Int("updates", 30, "regenerate: documents streamed (a third new, a third superseding them, a third retracting them)")
	kindFlag := fs.String("kind", schemas.KindBiography, "generate, regenerate: page kind: biography, topic, or all (side by side)")
	notes := fs.String("notes", NotesPlain, "regenerate: how the update notes are written: plain (the name and a new statement, in several wordings) or context (with the examination year and native place the graph holds)")
	procs := fs.Int("processes", 0, "ingest: run the ingestion stages that do not write the vector index as this many `annalist consume` processes; generate, regenerate: run the generation stages (scheduler included) as this many `annalist consume generate` processes (0: in this process)")
	engine := fs.String("engine", "offline", "ingest: offline (the --llm-* flags are ignored), or llm: the LLM engine on the --llm-* server, or without --llm-base-url the scripted ingestion model (internal/evaluation/eval) served on 127.0.0.1")
	fs.IntVar(&rc.Dim, "dim", 256, "vector: dimension")
	var prof benchProfiles
	prof.register(fs)
	baseline := fs.String("baseline", "", "ingest, generate, regenerate: also run the benchmark with this binary, alternating with this one, and report both and their ratio")
	repeat := fs.Int("repeat", 3, "with --baseline: runs of each binary")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if *baseline != "" {
		if len(pos) != 1 || pos[0] != "ingest" && pos[0] != "generate" && pos[0] != "regenerate" {
			return fmt.Errorf("%w: --baseline runs ingest, generate or regenerate", errUsage)
		}
		return benchAgainst(ctx, io, fs, pos[0], *baseline, *repeat, s.json)
	}
	stopProfiles, err := prof.start()
	if err != nil {
		return err
	}
	defer func() {
		if err := stopProfiles(); err != nil {
			fmt.Fprintf(io.Stderr, "bench: %v\n", err)
		}
	}()
	if len(pos) == 1 && pos[0] == "vector" {
		return benchVector(ctx, io, s.common, rc)
	}
	if len(pos) == 1 && pos[0] == "discussions" {
		n := 0
		fs.Visit(func(f *flag.Flag) {
			if f.Name == "n" {
				n = rc.N
			}
		})
		if n < 0 {
			return fmt.Errorf("%w: --n must not be negative", errUsage)
		}
		return benchDiscussions(ctx, io, s, *data, n, *keep)
	}
	if len(pos) != 1 || pos[0] != "ingest" && pos[0] != "generate" && pos[0] != "regenerate" {
		return fmt.Errorf("%w: want a benchmark: ingest, generate, regenerate, discussions or vector", errUsage)
	}
	dir, err := evalData(*data)
	if err != nil {
		return err
	}
	kinds, err := benchKinds(*kindFlag)
	if err != nil {
		return err
	}
	if pos[0] == "regenerate" {
		if *nPages < 2 || *nUpdates <= 0 || *procs < 0 {
			return fmt.Errorf("%w: --pages must be at least 2, --updates positive, --processes not negative", errUsage)
		}
		if *notes != NotesPlain && *notes != NotesContext {
			return fmt.Errorf("%w: --notes must be %s or %s", errUsage, NotesPlain, NotesContext)
		}
		return benchRegenerateKinds(ctx, io, s, dir, kinds, *nPages, *nUpdates, *procs, *keep, *seed, *notes)
	}
	if pos[0] == "generate" {
		n := 100
		fs.Visit(func(f *flag.Flag) {
			if f.Name == "n" {
				n = rc.N
			}
		})
		if n <= 0 || *conc <= 0 || *procs < 0 {
			return fmt.Errorf("%w: --n and --concurrency must be positive, --processes not negative", errUsage)
		}
		return benchGenerateKinds(ctx, io, s, dir, kinds, n, *conc, *procs, *keep, *seed)
	}
	var scripted *eval.IngestModel
	switch *engine {
	case "offline":
		s.app.LLM.BaseURL, s.app.LLM.Model = "", ""
	case "llm":
		if s.app.LLM.BaseURL == "" {
			scripted = eval.NewIngestModel()
			srv, err := eval.Serve(scripted)
			if err != nil {
				return err
			}
			defer srv.Close()
			s.app.LLM.BaseURL, s.app.LLM.Model = srv.BaseURL(), "scripted"
		}
	default:
		return fmt.Errorf("%w: --engine %q: want offline or llm", errUsage, *engine)
	}
	cleanup, err := s.freshDataDir("bench ingest", "bench-", *keep)
	if err != nil {
		return err
	}
	defer cleanup()
	tmp := s.dataDir
	startup := time.Now()
	a, log, err := s.open(ctx, io, app.NeedsFor(app.IngestStages()))
	if err != nil {
		return err
	}
	defer a.Close()
	reg := a.Metrics()
	startupSeconds := time.Since(startup).Seconds()
	files, err := producers.Walk([]string{dir}, producers.Options{})
	if err != nil {
		return err
	}
	local := true
	var embedded *app.Counters
	if *procs > 0 {
		// The stages run in procs `annalist consume` processes joined to
		// this one's broker and Redis, but for those that write this
		// process's vector index, which only its owner may.
		var stopProcs func()
		if embedded, stopProcs, err = benchIngestProcesses(ctx, io, a, log, *procs); err != nil {
			return err
		}
		defer stopProcs()
		local = false
	}
	res, err := a.Ingest(ctx, s.tenant, local, true, func(ctx context.Context, sink producers.Sink) (producers.Summary, error) {
		rep := progress.New(int64(len(files)), "bench ingest", log)
		return producers.IngestFiles(ctx, []string{dir}, producers.Options{}, s.tenant, sink, rep)
	})
	if err != nil {
		return err
	}
	if embedded != nil {
		// The stage counters of the other processes are theirs: the
		// chunks and vectors are read from the stores instead.
		res.Chunks, res.Vectors = int(res.Store.Chunks), int(embedded.Stage(topology.StageEmbedder).Handled)
	}
	out := BenchIngest{
		Documents: res.Documents, Chars: res.Chars, Bytes: res.Bytes, Chunks: res.Chunks,
		Triplets: res.Triplets, Vectors: res.Vectors, DeadLetters: res.DeadLetters,
		Seconds: res.Seconds, StartupSeconds: startupSeconds, Store: res.Store,
		Engine: *engine, CPUs: runtime.NumCPU(), Errors: res.Errors, Processes: *procs,
		AnchorCharsPerSecond: anchorChars / anchorSeconds,
	}
	if out.Redis, err = benchRedis(reg, nil, res.Documents, "document"); err != nil {
		return err
	}
	if out.StageSeconds, err = benchStages(reg, nil); err != nil {
		return err
	}
	if *engine == "llm" {
		out.LLM = benchLLM(a.Agents(), s.app.LLM.Model, scripted)
		calls := out.LLM.ChunkerCalls + out.LLM.Extractor.LLMCalls
		perChunk := 0.0
		if res.Chunks > 0 {
			perChunk = float64(calls) / float64(res.Chunks)
		}
		out.LLMCalls, out.LLMCallsPerChunk = &calls, &perChunk
	}
	if res.Seconds > 0 {
		out.CharsPerSecond = float64(res.Chars) / res.Seconds
		out.ChunksPerSecond = float64(res.Chunks) / res.Seconds
		out.SpeedupVsAnchor = out.CharsPerSecond / out.AnchorCharsPerSecond
	}
	if *keep {
		log.Info().Str("data_dir", filepath.Clean(tmp)).Msg("benchmark state kept")
	}
	if s.json {
		return writeJSON(io.Stdout, out)
	}
	fmt.Fprintf(io.Stdout, "%d documents, %d characters → %d chunks, %d triplets, %d vectors in %.2fs\n",
		out.Documents, out.Chars, out.Chunks, out.Triplets, out.Vectors, out.Seconds)
	fmt.Fprintf(io.Stdout, "%.0f chars/s (%.0f chunks/s); Alstorian anchor %.0f chars/s → %.0f×\n",
		out.CharsPerSecond, out.ChunksPerSecond, out.AnchorCharsPerSecond, out.SpeedupVsAnchor)
	if l := out.LLM; l != nil {
		x := l.Extractor
		fmt.Fprintf(io.Stdout, "LLM engine (%s): %d calls, %.3f per chunk: chunker %d, extractor %d (regex synthesis %d, plan B %d)\n",
			l.Model, *out.LLMCalls, *out.LLMCallsPerChunk, l.ChunkerCalls, x.LLMCalls, x.RegexCalls, x.PlanBCalls)
		fmt.Fprintf(io.Stdout, "relation gaps: %d filled from regex memory, %d regexes learned, %d skipped without a cue, %d skipped as usually absent\n",
			x.CallsSaved, x.RegexLearned, x.GapsNoCue, x.GapsAbsent)
	}
	return nil
}

// benchLLM reads where the LLM engine's calls went from the stages this
// process ran.
func benchLLM(ag app.Agents, modelName string, scripted *eval.IngestModel) *BenchLLM {
	out := &BenchLLM{Model: modelName}
	if ag.Chunker != nil {
		st := ag.Chunker.Stats()
		out.ChunkerCalls, out.ChunkerFallbacks = st.LLMCalls, st.LLMFallbacks
	}
	if ag.Extractor != nil {
		out.Extractor, out.Relations = ag.Extractor.Stats(), ag.Extractor.GapStats()
	}
	if scripted != nil {
		out.ServerCalls, out.Unexpected = scripted.Calls(), scripted.Unexpected()
	}
	return out
}

// benchVector measures the embedded HNSW index: recall@10 against exact
// search, build rate and queries per second.
func benchVector(ctx context.Context, io IO, c common, rc hnsw.RecallConfig) error {
	log, err := c.logger(io.Stderr)
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	rep := progress.New(int64(rc.N), "bench vector", log)
	rc.Progress = func(done, total int) { rep.Add(1000) }
	r, err := hnsw.Recall(ctx, rc)
	rep.Finish()
	if err != nil {
		return err
	}
	if c.json {
		return writeJSON(io.Stdout, r)
	}
	fmt.Fprintf(io.Stdout, "%s n=%d dim=%d: recall@%d %.4f (M=%d efC=%d efS=%d); %.0f inserts/s, %.0f QPS (exact %.0f QPS)\n",
		r.Dataset, r.N, r.Dim, r.K, r.Recall, r.M, r.EfConstruction, r.EfSearch, r.InsertsPerSec, r.QPS, r.ExactQPS)
	return nil
}

// benchIngestProcesses starts procs `annalist consume` processes running
// the ingestion stages that do not write the vector index, and runs those
// that do (the embedder, the retractor) in this process, which owns the
// index; stop ends both. The counters are this process's stages'.
func benchIngestProcesses(ctx context.Context, io IO, a *app.App, log zerolog.Logger, procs int) (*app.Counters, func(), error) {
	var local, remote []string
	for _, name := range app.IngestStages() {
		st, err := a.Stages().Lookup(name)
		if err != nil {
			return nil, nil, err
		}
		if st.Needs.Vectors && !st.Needs.SearchOnly {
			local = append(local, name)
		} else {
			remote = append(remote, name)
		}
	}
	stageCtx, cancel := context.WithCancel(ctx)
	unserve, err := serveJoiners(stageCtx, a, log, local)
	if err != nil {
		cancel()
		return nil, nil, err
	}
	children, err := startConsumers(stageCtx, io, a.Config.DataDir, procs, remote...)
	if err != nil {
		cancel()
		unserve()
		return nil, nil, err
	}
	counters := &app.Counters{}
	done := make(chan error, 1)
	go func() { done <- a.RunStages(stageCtx, local, counters) }()
	return counters, func() {
		cancel()
		stopConsumers(children)
		unserve()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
			fmt.Fprintf(io.Stderr, "bench ingest: embedder: %v\n", err)
		}
	}, nil
}
