package cli_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/annalist-dev/annalist/infra/pages"
	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
	"github.com/annalist-dev/annalist/internal/wiring/app"
	"github.com/annalist-dev/annalist/internal/wiring/cli"
	"github.com/annalist-dev/annalist/schemas"
)

// modelServer is an OpenAI-compatible chat server on loopback whose every
// answer is reply's.
func modelServer(t *testing.T, reply func(w http.ResponseWriter, r *http.Request)) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var calls atomic.Int64
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		calls.Add(1)
		reply(w, r)
	}))
	t.Cleanup(s.Close)
	return s, &calls
}

// proseAnswer is what small local models often answer instead of the JSON
// asked for.
func proseAnswer(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "small",
		"choices": []map[string]any{{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": "Sure! Here is a sentence about the subject, who was a famous official."}}},
	})
}

// The model cases of a misbehaving model, end to end through `annalist generate` with
// the LLM engine pointed at an OpenAI-compatible server on loopback:
//
//   - a server answering prose: each sentence is written by the offline
//     engine after the bounded retries, the page says so, exit 0 (it used
//     to dead-letter the request and wait until killed);
//   - a server answering 500: the request fails at its deadline with the
//     reason, generate exits 1, and GET /v1/requests/{id} and the event
//     stream say failed (it used to wait until killed).
func TestGenerateWithAMisbehavingModelEnds(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the embedded pipeline")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	redistest.Require(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	t.Setenv("ANNALIST_LLM_BASE_URL", "")
	common := []string{"--data-dir", data, "--log-level", "error"}
	corpus := filepath.Join(dir, "corpus")
	writeFile(t, corpus, "001.txt", volume)
	if _, stderr, code := run(t, append([]string{"ingest", corpus}, common...)...); code != 0 {
		t.Fatalf("ingest exit %d: %s", code, stderr)
	}

	t.Run("prose answers are written offline", func(t *testing.T) {
		srv, calls := modelServer(t, proseAnswer)
		start := time.Now()
		out, stderr, code := run(t, append([]string{"generate", "biography", "甲乙", "--json",
			"--llm-base-url", srv.URL + "/v1", "--llm-model", "small", "--verifier", "offline",
			"--request-deadline", "60s"}, common...)...)
		if code != 0 {
			t.Fatalf("generate exit %d after %s: %s", code, time.Since(start), stderr)
		}
		var p schemas.Page
		if err := json.Unmarshal([]byte(out), &p); err != nil {
			t.Fatalf("generate --json printed %q: %v", out, err)
		}
		if len(p.Sentences) == 0 || p.Stats["offline_fallbacks"] == 0 {
			t.Fatalf("page %+v; want sentences written offline", p)
		}
		offline := 0
		for _, s := range p.Sentences {
			if strings.Contains(s.OfflineFallback, "written offline") {
				offline++
			}
		}
		if offline == 0 || calls.Load() == 0 {
			t.Fatalf("%d of %d sentences say they were written offline, %d model calls: %+v",
				offline, len(p.Sentences), calls.Load(), p.Sentences)
		}
	})

	t.Run("a model answering 500 fails the request at its deadline", func(t *testing.T) {
		srv, calls := modelServer(t, func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprint(w, `{"error":"model overloaded"}`)
		})
		start := time.Now()
		out, stderr, code := run(t, append([]string{"generate", "biography", "甲乙", "--json",
			"--llm-base-url", srv.URL + "/v1", "--llm-model", "small", "--verifier", "offline",
			"--llm-max-retries", "1", "--request-deadline", "3s"}, common...)...)
		took := time.Since(start)
		if code != 1 || !strings.Contains(stderr, "deadline exceeded after 3s") {
			t.Fatalf("generate: exit %d after %s, stderr %q; want exit 1 with the deadline", code, took, stderr)
		}
		if took > 30*time.Second {
			t.Errorf("generate took %s with a deadline of 3s", took)
		}
		var st pages.RequestStatus
		if err := json.Unmarshal([]byte(out), &st); err != nil || st.State != pages.RequestFailed || st.RequestID == "" ||
			!strings.Contains(st.Error, "deadline exceeded") {
			t.Fatalf("generate --json printed %q (%v); want the failed status with the reason", out, err)
		}
		if calls.Load() == 0 {
			t.Error("the model was never called")
		}

		// Every reader sees the same terminal state: the API's status and
		// its event stream.
		a, err := app.Open(ctx, app.Config{DataDir: data}, zerolog.Nop(), app.Needs{Broker: true, Redis: true})
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		api := httptest.NewServer(cli.API(a))
		defer api.Close()
		var got pages.RequestStatus
		getJSON(t, api.URL+"/v1/requests/"+st.RequestID, &got)
		if got.State != pages.RequestFailed || got.Error != st.Error {
			t.Fatalf("GET /v1/requests/%s = %+v; want failed: %s", st.RequestID, got, st.Error)
		}
		resp, err := http.Get(api.URL + "/v1/requests/" + st.RequestID + "/events")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var event, done string
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() && done == "" {
			line := sc.Text()
			if e, ok := strings.CutPrefix(line, "event: "); ok {
				event = e
			}
			if d, ok := strings.CutPrefix(line, "data: "); ok && event == "done" {
				done = d
			}
		}
		if !strings.Contains(done, `"state":"failed"`) || !strings.Contains(done, "deadline exceeded") {
			t.Fatalf("event stream ended with %q; want done with the failed status", done)
		}
	})
}

// silentModelOnIngestedVolume ingests the test volume into a data
// directory of the test's own and starts a model server that never
// answers: its handlers return when the client gives up or the test ends
// (before the server closes, which waits for them). It returns the flags
// of that data directory, the server and its call count.
func silentModelOnIngestedVolume(t *testing.T) ([]string, *httptest.Server, *atomic.Int64) {
	t.Helper()
	redistest.Require(t)
	dir := t.TempDir()
	t.Setenv("ANNALIST_LLM_BASE_URL", "")
	common := []string{"--data-dir", filepath.Join(dir, "data"), "--log-level", "error"}
	writeFile(t, filepath.Join(dir, "corpus"), "001.txt", volume)
	if _, stderr, code := run(t, append([]string{"ingest", filepath.Join(dir, "corpus")}, common...)...); code != 0 {
		t.Fatalf("ingest exit %d: %s", code, stderr)
	}
	stop := make(chan struct{})
	srv, calls := modelServer(t, func(_ http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-stop:
		}
	})
	t.Cleanup(func() { close(stop) })
	return common, srv, calls
}

// A model that never answers in time is an outage like a 500: the
// request fails at its deadline instead of hanging.
func TestGenerateWithATimingOutModelFailsAtItsDeadline(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the embedded pipeline")
	}
	common, srv, calls := silentModelOnIngestedVolume(t)
	start := time.Now()
	_, stderr, code := run(t, append([]string{"generate", "biography", "甲乙", "--llm-base-url", srv.URL + "/v1",
		"--llm-model", "small", "--verifier", "offline", "--llm-timeout", "200ms", "--llm-max-retries", "1",
		"--request-deadline", "2s"}, common...)...)
	if code != 1 || !strings.Contains(stderr, "deadline exceeded after 2s") || time.Since(start) > 30*time.Second {
		t.Fatalf("generate: exit %d after %s, stderr %q; want exit 1 at the deadline", code, time.Since(start), stderr)
	}
	if calls.Load() == 0 {
		t.Error("the model was never called")
	}
}

// A model call still in flight when the request fails at its deadline
// outlives the stages' drain: the command still prints the request's
// failed status (--json) and says why it failed, not that the drain timed
// out; the call's input is left uncommitted for the next run.
func TestGenerateFailedAtItsDeadlinePrintsItsStatusPastADrainTimeout(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the embedded pipeline")
	}
	common, srv, calls := silentModelOnIngestedVolume(t)
	// The model's calls time out long after the request's deadline and
	// the drain's.
	stdout, stderr, code := run(t, append([]string{"generate", "biography", "甲乙", "--json", "--llm-base-url", srv.URL + "/v1",
		"--llm-model", "small", "--verifier", "offline", "--llm-timeout", "20s", "--llm-max-retries", "-1",
		"--request-deadline", "2s", "--kafka-drain-timeout", "100ms"}, common...)...)
	if code != 1 || !strings.Contains(stderr, "deadline exceeded after 2s") || strings.Contains(stderr, "drain timed out") {
		t.Fatalf("generate: exit %d, stderr %q; want exit 1 naming the deadline", code, stderr)
	}
	var st struct {
		State, Error string
	}
	if err := json.Unmarshal([]byte(stdout), &st); err != nil || st.State != "failed" || !strings.Contains(st.Error, "deadline exceeded") {
		t.Fatalf("stdout %q (%v); want the failed status", stdout, err)
	}
	if calls.Load() == 0 {
		t.Error("the model was never called")
	}
}

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}
