package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/annalist-dev/annalist/infra/pages"
	"github.com/annalist-dev/annalist/internal/app"
	"github.com/annalist-dev/annalist/internal/eval"
	"github.com/annalist-dev/annalist/internal/progress"
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
}

// evalTopics is `annalist eval topics --data DIR [--data DIR2] [--min 3]
// [--limit N] [--concurrency C] [--reuse] [--results]`: it reads the
// topic gold from the folders (eval.TopicGold: native places and jinshi
// years with at least --min people, read from the text), ingests the
// folders in order into a fresh data directory (with --reuse, it uses
// the corpus already in --data-dir instead), generates a topic page per
// gold topic with C requests in flight and scores them (eval.Topics).
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
	return nil
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
