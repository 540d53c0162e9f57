package cli_test

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/annalist-dev/annalist/infra/broker"
	"github.com/annalist-dev/annalist/infra/kafka"
	"github.com/annalist-dev/annalist/infra/pages"
	"github.com/annalist-dev/annalist/infra/redisdb"
	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
	"github.com/annalist-dev/annalist/internal/wiring/app"
	"github.com/annalist-dev/annalist/internal/wiring/cli"
	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
)

// childArgs makes the test binary run one annalist command line instead of
// the tests (arguments separated by 0x1f), so a test can run stages in
// processes of their own and kill them with SIGKILL.
const childArgs = "ANNALIST_CLI_TEST_CHILD_ARGS"

func TestMain(m *testing.M) {
	if a := os.Getenv(childArgs); a != "" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		code := cli.Run(ctx, append([]string{"annalist"}, strings.Split(a, "\x1f")...), os.Stdin, os.Stdout, os.Stderr)
		stop()
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// child is an annalist process running a command line.
type child struct {
	cmd    *exec.Cmd
	stderr *syncBuffer
}

// syncBuffer is a bytes.Buffer safe to read while the child writes to it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

func startChild(t *testing.T, args ...string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childArgs+"="+strings.Join(args, "\x1f"))
	c := &child{cmd: cmd, stderr: &syncBuffer{}}
	cmd.Stderr = c.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	return c
}

// processes starts what a multi-process test runs its annalist processes
// around, a broker and a redis-server of its own, and returns the config
// that reaches them from the test and the flags that do from a child
// (short session timeouts, so a killed member leaves its group soon).
func processes(t *testing.T, ctx context.Context) (app.Config, []string) {
	t.Helper()
	b, err := broker.Start(ctx, broker.Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	rs := redistest.Server(t)
	dataDir := t.TempDir()
	common := []string{"--brokers", b.Addrs()[0], "--redis-addr", rs.Addr(), "--data-dir", dataDir,
		"--kafka-session-timeout", "2s", "--kafka-heartbeat-interval", "200ms",
		"--kafka-rebalance-timeout", "2s", "--log-level", "warn"}
	cfg := app.Config{DataDir: dataDir, Kafka: kafka.Config{Brokers: b.Addrs()}, Redis: redisdb.Config{Addr: rs.Addr()}}
	return cfg, common
}

// TestVerifierKilledMidRequestLosesNoSentence runs the pipeline as
// separate processes around a broker and a redis-server: one process for
// the verifier, one for every other stage. Requests are published; once the
// first page is out and others are still being written, the verifier is
// killed with SIGKILL and restarted. Every page must then complete, each
// equal to a page written after the crash without interference: no
// sentence lost or duplicated.
func TestVerifierKilledMidRequestLosesNoSentence(t *testing.T) {
	if testing.Short() {
		t.Skip("multi-process crash test")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cfg, common := processes(t, ctx)
	others := []string{"consume", "ingest", "writer", "router", "solver-era", "solver-alias",
		"solver-refconflict", "solver-knowledge", "solver-regenerate", "assembler"}
	startChild(t, append(others, common...)...)
	verifier := startChild(t, append([]string{"consume", "verifier"}, common...)...)

	if out, errs, code := run(t, append([]string{"ingest", "../demo/corpus", "--json"}, common...)...); code != 0 {
		t.Fatalf("ingest: exit %d\n%s\n%s", code, out, errs)
	}
	a, err := app.Open(ctx, cfg, zerolog.Nop(), app.Needs{Broker: true, Redis: true})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()

	subjects := []string{"陆文渊", "顾承泽", "严鹤龄", "Margaret Ellery"}
	const rounds = 4
	var ids []string
	bySubject := map[string][]string{}
	for r := 0; r < rounds; r++ {
		for _, s := range subjects {
			req, err := a.Request(ctx, schemas.DefaultTenant, schemas.Request{Kind: schemas.KindBiography, Subject: s})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, req.RequestID)
			bySubject[s] = append(bySubject[s], req.RequestID)
		}
	}
	// Kill the verifier as soon as one page is out while others are not.
	unfinished := 0
	for unfinished == 0 {
		done := 0
		for _, id := range ids {
			st, err := a.Pages.Request(ctx, schemas.DefaultTenant, id)
			if err != nil {
				t.Fatal(err)
			}
			if st.Finished() {
				done++
			}
		}
		if done > 0 {
			if done == len(ids) {
				t.Fatalf("all %d requests finished before the kill; nothing was in flight", len(ids))
			}
			if err := verifier.cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			_ = verifier.cmd.Wait()
			unfinished = len(ids) - done
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("no page before the deadline; verifier stderr:\n%s", verifier.stderr)
		}
		time.Sleep(2 * time.Millisecond)
	}
	t.Logf("verifier killed with %d of %d requests unfinished", unfinished, len(ids))
	// Restart only once drafts wait for the dead verifier, so the restarted
	// one has work a killed one left.
	for pending := int64(0); pending == 0; {
		lags, err := kafka.Lag(ctx, cfg.Kafka, "annalist."+topology.StageVerifier, []string{topology.Drafts})
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range lags {
			from := l.Committed
			if from < 0 {
				from = l.Start
			}
			pending += l.End - from
		}
		if ctx.Err() != nil {
			t.Fatal("no draft waits for the killed verifier")
		}
		time.Sleep(2 * time.Millisecond)
	}
	startChild(t, append([]string{"consume", "verifier"}, common...)...)

	sts, err := a.Pages.Wait(ctx, schemas.DefaultTenant, ids...)
	if err != nil {
		t.Fatalf("waiting for the pages after the restart: %v", err)
	}
	for _, st := range sts {
		if st.State != pages.RequestPublished {
			t.Fatalf("request %s: %+v", st.RequestID, st)
		}
	}
	// Control: one more page per subject, written with nothing killed.
	for _, s := range subjects {
		res, err := a.Generate(ctx, schemas.DefaultTenant, false, true, []schemas.Request{{Kind: schemas.KindBiography, Subject: s}})
		if err != nil || res[0].Page == nil {
			t.Fatalf("control page of %s: %+v, %v", s, res, err)
		}
		want := texts(*res[0].Page)
		if len(want) == 0 {
			t.Fatalf("control page of %s has no sentence", s)
		}
		if dup := duplicates(want); dup != "" {
			t.Fatalf("control page of %s repeats %q", s, dup)
		}
		for i, id := range bySubject[s] {
			st := sts[slices.Index(ids, id)]
			p, err := a.Pages.Version(ctx, schemas.DefaultTenant, st.Page, st.Version)
			if err != nil {
				t.Fatal(err)
			}
			if got := texts(p); !slices.Equal(got, want) {
				t.Errorf("%s, request %d of %d (version %d): sentences\n%q\nwant (control)\n%q", s, i+1, rounds, p.Version, got, want)
			}
			if int64(len(p.Sentences)) != p.Stats["accepted"]+p.Stats["kept"] {
				t.Errorf("%s version %d: %d sentences, %d accepted, %d kept", s, p.Version, len(p.Sentences), p.Stats["accepted"], p.Stats["kept"])
			}
		}
	}
}

func texts(p schemas.Page) []string {
	out := make([]string, len(p.Sentences))
	for i, s := range p.Sentences {
		out[i] = s.Text
	}
	return out
}

func duplicates(xs []string) string {
	seen := map[string]bool{}
	for _, x := range xs {
		if seen[x] {
			return x
		}
		seen[x] = true
	}
	return ""
}

// TestConsumeServesMetrics: a stage process started with --metrics-addr
// answers /metrics with the registry's series and /readyz with 200.
func TestConsumeServesMetrics(t *testing.T) {
	if testing.Short() {
		t.Skip("multi-process test")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := broker.Start(ctx, broker.Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	rs := redistest.Server(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	c := startChild(t, "consume", "router", "--brokers", b.Addrs()[0], "--redis-addr", rs.Addr(),
		"--data-dir", t.TempDir(), "--metrics-addr", addr, "--log-level", "warn")
	var body string
	for {
		resp, err := http.Get("http://" + addr + "/metrics")
		if err == nil {
			data, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				body = string(data)
				break
			}
		}
		if ctx.Err() != nil {
			t.Fatalf("no /metrics from the stage process: %v\n%s", err, c.stderr)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(body, "annalist_") || !strings.Contains(body, "go_goroutines") {
		t.Fatalf("/metrics lacks the registry's series:\n%.500s", body)
	}
	resp, err := http.Get("http://" + addr + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/readyz = %d", resp.StatusCode)
	}
}
