package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/annalist-dev/annalist/consumers/writer"
	"github.com/annalist-dev/annalist/infra/pages"
	"github.com/annalist-dev/annalist/internal/evaluation/eval"
	"github.com/annalist-dev/annalist/internal/evaluation/inject"
	"github.com/annalist-dev/annalist/internal/kit/progress"
	"github.com/annalist-dev/annalist/internal/wiring/app"
	"github.com/annalist-dev/annalist/schemas"
)

// EvalTopics is the JSON of `annalist eval topics`: the report of
// eval.Topics (overall, by_type, dev, held_out scores; pages, failures,
// pages_per_second; results per topic with --results) and the run's
// setting.
type EvalTopics struct {
	eval.TopicsReport
	// Data are the folders the gold was read from (and, unless Reused,
	// ingested in order into a fresh data directory).
	Data   []string `json:"data"`
	Reused bool     `json:"reused,omitempty"`
	// GoldTopics is how many topics the gold holds; Limit how many of
	// them were generated (0: all).
	GoldTopics    int     `json:"gold_topics"`
	Limit         int     `json:"limit,omitempty"`
	IngestSeconds float64 `json:"ingest_seconds,omitempty"`
	Engine        string  `json:"engine"`
	// Erring is the run with the erring model, with --erring RATE > 0.
	Erring *EvalTopicsErring `json:"erring,omitempty"`
}

// EvalTopicsErring is the part of `eval topics` run with --erring: the
// generation stages with eval.ErringModel as the LLM engine (it puts one
// error into a share Rate of the sentences it writes) and the offline
// verifier write every gold topic's page afresh, Rounds times; the
// published pages are scored against the errors it made
// (eval.ErringScore: residual_error_rate is the share of published
// sentences that kept one).
type EvalTopicsErring struct {
	Rate   float64 `json:"rate"`
	Rounds int     `json:"rounds"`
	Seed   uint64  `json:"seed"`
	eval.ErringScore
	// Failures counts the requests not published, FailureExamples gives
	// a few.
	Failures        int      `json:"failures"`
	FailureExamples []string `json:"failure_examples,omitempty"`
	// ModelCalls counts the model's answers by kind; UnexpectedPrompts
	// the calls it refused (prompts it does not know).
	ModelCalls        map[string]int `json:"model_calls"`
	UnexpectedPrompts []string       `json:"unexpected_prompts,omitempty"`
	// PoolPersons is how many gold persons' reference sets gave the
	// place and courtesy-name swap values.
	PoolPersons int     `json:"pool_persons"`
	Seconds     float64 `json:"seconds"`
}

// evalTopics is `annalist eval topics --data DIR [--data DIR2] [--min 3]
// [--limit N] [--concurrency C] [--reuse] [--results]`: it reads the
// topic gold from the folders (eval.TopicGold: native places and jinshi
// years with at least --min people, read from the text), ingests the
// folders in order into a fresh data directory (with --reuse, it uses
// the corpus already in --data-dir instead), generates a topic page per
// gold topic with C requests in flight and scores them (eval.Topics).
// With --erring RATE > 0 it then runs the generation stages again with
// the erring model as the LLM engine (evalTopicsErring) and reports the
// residual error rate of the published sentences.
func evalTopics(ctx context.Context, io IO, args []string) error {
	fs := newFlagSet("eval topics", io.Stderr)
	var s service
	s.register(fs)
	var dirs dirList
	fs.Var(&dirs, "data", "liezhuan volumes (repeat the flag: ingested in order; default: the mingshi-liezhuan evaluation data)")
	minPeople := fs.Int("min", 3, "a place or era year is a topic when the text gives it at least this many people")
	limit := fs.Int("limit", 0, "generate at most this many topics, taken in turn from each topic type (0: all)")
	conc := fs.Int("concurrency", 8, "requests in flight at a time")
	keep := fs.Bool("keep", false, "keep the evaluation's data directory instead of deleting it")
	reuse := fs.Bool("reuse", false, "generate from the corpus already in --data-dir instead of ingesting --data into a fresh one")
	results := fs.Bool("results", false, "include every topic's result (missing people, ungrounded names) in the JSON")
	erring := fs.Float64("erring", 0, "then write every gold topic's page again with a scripted model that puts one error into this share of its sentences (0: off), and report the residual error rate")
	erringRounds := fs.Int("erring-rounds", 1, "with --erring: write every page this many times, each time afresh")
	erringSeed := fs.Uint64("erring-seed", 1, "with --erring: the seed of the scripted model's errors")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 || len(pos) == 1 && pos[0] != "topics" {
		return fmt.Errorf("%w: want `eval topics --data DIR [--min 3] [--limit N]`", errUsage)
	}
	if *minPeople < 1 || *limit < 0 || *conc <= 0 {
		return fmt.Errorf("%w: --min and --concurrency must be positive, --limit not negative", errUsage)
	}
	if *erring < 0 || *erring > 1 || *erringRounds < 1 {
		return fmt.Errorf("%w: --erring is a share from 0 to 1, --erring-rounds positive", errUsage)
	}
	if *erring > 0 && !s.embedded() {
		return fmt.Errorf("%w: --erring runs the generation stages in this process on the embedded services; leave out --brokers", errUsage)
	}
	if len(dirs) == 0 {
		d, err := evalData("")
		if err != nil {
			return err
		}
		dirs = dirList{d}
	}
	gold, names, err := eval.TopicGold(dirs, *minPeople)
	if err != nil {
		return err
	}
	if len(gold) == 0 {
		return fmt.Errorf("no topic with %d people in %s", *minPeople, dirs.String())
	}
	out := EvalTopics{Data: dirs, Reused: *reuse, GoldTopics: len(gold), Limit: *limit, Engine: "offline"}
	gold = limitTopics(gold, *limit)
	need := app.NeedsFor(app.GenerateStages())
	if !*reuse {
		cleanup, err := s.freshDataDir("eval topics", "eval-topics-", *keep)
		if err != nil {
			return err
		}
		defer cleanup()
		need = app.NeedsFor(app.AllStages())
	}
	a, log, err := s.open(ctx, io, need)
	if err != nil {
		return err
	}
	defer a.Close()
	if a.Chat != nil {
		out.Engine = "llm"
	}
	if !*reuse {
		for _, d := range dirs {
			ing, err := ingestDir(ctx, a, s.tenant, d, "ingest "+filepath.Base(d), log)
			if err != nil {
				return err
			}
			out.IngestSeconds += ing.Seconds
		}
	}
	persons, err := personNames(ctx, a, s.tenant)
	if err != nil {
		return err
	}
	persons = append(persons, names...)
	stageCtx, stop := context.WithCancel(ctx)
	defer stop()
	stageErr := make(chan error, 1)
	if s.embedded() && !a.Joined {
		go func() { stageErr <- a.RunStages(stageCtx, app.GenerateStages(), nil) }()
	} else {
		close(stageErr)
	}
	rep := progress.New(int64(len(gold)), "eval topics", log)
	report, err := eval.Topics(ctx, gold, persons, func(ctx context.Context, topic string) (*schemas.Page, string, error) {
		res, err := a.Generate(ctx, s.tenant, false, true, []schemas.Request{{Kind: schemas.KindTopicPage, Subject: topic, Params: fullPage}})
		if err != nil {
			return nil, "", err
		}
		if res[0].Status.State != pages.RequestPublished || res[0].Page == nil {
			return nil, fmt.Sprintf("%s: %s", res[0].Status.State, res[0].Status.Error), nil
		}
		return res[0].Page, "", nil
	}, *conc, func(int, int) { rep.Add(1) })
	rep.Finish()
	stop()
	if serr := <-stageErr; serr != nil && err == nil {
		err = serr
	}
	if err != nil {
		return err
	}
	if *erring > 0 {
		pool, n, err := swapPool(ctx, a, s.tenant, gold)
		if err != nil {
			return err
		}
		// The data directory is opened again below, with the erring model.
		if err := a.Close(); err != nil {
			return err
		}
		out.Erring, err = evalTopicsErring(ctx, io, &s, gold, eval.NewErringModel(*erring, *erringSeed, pool), *erringRounds, *conc)
		if err != nil {
			return err
		}
		out.Erring.Rate, out.Erring.Seed, out.Erring.PoolPersons = *erring, *erringSeed, n
	}
	if !*results {
		report.Results = nil
	}
	out.TopicsReport = report
	out.MinPeople = *minPeople
	if *keep && !*reuse {
		log.Info().Str("data_dir", filepath.Clean(s.dataDir)).Msg("evaluation state kept")
	}
	if s.json {
		return writeJSON(io.Stdout, out)
	}
	line := func(name string, sc eval.TopicScore) {
		fmt.Fprintf(io.Stdout, "%-9s topics %3d (failed %d)  coverage %.4f (%d/%d)  cited %.4f (%d/%d)  grounding %.4f (%d/%d; sentences %.4f)\n",
			name, sc.Topics, sc.Failed, sc.Coverage, sc.Covered, sc.GoldPeople, sc.CitationRate, sc.Cited, sc.Sentences,
			sc.Grounding, sc.Grounded, sc.Named, sc.SentenceGrounding)
	}
	line("overall", report.Overall)
	var types []string
	for t := range report.ByType {
		types = append(types, t)
	}
	slices.Sort(types)
	for _, t := range types {
		line(t, report.ByType[t])
	}
	line("dev", report.Dev)
	line("held-out", report.HeldOut)
	fmt.Fprintf(io.Stdout, "%d pages, %d failures in %.1fs (%.2f pages/s, %d in flight)\n",
		report.Pages, report.Failures, report.Seconds, report.PagesPerSecond, report.Concurrency)
	if e := out.Erring; e != nil {
		fmt.Fprintf(io.Stdout, "erring %.2f: %d pages (%d failures), %d sentences; %d errors injected, %d into drafts, %d of them caught; residual %d (%.4f); review rounds max %d; model calls %v\n",
			e.Rate, e.Pages, e.Failures, e.Sentences, e.Injected, e.InjectedDrafts, e.Caught, e.Residual, e.ResidualErrorRate, e.ReviewRoundsMax, e.ModelCalls)
		for _, r := range e.Residuals {
			fmt.Fprintf(io.Stdout, "  residual %s error in %s: %s (wrong %q, right %q)\n", r.Type, r.Subject, r.Text, r.Wrong, r.Right)
		}
	}
	return nil
}

// swapPool gathers the values the erring model's place and courtesy-name
// errors take: the native places and courtesy names of the gold topics'
// people, from their reference sets. A person the retriever cannot
// resolve gives none; n counts those that did.
func swapPool(ctx context.Context, a *app.App, tenant string, gold []eval.GoldTopic) (inject.Pool, int, error) {
	var pool inject.Pool
	r, err := a.Retriever()
	if err != nil {
		return pool, 0, err
	}
	seen, n := map[string]bool{}, 0
	for _, g := range gold {
		for _, p := range g.People {
			if seen[p] {
				continue
			}
			seen[p] = true
			refs, err := r.Retrieve(ctx, tenant, p)
			if err != nil {
				if ctx.Err() != nil {
					return pool, n, ctx.Err()
				}
				continue
			}
			pool.Add(refs)
			n++
		}
	}
	return pool, n, nil
}

// evalTopicsErring opens the data directory again with m as the LLM
// engine and the offline verifier (ingestion is done: only the generation
// stages run, in this process), requests every gold topic's page afresh
// (incremental=false) rounds times with conc requests in flight, and
// scores the published pages against the errors m made.
func evalTopicsErring(ctx context.Context, io IO, s *service, gold []eval.GoldTopic, m *eval.ErringModel, rounds, conc int) (*EvalTopicsErring, error) {
	start := time.Now()
	s.app.ChatModel = m
	s.app.Generate.Verifier = "offline"
	stages := app.GenerateStages()
	a, log, err := s.open(ctx, io, app.NeedsFor(stages))
	if err != nil {
		return nil, err
	}
	defer a.Close()
	if a.Joined {
		return nil, fmt.Errorf("%w: --erring runs the generation stages in this process, but another process owns the data directory", errUsage)
	}
	stageCtx, stop := context.WithCancel(ctx)
	defer stop()
	stageErr := make(chan error, 1)
	go func() { stageErr <- a.RunStages(stageCtx, stages, nil) }()

	res := &EvalTopicsErring{Rounds: rounds}
	var (
		mu        sync.Mutex
		published []*schemas.Page
	)
	rep := progress.New(int64(rounds*len(gold)), "eval topics --erring", log)
	for round := range rounds {
		m.SetRound(uint64(round))
		rctx, cancel := context.WithCancel(ctx)
		sem := make(chan struct{}, conc)
		var wg sync.WaitGroup
		var first error
		for _, t := range gold {
			sem <- struct{}{}
			wg.Add(1)
			go func() {
				defer func() { <-sem; wg.Done(); rep.Add(1) }()
				out, gerr := a.Generate(rctx, s.tenant, false, true, []schemas.Request{{Kind: schemas.KindTopicPage, Subject: t.Topic,
					Params: map[string]string{writer.ParamIncremental: "false"}}})
				mu.Lock()
				defer mu.Unlock()
				switch {
				case gerr != nil:
					if first == nil {
						first = gerr
						cancel()
					}
				case out[0].Status.State != pages.RequestPublished || out[0].Page == nil:
					res.Failures++
					if len(res.FailureExamples) < 10 {
						res.FailureExamples = append(res.FailureExamples,
							fmt.Sprintf("round %d, %s: %s %s", round, t.Topic, out[0].Status.State, out[0].Status.Error))
					}
				default:
					published = append(published, out[0].Page)
				}
			}()
		}
		wg.Wait()
		cancel()
		if err = first; err != nil {
			break
		}
	}
	rep.Finish()
	stop()
	if serr := <-stageErr; serr != nil && !errors.Is(serr, context.Canceled) && err == nil {
		err = serr
	}
	if err != nil {
		return nil, err
	}
	res.ErringScore = m.Score(published)
	res.ModelCalls = m.Calls()
	res.UnexpectedPrompts = m.Unexpected()
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// limitTopics keeps at most n topics (all when n is 0), taken in turn from
// each topic type in the gold's order, so a small run scores every type.
func limitTopics(gold []eval.GoldTopic, n int) []eval.GoldTopic {
	if n <= 0 || n >= len(gold) {
		return gold
	}
	var types []string
	byType := map[string][]eval.GoldTopic{}
	for _, g := range gold {
		if byType[g.Type] == nil {
			types = append(types, g.Type)
		}
		byType[g.Type] = append(byType[g.Type], g)
	}
	var out []eval.GoldTopic
	for i := 0; len(out) < n; i++ {
		for _, t := range types {
			if i < len(byType[t]) && len(out) < n {
				out = append(out, byType[t][i])
			}
		}
	}
	return out
}

// personNames are the names of the tenant's persons in the graph.
func personNames(ctx context.Context, a *app.App, tenant string) ([]string, error) {
	ids, err := a.KG.Nodes(ctx, tenant, schemas.EntityPerson)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, id := range ids {
		e, err := a.KG.Entity(ctx, tenant, id)
		if err != nil {
			return nil, err
		}
		names = append(names, e.Name)
	}
	slices.Sort(names)
	return slices.Compact(names), nil
}
