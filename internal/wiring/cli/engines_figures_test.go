//go:build engines

package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/annalist-dev/annalist/infra/kafka"
	"github.com/annalist-dev/annalist/infra/pages"
	"github.com/annalist-dev/annalist/infra/redisdb"
	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
	"github.com/annalist-dev/annalist/internal/kit/enginestest"
	"github.com/annalist-dev/annalist/internal/wiring/app"
	"github.com/annalist-dev/annalist/internal/wiring/cli"
	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
)

// TestEnginesDistributedFigures measures, in one run, the figures the
// real-engine section of docs/modes.md reports: ingestion of the Ming volumes in
// the embedded mode and in the distributed mode (two `consume ingest`
// processes on Kafka, a redis-server with AOF and Milvus Lite), and
// biographies per second with one, then two `consume generate`
// processes, and how soon a note's page follows it (doc → page). It
// asserts what the runs must give (every document, chunk
// and vector stored; every page published), never a speed.
func TestEnginesDistributedFigures(t *testing.T) {
	e := enginestest.Require(t)
	data := e2eData(t, "mingshi-liezhuan")
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()

	// Embedded, one process.
	out, errs, code := run(t, "ingest", data, "--data-dir", t.TempDir(), "--json", "--log-level", "warn")
	if code != 0 {
		t.Fatalf("embedded ingest: exit %d\n%s", code, errs)
	}
	var emb app.IngestResult
	if err := json.Unmarshal([]byte(out), &emb); err != nil {
		t.Fatalf("embedded ingest output: %v\n%s", err, out)
	}

	// Distributed.
	rs := redistest.Server(t)
	tenant := fmt.Sprintf("figures%d", time.Now().UnixNano())
	common := []string{"--brokers", e.Brokers, "--redis-addr", rs.Addr(), "--vector-store", "milvus",
		"--milvus-addr", e.Milvus, "--data-dir", t.TempDir(), "--tenant", tenant, "--log-level", "warn"}
	if _, errs, code := run(t, "topology", "apply", "--brokers", e.Brokers); code != 0 {
		t.Fatalf("topology apply: exit %d\n%s", code, errs)
	}
	startChild(t, append([]string{"consume", "ingest"}, common...)...)
	startChild(t, append([]string{"consume", "ingest"}, common...)...)
	out, errs, code = run(t, append([]string{"ingest", data, "--json"}, common...)...)
	if code != 0 {
		t.Fatalf("distributed ingest: exit %d\n%s", code, errs)
	}
	var dist app.IngestResult
	if err := json.Unmarshal([]byte(out), &dist); err != nil {
		t.Fatalf("distributed ingest output: %v\n%s", err, out)
	}
	if dist.Store.Documents != emb.Store.Documents || dist.Store.Chunks != emb.Store.Chunks {
		t.Errorf("distributed store %+v, embedded %+v: documents and chunks differ", dist.Store, emb.Store)
	}
	t.Logf("ingest of %d characters: embedded %.2f s (%.0f chars/s); Kafka + Milvus Lite, 2 consume ingest: %.2f s (%.0f chars/s)",
		emb.Chars, emb.Seconds, float64(emb.Chars)/emb.Seconds, dist.Seconds, float64(dist.Chars)/dist.Seconds)

	cfg := app.Config{DataDir: t.TempDir(), Kafka: kafka.Config{Brokers: []string{e.Brokers}}, Redis: redisdb.Config{Addr: rs.Addr()}}
	a, err := app.Open(ctx, cfg, zerolog.Nop(), app.Needs{Broker: true, Redis: true})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	const n, conc = 60, 8
	subjects, err := cli.BenchSubjects(ctx, a, tenant, 2*n, 11)
	if err != nil || len(subjects) < 2*n {
		t.Fatalf("subjects: %d (%v)", len(subjects), err)
	}
	startChild(t, append([]string{"consume", "generate"}, common...)...)
	// The scheduler first reads the ingestion's graph updates; the rounds
	// are timed once it has.
	caughtUp(t, ctx, cfg.Kafka, "annalist."+topology.StageScheduler, topology.KGUpdates)
	for k, batch := range [][]string{subjects[:n], subjects[n:]} {
		if k == 1 {
			startChild(t, append([]string{"consume", "generate"}, common...)...)
			// The group rebalances onto the second member before the
			// second round is timed.
			time.Sleep(8 * time.Second)
		}
		secs, lat := generateAll(t, ctx, a, tenant, batch, conc)
		slices.Sort(lat)
		t.Logf("%d biographies, %d in flight, %d consume generate: %.2f pages/s, p50 %.0f ms, p95 %.0f ms",
			len(batch), conc, k+1, float64(len(batch))/secs, lat[len(lat)/2], lat[len(lat)*95/100])
	}

	// Living pages: a note about each of m persons with a page, published
	// in one go; each page must get a version the note triggered and that
	// cites it.
	const m = 20
	notes := subjects[:m]
	var lines []string
	base := map[string]int{}
	for i, s := range notes {
		p, err := a.Pages.CurrentOf(ctx, tenant, schemas.KindBiography, s)
		if err != nil {
			t.Fatalf("page of %s: %v", s, err)
		}
		base[s] = p.Version
		// A plain note, in the phrasings bench regenerate draws from:
		// his name and a statement, no examination year or native place.
		text := cli.PlainNote(s, i)
		line, _ := json.Marshal(map[string]string{"doc_id": fmt.Sprintf("fig-note-%d", i), "source": "notes/" + s,
			"collection": "notes", "title": "notes on " + s, "text": text})
		lines = append(lines, string(line))
	}
	f := writeFile(t, t.TempDir(), "notes.jsonl", strings.Join(lines, "\n")+"\n")
	t0 := time.Now()
	if _, errs, code := run(t, append([]string{"ingest", f, "--json"}, common...)...); code != 0 {
		t.Fatalf("ingest the notes: exit %d\n%s", code, errs)
	}
	var follow []float64
	for i := 0; len(follow) < m; i = (i + 1) % m {
		s := notes[i]
		if base[s] < 0 {
			continue
		}
		p, err := a.Pages.CurrentOf(ctx, tenant, schemas.KindBiography, s)
		if err != nil {
			t.Fatal(err)
		}
		doc := fmt.Sprintf("fig-note-%d", i)
		if p.Version > base[s] && slices.Contains(p.TriggerDocIDs, doc) && citesDoc(p, doc) {
			follow = append(follow, float64(time.Since(t0).Microseconds())/1000)
			base[s] = -1
		}
		if ctx.Err() != nil {
			t.Fatalf("%d of %d pages followed their note", len(follow), m)
		}
		if i == m-1 {
			time.Sleep(20 * time.Millisecond)
		}
	}
	slices.Sort(follow)
	t.Logf("%d notes published at once: doc → page p50 %.0f ms, p95 %.0f ms", m, follow[m/2], follow[m*95/100])
}

// caughtUp waits until group has consumed every record of topic.
func caughtUp(t *testing.T, ctx context.Context, cfg kafka.Config, group, topic string) {
	t.Helper()
	for {
		lags, err := kafka.Lag(ctx, cfg, group, []string{topic})
		if err != nil {
			t.Fatal(err)
		}
		pending := int64(0)
		for _, l := range lags {
			from := l.Committed
			if from < 0 {
				from = l.Start
			}
			pending += l.End - from
		}
		if pending == 0 {
			return
		}
		if ctx.Err() != nil {
			t.Fatalf("%s still has %d records of %s to read", group, pending, topic)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// generateAll requests a biography of each subject, conc at a time, waits
// for every page and returns the seconds it took and each page's latency
// in ms. Every request must end published.
func generateAll(t *testing.T, ctx context.Context, a *app.App, tenant string, subjects []string, conc int) (float64, []float64) {
	t.Helper()
	start := time.Now()
	var (
		mu   sync.Mutex
		lat  []float64
		fail []string
	)
	sem := make(chan struct{}, conc)
	var wg sync.WaitGroup
	for _, s := range subjects {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			t0 := time.Now()
			req, err := a.Request(ctx, tenant, schemas.Request{Kind: schemas.KindBiography, Subject: s})
			var st []pages.RequestStatus
			if err == nil {
				st, err = a.Pages.Wait(ctx, tenant, req.RequestID)
			}
			mu.Lock()
			defer mu.Unlock()
			if err != nil || len(st) != 1 || st[0].State != pages.RequestPublished {
				fail = append(fail, fmt.Sprintf("%s: %v %+v", s, err, st))
				return
			}
			lat = append(lat, float64(time.Since(t0).Microseconds())/1000)
		})
	}
	wg.Wait()
	if len(fail) > 0 {
		t.Fatalf("%d of %d requests did not publish: %v", len(fail), len(subjects), fail)
	}
	return time.Since(start).Seconds(), lat
}
