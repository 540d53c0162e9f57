package web_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/rs/zerolog"

	"github.com/annalist-dev/annalist/infra/kafka"
	"github.com/annalist-dev/annalist/infra/pages"
	"github.com/annalist-dev/annalist/internal/api"
	"github.com/annalist-dev/annalist/internal/app"
	"github.com/annalist-dev/annalist/internal/demo"
	"github.com/annalist-dev/annalist/internal/web"
	"github.com/annalist-dev/annalist/producers"
	"github.com/annalist-dev/annalist/schemas"
)

const tenant = schemas.DefaultTenant

// chromium returns the browser to drive, or skips the test.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "/usr/bin/chromium"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("browser test skipped: no chromium found (install it with `apt-get install -y chromium`)")
	return ""
}

// artifacts is where screenshots go: $ANNALIST_ARTIFACTS when set, else a
// temporary directory of the test.
func artifacts(t *testing.T) string {
	t.Helper()
	if d := os.Getenv("ANNALIST_ARTIFACTS"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	return t.TempDir()
}

// startDemo runs what `annalist demo` runs: the embedded services and every
// stage, the demo corpus ingested, a biography of subject generated, and
// the API with the UI served on a loopback listener.
func startDemo(t *testing.T, subject string) (*app.App, string) {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Fatalf("redis-server is not on PATH: %v", err)
	}
	cfg := app.Config{DataDir: t.TempDir(), Kafka: kafka.Config{SessionTimeout: 6 * time.Second, RebalanceTimeout: 6 * time.Second}}
	a, err := app.Open(context.Background(), cfg, zerolog.Nop(), app.NeedsFor(app.AllStages()))
	if err != nil {
		t.Fatal(err)
	}
	// As serve and demo do: the metrics registry before the stages, so
	// the pipeline dashboard has their numbers.
	a.Metrics()
	stageCtx, stopStages := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var stageErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		stageErr = a.RunStages(stageCtx, app.AllStages(), nil)
	}()
	t.Cleanup(func() {
		stopStages()
		wg.Wait()
		if stageErr != nil && !errors.Is(stageErr, context.Canceled) {
			t.Errorf("stages: %v", stageErr)
		}
		if err := a.Close(); err != nil {
			t.Errorf("close app: %v", err)
		}
	})

	items, err := demo.Documents()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if _, err := a.Ingest(ctx, tenant, false, true, func(ctx context.Context, sink producers.Sink) (producers.Summary, error) {
		return producers.Summary{Documents: len(items)}, sink.Send(ctx, tenant, items)
	}); err != nil {
		t.Fatal(err)
	}
	res, err := a.Generate(ctx, tenant, false, true, []schemas.Request{{Kind: schemas.KindBiography, Subject: subject}})
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Page == nil || len(res[0].Page.Sentences) == 0 {
		t.Fatalf("no biography of %s: %+v", subject, res[0].Status)
	}

	return a, serve(t, a, api.AuthConfig{})
}

// serve serves the API with the UI for a on a loopback listener.
func serve(t *testing.T, a *app.App, auth api.AuthConfig) string {
	t.Helper()
	srv := httptest.NewServer(api.New(api.Deps{Sink: a, Graph: a.KG, Chunks: a.Chunks, Pages: a.Pages,
		Requester: a, Memory: a.Requests, UI: web.Handler(), Pipeline: a.Pipeline, Auth: auth}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func screenshot(t *testing.T, dir, name string, buf *[]byte) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		if err := chromedp.FullScreenshot(buf, 100).Do(ctx); err != nil {
			return err
		}
		// Quality 100 makes FullScreenshot encode PNG.
		return os.WriteFile(filepath.Join(dir, name), *buf, 0o644)
	})
}

// TestBrowser drives the UI in headless chromium against the demo: search
// by courtesy name, open the biography, show a citation's chunk, generate
// a page and watch it arrive, and decide a review.
func TestBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	exe := chromium(t)
	const courtesy, person = "静之", "陆文渊"
	a, base := startDemo(t, person)
	out := artifacts(t)
	t.Logf("screenshots in %s", out)

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.WindowSize(1280, 900),
		chromedp.Flag("lang", "en-US"),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()
	ctx, cancel := context.WithTimeout(bctx, 3*time.Minute)
	defer cancel()

	var shot []byte
	run := func(step string, actions ...chromedp.Action) {
		t.Helper()
		if err := chromedp.Run(ctx, actions...); err != nil {
			// The page as it was, for the failure message and artifacts.
			var page string
			dctx, cancel := context.WithTimeout(bctx, 10*time.Second)
			defer cancel()
			_ = chromedp.Run(dctx, chromedp.Text(`#main`, &page, chromedp.ByID), screenshot(t, out, "failed.png", &shot))
			t.Fatalf("%s: %v\npage: %s", step, err, page)
		}
	}

	// Search by courtesy name; the person is found and opened.
	var results string
	run("search",
		chromedp.Navigate(base+"/"),
		chromedp.WaitVisible(`#q`, chromedp.ByID),
		chromedp.SendKeys(`#q`, courtesy, chromedp.ByID),
		chromedp.WaitVisible(`#results a.result`, chromedp.ByQuery),
		chromedp.Text(`#results`, &results, chromedp.ByID),
		screenshot(t, out, "search.png", &shot),
	)
	if !strings.Contains(results, person) {
		t.Fatalf("searching %s lists %q, want %s", courtesy, results, person)
	}
	run("open entity", chromedp.Click(`#results a.result`, chromedp.ByQuery),
		chromedp.WaitVisible(`.bio-section .cite`, chromedp.ByQuery))
	var hash string
	run("location", chromedp.Evaluate(`decodeURIComponent(location.hash)`, &hash))
	if hash != "#/entity/"+person {
		t.Errorf("opened %q, want #/entity/%s", hash, person)
	}

	// Hover the first citation: the popup shows the cited chunk's text.
	var chunkID, popText string
	var marked []string
	var popHidden bool
	run("hover citation",
		chromedp.AttributeValue(`.bio-section .cite`, "data-chunk", &chunkID, nil, chromedp.ByQuery),
		chromedp.ActionFunc(func(ctx context.Context) error {
			var box struct{ X, Y float64 }
			if err := chromedp.Evaluate(`(() => { const r = document.querySelector('.bio-section .cite').getBoundingClientRect();
				return {X: r.left + r.width / 2, Y: r.top + r.height / 2}; })()`, &box).Do(ctx); err != nil {
				return err
			}
			return chromedp.MouseEvent(input.MouseMoved, box.X, box.Y).Do(ctx)
		}),
		chromedp.WaitVisible(`#citepop`, chromedp.ByID),
		chromedp.Text(`#citepop .poptext`, &popText, chromedp.ByQuery),
		chromedp.Evaluate(`Array.from(document.querySelectorAll('#citepop mark')).map((m) => m.textContent)`, &marked),
		screenshot(t, out, "citation.png", &shot),
	)
	chunks, err := a.Chunks.Get(context.Background(), tenant, []string{chunkID})
	if err != nil || len(chunks) != 1 {
		t.Fatalf("cited chunk %s: %v (%d found)", chunkID, err, len(chunks))
	}
	if head := []rune(strings.TrimSpace(popText)); len(head) == 0 || !strings.Contains(chunks[0].Text, string(head[:min(len(head), 20)])) {
		t.Errorf("citation popup shows %q, want the text of chunk %s (%.60q…)", popText, chunkID, chunks[0].Text)
	}
	// The supporting span: the sentence's fact values, found in the chunk.
	if len(marked) == 0 {
		t.Errorf("citation popup highlights nothing in %q", popText)
	}
	for _, m := range marked {
		if !strings.Contains(chunks[0].Text, m) {
			t.Errorf("highlighted %q is not in chunk %s", m, chunkID)
		}
	}
	if os.Getenv("ANNALIST_DOCS_SCREENSHOT") != "" {
		// The README's picture: the biography with a citation open.
		var png []byte
		run("docs screenshot", chromedp.CaptureScreenshot(&png))
		if err := os.WriteFile(filepath.Join("..", "..", "docs", "ui.png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Keyboard: Escape hides the popup, focusing a marker shows it again.
	run("keyboard citation",
		chromedp.KeyEvent("\x1b"),
		chromedp.WaitNotVisible(`#citepop`, chromedp.ByID),
		chromedp.Focus(`.bio-section .cite`, chromedp.ByQuery),
		chromedp.WaitVisible(`#citepop`, chromedp.ByID),
		chromedp.Evaluate(`document.getElementById('citepop').hidden`, &popHidden),
	)
	if popHidden {
		t.Error("focusing a citation marker does not show its chunk")
	}

	// Generate: sentences stream in, then the request is published and
	// the page reloads.
	var state string
	var streamed int
	run("generate",
		chromedp.Click(`#generate`, chromedp.ByID),
		chromedp.WaitVisible(`#stream-state[data-state]`, chromedp.ByQuery),
		chromedp.AttributeValue(`#stream-state`, "data-state", &state, nil, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelectorAll('#stream li.sentence').length`, &streamed),
		chromedp.WaitVisible(`.bio-section .cite`, chromedp.ByQuery),
		screenshot(t, out, "generate.png", &shot),
	)
	// The new version is in the history; compare it with the first.
	var diff string
	run("diff",
		chromedp.WaitVisible(`#diff-from`, chromedp.ByID),
		chromedp.Click(`.history button[type=submit]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.difflist li`, chromedp.ByQuery),
		chromedp.Text(`.difflist`, &diff, chromedp.ByQuery),
	)
	if !strings.Contains(diff, person) {
		t.Errorf("diff of versions 1 and 2 shows %q, want the biography's sentences", diff)
	}
	if state != pages.RequestPublished {
		t.Errorf("generation ended %q, want %s", state, pages.RequestPublished)
	}
	if streamed == 0 {
		t.Error("no sentence arrived over the request's event stream")
	}

	// Review: decide an item opened for the test.
	rv := schemas.Review{ReviewID: "ui-test-review", Subject: person, Relation: schemas.RelNativePlace,
		Question: fmt.Sprintf("Where was %s from?", person),
		Options: []schemas.ReviewOption{{Value: "福清", ChunkID: chunkID, Text: "福清人。"},
			{Value: "侯官", ChunkID: chunkID, Text: "侯官人。"}}}
	if err := a.Pages.OpenReview(context.Background(), tenant, rv); err != nil {
		t.Fatal(err)
	}
	sel := `form[data-review="ui-test-review"]`
	run("review",
		chromedp.Navigate(base+"/#/reviews"),
		chromedp.WaitVisible(sel, chromedp.ByQuery),
		chromedp.Click(sel+` input[value="侯官"]`, chromedp.ByQuery),
		screenshot(t, out, "reviews.png", &shot),
		chromedp.Click(sel+` button[type=submit]`, chromedp.ByQuery),
		chromedp.WaitNotPresent(sel, chromedp.ByQuery),
	)
	got, err := a.Pages.Review(context.Background(), tenant, rv.ReviewID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != pages.ReviewDecided || got.Decision != "侯官" {
		t.Errorf("review after deciding in the UI: status %q decision %q, want decided 侯官", got.Status, got.Decision)
	}

	// Ingest: paste a document, watch its stages complete.
	run("ingest",
		chromedp.Navigate(base+"/#/ingest"),
		chromedp.WaitVisible(`#doc-text`, chromedp.ByID),
		chromedp.SendKeys(`#doc-title`, "Ann Lee", chromedp.ByID),
		chromedp.SendKeys(`#doc-text`, "Ann Lee was born in York in 1802. She died in Leeds in 1870.", chromedp.ByID),
		chromedp.Click(`form.ingest button[type=submit]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#ingest-status td.ok[data-stage="indexed"]`, chromedp.ByQuery),
		screenshot(t, out, "ingest.png", &shot),
	)

	// Pipeline dashboard: the stages' numbers in a table.
	var table string
	run("pipeline",
		chromedp.Navigate(base+"/#/pipeline"),
		chromedp.WaitVisible(`#pipeline tbody tr`, chromedp.ByQuery),
		chromedp.Text(`#pipeline`, &table, chromedp.ByID),
		screenshot(t, out, "pipeline.png", &shot),
	)
	for _, stage := range app.AllStages() {
		if !strings.Contains(table, stage) {
			t.Errorf("pipeline table lacks stage %s: %q", stage, table)
		}
	}

	// With tokens: the reads fail until the token is saved in the
	// settings; then the page loads and generation streams (EventSource
	// passes the token as access_token).
	secured := serve(t, a, api.AuthConfig{APIToken: "ui-write-token", ReadToken: "ui-read-token"})
	var denied, state2 string
	run("without token",
		chromedp.Navigate(secured+"/#/entity/"+person),
		chromedp.WaitVisible(`.entity-head .error`, chromedp.ByQuery),
		chromedp.Text(`.entity-head .error`, &denied, chromedp.ByQuery),
	)
	if !strings.Contains(denied, "401") {
		t.Errorf("entity page without a token shows %q, want a 401", denied)
	}
	run("with token",
		chromedp.Click(`.settings summary`, chromedp.ByQuery),
		chromedp.SendKeys(`#set-token`, "ui-write-token", chromedp.ByID),
		chromedp.Click(`#settings button[type=submit]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.bio-section .cite`, chromedp.ByQuery),
		chromedp.Click(`#generate`, chromedp.ByID),
		chromedp.WaitVisible(`#stream-state[data-state]`, chromedp.ByQuery),
		chromedp.AttributeValue(`#stream-state`, "data-state", &state2, nil, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelectorAll('#stream li.sentence').length`, &streamed),
	)
	if state2 != pages.RequestPublished || streamed == 0 {
		t.Errorf("generation with a token: state %q after %d streamed sentences, want %s after some", state2, streamed, pages.RequestPublished)
	}
}
