package cli

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/annalist-dev/annalist/consumers/writer"
	"github.com/annalist-dev/annalist/infra/kafka"
	"github.com/annalist-dev/annalist/infra/pages"
	"github.com/annalist-dev/annalist/internal/kit/progress"
	"github.com/annalist-dev/annalist/internal/wiring/app"
	"github.com/annalist-dev/annalist/schemas"
)

// BenchGenerate is the JSON of `annalist bench generate`.
type BenchGenerate struct {
	// Kind is the page kind requested (biography, topic_page).
	Kind        string `json:"kind"`
	Requests    int    `json:"requests"`
	Concurrency int    `json:"concurrency"`
	Published   int    `json:"published"`
	Failed      int    `json:"failed"`
	// Latency is request → page, from the request's publication to the
	// page's, in milliseconds.
	P50Ms  float64 `json:"p50_ms"`
	P90Ms  float64 `json:"p90_ms"`
	P99Ms  float64 `json:"p99_ms"`
	MaxMs  float64 `json:"max_ms"`
	MeanMs float64 `json:"mean_ms"`
	// PagesPerSecond is published pages over the wall time of the run.
	PagesPerSecond float64 `json:"pages_per_second"`
	Seconds        float64 `json:"seconds"`
	Sentences      int     `json:"sentences"`
	// SentencesPerPage: min, median, max.
	SentencesPerPage [3]int `json:"sentences_per_page"`
	// PagesInRange counts pages of 6–12 sentences; P50InRangeMs and
	// P99InRangeMs are the latency of those pages alone.
	PagesInRange int     `json:"pages_6_to_12_sentences"`
	P50InRangeMs float64 `json:"p50_ms_6_to_12"`
	P99InRangeMs float64 `json:"p99_ms_6_to_12"`
	// Hops is the mean number of topic hops a request takes (request,
	// each draft and its verdict, corrections, the final draft);
	// PerHopMs the mean latency over it.
	Hops     float64 `json:"hops_per_page"`
	PerHopMs float64 `json:"per_hop_ms"`
	Drafted  int64   `json:"drafted"`
	Dropped  int64   `json:"dropped"`
	// IngestSeconds is the time the corpus took to ingest first, and
	// CatchUpSeconds the time the generation stages then took to read
	// the graph updates of the ingestion, before any request.
	IngestSeconds  float64 `json:"ingest_seconds"`
	CatchUpSeconds float64 `json:"catch_up_seconds"`
	Engine         string  `json:"engine"`
	CPUs           int     `json:"cpus"`
	Kafka          string  `json:"kafka"`
	// Redis is what the requests spent on Redis, per page requested
	// (the stages of the whole process, ingestion done).
	Redis *BenchRedis `json:"redis"`
	// StageSeconds is each stage's time in its handler over the
	// requests (benchStages).
	StageSeconds map[string]float64 `json:"stage_seconds"`
	// Processes is the number of `annalist consume generate` processes
	// the generation stages ran in (0: this process); with them the
	// stage times are theirs, not reported here.
	Processes int `json:"processes"`
}

// fullPage makes a request write its page from scratch, even where a
// page exists (the warm-up's subject): the bench measures full
// generation, not incremental regeneration (`bench regenerate`).
var fullPage = map[string]string{writer.ParamIncremental: "false"}

// benchKinds reads --kind: biography, topic (topic_page) or all (both,
// biographies first).
func benchKinds(kind string) ([]string, error) {
	switch kind {
	case "", schemas.KindBiography:
		return []string{schemas.KindBiography}, nil
	case "topic", schemas.KindTopicPage:
		return []string{schemas.KindTopicPage}, nil
	case "all":
		return []string{schemas.KindBiography, schemas.KindTopicPage}, nil
	}
	return nil, fmt.Errorf("%w: --kind %q (want biography, topic or all)", errUsage, kind)
}

// benchGenerateKinds ingests dir into a fresh data directory, then for
// each kind requests n pages (biographies of persons with an entry of
// their own; topic pages of places, offices and era years with enough
// edges) with conc requests in flight at a time and measures each
// request → page. One kind prints one BenchGenerate; several print them
// side by side (a JSON array).
func benchGenerateKinds(ctx context.Context, io IO, s service, dir string, kinds []string, n, conc, procs int, keep bool, seed uint64) error {
	a, log, ing, subjects, cleanup, err := benchCorpus(ctx, io, s, "bench generate", dir, n, keep, seed)
	if err != nil {
		return err
	}
	defer cleanup()
	stageCtx, stop := context.WithCancel(ctx)
	defer stop()
	stageErr := make(chan error, 1)
	if procs > 0 {
		// The generation stages run in procs `annalist consume generate`
		// processes joined to this one's broker and Redis; they read its
		// vector index (a topic's free-text seeds) over its API.
		unserve, err := serveJoiners(stageCtx, a, log, nil)
		if err != nil {
			return err
		}
		defer func() {
			stop()
			unserve()
		}()
		children, err := startConsumers(stageCtx, io, a.Config.DataDir, procs, string(app.PartGenerate))
		if err != nil {
			return err
		}
		defer stopConsumers(children)
		go func() {
			<-stageCtx.Done()
			stageErr <- nil
		}()
	} else {
		go func() { stageErr <- a.RunStages(stageCtx, app.GenerateStages(), nil) }()
	}
	// The scheduler first reads the graph updates of the ingestion, which
	// ask for no page (none exists yet); the requests are timed once the
	// stages have caught up, so that they measure generation, as they did
	// before the scheduler existed. The catch-up is reported.
	catchUp := time.Now()
	if err := a.WaitIdle(ctx, app.GenerateStages()); err != nil {
		return fmt.Errorf("wait for the stages to read the ingestion's updates: %w", err)
	}
	caughtUp := time.Since(catchUp).Seconds()
	var outs []BenchGenerate
	for _, kind := range kinds {
		subs := subjects
		if kind == schemas.KindTopicPage {
			if subs, err = benchTopics(ctx, a, s.tenant, n, seed); err != nil {
				break
			}
		}
		var out BenchGenerate
		if out, err = benchKind(ctx, a, s, log, kind, subs, conc, stageErr); err != nil {
			break
		}
		out.IngestSeconds, out.CatchUpSeconds, out.Processes = ing.Seconds, caughtUp, procs
		if procs > 0 {
			out.StageSeconds = nil
		}
		outs = append(outs, out)
	}
	stop()
	if serr := <-stageErr; serr != nil && err == nil {
		err = serr
	}
	if err != nil {
		return err
	}
	if s.json {
		if len(outs) == 1 {
			return writeJSON(io.Stdout, outs[0])
		}
		return writeJSON(io.Stdout, outs)
	}
	for _, out := range outs {
		what := "biographies"
		if out.Kind == schemas.KindTopicPage {
			what = "topic pages"
		}
		fmt.Fprintf(io.Stdout, "%d %s (%d in flight): p50 %.0f ms, p90 %.0f ms, p99 %.0f ms, %.1f pages/s\n",
			out.Published, what, conc, out.P50Ms, out.P90Ms, out.P99Ms, out.PagesPerSecond)
		if out.Kind == schemas.KindBiography {
			fmt.Fprintf(io.Stdout, "pages of 6–12 sentences: p50 %.0f ms, p99 %.0f ms\n", out.P50InRangeMs, out.P99InRangeMs)
		}
		fmt.Fprintf(io.Stdout, "%d sentences (min/median/max per page %v; %d pages of 6–12), %.1f hops per page, %.1f ms per hop\n",
			out.Sentences, out.SentencesPerPage, out.PagesInRange, out.Hops, out.PerHopMs)
		if out.Failed > 0 {
			fmt.Fprintf(io.Stdout, "%d requests failed\n", out.Failed)
		}
	}
	return nil
}

// benchKind requests a page of kind for every subject, conc at a time,
// with the generation stages running, and measures them.
func benchKind(ctx context.Context, a *app.App, s service, log zerolog.Logger, kind string, subjects []string, conc int, stageErr chan error) (BenchGenerate, error) {
	// Warm up: one page end to end, so group joins are not measured.
	if _, err := a.Generate(ctx, s.tenant, false, true, []schemas.Request{{Kind: kind, Subject: subjects[0], Params: fullPage}}); err != nil {
		return BenchGenerate{}, fmt.Errorf("warm-up request: %w", err)
	}
	reg := a.Metrics()
	before, err := reg.RedisRoundTrips()
	if err != nil {
		return BenchGenerate{}, err
	}
	stagesBefore, err := reg.StageHandling()
	if err != nil {
		return BenchGenerate{}, err
	}
	rep := progress.New(int64(len(subjects)), "bench generate "+kind, log)
	type result struct {
		ms   float64
		page *schemas.Page
		err  string
	}
	results := make([]result, len(subjects))
	next := make(chan int)
	var wg sync.WaitGroup
	var runErr error
	var mu sync.Mutex
	start := time.Now()
	for w := 0; w < conc; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				t0 := time.Now()
				res, err := a.Generate(ctx, s.tenant, false, true, []schemas.Request{{Kind: kind, Subject: subjects[i], Params: fullPage}})
				ms := float64(time.Since(t0).Microseconds()) / 1000
				if err != nil {
					mu.Lock()
					runErr = err
					mu.Unlock()
					continue
				}
				results[i] = result{ms: ms, page: res[0].Page}
				if res[0].Status.State != pages.RequestPublished {
					results[i].err = res[0].Status.Error
				}
				rep.Add(1)
			}
		}()
	}
feed:
	for i := range subjects {
		select {
		case next <- i:
		case err := <-stageErr:
			runErr = fmt.Errorf("stages stopped: %v", err)
			stageErr <- err
			break feed
		}
	}
	close(next)
	wg.Wait()
	wall := time.Since(start).Seconds()
	rep.Finish()
	if runErr != nil {
		return BenchGenerate{}, runErr
	}
	out := BenchGenerate{Kind: kind, Requests: len(subjects), Concurrency: conc, Seconds: wall, Engine: "offline",
		CPUs: runtime.NumCPU(),
		Kafka: fmt.Sprintf("write batch timeout %s, fetch max wait %s, fetch min bytes %d",
			orDefault(s.app.Kafka.WriteBatchTimeout, kafka.DefaultWriteBatchTimeout),
			orDefault(s.app.Kafka.FetchMaxWait, kafka.DefaultFetchMaxWait), max(s.app.Kafka.FetchMinBytes, kafka.DefaultFetchMinBytes))}
	if a.Chat != nil {
		out.Engine = "llm"
	}
	if out.Redis, err = benchRedis(reg, before, len(subjects), "page"); err != nil {
		return BenchGenerate{}, err
	}
	if out.StageSeconds, err = benchStages(reg, stagesBefore); err != nil {
		return BenchGenerate{}, err
	}
	var lat, inRange []float64
	var sizes []int
	var hops float64
	for _, r := range results {
		if r.page == nil {
			out.Failed++
			continue
		}
		out.Published++
		lat = append(lat, r.ms)
		k := len(r.page.Sentences)
		sizes = append(sizes, k)
		out.Sentences += k
		if k >= 6 && k <= 12 {
			out.PagesInRange++
			inRange = append(inRange, r.ms)
		}
		d := r.page.Stats["drafted"]
		out.Drafted += d
		out.Dropped += r.page.Stats["dropped"]
		// request, then per draft: draft + verdict (+ repair + correction
		// for corrected ones), then the final draft.
		hops += float64(1 + 2*d + 2*(d-r.page.Stats["accepted"]) + 1)
	}
	if len(lat) > 0 {
		slices.Sort(lat)
		slices.Sort(sizes)
		out.P50Ms, out.P90Ms, out.P99Ms, out.MaxMs = quantile(lat, 0.50), quantile(lat, 0.90), quantile(lat, 0.99), lat[len(lat)-1]
		slices.Sort(inRange)
		out.P50InRangeMs, out.P99InRangeMs = quantile(inRange, 0.50), quantile(inRange, 0.99)
		var sum float64
		for _, v := range lat {
			sum += v
		}
		out.MeanMs = sum / float64(len(lat))
		out.SentencesPerPage = [3]int{sizes[0], sizes[len(sizes)/2], sizes[len(sizes)-1]}
		out.Hops = hops / float64(len(lat))
		out.PerHopMs = out.MeanMs / out.Hops
		out.PagesPerSecond = float64(out.Published) / wall
	}
	return out, nil
}

// topicMinEdges is how many edges a place, office or era year needs to be
// a bench topic: enough people from it, holding it or examined in it.
const topicMinEdges = 3

// benchTopics picks n topics in a seeded random order: the names of the
// graph's places, offices and era years with at least topicMinEdges
// edges (nearly all of them incoming: a person's native place, office or
// examination year); types narrows them (places only, say).
func benchTopics(ctx context.Context, a *app.App, tenant string, n int, seed uint64, types ...string) ([]string, error) {
	if len(types) == 0 {
		types = []string{schemas.EntityPlace, schemas.EntityOffice, schemas.EntityTime}
	}
	seen := map[string]bool{}
	var names []string
	for _, typ := range types {
		ids, err := a.KG.Nodes(ctx, tenant, typ)
		if err != nil {
			return nil, err
		}
		degrees, err := a.KG.Degrees(ctx, tenant, ids)
		if err != nil {
			return nil, err
		}
		for i, id := range ids {
			if degrees[i] < topicMinEdges {
				continue
			}
			e, err := a.KG.Entity(ctx, tenant, id)
			if err != nil {
				return nil, err
			}
			if e.Name == "" || seen[e.Name] {
				continue
			}
			seen[e.Name] = true
			names = append(names, e.Name)
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no place, office or era year with %d edges in the corpus", topicMinEdges)
	}
	slices.Sort(names)
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	r.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	return names[:min(n, len(names))], nil
}

// benchCorpus prepares a generation benchmark: a fresh data directory
// (removed by cleanup unless keep), every service open, dir ingested and n
// subjects with an entry of their own sampled with seed. cleanup closes
// the app and removes the directory; on an error nothing is left open.
func benchCorpus(ctx context.Context, io IO, s service, command, dir string, n int, keep bool, seed uint64) (
	a *app.App, log zerolog.Logger, ing app.IngestResult, subjects []string, cleanup func(), err error) {
	removeDir, err := s.freshDataDir(command, "bench-", keep)
	if err != nil {
		return nil, log, ing, nil, nil, err
	}
	a, log, err = s.open(ctx, io, app.NeedsFor(app.AllStages()))
	if err != nil {
		removeDir()
		return nil, log, ing, nil, nil, err
	}
	cleanup = func() {
		a.Close()
		removeDir()
	}
	if ing, err = ingestDir(ctx, a, s.tenant, dir, "", log); err == nil {
		log.Info().Int("documents", ing.Documents).Float64("seconds", ing.Seconds).Msg("corpus ingested")
		subjects, err = benchSubjects(ctx, a, s.tenant, n, seed)
	}
	if err != nil {
		cleanup()
		return nil, log, ing, nil, nil, err
	}
	return a, log, ing, subjects, cleanup, nil
}

// benchSubjects picks n persons who have their own biography entry, in a
// seeded random order.
func benchSubjects(ctx context.Context, a *app.App, tenant string, n int, seed uint64) ([]string, error) {
	ids, err := a.KG.Nodes(ctx, tenant, schemas.EntityPerson)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var names []string
	for _, id := range ids {
		e, err := a.KG.Entity(ctx, tenant, id)
		if err != nil {
			return nil, err
		}
		// Entry subjects: anchored to an entry that begins with their name.
		if e.EntryChunk == "" || !strings.Contains(id, "@") || seen[e.Name] || len(e.Homonyms) > 0 {
			continue
		}
		if e.FirstChunk != e.EntryChunk {
			continue
		}
		seen[e.Name] = true
		names = append(names, e.Name)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no person with a biography entry in the corpus")
	}
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	r.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	if n > len(names) {
		n = len(names)
	}
	return names[:n], nil
}

// quantile of sorted values; 0 for none.
func quantile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, int(p*float64(len(sorted))))]
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}
