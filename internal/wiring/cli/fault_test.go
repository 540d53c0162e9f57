package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
	"github.com/annalist-dev/annalist/internal/kit/enginestest"
)

// The fault suite: infrastructure is killed or paused under a running
// annalist while documents and requests arrive, and every document or
// request the API acknowledged (202) must end processed exactly once in
// effect: what the store holds for it equals what a clean run of the same
// inputs holds. Each test also ends with no redis-server on its data
// directories and no child process of the test left.

// faultClient bounds every HTTP call of the suite: a paused Redis makes
// the server's own checks wait for their timeouts, and a call must not
// outlive them by much.
var faultClient = &http.Client{Timeout: 8 * time.Second}

// Names of the suite's documents, written here in the manner of the demo
// corpus's liezhuan entries. Surnames, given-name characters and
// courtesy-name characters are disjoint, so no person's name is another's
// courtesy name and every name denotes one entity.
var (
	faultSurnames = []rune("沈韩宋方郑邓薛萧范秦姜蔡袁卢潘程魏唐贺龚")
	faultGiven1   = []rune("文德宗承维克汝士廷时")
	faultGiven2   = []rune("礼信中和贞谦")
	faultCourtA   = []rune("伯仲叔季子孟")
	faultCourtB   = []rune("和远达晦成默昭衡")
	faultPlaces   = []string{"福州闽县", "苏州吴县", "松江华亭", "绍兴山阴", "杭州仁和", "常州武进", "泉州晋江", "吉安泰和", "南昌新建"}
	faultEras     = []string{"嘉靖", "隆庆", "万历"}
	faultYears    = []string{"二", "五", "八", "十一", "十四", "十七", "二十", "二十三", "二十六", "二十九"}
	faultOffices  = []string{"户部主事", "翰林院编修", "行人", "兵部主事", "礼部主事", "刑部主事"}
	faultLater    = []string{"郎中", "御史", "侍读", "员外郎", "给事中"}
	faultHighest  = []string{"南京兵部尚书", "礼部右侍郎", "大理寺卿", "右佥都御史", "太常寺卿", "工部左侍郎", "南京户部尚书"}
	faultAges     = []string{"五十八", "六十三", "七十一", "四十九", "六十六", "七十四", "五十五"}
)

// faultDoc is one of the suite's documents: a short biography entry of
// the person Name.
type faultDoc struct {
	ID, Name, Text string
}

// newFaultDoc is document i, distinct from every other by id, name and
// text.
func newFaultDoc(i int) faultDoc {
	n := len(faultSurnames)
	name := string(faultSurnames[i%n]) + string(faultGiven1[(i/n)%len(faultGiven1)]) + string(faultGiven2[i%len(faultGiven2)])
	court := string(faultCourtA[i%len(faultCourtA)]) + string(faultCourtB[(i/len(faultCourtA))%len(faultCourtB)])
	text := fmt.Sprintf("%s，字%s，%s人。举%s%s年进士，授%s。迁%s，官至%s。卒，年%s。",
		name, court, faultPlaces[i%len(faultPlaces)], faultEras[i%len(faultEras)], faultYears[i%len(faultYears)],
		faultOffices[i%len(faultOffices)], faultLater[i%len(faultLater)], faultHighest[i%len(faultHighest)], faultAges[i%len(faultAges)])
	return faultDoc{ID: fmt.Sprintf("ft-%04d", i), Name: name, Text: text}
}

func (d faultDoc) record() map[string]string {
	return map[string]string{"doc_id": d.ID, "title": d.Name, "text": d.Text}
}

// httpJSON sends a request with an optional JSON body and returns the
// status and the body; a transport error is status 0.
func httpJSON(ctx context.Context, method, u string, body any) (int, []byte) {
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			panic(err)
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, r)
	if err != nil {
		panic(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := faultClient.Do(req)
	if err != nil {
		return 0, nil
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, data
}

// childPIDs lists the live processes whose parent is this test process.
func childPIDs(t *testing.T) []int {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	me := os.Getpid()
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// The fields after the command name, which is in parentheses and
		// may hold spaces: state, then the parent's pid.
		s := string(data)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 1 && f[0] != "Z" && f[1] == strconv.Itoa(me) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// faultTest is the common start of the suite's tests: skipped under
// -short, bounded by ctx, and checked at its very end (after every other
// cleanup) for children left behind.
func faultTest(t *testing.T, within time.Duration) context.Context {
	t.Helper()
	if testing.Short() {
		t.Skip("fault suite: starts and kills processes")
	}
	redistest.Require(t)
	if d, ok := t.Deadline(); ok && time.Until(d) < within {
		within = time.Until(d) - 5*time.Second
	}
	t.Cleanup(func() {
		deadline := time.Now().Add(3 * time.Second)
		for {
			pids := childPIDs(t)
			if len(pids) == 0 {
				return
			}
			if time.Now().After(deadline) {
				t.Errorf("child processes %v outlive the test", pids)
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), within)
	t.Cleanup(cancel)
	return ctx
}

// faultServer is an annalist serve child process on its own data
// directory.
type faultServer struct {
	addr, data string
	c          *child
}

func (s *faultServer) url(path string) string { return "http://" + s.addr + path }

// startFaultServe starts `serve` with every stage on a fresh data
// directory and waits until it is ready. When the test ends it is stopped,
// and no redis-server may then remain on its data directory.
func startFaultServe(t *testing.T, ctx context.Context, extra ...string) *faultServer {
	t.Helper()
	data := t.TempDir()
	return startServeOn(t, ctx, data, append([]string{"--data-dir", data}, extra...)...)
}

// startServeOn starts `serve` with args and waits until it is ready; see
// startFaultServe.
func startServeOn(t *testing.T, ctx context.Context, data string, args ...string) *faultServer {
	t.Helper()
	redistest.KillServersInAtCleanup(t, data)
	t.Cleanup(func() {
		if pids := redistest.WaitNoServersIn(t, data, 3*time.Second); len(pids) != 0 {
			t.Errorf("redis-servers %v left on %s after serve stopped", pids, data)
		}
	})
	// A free port picked here may be taken by another process before
	// serve binds it (a broker's or a client's ephemeral port): serve then
	// exits saying so, and is started again on another.
	for attempt := 1; ; attempt++ {
		s := &faultServer{addr: freeAddr(t), data: data}
		s.c = startChild(t, append([]string{"serve", "--addr", s.addr, "--log-level", "warn"}, args...)...)
		if waitReadyUnlessTaken(t, ctx, s.addr, s.c) {
			return s
		}
		if attempt == 3 {
			t.Fatalf("serve found its port taken %d times:\n%s", attempt, s.c.stderr)
		}
		waitExited(t, ctx, s.c)
	}
}

// waitReadyUnlessTaken waits until the API on addr answers /readyz with
// 200 (true), or serve exits because another process holds addr (false).
func waitReadyUnlessTaken(t *testing.T, ctx context.Context, addr string, c *child) bool {
	t.Helper()
	for {
		resp, err := faultClient.Get("http://" + addr + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return true
			}
		}
		if strings.Contains(c.stderr.String(), "address already in use") {
			return false
		}
		if ctx.Err() != nil {
			t.Fatalf("serve on %s not ready: %v\n%s", addr, err, c.stderr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitExited waits until the child process has exited (a zombie counts:
// its locks and files are released), so another may take its data
// directory.
func waitExited(t *testing.T, ctx context.Context, c *child) {
	t.Helper()
	for enginestest.Running(c.cmd.Process.Pid) {
		if ctx.Err() != nil {
			t.Fatalf("serve (pid %d) did not exit after failing to bind", c.cmd.Process.Pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// redisPID is the one redis-server running on the server's data directory.
func (s *faultServer) redisPID(t *testing.T) int {
	t.Helper()
	pids := redistest.ServersIn(t, s.data)
	if len(pids) != 1 {
		t.Fatalf("%d redis-servers on %s (%v), want exactly 1", len(pids), s.data, pids)
	}
	return pids[0]
}

// docState is the answer of GET /v1/documents/{id}.
type docState struct {
	Chars  int `json:"chars"`
	Chunks int `json:"chunks"`
	Stages struct {
		Chunked, Extracted, Indexed bool
	} `json:"stages"`
}

func (d docState) done() bool { return d.Stages.Chunked && d.Stages.Extracted && d.Stages.Indexed }

// waitProcessed waits until every document in ids is chunked, extracted
// and indexed, and fails naming those that are not by the deadline. It
// then waits for the pipeline to be idle: "extracted" says the triplets
// were published, and the kg-writer may not have written them yet.
func waitProcessed(t *testing.T, ctx context.Context, s *faultServer, ids []string, within time.Duration) {
	t.Helper()
	wctx, cancel := context.WithTimeout(ctx, within)
	defer cancel()
	pending := slices.Clone(ids)
	for len(pending) > 0 {
		var still []string
		for _, id := range pending {
			code, body := httpJSON(wctx, http.MethodGet, s.url("/v1/documents/"+id), nil)
			var st docState
			if code != http.StatusOK || json.Unmarshal(body, &st) != nil || !st.done() {
				still = append(still, id)
			}
		}
		pending = still
		if len(pending) == 0 {
			waitIdle(t, wctx, s)
			return
		}
		if wctx.Err() != nil {
			var states []string
			for _, id := range pending {
				code, body := httpJSON(ctx, http.MethodGet, s.url("/v1/documents/"+id), nil)
				states = append(states, fmt.Sprintf("%s: %d %s", id, code, body))
			}
			t.Fatalf("%d of %d acknowledged documents not fully processed within %s (lost):\n%s\nserve stderr:\n%s",
				len(pending), len(ids), within, strings.Join(states, "\n"), tail(s.c.stderr.String(), 4000))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitIdle waits until every stage's consumer group has finished its
// input (GET /v1/pipeline: lag 0 everywhere, read from the broker).
func waitIdle(t *testing.T, ctx context.Context, s *faultServer) {
	t.Helper()
	for {
		code, body := httpJSON(ctx, http.MethodGet, s.url("/v1/pipeline"), nil)
		var p struct {
			Stages []struct {
				Name string `json:"name"`
				Lag  int64  `json:"lag"`
			} `json:"stages"`
			Error string `json:"error"`
		}
		idle := code == http.StatusOK && json.Unmarshal(body, &p) == nil && p.Error == "" && len(p.Stages) > 0
		for _, st := range p.Stages {
			idle = idle && st.Lag == 0
		}
		if idle {
			return
		}
		if ctx.Err() != nil {
			t.Fatalf("pipeline not idle: %d %s", code, body)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// digest is what the store holds for one document, in a form two runs can
// compare: its progress counts, its chunks' texts, and its subject's
// entity with aliases and edges (without times, which differ by run).
func digest(t *testing.T, ctx context.Context, s *faultServer, d faultDoc) string {
	t.Helper()
	get := func(path string) []byte {
		code, body := httpJSON(ctx, http.MethodGet, s.url(path), nil)
		if code != http.StatusOK {
			t.Fatalf("GET %s on %s: %d %s", path, s.addr, code, body)
		}
		return body
	}
	var st docState
	if err := json.Unmarshal(get("/v1/documents/"+d.ID), &st); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "chars %d chunks %d\n", st.Chars, st.Chunks)
	for i := 0; i < st.Chunks; i++ {
		var c struct {
			Text string `json:"text"`
		}
		if err := json.Unmarshal(get(fmt.Sprintf("/v1/chunks/%s-%04d", d.ID, i)), &c); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "chunk %d %s\n", i, c.Text)
	}
	var e struct {
		ID      string   `json:"id"`
		Aliases []string `json:"aliases"`
		Chunks  []string `json:"chunks"`
		Edges   []struct {
			Relation, Tail, Evidence, Method string
			ChunkID                          string `json:"chunk_id"`
			TripletID                        string `json:"triplet_id"`
			Span                             struct{ Start, End int }
		} `json:"edges"`
	}
	if err := json.Unmarshal(get("/v1/entities/"+url.PathEscape(d.Name)), &e); err != nil {
		t.Fatal(err)
	}
	aliases := slices.Clone(e.Aliases)
	slices.Sort(aliases)
	chunks := slices.Clone(e.Chunks)
	slices.Sort(chunks)
	fmt.Fprintf(&b, "entity %s aliases %q chunks %q\n", e.ID, aliases, chunks)
	var edges []string
	for _, x := range e.Edges {
		edges = append(edges, fmt.Sprintf("%s|%s|%s|%d-%d|%s|%s|%s", x.Relation, x.Tail, x.ChunkID, x.Span.Start, x.Span.End, x.Evidence, x.Method, x.TripletID))
	}
	slices.Sort(edges)
	fmt.Fprintf(&b, "%d edges\n%s\n", len(edges), strings.Join(edges, "\n"))
	return b.String()
}

// compareWithCleanRun ingests docs into a fresh serve with nothing killed
// and requires every document's digest on s to equal the clean one's:
// processed once in effect, nothing missing and nothing doubled.
func compareWithCleanRun(t *testing.T, ctx context.Context, s *faultServer, docs []faultDoc) {
	t.Helper()
	if len(docs) == 0 {
		t.Fatal("no document was acknowledged")
	}
	clean := startFaultServe(t, ctx)
	var recs []map[string]string
	for _, d := range docs {
		recs = append(recs, d.record())
	}
	if code, body := httpJSON(ctx, http.MethodPost, clean.url("/v1/documents"), map[string]any{"documents": recs}); code != http.StatusAccepted {
		t.Fatalf("clean run: POST /v1/documents: %d %s", code, body)
	}
	waitProcessed(t, ctx, clean, ids(docs), 60*time.Second)
	for _, d := range docs {
		got, want := digest(t, ctx, s, d), digest(t, ctx, clean, d)
		if got != want {
			t.Errorf("document %s after the fault differs from the clean run:\n%s\nclean:\n%s", d.ID, got, want)
		}
	}
	t.Logf("%d documents equal to the clean run (chunk texts, entity, aliases and edges)", len(docs))
}

// readyWatch polls /readyz and records when it stopped and started
// answering 200.
type readyWatch struct {
	mu        sync.Mutex
	firstDown time.Time
	lastDown  time.Time
	upAgain   time.Time
	downPolls int
	polls     int
	stop      chan struct{}
	done      chan struct{}
}

func watchReady(ctx context.Context, s *faultServer) *readyWatch {
	w := &readyWatch{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for {
			// A poll that fails counts from when it was sent: while Redis
			// is paused, the answer (503) waits for the readiness check's
			// timeout.
			sent := time.Now()
			code, _ := httpJSON(ctx, http.MethodGet, s.url("/readyz"), nil)
			now := time.Now()
			w.mu.Lock()
			w.polls++
			if code != http.StatusOK {
				w.downPolls++
				if w.firstDown.IsZero() {
					w.firstDown = sent
				}
				w.lastDown = now
				w.upAgain = time.Time{}
			} else if !w.firstDown.IsZero() && w.upAgain.IsZero() {
				w.upAgain = now
			}
			w.mu.Unlock()
			select {
			case <-w.stop:
				return
			case <-ctx.Done():
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	return w
}

// finish stops the watch and says how long /readyz was not ready: from
// when the first failed poll was sent to the first 200 after the last
// failed one.
func (w *readyWatch) finish(fault time.Time) (notReady, firstAfter, upAfter time.Duration, down int) {
	close(w.stop)
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.firstDown.IsZero() {
		return 0, 0, 0, 0
	}
	up := w.upAgain
	if up.IsZero() {
		up = w.lastDown
	}
	return up.Sub(w.firstDown), w.firstDown.Sub(fault), up.Sub(fault), w.downPolls
}

// ingestUnderFault posts a new document every 250 ms (4/s) for about
// postFor, applies fault to the redis-server of s after faultAfter, and
// returns the acknowledged documents and the number of 503s. With burst,
// that many more documents are posted in one batch just before the fault,
// so the stages are busy when it comes. The fault runs on its own goroutine and returns when it is over; the readiness
// watch measures from its start.
func ingestUnderFault(t *testing.T, ctx context.Context, s *faultServer, postFor, faultAfter time.Duration, burst int,
	fault func()) (accepted []faultDoc, refused int) {
	t.Helper()
	var (
		mu      sync.Mutex
		wg      sync.WaitGroup
		others  []string
		slowest time.Duration
	)
	posts := int(postFor / (250 * time.Millisecond))
	faultAt := int(faultAfter / (250 * time.Millisecond))
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	var (
		watch    *readyWatch
		faultErr = make(chan struct{})
		start    time.Time
	)
	for i := 0; i < posts; i++ {
		if i == faultAt {
			if burst > 0 {
				var recs []map[string]string
				var batch []faultDoc
				for j := 0; j < burst; j++ {
					d := newFaultDoc(1000 + j)
					batch = append(batch, d)
					recs = append(recs, d.record())
				}
				if code, body := httpJSON(ctx, http.MethodPost, s.url("/v1/documents"), map[string]any{"documents": recs}); code != http.StatusAccepted {
					t.Fatalf("burst before the fault: %d %s", code, body)
				}
				mu.Lock()
				accepted = append(accepted, batch...)
				mu.Unlock()
			}
			watch = watchReady(ctx, s)
			start = time.Now()
			go func() { defer close(faultErr); fault() }()
		}
		d := newFaultDoc(i)
		wg.Add(1)
		go func() {
			defer wg.Done()
			sent := time.Now()
			code, body := httpJSON(ctx, http.MethodPost, s.url("/v1/documents"), d.record())
			took := time.Since(sent)
			mu.Lock()
			defer mu.Unlock()
			slowest = max(slowest, took)
			switch code {
			case http.StatusAccepted:
				var resp struct {
					DocIDs []string `json:"doc_ids"`
				}
				if json.Unmarshal(body, &resp) != nil || !slices.Equal(resp.DocIDs, []string{d.ID}) {
					others = append(others, fmt.Sprintf("%s: 202 with %s", d.ID, body))
				}
				accepted = append(accepted, d)
			case http.StatusServiceUnavailable:
				refused++
			default:
				others = append(others, fmt.Sprintf("%s: %d %s", d.ID, code, body))
			}
		}()
		select {
		case <-tick.C:
		case <-ctx.Done():
			t.Fatal("deadline while posting")
		}
	}
	wg.Wait()
	<-faultErr
	// Readiness must come back by itself; wait for it, bounded, before
	// reading the watch.
	rctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	waitReady(t, rctx, s.addr, s.c)
	notReady, first, up, polls := watch.finish(start)
	t.Logf("posted %d documents at 4/s and %d in a batch before the fault: %d acknowledged (202), %d refused (503), slowest answer %s; /readyz not ready for %s (%d failed polls), from %s to %s after the fault began",
		posts, burst, len(accepted), refused, slowest.Round(time.Millisecond), notReady.Round(time.Millisecond), polls, first.Round(time.Millisecond), up.Round(time.Millisecond))
	if len(others) > 0 {
		t.Errorf("answers other than 202 and 503:\n%s", strings.Join(others, "\n"))
	}
	slices.SortFunc(accepted, func(a, b faultDoc) int { return strings.Compare(a.ID, b.ID) })
	return accepted, refused
}

// metricSum adds up every series of a counter or gauge on a /metrics
// page.
func metricSum(t *testing.T, ctx context.Context, metricsURL, name string) float64 {
	t.Helper()
	code, body := httpJSON(ctx, http.MethodGet, metricsURL, nil)
	if code != http.StatusOK {
		t.Fatalf("GET %s: %d", metricsURL, code)
	}
	sum := 0.0
	for _, line := range strings.Split(string(body), "\n") {
		if !strings.HasPrefix(line, name+"{") && !strings.HasPrefix(line, name+" ") {
			continue
		}
		f := strings.Fields(line)
		v, err := strconv.ParseFloat(f[len(f)-1], 64)
		if err != nil {
			t.Fatalf("%s: %q", metricsURL, line)
		}
		sum += v
	}
	return sum
}

// checkNoDeadLetters fails when a stage dead-lettered anything: an outage
// must pause the stages, never dead-letter what they were handling.
func checkNoDeadLetters(t *testing.T, ctx context.Context, metricsURL string) {
	t.Helper()
	if n := metricSum(t, ctx, metricsURL, "annalist_stage_dead_lettered_total"); n != 0 {
		t.Errorf("%v records dead-lettered during the fault", n)
	}
	t.Logf("stages: 0 dead-lettered, %v calls retried after transient errors",
		metricSum(t, ctx, metricsURL, "annalist_stage_retries_total"))
}

func ids(docs []faultDoc) []string {
	out := make([]string, len(docs))
	for i, d := range docs {
		out[i] = d.ID
	}
	return out
}

// TestRedisKilledDuringIngestionLosesNothing: the embedded redis-server
// is killed with SIGKILL under serve while documents arrive at 4/s; the
// supervisor restarts it, and every document answered 202 ends chunked,
// extracted and indexed with no manual step, its chunks and KG facts equal
// to a clean run's.
func TestRedisKilledDuringIngestionLosesNothing(t *testing.T) {
	ctx := faultTest(t, 100*time.Second)
	s := startFaultServe(t, ctx)
	pid := s.redisPID(t)
	var restarted int
	accepted, _ := ingestUnderFault(t, ctx, s, 10*time.Second, 3*time.Second, 0, func() {
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Errorf("kill redis-server %d: %v", pid, err)
			return
		}
		killed := time.Now()
		// The supervisor must start a new one on the same directory.
		for ctx.Err() == nil {
			if pids := redistest.ServersIn(t, s.data); len(pids) == 1 && pids[0] != pid {
				restarted = pids[0]
				t.Logf("redis-server %d killed; %d started in its place after %s", pid, restarted, time.Since(killed).Round(time.Millisecond))
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
	if restarted == 0 {
		t.Fatal("the killed redis-server was not restarted")
	}
	waitProcessed(t, ctx, s, ids(accepted), 90*time.Second)
	t.Logf("all %d acknowledged documents fully processed: 0 lost", len(accepted))
	if pid := s.redisPID(t); pid != restarted {
		t.Errorf("redis-server %d runs, want the restarted %d", pid, restarted)
	}
	checkNoDeadLetters(t, ctx, s.url("/metrics"))
	compareWithCleanRun(t, ctx, s, accepted)
}

// TestRedisDownForSecondsDuringIngestionLosesNothing: a single kill is
// over before clients notice (the supervisor restarts Redis within its
// first backoff), so here every redis-server that appears on the data
// directory is killed for 3 s, an outage long enough for /readyz to turn
// 503, the API to refuse writes and the stages to pause. Every document
// answered 202 ends processed, equal to a clean run.
func TestRedisDownForSecondsDuringIngestionLosesNothing(t *testing.T) {
	ctx := faultTest(t, 100*time.Second)
	s := startFaultServe(t, ctx)
	kills := 0
	accepted, refused := ingestUnderFault(t, ctx, s, 10*time.Second, 2*time.Second, 20, func() {
		end := time.Now().Add(3 * time.Second)
		for time.Now().Before(end) && ctx.Err() == nil {
			for _, pid := range redistest.ServersIn(t, s.data) {
				if syscall.Kill(pid, syscall.SIGKILL) == nil {
					kills++
				}
			}
			time.Sleep(5 * time.Millisecond)
		}
	})
	t.Logf("%d redis-servers killed in 3 s", kills)
	if refused == 0 {
		t.Errorf("no write refused with 503 during a 3 s Redis outage")
	}
	waitProcessed(t, ctx, s, ids(accepted), 90*time.Second)
	t.Logf("all %d acknowledged documents fully processed: 0 lost", len(accepted))
	s.redisPID(t)
	checkNoDeadLetters(t, ctx, s.url("/metrics"))
	compareWithCleanRun(t, ctx, s, accepted)
}

// TestRedisPausedDuringIngestionLosesNothing: the redis-server is stopped
// with SIGSTOP for 5 s and continued while documents arrive at 4/s;
// everything acknowledged is processed once.
func TestRedisPausedDuringIngestionLosesNothing(t *testing.T) {
	ctx := faultTest(t, 100*time.Second)
	s := startFaultServe(t, ctx)
	paused := s.redisPID(t)
	// A test that fails while Redis is stopped must not leave it stopped.
	t.Cleanup(func() { _ = syscall.Kill(paused, syscall.SIGCONT) })
	accepted, _ := ingestUnderFault(t, ctx, s, 10*time.Second, 2*time.Second, 20, func() {
		if err := syscall.Kill(paused, syscall.SIGSTOP); err != nil {
			t.Errorf("stop redis-server %d: %v", paused, err)
			return
		}
		select {
		case <-time.After(5 * time.Second):
		case <-ctx.Done():
		}
		if err := syscall.Kill(paused, syscall.SIGCONT); err != nil {
			t.Errorf("continue redis-server %d: %v", paused, err)
		}
	})
	waitProcessed(t, ctx, s, ids(accepted), 90*time.Second)
	t.Logf("all %d acknowledged documents fully processed: 0 lost", len(accepted))
	if pid := s.redisPID(t); pid != paused {
		t.Logf("redis-server %d replaced the paused %d", pid, paused)
	}
	checkNoDeadLetters(t, ctx, s.url("/metrics"))
	compareWithCleanRun(t, ctx, s, accepted)
}

// requestState is the answer of GET /v1/requests/{id}.
type requestState struct {
	State   string `json:"state"`
	Subject string `json:"subject"`
	Version int    `json:"version"`
	Error   string `json:"error"`
}

// pageSentences is the text of each sentence of one version of a page.
func pageSentences(t *testing.T, ctx context.Context, s *faultServer, subject string, version int) []string {
	t.Helper()
	code, body := httpJSON(ctx, http.MethodGet, s.url(fmt.Sprintf("/v1/pages/%s?version=%d", url.PathEscape(subject), version)), nil)
	if code != http.StatusOK {
		t.Fatalf("page %s version %d: %d %s", subject, version, code, body)
	}
	var p struct {
		Version   int `json:"version"`
		Sentences []struct {
			Text string `json:"text"`
		} `json:"sentences"`
	}
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatal(err)
	}
	if p.Version != version {
		t.Fatalf("page %s: asked version %d, got %d", subject, version, p.Version)
	}
	out := make([]string, len(p.Sentences))
	for i, x := range p.Sentences {
		out[i] = x.Text
	}
	return out
}

// postRequest posts a biography request, retrying while the API answers
// 503 (what a client told Retry-After does), and returns its id.
func postRequest(t *testing.T, ctx context.Context, s *faultServer, subject string) (id string, refused int) {
	t.Helper()
	for {
		code, body := httpJSON(ctx, http.MethodPost, s.url("/v1/requests"), map[string]string{"kind": "biography", "subject": subject})
		switch code {
		case http.StatusAccepted:
			var st struct {
				RequestID string `json:"request_id"`
			}
			if err := json.Unmarshal(body, &st); err != nil || st.RequestID == "" {
				t.Fatalf("POST /v1/requests: 202 with %s", body)
			}
			return st.RequestID, refused
		case http.StatusServiceUnavailable, 0:
			refused++
		default:
			t.Fatalf("POST /v1/requests %s: %d %s", subject, code, body)
		}
		select {
		case <-ctx.Done():
			t.Fatalf("POST /v1/requests %s: refused until the deadline", subject)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// TestRedisKilledDuringGenerationLosesNoRequest: with a small corpus
// ingested, biographies are requested and the redis-server is killed
// while they are written; every acknowledged request ends published
// within its deadline, and every page equals a control page written
// afterwards with nothing killed.
func TestRedisKilledDuringGenerationLosesNoRequest(t *testing.T) {
	ctx := faultTest(t, 100*time.Second)
	s := startFaultServe(t, ctx, "--request-deadline", "90s")
	const nDocs = 10
	var docs []faultDoc
	var recs []map[string]string
	for i := 0; i < nDocs; i++ {
		d := newFaultDoc(100 + i)
		docs = append(docs, d)
		recs = append(recs, d.record())
	}
	if code, body := httpJSON(ctx, http.MethodPost, s.url("/v1/documents"), map[string]any{"documents": recs}); code != http.StatusAccepted {
		t.Fatalf("POST /v1/documents: %d %s", code, body)
	}
	waitProcessed(t, ctx, s, ids(docs), 60*time.Second)

	// Half the requests are accepted before the kill and are still being
	// written when it comes; the rest are posted while Redis is down or coming
	// back, retried on 503 as a client would.
	const rounds = 3
	type req struct{ id, subject string }
	var reqs []req
	refused := 0
	for r := 0; r < rounds; r++ {
		for _, d := range docs {
			if r == 1 && d.ID == docs[len(docs)/2].ID {
				pid := s.redisPID(t)
				unfinished := 0
				for _, q := range reqs {
					_, body := httpJSON(ctx, http.MethodGet, s.url("/v1/requests/"+q.id), nil)
					var st requestState
					if json.Unmarshal(body, &st) != nil || st.State == "queued" {
						unfinished++
					}
				}
				if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
				t.Logf("redis-server killed with %d of %d accepted requests unfinished", unfinished, len(reqs))
			}
			id, n := postRequest(t, ctx, s, d.Name)
			refused += n
			reqs = append(reqs, req{id, d.Name})
		}
	}
	t.Logf("%d requests accepted, %d posts refused with 503 on the way", len(reqs), refused)

	versions := map[string][]int{}
	for _, q := range reqs {
		var st requestState
		for {
			code, body := httpJSON(ctx, http.MethodGet, s.url("/v1/requests/"+q.id), nil)
			if code == http.StatusOK && json.Unmarshal(body, &st) == nil && st.State != "queued" {
				break
			}
			if ctx.Err() != nil {
				t.Fatalf("request %s (%s) not finished by the test's deadline: %d %s\n%s", q.id, q.subject, code, body, tail(s.c.stderr.String(), 4000))
			}
			time.Sleep(50 * time.Millisecond)
		}
		if st.State != "published" {
			t.Fatalf("request %s (%s) ended %q: %s\n%s", q.id, q.subject, st.State, st.Error, tail(s.c.stderr.String(), 4000))
		}
		versions[q.subject] = append(versions[q.subject], st.Version)
	}
	for _, d := range docs {
		vs := versions[d.Name]
		if len(vs) != rounds {
			t.Fatalf("%s: %d published versions, want %d", d.Name, len(vs), rounds)
		}
		id, _ := postRequest(t, ctx, s, d.Name)
		var st requestState
		for st.State == "" || st.State == "queued" {
			_, body := httpJSON(ctx, http.MethodGet, s.url("/v1/requests/"+id), nil)
			_ = json.Unmarshal(body, &st)
			if ctx.Err() != nil {
				t.Fatalf("control request of %s not finished", d.Name)
			}
			time.Sleep(20 * time.Millisecond)
		}
		if st.State != "published" {
			t.Fatalf("control request of %s: %+v", d.Name, st)
		}
		want := pageSentences(t, ctx, s, d.Name, st.Version)
		if len(want) == 0 || duplicates(want) != "" {
			t.Fatalf("control page of %s: %q", d.Name, want)
		}
		for _, v := range vs {
			if got := pageSentences(t, ctx, s, d.Name, v); !slices.Equal(got, want) {
				t.Errorf("%s version %d: sentences\n%q\nwant (control)\n%q", d.Name, v, got, want)
			}
		}
	}
	s.redisPID(t)
	checkNoDeadLetters(t, ctx, s.url("/metrics"))
}

// TestBrokerKilledAndRestartedLosesNothing runs the multi-process mode: a
// standalone broker, the ingestion stages in `consume ingest`, and the API
// in `serve --stages=false`. The broker is killed with SIGKILL while
// documents arrive at 4/s and restarted on the same data directory and
// port; every acknowledged document ends processed, equal to a clean run.
func TestBrokerKilledAndRestartedLosesNothing(t *testing.T) {
	ctx := faultTest(t, 100*time.Second)
	brokerData := t.TempDir()
	brokerAddr := freeAddr(t)
	// startBroker starts the broker and waits until it listens. It may run
	// on the fault's goroutine, so it reports instead of failing the test.
	startBroker := func() (*child, error) {
		b := startChild(t, "broker", "--data-dir", brokerData, "--broker-addr", brokerAddr, "--log-level", "warn")
		for {
			c, err := net.DialTimeout("tcp", brokerAddr, time.Second)
			if err == nil {
				c.Close()
				return b, nil
			}
			if ctx.Err() != nil {
				return b, fmt.Errorf("broker on %s not listening: %v\n%s", brokerAddr, err, b.stderr)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	b, err := startBroker()
	if err != nil {
		t.Fatal(err)
	}
	rs := redistest.Server(t)
	data := t.TempDir()
	common := []string{"--brokers", brokerAddr, "--redis-addr", rs.Addr(), "--data-dir", data,
		"--kafka-session-timeout", "2s", "--kafka-heartbeat-interval", "200ms",
		"--kafka-rebalance-timeout", "2s", "--kafka-max-backoff", "2s", "--log-level", "warn"}
	stagesOps := freeAddr(t)
	// The ingestion stages, and the scheduler, which reads their
	// kg-updates: the pipeline is idle when every group that reads a
	// topic has caught up.
	stages := startChild(t, append([]string{"consume", "ingest", "scheduler", "--metrics-addr", stagesOps}, common...)...)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("consume ingest stderr:\n%s", tail(stages.stderr.String(), 4000))
		}
	})
	s := &faultServer{addr: freeAddr(t), data: data}
	s.c = startChild(t, append([]string{"serve", "--stages=false", "--addr", s.addr}, common...)...)
	waitReady(t, ctx, s.addr, s.c)

	var restartedAt time.Time
	accepted, _ := ingestUnderFault(t, ctx, s, 10*time.Second, 3*time.Second, 20, func() {
		if err := b.cmd.Process.Kill(); err != nil {
			t.Errorf("kill broker: %v", err)
			return
		}
		_ = b.cmd.Wait()
		// Down for a second, as a restart by an operator or a supervisor
		// would be at the soonest.
		select {
		case <-time.After(time.Second):
		case <-ctx.Done():
		}
		if _, err := startBroker(); err != nil {
			t.Errorf("restart: %v", err)
			return
		}
		restartedAt = time.Now()
	})
	if restartedAt.IsZero() {
		t.Fatal("broker not restarted")
	}
	waitProcessed(t, ctx, s, ids(accepted), 90*time.Second)
	t.Logf("all %d acknowledged documents fully processed after the broker restart: 0 lost", len(accepted))
	checkNoDeadLetters(t, ctx, "http://"+stagesOps+"/metrics")
	compareWithCleanRun(t, ctx, s, accepted)
}
