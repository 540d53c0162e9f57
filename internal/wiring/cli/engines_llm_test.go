//go:build engines

package cli_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/annalist-dev/annalist/infra/llm"
	"github.com/annalist-dev/annalist/internal/kit/enginestest"
	"github.com/annalist-dev/annalist/schemas"
)

// The LLM engine against the real model server of the engines suite (a
// small model on CPU, slow and often off-schema): ingestion (chunker,
// extractor) and the writing of a biography, a topic page and a
// discussion summary (drafters, judge) all go through its
// OpenAI-compatible API. Each command must end — a page, or a clear
// failure naming its reason — within its deadline; every published
// sentence must carry a verdict and citations. The model's quality is not
// judged: the figures of the run (calls, fallbacks, tokens, latency per
// call, usable answers) are logged, read from a recording proxy in front
// of the server, which sees exactly what the engine sent and got.
//
// Deadlines: the engine's attempt timeout is llmTimeout with one retry, a
// page request fails by pageDeadline (--request-deadline), and the test
// fails a command that has not returned pageDeadline+commandSlack after
// it started (ingestion: ingestDeadline). Answers are bounded to
// maxTokens and asked in JSON mode (--llm-json-mode): without either the
// small model writes until the token limit on every call.
const (
	llmTimeout     = 60 * time.Second
	maxTokens      = "256"
	pageDeadline   = 5 * time.Minute
	commandSlack   = 2 * time.Minute
	ingestDeadline = 10 * time.Minute
)

// The corpus: two short entries written the way the biographies of the
// History of Ming are, and a short discussion in the KGDS shape.
const (
	enginesVolume = "林泽(字汝舟)\n" +
		"林泽，字汝舟，福清人。举万历十一年进士，授翰林院编修。累官礼部右侍郎。卒，年六十二，谥文恪。\n"
	enginesVolume2 = "陈恒(字子常)\n" +
		"陈恒，字子常，长洲人。举嘉靖二十年进士，授行人。与林泽同官翰林，相善。官至南京吏部尚书。\n"
	enginesDiscussion = `{"id": "engines-1",
 "SBK": [
  {"paragraph_index": 1, "paragraph_text": "The town council of Marlow voted on Tuesday to close the old bridge to cars from March."},
  {"paragraph_index": 2, "paragraph_text": "Engineers said the bridge, built in 1832, could no longer carry heavy traffic safely."}
 ],
 "KGD": [
  {"participant": "Person1", "utterance": "Closing the bridge is right: the engineers were clear that it is not safe for heavy traffic."},
  {"participant": "Person2", "utterance": "I worry that shops in Marlow will lose customers once cars cannot cross."}
 ]}`
)

// callRecord is one chat completion the proxy forwarded.
type callRecord struct {
	agent            string
	status           int
	err              string
	dur              time.Duration
	prompt, complete int
	finish           string
	kind             llm.AnswerKind
	hasAnswer        bool
}

// recorder is an OpenAI-compatible reverse proxy in front of the model
// server that records every completion.
type recorder struct {
	mu    sync.Mutex
	calls []callRecord
}

func newRecorder(t *testing.T, upstream string) (*httptest.Server, *recorder) {
	t.Helper()
	rec := &recorder{}
	client := &http.Client{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		req, err := http.NewRequestWithContext(r.Context(), r.Method, strings.TrimSuffix(upstream, "/v1")+r.URL.Path, bytes.NewReader(body))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		req.Header = r.Header.Clone()
		c := callRecord{agent: agentOf(body)}
		resp, err := client.Do(req)
		if err != nil {
			c.err, c.dur = err.Error(), time.Since(start)
			rec.add(c)
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		out, err := io.ReadAll(resp.Body)
		c.status, c.dur = resp.StatusCode, time.Since(start)
		if err != nil {
			c.err = err.Error()
		}
		var ans struct {
			Choices []struct {
				FinishReason string `json:"finish_reason"`
				Message      struct {
					Content string `json:"content"`
				} `json:"message"`
			} `json:"choices"`
			Usage struct {
				PromptTokens     int `json:"prompt_tokens"`
				CompletionTokens int `json:"completion_tokens"`
			} `json:"usage"`
		}
		if json.Unmarshal(out, &ans) == nil && len(ans.Choices) > 0 {
			c.hasAnswer, c.finish = true, ans.Choices[0].FinishReason
			_, c.kind = llm.ExtractJSON(ans.Choices[0].Message.Content)
			c.prompt, c.complete = ans.Usage.PromptTokens, ans.Usage.CompletionTokens
		}
		rec.add(c)
		for k, vs := range resp.Header {
			for _, v := range vs {
				w.Header().Add(k, v)
			}
		}
		w.WriteHeader(resp.StatusCode)
		_, _ = w.Write(out)
	}))
	t.Cleanup(srv.Close)
	return srv, rec
}

func (r *recorder) add(c callRecord) {
	r.mu.Lock()
	r.calls = append(r.calls, c)
	r.mu.Unlock()
}

func (r *recorder) since(n int) []callRecord {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.calls[n:])
}

func (r *recorder) len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.calls)
}

// agentOf names the agent of a request by the start of its system
// message.
func agentOf(body []byte) string {
	var req struct {
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(body, &req) != nil {
		return "?"
	}
	for _, m := range req.Messages {
		if m.Role == "system" {
			s := strings.Join(strings.Fields(m.Content), " ")
			if r := []rune(s); len(r) > 48 {
				s = string(r[:48])
			}
			return s
		}
	}
	return "?"
}

// figures summarises calls: count, errors, tokens, latency quantiles,
// answer kinds.
func figures(calls []callRecord) string {
	if len(calls) == 0 {
		return "no model calls"
	}
	var errs, answers, usable, repaired, truncated, prompt, complete int
	ds := make([]time.Duration, 0, len(calls))
	for _, c := range calls {
		ds = append(ds, c.dur)
		if c.err != "" || c.status != http.StatusOK || !c.hasAnswer {
			errs++
			continue
		}
		answers++
		prompt += c.prompt
		complete += c.complete
		if c.kind != llm.AnswerUnusable {
			usable++
		}
		if c.kind == llm.AnswerRepaired {
			repaired++
		}
		if c.finish == llm.FinishLength {
			truncated++
		}
	}
	slices.Sort(ds)
	q := func(p float64) time.Duration {
		i := int(p*float64(len(ds))+0.999999) - 1
		return ds[min(max(i, 0), len(ds)-1)]
	}
	share := 0.0
	if answers > 0 {
		share = float64(usable) / float64(answers)
	}
	return fmt.Sprintf("requests %d (failed or cut %d), answers %d: JSON object %d (%d recovered from prose), truncated %d, usable share %.2f; tokens prompt %d completion %d; latency p50 %s p95 %s max %s",
		len(calls), errs, answers, usable, repaired, truncated, share, prompt, complete,
		q(0.5).Round(time.Millisecond), q(0.95).Round(time.Millisecond), ds[len(ds)-1].Round(time.Millisecond))
}

func byAgent(calls []callRecord) string {
	n := map[string]int{}
	for _, c := range calls {
		n[c.agent]++
	}
	var b strings.Builder
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range n {
			if !yield(k) {
				return
			}
		}
	}) {
		fmt.Fprintf(&b, "\n    %3d  %s", n[k], k)
	}
	return b.String()
}

// runWithin runs the command and fails the test when it has not returned
// within d.
func runWithin(t *testing.T, d time.Duration, args ...string) (string, string, int, time.Duration) {
	t.Helper()
	type result struct {
		out, errs string
		code      int
	}
	done := make(chan result, 1)
	start := time.Now()
	go func() {
		out, errs, code := run(t, args...)
		done <- result{out, errs, code}
	}()
	select {
	case r := <-done:
		return r.out, r.errs, r.code, time.Since(start)
	case <-time.After(d):
		t.Fatalf("%s did not end within %s", strings.Join(args[:min(len(args), 3)], " "), d)
		return "", "", 0, 0
	}
}

func TestEnginesLLMPagesEnd(t *testing.T) {
	e := enginestest.Require(t)
	proxy, rec := newRecorder(t, e.LLMBaseURL)
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	t.Setenv("ANNALIST_LLM_BASE_URL", "")
	common := []string{"--data-dir", data, "--log-level", "error",
		"--llm-base-url", proxy.URL + "/v1", "--llm-model", e.LLMModel,
		"--llm-timeout", llmTimeout.String(), "--llm-max-retries", "1",
		"--llm-max-tokens", maxTokens, "--llm-json-mode"}
	corpus := filepath.Join(dir, "liezhuan")
	writeFile(t, corpus, "001.txt", enginesVolume)
	writeFile(t, corpus, "002.txt", enginesVolume2)

	out, stderr, code, took := runWithin(t, ingestDeadline, append([]string{"ingest", corpus, "--json"}, common...)...)
	ingestCalls := rec.since(0)
	t.Logf("ingest: exit %d in %s; %s%s", code, took.Round(time.Second), figures(ingestCalls), byAgent(ingestCalls))
	if code != 0 {
		t.Fatalf("ingest exit %d: %s\n%s", code, stderr, out)
	}
	if len(ingestCalls) == 0 {
		t.Fatalf("ingestion made no model call: the chunker and extractor did not ask the model")
	}

	type stats struct {
		LLMCalls, Fallbacks int64
	}
	var total stats
	for _, tc := range []struct{ name, kind, subject string }{
		{"biography", "biography", "林泽"},
		{"topic page", "topic", "福清"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := rec.len()
			out, stderr, code, took := runWithin(t, pageDeadline+commandSlack,
				append([]string{"generate", tc.kind, tc.subject, "--json", "--request-deadline", pageDeadline.String()}, common...)...)
			calls := rec.since(before)
			t.Logf("%s: exit %d in %s; %s%s", tc.name, code, took.Round(time.Second), figures(calls), byAgent(calls))
			if code != 0 {
				// A clear failure: the reason on stderr and the failed
				// status on stdout.
				var st struct {
					State string `json:"state"`
					Error string `json:"error"`
				}
				if json.Unmarshal([]byte(out), &st) != nil || st.State != "failed" || st.Error == "" {
					t.Fatalf("%s exit %d in %s without a failed status naming its reason: %s\n%s", tc.name, code, took, stderr, out)
				}
				t.Logf("%s: failed clearly: %s", tc.name, st.Error)
				return
			}
			var page struct {
				Sections []struct {
					Sentences []schemas.PageSentence `json:"sentences"`
				} `json:"sections"`
				Sentences []schemas.PageSentence `json:"sentences"`
				Stats     map[string]int64       `json:"stats"`
			}
			if err := json.Unmarshal([]byte(out), &page); err != nil {
				t.Fatalf("%s page JSON: %v\n%s", tc.name, err, out)
			}
			sentences := page.Sentences
			for _, s := range page.Sections {
				sentences = append(sentences, s.Sentences...)
			}
			if len(sentences) == 0 {
				t.Fatalf("%s: a page with no sentence: %s", tc.name, out)
			}
			fallbacks := 0
			for i, s := range sentences {
				switch s.Status {
				case schemas.StatusSupported, schemas.OutcomeCorrected, schemas.OutcomeConflict:
				default:
					t.Errorf("%s sentence %d %q: status %q is not a verdict", tc.name, i, s.Text, s.Status)
				}
				if len(s.Citations) == 0 {
					t.Errorf("%s sentence %d %q: no citation", tc.name, i, s.Text)
				}
				if s.OfflineFallback != "" {
					fallbacks++
				}
			}
			total.LLMCalls += page.Stats["llm_calls"]
			total.Fallbacks += page.Stats["offline_fallbacks"]
			t.Logf("%s: %d sentences (%d written offline); stats llm_calls %d offline_fallbacks %d",
				tc.name, len(sentences), fallbacks, page.Stats["llm_calls"], page.Stats["offline_fallbacks"])
		})
	}

	t.Run("discussion summary", func(t *testing.T) {
		before := rec.len()
		file := writeFile(t, dir, "discussion.json", enginesDiscussion)
		out, stderr, code, took := runWithin(t, pageDeadline+commandSlack,
			append([]string{"ingest", "discussions", file, "--json", "--request-deadline", pageDeadline.String()}, common...)...)
		calls := rec.since(before)
		t.Logf("discussion: exit %d in %s; %s%s", code, took.Round(time.Second), figures(calls), byAgent(calls))
		var res struct {
			Summaries []struct {
				ID    string            `json:"id"`
				Item  *schemas.FeedItem `json:"item"`
				Error string            `json:"error"`
			} `json:"summaries"`
			Failed int `json:"failed"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Summaries) != 1 {
			t.Fatalf("discussion exit %d in %s: %v: %s\n%s", code, took, err, stderr, out)
		}
		s := res.Summaries[0]
		if s.Item == nil {
			if code == 0 || s.Error == "" {
				t.Fatalf("discussion summary missing without a clear failure (exit %d): %s\n%s", code, stderr, out)
			}
			t.Logf("discussion: failed clearly: %s", s.Error)
			return
		}
		if err := s.Item.Validate(); err != nil {
			t.Errorf("discussion summary: %v", err)
		}
		n := 0
		for _, b := range s.Item.Summary.Background.Sentences {
			n++
			if len(b.Citations) == 0 {
				t.Errorf("background sentence %q: no citation", b.Text)
			}
		}
		for _, o := range s.Item.Summary.Opinions {
			for _, sn := range o.Sentences {
				n++
				if len(sn.Citations) == 0 {
					t.Errorf("opinion sentence of %s %q: no citation", o.Participant, sn.Text)
				}
			}
		}
		if n == 0 {
			t.Fatalf("discussion summary with no sentence: %s", out)
		}
		t.Logf("discussion: %d sentences", n)
	})

	all := rec.since(0)
	t.Logf("whole run: pages' llm_calls %d, offline_fallbacks %d; %s", total.LLMCalls, total.Fallbacks, figures(all))
}
