package app_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/annalist-dev/annalist/infra/redisdb/redistest"

	"github.com/annalist-dev/annalist/infra/kafka"
	"github.com/annalist-dev/annalist/infra/llm"
	"github.com/annalist-dev/annalist/infra/pages"
	"github.com/annalist-dev/annalist/internal/evaluation/inject"
	"github.com/annalist-dev/annalist/internal/wiring/app"
	"github.com/annalist-dev/annalist/internal/wiring/demo"
	"github.com/annalist-dev/annalist/producers"
	"github.com/annalist-dev/annalist/schemas"
)

// TestMetricsAfterASmallRun runs every stage embedded with the app's
// metrics: the ingestion stages on the demo corpus (offline engine), then
// the generation stages with the scripted erring model as the LLM engine,
// so that verdicts reach every solver. Then it scrapes /metrics: every
// stage has non-zero input, handled and batch counters, a handler latency
// and a lag series; Redis, vector-store and LLM numbers are there; the
// pipeline dashboard agrees; the pages carry their request's trace id.
func TestMetricsAfterASmallRun(t *testing.T) {
	redistest.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	const tenant = "default"
	a := scriptedApp(t, t.TempDir(), nil, app.AllStages())
	defer a.Close()
	reg := a.Metrics()
	if a.Metrics() != reg {
		t.Fatal("Metrics made a second registry")
	}
	var obs kafka.Observer
	for _, s := range app.AllStages() {
		obs = a.StageObserver(s, nil)
	}
	run := func(stages []string, body func()) {
		t.Helper()
		stageCtx, stop := context.WithCancel(ctx)
		stageErr := make(chan error, 1)
		go func() { stageErr <- a.RunStages(stageCtx, stages, obs) }()
		body()
		if err := a.WaitIdle(ctx, stages); err != nil {
			t.Error(err)
		}
		stop()
		if err := <-stageErr; err != nil {
			t.Errorf("stages: %v", err)
		}
	}

	items, err := demo.Documents()
	if err != nil {
		t.Fatal(err)
	}
	run(app.IngestStages(), func() {
		if _, err := a.Ingest(ctx, tenant, false, true, func(ctx context.Context, sink producers.Sink) (producers.Summary, error) {
			return producers.Summary{Documents: len(items)}, sink.Send(ctx, tenant, items)
		}); err != nil {
			t.Fatal(err)
		}
		// The retractor's input: a retraction of a document this tenant
		// never stored, which it handles as a no-op (a real one would
		// leave pages to regenerate after the run).
		if err := a.PublishRetraction(ctx, tenant, schemas.Retraction{DocID: "never-stored",
			Reason: schemas.RetractRetracted}); err != nil {
			t.Fatal(err)
		}
	})

	subjects := []string{"陆文渊", "顾承泽", "严鹤龄", "Margaret Ellery", "Thomas Harrow"}
	r, err := a.Retriever()
	if err != nil {
		t.Fatal(err)
	}
	var pool inject.Pool
	for _, s := range subjects {
		refs, err := r.Retrieve(ctx, tenant, s)
		if err != nil {
			t.Fatalf("retrieve %s: %v", s, err)
		}
		pool.Add(refs)
	}
	// From here on the generation stages draft with the erring model.
	a.Chat = llm.Wrap(newErringModel(0.6, 7, pool), llm.Config{})
	run(app.GenerateStages(), func() {
		reqs := make([]schemas.Request, len(subjects))
		for i, s := range subjects {
			reqs[i] = schemas.Request{Kind: schemas.KindBiography, Subject: s}
		}
		res, err := a.Generate(ctx, tenant, false, true, reqs)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			if r.Status.State != pages.RequestPublished || r.Page == nil {
				t.Fatalf("request %s: %+v", r.Request.Subject, r.Status)
			}
			if r.Page.TraceID != r.Request.RequestID {
				t.Errorf("page of %s: trace id %q, want the request id %q", r.Page.Subject, r.Page.TraceID, r.Request.RequestID)
			}
		}
		// The demo corpus holds no conflicting references, and the
		// model's errors need not reach every solver: a solver that got
		// no repair is sent one for a published sentence, as the router
		// would have.
		for _, s := range app.GenerateStages() {
			if !strings.HasPrefix(s, "solver-") || reg.Totals(s).Fetched > 0 {
				continue
			}
			rec := repairFor(t, res[0], s, tenant)
			if err := a.Producer().Publish(ctx, rec); err != nil {
				t.Fatal(err)
			}
		}
	})

	// Last, with every stage running and the offline engine (the erring
	// model answers biography prompts only): one discussion through the
	// discussions stage, ingestion, generation and the feed. Last, because
	// the discussions stage checks its requests against the kinds, which
	// the app builds once, with the engine it has then. The model is put
	// back for its numbers.
	chat := a.Chat
	a.Chat = nil
	run(app.AllStages(), func() {
		ds := []schemas.Discussion{{ID: "metrics",
			Background: []schemas.Paragraph{{Index: 1, Text: "Margaret Ellery opened the archive in 1921."}},
			Turns:      []schemas.Turn{{Participant: "Person1", Utterance: "She did it well."}}}}
		if _, err := producers.PublishDiscussions(ctx, a, tenant, ds); err != nil {
			t.Fatal(err)
		}
		out, err := a.WaitSummaries(ctx, tenant, ds, nil)
		if err != nil {
			t.Fatal(err)
		}
		if out[0].Item == nil {
			t.Fatalf("the discussion's summary failed: %s", out[0].Error)
		}
	})
	a.Chat = chat

	began := time.Now()
	text := scrapeMetrics(t, a)
	t.Logf("scrape: %d bytes in %v", len(text), time.Since(began))
	for _, s := range app.AllStages() {
		for _, m := range []string{"stage_messages_in_total", "stage_messages_handled_total", "stage_batches_total"} {
			if v := metricValue(t, text, `annalist_`+m+`{stage="`+s+`"}`); v <= 0 {
				t.Errorf("%s of %s = %v; want > 0", m, s, v)
			}
		}
		if v := metricValue(t, text, `annalist_stage_handle_seconds_count{stage="`+s+`"}`); v <= 0 {
			t.Errorf("handler latency of %s not observed", s)
		}
		if !regexp.MustCompile(`(?m)^annalist_consumer_lag\{[^}]*stage="` + regexp.QuoteMeta(s) + `"[^}]*\} 0$`).MatchString(text) {
			t.Errorf("no zero lag series for %s after the run went idle", s)
		}
	}
	// Stages that write: their outputs.
	for _, s := range []string{"discussions", "chunker", "extractor", "writer", "verifier", "router", "assembler", "feed"} {
		if v := metricValue(t, text, `annalist_stage_messages_out_total{stage="`+s+`"}`); v <= 0 {
			t.Errorf("outputs of %s = %v; want > 0", s, v)
		}
	}
	if v := metricValue(t, text, `annalist_redis_command_seconds_count{command="pipeline"}`); v <= 0 {
		t.Error("no Redis pipeline timed")
	}
	if v := metricValue(t, text, `annalist_vector_store_seconds_count{op="upsert"}`); v <= 0 {
		t.Error("no vector upsert timed")
	}
	if v := metricValue(t, text, `annalist_llm_calls_total{engine="chat"}`); v <= 0 {
		t.Error("no LLM call counted")
	}
	if v := metricValue(t, text, `annalist_dead_letter_records{topic="documents.dlt"}`); v != 0 {
		t.Errorf("%v dead letters of documents on clean input", v)
	}

	status, err := a.Pipeline(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(status)
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Stages []struct {
			Name              string
			Group             string
			Handled, Produced int64
			Lag               int64
		}
		Error string
	}
	if err := json.Unmarshal(b, &dash); err != nil {
		t.Fatal(err)
	}
	if dash.Error != "" || len(dash.Stages) != len(app.AllStages()) {
		t.Fatalf("pipeline: %s", b)
	}
	for i, s := range dash.Stages {
		if s.Name != app.AllStages()[i] || s.Group == "" || s.Handled <= 0 || s.Lag != 0 {
			t.Errorf("pipeline stage %d: %+v", i, s)
		}
	}
	t.Logf("pipeline: %s", b)
}

// repairFor is a repair of the first sentence of a published page for
// the solver stage, as the router makes them.
func repairFor(t *testing.T, r app.GenerateResult, stage, tenant string) kafka.Record {
	t.Helper()
	st, err := app.DefaultStages().Lookup(stage)
	if err != nil {
		t.Fatal(err)
	}
	solverName := st.Solver
	errType := map[string]string{"era": schemas.ErrorEra, "alias": schemas.ErrorAlias,
		"refconflict": schemas.ErrorRefConflict, "knowledge": schemas.ErrorKnowledge}[solverName]
	if errType == "" {
		errType = schemas.ErrorOther
	}
	p := r.Page
	sent := p.Sentences[0]
	var cites []string
	for _, c := range sent.Citations {
		cites = append(cites, c.ChunkID)
	}
	d := schemas.Draft{RequestID: r.Request.RequestID, Kind: p.Kind, Subject: p.Subject, Index: 0, Attempt: 1,
		Text: sent.Text, Citations: cites}
	rep := schemas.Repair{RequestID: d.RequestID, Solver: solverName, Verdict: schemas.Verdict{
		RequestID: d.RequestID, Kind: d.Kind, Subject: d.Subject, Index: 0, Attempt: 1, Draft: d,
		Status: schemas.StatusNotSupported, ErrorType: errType}}
	return kafka.Record{Topic: st.Reads[0], Msg: rep,
		Meta: schemas.Meta{EventID: "metrics-test-" + stage, TraceID: d.RequestID, Tenant: tenant}}
}

func scrapeMetrics(t *testing.T, a *app.App) string {
	t.Helper()
	srv := httptest.NewServer(a.Metrics().Handler())
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// metricValue is the value of the series, -1 when it is absent.
func metricValue(t *testing.T, text, series string) float64 {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` (\S+)$`).FindStringSubmatch(text)
	if m == nil {
		return -1
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		t.Fatalf("%s: %v", series, err)
	}
	return v
}
