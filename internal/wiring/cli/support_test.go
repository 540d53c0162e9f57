package cli_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/annalist-dev/annalist/internal/wiring/cli"
)

// bridge is evidence in the shape ExpertQA writes it (a source line, a
// blank line, the text) followed by a plain passage.
const bridge = "[2] https://example.org/bridge\n\nConstruction began in 1933. The bridge opened to traffic on May 28, 1937, after four years of work.\n\n\nFog is common in the bay during summer.\n"

type supportOut struct {
	Label string `json:"label"`
	Spans []struct {
		Passage int    `json:"passage"`
		Start   int    `json:"start"`
		End     int    `json:"end"`
		Text    string `json:"text"`
	} `json:"spans"`
	Score    float64 `json:"score"`
	Engine   string  `json:"engine"`
	FellBack bool    `json:"fell_back"`
	Stats    *struct {
		Claims    int64 `json:"claims"`
		LLMCalls  int64 `json:"llm_calls"`
		Invalid   int64 `json:"invalid"`
		Fallbacks int64 `json:"fallbacks"`
	} `json:"stats"`
}

func TestSupportCommand(t *testing.T) {
	dir := t.TempDir()
	f := writeFile(t, dir, "evidence.txt", bridge)
	out, stderr, code := run(t, "support", "--claim", "The bridge opened to traffic in 1937 [2].", "--evidence-file", f, "--json", "--data-dir", filepath.Join(dir, "state"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got supportOut
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got.Engine != "offline" || got.Score <= 0 || got.Score >= 1 || !slices.Contains([]string{"complete", "partial", "missing"}, got.Label) || got.Stats != nil {
		t.Errorf("got %+v", got)
	}
	if got.Label != "missing" && (len(got.Spans) == 0 || !strings.Contains(got.Spans[0].Text, "opened to traffic")) {
		t.Errorf("spans %+v should start with the sentence that carries the claim", got.Spans)
	}
	// Without --json: one line.
	out, _, code = run(t, "support", "--claim", "The bridge opened to traffic in 1937.", "--evidence-file", f)
	if code != 0 || strings.Count(out, "\n") != 1 || !strings.HasPrefix(out, got.Label+" (score ") {
		t.Errorf("exit %d: %q", code, out)
	}
	// Evidence about something else has nothing to carry the claim.
	other := writeFile(t, dir, "other.txt", "Fog is common in the bay during summer.\n")
	out, _, _ = run(t, "support", "--claim", "Tomato plants need pruning.", "--evidence-file", other, "--json")
	if err := json.Unmarshal([]byte(out), &got); err != nil || got.Label != "missing" || len(got.Spans) != 0 {
		t.Errorf("unrelated evidence: %s", out)
	}
}

func TestSupportUsageErrors(t *testing.T) {
	dir := t.TempDir()
	f := writeFile(t, dir, "evidence.txt", bridge)
	empty := writeFile(t, dir, "empty.txt", "\n \n\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--evidence-file", f}, "--claim"},
		{[]string{"--claim", "  ", "--evidence-file", f}, "--claim"},
		{[]string{"--claim", "x"}, "--evidence-file"},
		{[]string{"--claim", "x", "--evidence-file", empty}, "no passage"},
		{[]string{"--claim", "x", "--evidence-file", filepath.Join(dir, "absent.txt")}, "absent.txt"},
		{[]string{"--claim", "x", "--evidence-file", f, "--engine", "magic"}, "offline or llm"},
		{[]string{"--claim", "x", "--evidence-file", f, "--engine", "llm"}, "--llm-base-url"},
	} {
		_, stderr, code := run(t, append([]string{"support"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d, stderr %q, want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

func TestSplitPassages(t *testing.T) {
	got := cli.SplitPassages("[1] https://a.example/x\n\nFirst text.\nStill first.\n\n\n[2] https://b.example/y\n\n\nSecond.\n\nThird plain.\r\n")
	want := []string{"[1] https://a.example/x\n\nFirst text.\nStill first.", "[2] https://b.example/y\n\nSecond.", "Third plain."}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// chatServer is an OpenAI-compatible server on loopback that answers
// every chat completion with the next of answers (the last repeated) and
// counts the calls.
func chatServer(t *testing.T, answers ...string) (*httptest.Server, *int) {
	t.Helper()
	var mu sync.Mutex
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
			http.NotFound(w, r)
			return
		}
		mu.Lock()
		a := answers[min(calls, len(answers)-1)]
		calls++
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": "c", "object": "chat.completion", "created": 0, "model": "scripted",
			"choices": []map[string]any{{"index": 0, "message": map[string]any{"role": "assistant", "content": a}, "finish_reason": "stop"}},
			"usage":   map[string]int{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
		})
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

func TestSupportCommandLLM(t *testing.T) {
	dir := t.TempDir()
	f := writeFile(t, dir, "evidence.txt", bridge)
	srv, calls := chatServer(t, `{"label": "complete", "spans": [{"passage": 1, "text": "The bridge opened to traffic on May 28, 1937"}, {"passage": 2, "text": "It opened in 1937."}]}`)
	out, stderr, code := run(t, "support", "--claim", "The bridge opened to traffic in 1937 [2].", "--evidence-file", f, "--json",
		"--engine", "llm", "--llm-base-url", srv.URL+"/v1", "--llm-model", "scripted")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got supportOut
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got.Engine != "llm" || got.Label != "complete" || got.FellBack || len(got.Spans) != 1 || got.Spans[0].Passage != 0 || *calls != 1 {
		t.Errorf("got %+v after %d calls", got, *calls)
	}
	if st := got.Stats; st == nil || st.Claims != 1 || st.LLMCalls != 1 || st.Invalid != 0 || st.Fallbacks != 0 {
		t.Errorf("stats %+v after %d calls", st, *calls)
	}
	// Malformed answers: the offline judge decides.
	srv, calls = chatServer(t, "It is supported.")
	out, _, code = run(t, "support", "--claim", "The bridge opened to traffic in 1937.", "--evidence-file", f, "--json",
		"--engine", "llm", "--llm-base-url", srv.URL+"/v1", "--llm-model", "scripted")
	got = supportOut{}
	if err := json.Unmarshal([]byte(out), &got); err != nil || code != 0 || !got.FellBack || *calls != 2 {
		t.Errorf("exit %d, %d calls: %s", code, *calls, out)
	}
	if st := got.Stats; st == nil || st.LLMCalls != 2 || st.Invalid != 2 || st.Fallbacks != 1 {
		t.Errorf("stats after a fallback: %s", out)
	}
}

func TestEvalSupport(t *testing.T) {
	dir := t.TempDir()
	f := writeFile(t, dir, "expertqa.jsonl",
		`{"question": "What is rust?", "answers": {"s": {"claims": [{"claim_string": "Rust is iron oxide [1].", "evidence": ["[1] https://example.org/rust\n\nRust is an iron oxide, formed when iron reacts with oxygen and water."], "support": "Complete"}, {"claim_string": "Rust makes steel stronger [1].", "evidence": ["[1] https://example.org/rust\n\nRust weakens steel over time."], "support": "Incomplete"}, {"claim_string": "Nothing cited.", "evidence": [], "support": "Missing"}]}}}`+"\n")
	out, stderr, code := run(t, "eval", "support", "--data", f, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep struct {
		Overall struct {
			Items    int                       `json:"items"`
			Complete int                       `json:"complete"`
			Conf     map[string]map[string]int `json:"confusion"`
			Majority struct {
				Agreement float64 `json:"agreement"`
			} `json:"majority_baseline"`
		} `json:"overall"`
		Skipped map[string]int `json:"skipped"`
		Anchor  float64        `json:"anchor_safe_agreement"`
		Engine  string         `json:"engine"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if rep.Overall.Items != 2 || rep.Overall.Complete != 1 || rep.Skipped["Missing"] != 1 || rep.Anchor != 0.72 || rep.Engine != "offline" || rep.Overall.Majority.Agreement != 0.5 {
		t.Errorf("report %+v", rep)
	}
	n := 0
	for _, row := range rep.Overall.Conf {
		for _, c := range row {
			n += c
		}
	}
	if n != 2 {
		t.Errorf("confusion %v does not count every claim once", rep.Overall.Conf)
	}
	// The llm engine: the scripted server says missing for both claims.
	srv, calls := chatServer(t, `{"label": "missing", "spans": []}`)
	out, stderr, code = run(t, "eval", "support", "--data", f, "--json", "--engine", "llm", "--llm-base-url", srv.URL+"/v1", "--llm-model", "scripted")
	var llmRep struct {
		Overall struct {
			Conf map[string]map[string]int `json:"confusion"`
		} `json:"overall"`
		Judge struct {
			Claims   int `json:"claims"`
			LLMCalls int `json:"llm_calls"`
		} `json:"judge"`
	}
	if err := json.Unmarshal([]byte(out), &llmRep); err != nil || code != 0 {
		t.Fatalf("exit %d %v: %s %s", code, err, out, stderr)
	}
	if llmRep.Judge.Claims != 2 || llmRep.Judge.LLMCalls != 2 || *calls != 2 || llmRep.Overall.Conf["Complete"]["missing"] != 1 {
		t.Errorf("llm report %s", out)
	}
	if _, stderr, code := run(t, "eval", "support", "--data", writeFile(t, dir, "bad.jsonl", "not json\n"), "--json"); code != 1 || !strings.Contains(stderr, "line 1") {
		t.Errorf("bad data: exit %d %s", code, stderr)
	}
}
