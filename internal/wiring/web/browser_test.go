package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/annalist-dev/annalist/infra/redisdb/redistest"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/rs/zerolog"

	"github.com/annalist-dev/annalist/infra/kafka"
	"github.com/annalist-dev/annalist/infra/pages"
	"github.com/annalist-dev/annalist/internal/wiring/api"
	"github.com/annalist-dev/annalist/internal/wiring/app"
	"github.com/annalist-dev/annalist/internal/wiring/cli"
	"github.com/annalist-dev/annalist/internal/wiring/demo"
	"github.com/annalist-dev/annalist/internal/wiring/web"
	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
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

// browse opens a headless chromium (exe) for the test and returns run,
// which runs a step's actions and fails the test with the page's text and
// a screenshot (failed, under out) when one fails, and the buffer the
// steps' screenshots are taken into. The browser is closed when the test
// ends.
func browse(t *testing.T, exe, out, failed string) (run func(step string, actions ...chromedp.Action), shot *[]byte) {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.WindowSize(1280, 900),
		chromedp.Flag("lang", "en-US"),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	t.Cleanup(cancelBrowser)
	ctx, cancel := context.WithTimeout(bctx, 3*time.Minute)
	t.Cleanup(cancel)
	shot = new([]byte)
	return func(step string, actions ...chromedp.Action) {
		t.Helper()
		if err := chromedp.Run(ctx, actions...); err != nil {
			// The page as it was, for the failure message and artifacts.
			var page string
			dctx, cancel := context.WithTimeout(bctx, 10*time.Second)
			defer cancel()
			_ = chromedp.Run(dctx, chromedp.Text(`#main`, &page, chromedp.ByID), screenshot(t, out, failed, shot))
			t.Fatalf("%s: %v\npage: %s", step, err, page)
		}
	}, shot
}

// hover moves the mouse onto the middle of the first element matching
// selector, scrolled into view.
func hover(selector string) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		var box struct{ X, Y float64 }
		js := `(() => { const b = document.querySelector(` + strconv.Quote(selector) + `); b.scrollIntoView({block: 'center'});
			const r = b.getBoundingClientRect(); return {X: r.left + r.width / 2, Y: r.top + r.height / 2}; })()`
		if err := chromedp.Evaluate(js, &box).Do(ctx); err != nil {
			return err
		}
		return chromedp.MouseEvent(input.MouseMoved, box.X, box.Y).Do(ctx)
	})
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

// startDemo starts `annalist demo` (in-process, through cli.Run) on a free
// loopback port and a fresh data directory, and waits until it serves: by
// then it has ingested the demo corpus and written its biographies. It
// returns an app that joins the demo's services (the data directory is
// the demo's), for the test's own look into the stores, and the UI's URL.
func startDemo(t *testing.T, subject string) (*app.App, string) {
	t.Helper()
	redistest.Require(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	dir := t.TempDir()
	ctx, stop := context.WithCancel(context.Background())
	var stdout, stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- cli.Run(ctx, []string{"annalist", "demo", "--addr", addr, "--data-dir", dir, "--log-level", "warn"},
			strings.NewReader(""), &syncWriter{w: &stdout}, &syncWriter{w: &stderr})
	}()
	base := "http://" + addr
	deadline := time.Now().Add(3 * time.Minute)
	for {
		resp, err := http.Get(base + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		select {
		case code := <-done:
			stop()
			t.Fatalf("annalist demo exited with %d before serving:\n%s", code, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			stop()
			t.Fatalf("annalist demo did not serve within 3 minutes:\n%s", stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	a, err := app.Open(context.Background(), app.Config{DataDir: dir}, zerolog.Nop(), app.Needs{Broker: true, Redis: true})
	if err != nil {
		stop()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := a.Close(); err != nil {
			t.Errorf("close joined app: %v", err)
		}
		stop()
		if code := <-done; code != 0 {
			t.Errorf("annalist demo exited with %d after Ctrl-C:\n%s", code, stderr.String())
		}
	})
	if !a.Joined {
		t.Fatal("the test's app did not join the demo's services")
	}
	p, err := a.Pages.Current(context.Background(), tenant, subject)
	if err != nil || len(p.Sentences) == 0 {
		t.Fatalf("the demo wrote no biography of %s: %+v, %v\n%s", subject, p, err, stdout.String())
	}
	return a, base
}

// syncWriter serialises writes of the demo's goroutines.
type syncWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (s *syncWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(b)
}

// serve serves the API with the UI for a on a loopback listener.
func serve(t *testing.T, a *app.App, auth api.AuthConfig) string {
	t.Helper()
	srv := httptest.NewServer(api.New(api.Deps{Sink: a, Graph: a.KG, Chunks: a.Chunks, Pages: a.Pages,
		Requester: a, Memory: a.Requests, UI: web.Handler(), Pipeline: a.Pipeline, Auth: auth,
		DeadLetters: kafka.DeadLetters{Config: a.Config.Kafka, Marks: kafka.NewRedisReplayMarks(a.Redis)}}))
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

	run, shot := browse(t, exe, out, "failed.png")

	// Search by courtesy name; the person is found and opened.
	var results string
	run("search",
		chromedp.Navigate(base+"/"),
		chromedp.WaitVisible(`#q`, chromedp.ByID),
		chromedp.SendKeys(`#q`, courtesy, chromedp.ByID),
		chromedp.WaitVisible(`#results a.result`, chromedp.ByQuery),
		chromedp.Text(`#results`, &results, chromedp.ByID),
		screenshot(t, out, "search.png", shot),
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
		hover(`.bio-section .cite`),
		chromedp.WaitVisible(`#citepop`, chromedp.ByID),
		chromedp.Text(`#citepop .poptext`, &popText, chromedp.ByQuery),
		chromedp.Evaluate(`Array.from(document.querySelectorAll('#citepop mark')).map((m) => m.textContent)`, &marked),
		screenshot(t, out, "citation.png", shot),
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
		// The picture of docs/ui.md: the biography with a citation open.
		var png []byte
		run("docs screenshot", chromedp.CaptureScreenshot(&png))
		if err := os.WriteFile(filepath.Join("..", "..", "..", "docs", "ui.png"), png, 0o644); err != nil {
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
		screenshot(t, out, "generate.png", shot),
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
		screenshot(t, out, "reviews.png", shot),
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
		screenshot(t, out, "ingest.png", shot),
	)

	// Pipeline dashboard: the stages' numbers in a table.
	var table string
	run("pipeline",
		chromedp.Navigate(base+"/#/pipeline"),
		chromedp.WaitVisible(`#pipeline tbody tr`, chromedp.ByQuery),
		chromedp.Text(`#pipeline`, &table, chromedp.ByID),
		screenshot(t, out, "pipeline.png", shot),
	)
	for _, stage := range app.AllStages() {
		if !strings.Contains(table, stage) {
			t.Errorf("pipeline table lacks stage %s: %q", stage, table)
		}
	}
	// Below it, the dead-letter count of every topic.
	var dlts string
	run("dead letters",
		chromedp.WaitVisible(`#dead-letters tbody tr`, chromedp.ByQuery),
		chromedp.Text(`#dead-letters`, &dlts, chromedp.ByID),
	)
	for _, topic := range []string{topology.Documents, topology.Pages} {
		if !strings.Contains(dlts, topic) {
			t.Errorf("dead-letter table lacks topic %s: %q", topic, dlts)
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

// TestBrowserTopicPage drives the topic page in headless chromium against
// the demo: search a place, see it offered as a topic beside the people,
// open its topic page, generate it from the UI (the demo writes
// biographies only), follow the table of contents, hover a citation, and
// follow a person named in a sentence to his biography.
func TestBrowserTopicPage(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	exe := chromium(t)
	a, base := startDemo(t, "陆文渊")
	out := artifacts(t)
	t.Logf("screenshots in %s", out)

	run, shot := browse(t, exe, out, "topic-failed.png")

	// Search a part of a native place: it is listed under Topics, apart
	// from the people, and leads to its topic page.
	const place = "华亭"
	var topics, href, typ string
	run("search a place",
		chromedp.Navigate(base+"/"),
		chromedp.WaitVisible(`#q`, chromedp.ByID),
		chromedp.SendKeys(`#q`, place, chromedp.ByID),
		chromedp.WaitVisible(`#topic-results a.result`, chromedp.ByQuery),
		chromedp.Text(`#topic-results`, &topics, chromedp.ByID),
		chromedp.AttributeValue(`#topic-results a.result`, "href", &href, nil, chromedp.ByQuery),
		chromedp.AttributeValue(`#topic-results a.result`, "data-type", &typ, nil, chromedp.ByQuery),
		screenshot(t, out, "topic-search.png", shot),
	)
	if !strings.Contains(topics, place) || typ != schemas.EntityPlace || !strings.HasPrefix(href, "#/topic/") {
		t.Fatalf("searching %s lists topics %q, first %s (%s); want a place leading to #/topic/…", place, topics, href, typ)
	}
	var peopleLinks []string
	run("people apart", chromedp.Evaluate(`Array.from(document.querySelectorAll('#results ul.people a.result')).map((a) => a.getAttribute('href'))`, &peopleLinks))
	for _, l := range peopleLinks {
		if !strings.HasPrefix(l, "#/entity/") {
			t.Errorf("a person result leads to %s, want his biography (#/entity/…)", l)
		}
	}

	// Open it: no topic page yet, so generate one; sentences stream in,
	// then the page shows with its contents.
	var hash, state string
	run("open topic",
		chromedp.Click(`#topic-results a.result`, chromedp.ByQuery),
		chromedp.WaitVisible(`#no-page, .topic .tsec`, chromedp.ByQuery),
		chromedp.Evaluate(`decodeURIComponent(location.hash)`, &hash),
	)
	topic := strings.TrimPrefix(hash, "#/topic/")
	if hash == topic || topic == "" {
		t.Fatalf("opened %q, want #/topic/<place>", hash)
	}
	// The request ends (data-state) or is refused (an error in its place).
	var msg string
	run("generate topic page",
		chromedp.Click(`#generate`, chromedp.ByID),
		chromedp.WaitVisible(`#stream-state[data-state], #stream-state .error`, chromedp.ByQuery),
		chromedp.Evaluate(`document.getElementById('stream-state').getAttribute('data-state') || ''`, &state),
		chromedp.Text(`#stream-state`, &msg, chromedp.ByID),
	)
	if state != pages.RequestPublished {
		t.Fatalf("generating the topic page of %s ended %q (%s), want %s", topic, state, msg, pages.RequestPublished)
	}
	var toc []string
	var sections int
	run("contents",
		chromedp.WaitVisible(`.topic .tsec .cite`, chromedp.ByQuery),
		chromedp.Evaluate(`Array.from(document.querySelectorAll('#toc a')).map((a) => a.textContent)`, &toc),
		chromedp.Evaluate(`document.querySelectorAll('.topic .tsec').length`, &sections),
		screenshot(t, out, "topic.png", shot),
	)
	page, err := a.Pages.CurrentOf(context.Background(), tenant, schemas.KindTopicPage, topic)
	if err != nil {
		t.Fatalf("the topic page the UI showed is not stored: %v", err)
	}
	if len(page.Sections) == 0 || len(toc) != len(page.Sections) || sections != len(page.Sections) {
		t.Fatalf("contents %q and %d sections shown; the page has %d sections", toc, sections, len(page.Sections))
	}
	for i, s := range page.Sections {
		if toc[i] != s.Title {
			t.Errorf("contents entry %d is %q, want the section title %q", i, toc[i], s.Title)
		}
	}
	// A contents link moves to its section and leaves the route alone.
	var after string
	var focused bool
	run("follow contents",
		chromedp.Click(`#toc a`, chromedp.ByQuery),
		chromedp.Evaluate(`decodeURIComponent(location.hash)`, &after),
		chromedp.Evaluate(`document.activeElement === document.getElementById('sec-1')`, &focused),
	)
	if after != hash || !focused {
		t.Errorf("contents link: location %q (want %q), first section focused %v", after, hash, focused)
	}

	// Hover a citation: the popup shows the cited chunk's text.
	var chunkID, popText string
	run("hover topic citation",
		chromedp.AttributeValue(`.topic .tsec .cite`, "data-chunk", &chunkID, nil, chromedp.ByQuery),
		hover(`.topic .tsec .cite`),
		chromedp.WaitVisible(`#citepop`, chromedp.ByID),
		chromedp.Text(`#citepop .poptext`, &popText, chromedp.ByQuery),
		screenshot(t, out, "topic-citation.png", shot),
	)
	chunks, err := a.Chunks.Get(context.Background(), tenant, []string{chunkID})
	if err != nil || len(chunks) != 1 {
		t.Fatalf("cited chunk %s: %v (%d found)", chunkID, err, len(chunks))
	}
	if head := []rune(strings.TrimSpace(popText)); len(head) == 0 || !strings.Contains(chunks[0].Text, string(head[:min(len(head), 20)])) {
		t.Errorf("citation popup shows %q, want the text of chunk %s (%.60q…)", popText, chunkID, chunks[0].Text)
	}

	// Follow a person named in a sentence: his biography opens.
	var person, personHref string
	run("person link",
		chromedp.KeyEvent("\x1b"),
		chromedp.WaitVisible(`.topic .tsec a.person`, chromedp.ByQuery),
		chromedp.Text(`.topic .tsec a.person`, &person, chromedp.ByQuery),
		chromedp.AttributeValue(`.topic .tsec a.person`, "href", &personHref, nil, chromedp.ByQuery),
	)
	named := false
	for _, s := range page.Sentences {
		named = named || strings.Contains(s.Text, person)
	}
	if !named {
		t.Errorf("person link %q is in no sentence of the page", person)
	}
	var bio, opened string
	run("follow person",
		chromedp.Click(`.topic .tsec a.person`, chromedp.ByQuery),
		chromedp.WaitVisible(`.bio-section .cite`, chromedp.ByQuery),
		chromedp.Evaluate(`decodeURIComponent(location.hash)`, &opened),
		chromedp.Text(`.bio-section`, &bio, chromedp.ByQuery),
		screenshot(t, out, "topic-person.png", shot),
	)
	if !strings.HasPrefix(opened, "#/entity/") {
		t.Errorf("person link opened %q, want #/entity/…", opened)
	}
	name := strings.TrimPrefix(opened, "#/entity/")
	p, err := a.Pages.Current(context.Background(), tenant, name)
	if err != nil || len(p.Sentences) == 0 || !strings.Contains(bio, p.Sentences[0].Text) {
		t.Errorf("person link %s: the biography shown (%.80q…) is not %s's stored one (%v)", personHref, bio, name, err)
	}
}

// getJSON decodes the answer of GET url into v, failing the test on any
// status but 200.
func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, body)
	}
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("GET %s: %v in %s", url, err, body)
	}
}

// feedItem is an item of GET /v1/feed (JSON Feed 1.1) as the test reads it.
type feedItem struct {
	ID       string `json:"id"`
	Title    string `json:"title"`
	Annalist struct {
		Version int                       `json:"version"`
		Summary schemas.DiscussionSummary `json:"summary"`
	} `json:"_annalist"`
}

// storedFeedItem reads discussion id's item from GET /v1/feed.
func storedFeedItem(t *testing.T, base, id string) feedItem {
	t.Helper()
	var feed struct {
		Version string     `json:"version"`
		Items   []feedItem `json:"items"`
	}
	getJSON(t, base+"/v1/feed?limit=100", &feed)
	if feed.Version != "https://jsonfeed.org/version/1.1" {
		t.Errorf("GET /v1/feed: version %q, want JSON Feed 1.1", feed.Version)
	}
	for _, it := range feed.Items {
		if it.ID == id {
			return it
		}
	}
	t.Fatalf("GET /v1/feed has no item %s", id)
	return feedItem{}
}

// storedDiscussion reads discussion id from GET /v1/discussions/{id}: the
// stored discussion, under "discussion" or as the answer itself.
func storedDiscussion(t *testing.T, base, id string) schemas.Discussion {
	t.Helper()
	var raw map[string]json.RawMessage
	getJSON(t, base+"/v1/discussions/"+url.PathEscape(id), &raw)
	body, _ := json.Marshal(raw)
	if inner, ok := raw["discussion"]; ok {
		body = inner
	}
	var d schemas.Discussion
	if err := json.Unmarshal(body, &d); err != nil || len(d.Background) == 0 || len(d.Turns) == 0 {
		t.Fatalf("GET /v1/discussions/%s: no discussion in %s (%v)", id, body, err)
	}
	return d
}

// TestBrowserDiscussions drives the Discussions view in headless chromium
// against the demo: open it from the navigation, wait for the summary of
// a discussion the demo ships, see a new summary arrive over the event
// stream, open a summary and compare its sentences with the stored feed
// item, check the marked entities, and hover a turn citation and a
// paragraph citation to see the stored discussion's utterance and
// paragraph.
func TestBrowserDiscussions(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	exe := chromium(t)
	_, base := startDemo(t, "陆文渊")
	out := artifacts(t)
	t.Logf("screenshots in %s", out)
	shipped, err := demo.Discussions()
	if err != nil {
		t.Fatal(err)
	}
	var anyShipped []string
	for _, d := range shipped {
		anyShipped = append(anyShipped, `#feed-list li[data-id=`+strconv.Quote(d.ID)+`] a`)
	}
	// The demo sends its discussions: the discussions stage stores them.
	for deadline := time.Now().Add(time.Minute); ; {
		var list struct {
			Discussions []struct {
				ID string `json:"id"`
			} `json:"discussions"`
		}
		getJSON(t, base+"/v1/discussions?limit=100", &list)
		listed := map[string]bool{}
		for _, d := range list.Discussions {
			listed[d.ID] = true
		}
		stored := 0
		for _, d := range shipped {
			if listed[d.ID] {
				stored++
			}
		}
		if stored == len(shipped) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the demo's discussions are not stored: %d of %d listed by GET /v1/discussions", stored, len(shipped))
		}
		time.Sleep(200 * time.Millisecond)
	}

	run, shot := browse(t, exe, out, "discussions-failed.png")

	// The navigation leads to the view; a shipped discussion's summary is
	// listed once the stages have written it.
	var hash, current, firstID string
	run("open discussions",
		chromedp.Navigate(base+"/"),
		chromedp.WaitVisible(`a[data-nav="discussions"]`, chromedp.ByQuery),
		chromedp.Click(`a[data-nav="discussions"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#feed-list`, chromedp.ByID),
		chromedp.Evaluate(`location.hash`, &hash),
		chromedp.AttributeValue(`a[data-nav="discussions"]`, "aria-current", &current, nil, chromedp.ByQuery),
		chromedp.WaitVisible(strings.Join(anyShipped, ", "), chromedp.ByQuery),
		// The list follows the feed's event stream (not the polling it
		// falls back to).
		chromedp.WaitVisible(`#feed-live[data-mode="live"]`, chromedp.ByQuery),
		chromedp.Evaluate(`(() => { window.annalistStay = true;
			return document.querySelector(`+strconv.Quote(strings.Join(anyShipped, ", "))+`).closest('li').getAttribute('data-id'); })()`, &firstID),
		screenshot(t, out, "discussions.png", shot),
	)
	if hash != "#/discussions" || current != "page" {
		t.Errorf("the Discussions link opened %q (aria-current %q), want #/discussions marked current", hash, current)
	}

	// A discussion sent now arrives in the open list through the feed's
	// event stream (marked fresh), without a reload.
	live := shipped[0]
	live.ID = "ui-live-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	body, _ := json.Marshal(live)
	resp, err := http.Post(base+"/v1/discussions", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	answer, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("POST /v1/discussions: %d %s", resp.StatusCode, answer)
	}
	var stayed bool
	run("live summary",
		chromedp.WaitVisible(`#feed-list li.fresh[data-id=`+strconv.Quote(live.ID)+`]`, chromedp.ByQuery),
		chromedp.Evaluate(`window.annalistStay === true`, &stayed),
	)
	if !stayed {
		t.Error("the list reloaded the page to show a new summary; want it added in place")
	}

	// Open the shipped summary: what it shows is the stored feed item.
	var version string
	var background []string
	var opinions []struct {
		Participant string     `json:"participant"`
		Sentences   []string   `json:"sentences"`
		Entities    [][]string `json:"entities"`
	}
	run("open summary",
		chromedp.Click(`#feed-list li[data-id=`+strconv.Quote(firstID)+`] a`, chromedp.ByQuery),
		chromedp.WaitVisible(`.disc-summary .cite`, chromedp.ByQuery),
		chromedp.AttributeValue(`.disc-summary`, "data-version", &version, nil, chromedp.ByQuery),
		chromedp.Evaluate(`Array.from(document.querySelectorAll('.disc-background li .stext')).map((e) => e.textContent)`, &background),
		chromedp.Evaluate(`Array.from(document.querySelectorAll('.disc-participant')).map((s) => ({
			participant: s.getAttribute('data-participant'),
			sentences: Array.from(s.querySelectorAll('li .stext')).map((e) => e.textContent),
			entities: Array.from(s.querySelectorAll('li .stext')).map((e) => Array.from(e.querySelectorAll('mark.entity')).map((m) => m.textContent)),
		}))`, &opinions),
		screenshot(t, out, "discussion.png", shot),
	)
	item := storedFeedItem(t, base, firstID)
	disc := storedDiscussion(t, base, firstID)
	sum := item.Annalist.Summary
	if version != strconv.Itoa(item.Annalist.Version) {
		t.Fatalf("the view shows version %s of %s, the feed holds version %d", version, firstID, item.Annalist.Version)
	}
	var wantBackground []string
	for _, s := range sum.Background.Sentences {
		wantBackground = append(wantBackground, s.Text)
	}
	if len(wantBackground) == 0 || !reflect.DeepEqual(background, wantBackground) {
		t.Errorf("background shown %q, stored %q", background, wantBackground)
	}
	if len(opinions) != len(sum.Opinions) || len(opinions) == 0 {
		t.Fatalf("%d participants' opinions shown, %d stored", len(opinions), len(sum.Opinions))
	}
	marks := 0
	for i, o := range sum.Opinions {
		var want []string
		for _, s := range o.Sentences {
			want = append(want, s.Text)
		}
		if opinions[i].Participant != o.Participant || !reflect.DeepEqual(opinions[i].Sentences, want) {
			t.Errorf("opinions shown %s %q, stored %s %q", opinions[i].Participant, opinions[i].Sentences, o.Participant, want)
			continue
		}
		for j, s := range o.Sentences {
			for _, m := range opinions[i].Entities[j] {
				marks++
				if !slices.Contains(s.Entities, m) {
					t.Errorf("%q marked in %q, whose entities are %q", m, s.Text, s.Entities)
				}
			}
			// Every entity the text names is marked, or lies inside a
			// longer one that is.
			for _, e := range s.Entities {
				inside := slices.ContainsFunc(opinions[i].Entities[j], func(m string) bool { return strings.Contains(m, e) })
				if strings.Contains(s.Text, e) && !inside {
					t.Errorf("entity %q of %q is not marked", e, s.Text)
				}
			}
		}
	}
	if marks == 0 {
		t.Error("no entity is marked in the opinions")
	}

	// Hover a turn citation: the popup shows "PersonN: utterance" of the
	// stored discussion's turn.
	var turnAttr, turnPop string
	run("hover turn citation",
		chromedp.AttributeValue(`.disc-participant .cite[data-turn]`, "data-turn", &turnAttr, nil, chromedp.ByQuery),
		hover(`.disc-participant .cite[data-turn]`),
		chromedp.WaitVisible(`#citepop`, chromedp.ByID),
		chromedp.Text(`#citepop .poptext`, &turnPop, chromedp.ByQuery),
		screenshot(t, out, "discussion-turn.png", shot),
	)
	turn, err := strconv.Atoi(turnAttr)
	if err != nil || turn < 0 || turn >= len(disc.Turns) {
		t.Fatalf("turn citation data-turn=%q: not a turn of %s (%d turns)", turnAttr, firstID, len(disc.Turns))
	}
	if want := disc.Turns[turn].Participant + ": " + disc.Turns[turn].Utterance; strings.TrimSpace(turnPop) != want {
		t.Errorf("turn citation %d shows %q, want %q", turn, turnPop, want)
	}

	// Hover a paragraph citation: the popup shows the stored paragraph.
	var paraAttr, paraPop string
	run("hover paragraph citation",
		chromedp.KeyEvent("\x1b"),
		chromedp.WaitNotVisible(`#citepop`, chromedp.ByID),
		chromedp.AttributeValue(`.disc-background .cite[data-paragraph]`, "data-paragraph", &paraAttr, nil, chromedp.ByQuery),
		hover(`.disc-background .cite[data-paragraph]`),
		chromedp.WaitVisible(`#citepop`, chromedp.ByID),
		chromedp.Text(`#citepop .poptext`, &paraPop, chromedp.ByQuery),
		screenshot(t, out, "discussion-paragraph.png", shot),
	)
	index, err := strconv.Atoi(paraAttr)
	p, ok := disc.Paragraph(index)
	if err != nil || !ok {
		t.Fatalf("paragraph citation data-paragraph=%q: not a paragraph of %s", paraAttr, firstID)
	}
	if strings.TrimSpace(paraPop) != p.Text {
		t.Errorf("paragraph citation %d shows %q, want %q", index, paraPop, p.Text)
	}
}
