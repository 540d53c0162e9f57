package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"strings"
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

// TestAStageIsOneDeclaration is the acceptance "adding a stage (in a test)
// is one declaration that topology, consume and the dashboard pick up": a
// do-nothing stage that reads the pages topic and writes nothing is
// declared once, added to the application's registry, and then
// `annalist topology` renders and validates it, `annalist consume page-tap`
// runs it (the command's own code, against the kfake broker over TCP and a
// real redis-server) until it has handled a published page, and the
// dashboard's GET /v1/pipeline lists it with its consumer group and no lag.
func TestAStageIsOneDeclaration(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	handled := make(chan pipeline.Input, 1)
	tap := app.Stage{
		Stage: topology.Stage{Name: "page-tap", Reads: []string{topology.Pages},
			Doc: "reads published pages and writes nothing"},
		Build: func(*app.App) (pipeline.BatchHandler, error) {
			return pipeline.Batch(func(_ context.Context, in pipeline.Input) ([]pipeline.Output, error) {
				select {
				case handled <- in:
				default:
				}
				return nil, nil
			}), nil
		},
	}
	reg := app.DefaultStages().With(tap)

	// topology: rendered with its group and its edge, valid, in the JSON.
	var out, errb bytes.Buffer
	io := cli.IO{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb}
	if err := cli.Topology(ctx, io, nil, reg); err != nil {
		t.Fatalf("topology: %v\n%s", err, errb.String())
	}
	for _, want := range []string{"annalist.page-tap", "assembler --[pages]--> page-tap"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("topology does not show %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if err := cli.Topology(ctx, io, []string{"--json"}, reg); err != nil {
		t.Fatal(err)
	}
	var graph struct {
		Stages []struct{ Name, Group string }
	}
	if err := json.Unmarshal(out.Bytes(), &graph); err != nil {
		t.Fatal(err)
	}
	if last := graph.Stages[len(graph.Stages)-1]; last.Name != "page-tap" || last.Group != "annalist.page-tap" {
		t.Errorf("topology --json ends with %+v, want the new stage", last)
	}
	// The application's own registry does not know it.
	if _, stderr, code := run(t, "consume", "page-tap"); code != 2 || !strings.Contains(stderr, `unknown stage "page-tap"`) {
		t.Errorf("consume page-tap on the default registry: exit %d %q, want a usage error", code, stderr)
	}

	// consume: the command runs the stage until cancelled, then drains.
	sr := runStage(ctx, t, reg, "page-tap")
	p, done, consumeErr, stop := sr.producer, sr.consumed, sr.stderr, sr.stop
	page := schemas.Page{Subject: "陆文渊", Kind: schemas.KindBiography, Version: 1, RequestID: "r-tap"}
	if err := p.Publish(ctx, kafka.Record{Topic: topology.Pages, Msg: page,
		Meta: schemas.Meta{EventID: "page-tap-1", TraceID: "r-tap", Tenant: "default"}}); err != nil {
		t.Fatal(err)
	}
	select {
	case in := <-handled:
		if got, ok := pipeline.As[schemas.Page](in.Msg); !ok || got.Subject != page.Subject {
			t.Errorf("the stage got %T %+v, want the page", in.Msg, in.Msg)
		}
	case err := <-done:
		t.Fatalf("consume returned before handling the page: %v\n%s", err, consumeErr.String())
	case <-ctx.Done():
		t.Fatalf("the stage never handled the page:\n%s", consumeErr.String())
	}
	stop()
	if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
		t.Fatalf("consume: %v\n%s", err, consumeErr.String())
	}

	// The dashboard of a process on the same registry lists the stage, its
	// group, and the lag its drained consumer group left (none).
	a, err := app.Open(ctx, app.Config{DataDir: t.TempDir(), Kafka: sr.kafka,
		Redis: sr.redis, Stages: reg}, zerolog.Nop(), reg.Needs([]string{"page-tap"}))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	srv := httptest.NewServer(cli.API(a))
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL + "/v1/pipeline")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var dash struct {
		Stages []struct {
			Name, Group string
			Lag         int64
		}
		Error string
	}
	if err := json.NewDecoder(resp.Body).Decode(&dash); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, s := range dash.Stages {
		if s.Name == "page-tap" {
			found = true
			if s.Group != "annalist.page-tap" || s.Lag != 0 {
				t.Errorf("dashboard line %+v, want group annalist.page-tap and lag 0 (error %q)", s, dash.Error)
			}
		}
	}
	if !found || len(dash.Stages) != len(reg) {
		t.Errorf("dashboard lists %d stages (page-tap among them: %v), want the %d of the registry", len(dash.Stages), found, len(reg))
	}
}
