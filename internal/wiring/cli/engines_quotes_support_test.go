//go:build engines

package cli_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/annalist-dev/annalist/internal/evaluation/dataset/datasettest"
	"github.com/annalist-dev/annalist/internal/evaluation/eval"
	"github.com/annalist-dev/annalist/internal/kit/enginestest"
	"github.com/annalist-dev/annalist/internal/lang/quotes"
	"github.com/annalist-dev/annalist/internal/wiring/cli"
	"github.com/annalist-dev/annalist/schemas"
)

// supportClaims is how many ExpertQA claims the support test judges, and
// supportSeed the seed that draws them from the claims outside the
// held-out split.
const (
	supportClaims = 3
	supportSeed   = 25
)

// llmFlags are the engine flags of the real-model tests: the recording
// proxy in front of the server, answers bounded to maxTokens in JSON mode,
// one attempt per call (--llm-max-retries 0 would mean the default 3
// retries; a negative count means none).
func llmFlags(proxyURL, model string, timeout time.Duration) []string {
	return []string{"--llm-base-url", proxyURL + "/v1", "--llm-model", model,
		"--llm-timeout", timeout.String(), "--llm-max-retries", "-1", "--llm-max-tokens", maxTokens, "--llm-json-mode"}
}

// supportJSON is the output of `annalist support --json`.
type supportJSON struct {
	Label string `json:"label"`
	Spans []struct {
		Passage int    `json:"passage"`
		Start   int    `json:"start"`
		End     int    `json:"end"`
		Text    string `json:"text"`
	} `json:"spans"`
	Engine   string `json:"engine"`
	FellBack bool   `json:"fell_back"`
	Stats    *struct {
		LLMCalls  int64 `json:"llm_calls"`
		Invalid   int64 `json:"invalid"`
		Fallbacks int64 `json:"fallbacks"`
	} `json:"stats"`
}

// The LLM claim-support judge of `annalist support --engine llm` against
// the real model server, on claims drawn (seeded) from ExpertQA outside
// its held-out split, each with its evidence in a file (mechanics, not
// quality): every run ends with exit 0 and a label, every span is
// verbatim in the passage it names at the offsets it gives, and the
// calls and fallbacks it reports are the calls the server received and
// the claims the offline judge decided.
func TestEnginesSupportLLM(t *testing.T) {
	e := enginestest.Require(t)
	dir := datasettest.Require(t, "expertqa")
	d, err := eval.ReadSupport(filepath.Join(dir, "domain_test.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var items []eval.SupportItem
	for _, it := range d.Items {
		if !it.HeldOut {
			items = append(items, it)
		}
	}
	if len(items) < supportClaims {
		t.Fatalf("%d claims outside the held-out split, want at least %d", len(items), supportClaims)
	}
	r := rand.New(rand.NewPCG(supportSeed, 0))
	r.Shuffle(len(items), func(i, j int) { items[i], items[j] = items[j], items[i] })
	proxy, rec := newRecorder(t, e.LLMBaseURL)
	tmp := t.TempDir()
	t.Setenv("ANNALIST_LLM_BASE_URL", "")
	var calls, fallbacks, invalid int64
	labels := map[string]int{}
	for i, it := range items[:supportClaims] {
		name := fmt.Sprintf("claim %d", i)
		evidence := strings.Join(it.Evidence, "\n\n\n") + "\n"
		file := filepath.Join(tmp, fmt.Sprintf("evidence%d.txt", i))
		if err := os.WriteFile(file, []byte(evidence), 0o644); err != nil {
			t.Fatal(err)
		}
		passages := cli.SplitPassages(evidence)
		before := rec.len()
		args := append([]string{"support", "--claim", it.Claim, "--evidence-file", file, "--json", "--engine", "llm",
			"--data-dir", filepath.Join(tmp, "data")}, llmFlags(proxy.URL, e.LLMModel, answerTimeout)...)
		stdout, stderr, code, took := runWithin(t, 2*answerTimeout+commandSlack, args...)
		got := rec.since(before)
		t.Logf("%s (%q, expert label %s, %d passages): exit %d in %s; %s", name, it.Claim, it.Support, len(passages), code, took.Round(time.Millisecond), figures(got))
		if code != 0 {
			// The next claim is still judged, for the run's figures.
			t.Errorf("%s: exit %d in %s: %s", name, code, took, stderr)
			continue
		}
		var out supportJSON
		if err := json.Unmarshal([]byte(stdout), &out); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, stdout)
		}
		if !slices.Contains([]string{"complete", "partial", "missing"}, out.Label) {
			t.Errorf("%s: label %q", name, out.Label)
		}
		if out.Engine != "llm" || out.Stats == nil || out.Stats.LLMCalls != int64(len(got)) || out.FellBack != (out.Stats.Fallbacks == 1) || out.Stats.Fallbacks > 1 {
			t.Fatalf("%s: engine %q, fell back %v, stats %+v; the server saw %d calls", name, out.Engine, out.FellBack, out.Stats, len(got))
		}
		for _, s := range out.Spans {
			if s.Passage < 0 || s.Passage >= len(passages) {
				t.Errorf("%s: span %+v names no passage of %d", name, s, len(passages))
				continue
			}
			p := []rune(passages[s.Passage])
			if s.Text == "" || s.Start < 0 || s.End > len(p) || s.Start >= s.End || string(p[s.Start:s.End]) != s.Text {
				t.Errorf("%s: span %+v is not verbatim in passage %d at its offsets", name, s, s.Passage)
			}
		}
		if out.Label != "missing" && len(out.Spans) == 0 && !out.FellBack {
			t.Errorf("%s: the model's %s answer was accepted with no span", name, out.Label)
		}
		t.Logf("%s: %s, %d spans, %d calls, %d rejected answers, fell back %v", name, out.Label, len(out.Spans), out.Stats.LLMCalls, out.Stats.Invalid, out.FellBack)
		labels[out.Label]++
		calls += out.Stats.LLMCalls
		fallbacks += out.Stats.Fallbacks
		invalid += out.Stats.Invalid
	}
	t.Logf("real model %s: %d claims, labels %v, %d model calls (the server saw %d), %d rejected answers, %d fallbacks to the offline judge",
		e.LLMModel, supportClaims, labels, calls, rec.len(), invalid, fallbacks)
}

// quotesTopic is the topic of the quotations test, and quotesText a
// short plain paragraph about it, written for the test.
const (
	quotesTopic = "friendship"
	quotesText  = "Friendship is a close bond between people who choose each other. " +
		"Friends share their time, keep each other's confidences and help in hard times. " +
		"In many towns old friends meet every week to talk over the news. " +
		"A friendship can last a whole life when both friends keep faith with it.\n"
)

// The quotations of `annalist generate topic --quotes` with the LLM
// engine against the real model server, on the quotable collection and
// a short English paragraph about the topic (mechanics, not quality): the
// command ends with a page, or a clear failure (its reason logged) once
// the writer asked the model; every published sentence carries a verdict
// and citations, and one citing a quotation quotes it; every quotation
// sentence is supported, quotes a quotation of the collection verbatim,
// names its author and cites the chunk it quotes; and the calls the page
// reports are the calls the server received.
func TestEnginesQuotesLLM(t *testing.T) {
	e := enginestest.Require(t)
	dir := datasettest.Require(t, "quotes")
	collection := filepath.Join(dir, "quotable_quotes.json")
	b, err := os.ReadFile(collection)
	if err != nil {
		t.Fatal(err)
	}
	var records []struct {
		Content string `json:"content"`
		Author  string `json:"author"`
	}
	if err := json.Unmarshal(b, &records); err != nil {
		t.Fatal(err)
	}
	authors := map[string][]string{} // author → contents
	for _, r := range records {
		authors[r.Author] = append(authors[r.Author], r.Content)
	}
	proxy, rec := newRecorder(t, e.LLMBaseURL)
	tmp := t.TempDir()
	data := filepath.Join(tmp, "data")
	t.Setenv("ANNALIST_LLM_BASE_URL", "")

	// The knowledge base is ingested offline: the model is the writer's.
	out, stderr, code, took := runWithin(t, ingestDeadline, "ingest", "--collection", "quotes", collection, "--data-dir", data, "--json", "--log-level", "error")
	if code != 0 {
		t.Fatalf("ingest quotes: exit %d in %s: %s\n%s", code, took, stderr, out)
	}
	t.Logf("ingest quotes: %s", took.Round(time.Millisecond))
	text := filepath.Join(tmp, "essays")
	writeFile(t, text, quotesTopic+".txt", quotesText)
	out, stderr, code, took = runWithin(t, ingestDeadline, "ingest", text, "--data-dir", data, "--json", "--log-level", "error")
	if code != 0 {
		t.Fatalf("ingest text: exit %d in %s: %s\n%s", code, took, stderr, out)
	}
	if n := rec.len(); n != 0 {
		t.Fatalf("offline ingestion made %d model calls", n)
	}

	args := append([]string{"generate", "topic", quotesTopic, "--quotes", "--json", "--request-deadline", pageDeadline.String(),
		"--data-dir", data, "--log-level", "error"}, llmFlags(proxy.URL, e.LLMModel, llmTimeout)...)
	out, stderr, code, took = runWithin(t, pageDeadline+commandSlack, args...)
	calls := rec.since(0)
	t.Logf("generate topic %s --quotes: exit %d in %s; %s%s", quotesTopic, code, took.Round(time.Second), figures(calls), byAgent(calls))
	if code != 0 {
		var st struct {
			State string `json:"state"`
			Error string `json:"error"`
		}
		if json.Unmarshal([]byte(out), &st) != nil || st.State != "failed" || st.Error == "" {
			t.Fatalf("exit %d in %s without a failed status naming its reason: %s\n%s", code, took, stderr, out)
		}
		if len(calls) == 0 {
			// The model was never asked: the failure is not the model's.
			t.Fatalf("the page failed before the writer asked the model: %s", st.Error)
		}
		t.Logf("the page failed clearly after %d model calls: %s; nothing was published", len(calls), st.Error)
		return
	}
	var page schemas.Page
	if err := json.Unmarshal([]byte(out), &page); err != nil {
		t.Fatalf("page JSON: %v\n%s", err, out)
	}
	if len(page.Sentences) == 0 {
		t.Fatalf("a page with no sentence: %s", out)
	}
	quoted, offline := 0, 0
	for i, s := range page.Sentences {
		switch s.Status {
		case schemas.StatusSupported, schemas.OutcomeCorrected, schemas.OutcomeConflict:
		default:
			t.Errorf("sentence %d %q: status %q is not a verdict", i, s.Text, s.Status)
		}
		if len(s.Citations) == 0 {
			t.Errorf("sentence %d %q: no citation", i, s.Text)
		}
		if s.OfflineFallback != "" {
			offline++
		}
		citesQuote := slices.ContainsFunc(s.Citations, func(c schemas.Citation) bool { return isQuotation(authors, c.Text) })
		author, quote, ok := quotes.ParseSentence(s.Text)
		if !ok {
			if citesQuote {
				t.Errorf("sentence %d %q cites a quotation without quoting it", i, s.Text)
			}
			continue
		}
		quoted++
		if s.Status != schemas.StatusSupported {
			t.Errorf("quotation sentence %d %q published as %q", i, s.Text, s.Status)
		}
		if !slices.ContainsFunc(authors[author], func(c string) bool { return strings.Contains(c, quote) }) {
			t.Errorf("quotation sentence %d %q: %q is not verbatim in a quotation of %q", i, s.Text, quote, author)
		}
		if !slices.ContainsFunc(s.Citations, func(c schemas.Citation) bool {
			return strings.Contains(c.Text, quote) && slices.Contains(authors[author], c.Text)
		}) {
			t.Errorf("quotation sentence %d %q does not cite the quotation it quotes: %+v", i, s.Text, s.Citations)
		}
		t.Logf("quotation: %s", s.Text)
	}
	if quoted == 0 {
		t.Errorf("the page quotes nothing although the collection has quotations about %s", quotesTopic)
	}
	if n := page.Stats["llm_calls"]; n != int64(len(calls)) {
		t.Errorf("the page counts %d model calls, the server saw %d", n, len(calls))
	}
	t.Logf("real model %s: %d sentences published (%d quotations, %d written offline), %d dropped, %d model calls (the server saw %d), %d offline fallbacks",
		e.LLMModel, len(page.Sentences), quoted, offline, len(page.Dropped), page.Stats["llm_calls"], len(calls), page.Stats["offline_fallbacks"])
}

// isQuotation reports whether text is a quotation of the collection,
// byte for byte.
func isQuotation(authors map[string][]string, text string) bool {
	for _, cs := range authors {
		if slices.Contains(cs, text) {
			return true
		}
	}
	return false
}
