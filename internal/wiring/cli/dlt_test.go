package cli_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/annalist-dev/annalist/infra/kafka"
	"github.com/annalist-dev/annalist/internal/wiring/app"
	"github.com/annalist-dev/annalist/internal/wiring/cli"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
)

// A page the stage refuses lands in pages.dlt; `dlt list` shows it with its
// error; once the stage accepts it (the fix), `dlt replay` publishes it
// again and the stage handles it once; a second replay publishes nothing.
func TestDLTListAndReplay(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	var reject atomic.Bool
	reject.Store(true)
	var mu sync.Mutex
	handled := map[string]int{} // successful handler calls per event id
	done := make(chan string, 8)
	tap := app.Stage{
		Stage: topology.Stage{Name: "dlt-tap", Reads: []string{topology.Pages}, Doc: "refuses poison pages until fixed"},
		Build: func(*app.App) (pipeline.BatchHandler, error) {
			return pipeline.Batch(func(_ context.Context, in pipeline.Input) ([]pipeline.Output, error) {
				if reject.Load() && in.Meta.EventID == "ev-poison" {
					return nil, pipeline.Permanentf("event %s: poison refused", in.Meta.EventID)
				}
				mu.Lock()
				handled[in.Meta.EventID]++
				mu.Unlock()
				done <- in.Meta.EventID
				return nil, nil
			}), nil
		},
	}
	reg := app.DefaultStages().With(tap)
	sr := runStage(ctx, t, reg, "dlt-tap")
	conn, cfg, p, consumed, consumeErr, stop := sr.conn, sr.kafka, sr.producer, sr.consumed, sr.stderr, sr.stop
	publish := func(subject, id string) {
		t.Helper()
		pg := schemas.Page{Subject: subject, Kind: schemas.KindBiography, Version: 1, RequestID: "r-" + id}
		if err := p.Publish(ctx, kafka.Record{Topic: topology.Pages, Msg: pg, Meta: schemas.Meta{EventID: id, Tenant: "default"}}); err != nil {
			t.Fatal(err)
		}
	}
	wait := func(id string) {
		t.Helper()
		for {
			select {
			case got := <-done:
				if got == id {
					return
				}
			case err := <-consumed:
				t.Fatalf("consume returned: %v\n%s", err, consumeErr.String())
			case <-ctx.Done():
				t.Fatalf("the stage never handled %s:\n%s", id, consumeErr.String())
			}
		}
	}
	// The poison first, a good page after it on the same partition (one
	// subject, one key): once the good one is handled the poison was
	// dead-lettered.
	publish("poison", "ev-poison")
	publish("poison", "ev-after")
	wait("ev-after")
	idle := func() {
		t.Helper()
		if err := kafka.WaitIdle(ctx, cfg, tap.Stage); err != nil {
			t.Fatal(err)
		}
	}
	idle()

	out, stderr, code := run(t, append([]string{"dlt", "list", "pages", "--json"}, conn...)...)
	if code != 0 {
		t.Fatalf("dlt list: exit %d %s", code, stderr)
	}
	var list cli.DLTListOutput
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("dlt list --json: %v\n%s", err, out)
	}
	if len(list.DeadLetters) != 1 {
		t.Fatalf("dlt list: %d dead letters, want 1:\n%s", len(list.DeadLetters), out)
	}
	dl := list.DeadLetters[0]
	if dl.EventID != "ev-poison" || !strings.Contains(dl.Error, "poison refused") || dl.Topic != topology.Pages ||
		dl.Group != tap.Group() || dl.Replayed {
		t.Errorf("dead letter %+v", dl)
	}
	if out, _, code := run(t, append([]string{"dlt", "list", "all"}, conn...)...); code != 0 ||
		!strings.Contains(out, "poison refused") || !strings.Contains(out, "ev-poison") {
		t.Errorf("dlt list all: exit %d\n%s", code, out)
	}
	if out, _, code := run(t, append([]string{"dlt", "list", "pages", "--since", "1h"}, conn...)...); code != 0 || !strings.Contains(out, "ev-poison") {
		t.Errorf("dlt list --since 1h: exit %d\n%s", code, out)
	}
	if out, _, code := run(t, append([]string{"dlt", "list", "pages", "--since", time.Now().Add(time.Hour).UTC().Format(time.RFC3339)}, conn...)...); code != 0 ||
		!strings.Contains(out, "no dead letters") {
		t.Errorf("dlt list --since in the future: exit %d\n%s", code, out)
	}

	reject.Store(false)
	out, stderr, code = run(t, append([]string{"dlt", "replay", "pages", "--json"}, conn...)...)
	if code != 0 {
		t.Fatalf("dlt replay: exit %d %s", code, stderr)
	}
	var res kafka.ReplayResult
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Replayed) != 1 || res.Skipped != 0 {
		t.Fatalf("dlt replay --json = %+v, %v; want one replayed:\n%s", res, err, out)
	}
	wait("ev-poison")
	out, _, code = run(t, append([]string{"dlt", "replay", "pages"}, conn...)...)
	if code != 0 || !strings.Contains(out, "replayed 0 dead letters (1 replayed before") {
		t.Errorf("second dlt replay: exit %d\n%s", code, out)
	}
	if out, _, code := run(t, append([]string{"dlt", "list", "pages"}, conn...)...); code != 0 || !strings.Contains(out, "yes") {
		t.Errorf("dlt list after the replay does not say it was replayed: exit %d\n%s", code, out)
	}
	idle()

	// The HTTP API of a process on the same services says the same.
	a, err := app.Open(ctx, app.Config{DataDir: t.TempDir(), Kafka: cfg, Redis: sr.redis, Stages: reg},
		zerolog.Nop(), app.Needs{Broker: true, Redis: true})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	srv := httptest.NewServer(cli.API(a))
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL + "/v1/dead-letters?topic=pages")
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		DeadLetters []kafka.DeadLetter `json:"dead_letters"`
		Counts      map[string]int64   `json:"counts"`
	}
	err = json.NewDecoder(resp.Body).Decode(&got)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 || len(got.DeadLetters) != 1 || !got.DeadLetters[0].Replayed || got.Counts[topology.Pages] != 1 {
		t.Errorf("GET /v1/dead-letters: %d %+v %v", resp.StatusCode, got, err)
	}
	resp, err = srv.Client().Post(srv.URL+"/v1/dead-letters/replay", "application/json", strings.NewReader(`{"topic":"pages"}`))
	if err != nil {
		t.Fatal(err)
	}
	var rep kafka.ReplayResult
	err = json.NewDecoder(resp.Body).Decode(&rep)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 || len(rep.Replayed) != 0 || rep.Skipped != 1 {
		t.Errorf("POST /v1/dead-letters/replay: %d %+v %v", resp.StatusCode, rep, err)
	}

	mu.Lock()
	if handled["ev-poison"] != 1 || handled["ev-after"] != 1 {
		t.Errorf("handled %v, want ev-poison and ev-after once each", handled)
	}
	mu.Unlock()
	stop()
	if err := <-consumed; err != nil && !errors.Is(err, context.Canceled) {
		t.Fatalf("consume: %v\n%s", err, consumeErr.String())
	}
}

func TestDLTUsage(t *testing.T) {
	for _, args := range [][]string{
		{"dlt"},
		{"dlt", "list"},
		{"dlt", "purge", "pages"},
		{"dlt", "list", "nope"},
		{"dlt", "list", "pages.dlt"},
		{"dlt", "list", "pages", "--since", "yesterday"},
		{"dlt", "replay", "pages", "--offset", "x"},
		{"dlt", "replay", "all", "--offset", "0:1"},
	} {
		if _, stderr, code := run(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, stderr)
		}
	}
}
