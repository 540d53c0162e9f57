//go:build engines

package cli_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/annalist-dev/annalist/internal/evaluation/dataset/datasettest"
	"github.com/annalist-dev/annalist/internal/kit/enginestest"
)

// answerTimeout bounds one call of `annalist answer` on the real model
// (a prompt of five ALCE passages on a small CPU model); answerDeadline
// one run: the gate may draft twice, each draft at most two answers.
const (
	answerTimeout  = 2 * time.Minute
	answerDeadline = 4*answerTimeout + commandSlack
)

// The LLM engine of `annalist answer --docs` against the real model
// server, on the first ALCE demonstration of each file (mechanics, not
// quality; a run takes minutes on a CPU): every run
// ends, every printed sentence is supported by its citations and they are
// minimal, and the calls and fallbacks it reports are the calls the
// server received and the answers it could not use.
func TestEnginesAnswerLLM(t *testing.T) {
	e := enginestest.Require(t)
	dir := datasettest.Require(t, "alce")
	proxy, rec := newRecorder(t, e.LLMBaseURL)
	tmp := t.TempDir()
	t.Setenv("ANNALIST_LLM_BASE_URL", "")
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	slices.Sort(files)
	var sentences, fallbacks, calls int64
	demos := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var file struct {
			Demos []alceDemo `json:"demos"`
		}
		if err := json.Unmarshal(b, &file); err != nil {
			t.Fatal(err)
		}
		for i, d := range file.Demos[:1] {
			name := fmt.Sprintf("%s#%d", filepath.Base(f), i)
			docsFile := filepath.Join(tmp, strconv.Itoa(i)+filepath.Base(f))
			db, _ := json.Marshal(d.Docs)
			if err := os.WriteFile(docsFile, db, 0o644); err != nil {
				t.Fatal(err)
			}
			before := rec.len()
			stdout, stderr, code, took := runWithin(t, answerDeadline, "answer", d.Question, "--docs", docsFile, "--json",
				"--data-dir", filepath.Join(tmp, "data"), "--llm-base-url", proxy.URL+"/v1", "--llm-model", e.LLMModel,
				"--llm-timeout", answerTimeout.String(), "--llm-max-retries", "-1", "--llm-max-tokens", maxTokens, "--llm-json-mode")
			got := rec.since(before)
			if code != 0 {
				t.Fatalf("%s: exit %d in %s: %s", name, code, took, stderr)
			}
			var out answerJSON
			if err := json.Unmarshal([]byte(stdout), &out); err != nil {
				t.Fatalf("%s: %v\n%s", name, err, stdout)
			}
			if out.Engine != "llm" || out.Stats.LLMCalls != int64(len(got)) || (out.Stats.Fallbacks > 0) != (out.Fallback != "") {
				t.Errorf("%s: engine %s, stats %+v, fallback %q; the server saw %d calls", name, out.Engine, out.Stats, out.Fallback, len(got))
			}
			checkAttributed(t, name, d.Docs, out)
			t.Logf("%s: %s, %d sentences, %d dropped, %d calls, fallback %v, gate fired %v (kept %s)", name, took.Round(time.Millisecond),
				len(out.Sentences), len(out.Dropped), out.Stats.LLMCalls, out.Fallback != "", out.Gate.Fired, out.Gate.Kept)
			demos++
			sentences += int64(len(out.Sentences))
			fallbacks += out.Stats.Fallbacks
			calls += out.Stats.LLMCalls
		}
	}
	t.Logf("real model %s: %d demonstrations, %d sentences published, %d model calls, %d fallbacks to the offline engine",
		e.LLMModel, demos, sentences, calls, fallbacks)
}
