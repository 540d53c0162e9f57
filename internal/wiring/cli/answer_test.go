package cli_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/consumers/writer/answer"
	"github.com/annalist-dev/annalist/internal/evaluation/dataset/datasettest"
	"github.com/annalist-dev/annalist/internal/evaluation/eval"
	"github.com/annalist-dev/annalist/internal/lang/en/support"
	"github.com/annalist-dev/annalist/schemas"
)

// answerJSON is the part of `annalist answer --json` the tests read.
type answerJSON struct {
	Question  string `json:"question"`
	Sentences []struct {
		Text      string `json:"text"`
		Citations []int  `json:"citations"`
	} `json:"sentences"`
	Dropped  []answer.Dropped `json:"dropped"`
	Gate     answer.Gate      `json:"gate"`
	Engine   string           `json:"engine"`
	Fallback string           `json:"fallback"`
	Stats    struct {
		Sentences  int   `json:"sentences"`
		Unverified int   `json:"unverified"`
		LLMCalls   int64 `json:"llm_calls"`
		Fallbacks  int64 `json:"fallbacks"`
	} `json:"stats"`
}

type alceDemo struct {
	Question string                   `json:"question"`
	Answer   string                   `json:"answer"`
	Docs     []schemas.AnswerDocument `json:"docs"`
}

// alceHeldOut says whether demonstration i of a file is held out, by
// the rule `annalist eval answers` reports its splits with.
func alceHeldOut(i, n int) bool { return eval.ALCEHeldOut(i, n) }

var goldMarker = regexp.MustCompile(`\[(\d+)\]`)

// checkAttributed checks an answer of `annalist answer` against its
// documents with the support judge: every sentence cites at least one
// document, its cited set supports it completely, and the set is minimal
// (no cited document can go with the rest still complete).
func checkAttributed(t *testing.T, name string, docs []schemas.AnswerDocument, out answerJSON) (cites int) {
	t.Helper()
	for _, s := range out.Sentences {
		if len(s.Citations) == 0 {
			t.Errorf("%s: %q cites nothing", name, s.Text)
			continue
		}
		passages := func(ks []int) []string {
			var ps []string
			for _, k := range ks {
				if k < 1 || k > len(docs) {
					t.Fatalf("%s: %q cites document %d of %d", name, s.Text, k, len(docs))
				}
				ps = append(ps, answer.Passage(docs[k-1]))
			}
			return ps
		}
		cites += len(s.Citations)
		if r := support.Judge(s.Text, passages(s.Citations)); r.Label != support.Complete {
			t.Errorf("%s: %q: its citations %v support it %s (%.2f)", name, s.Text, s.Citations, r.Label, r.Score)
		}
		for _, k := range s.Citations {
			if len(s.Citations) == 1 {
				break
			}
			rest := slices.DeleteFunc(slices.Clone(s.Citations), func(x int) bool { return x == k })
			if r := support.Judge(s.Text, passages(rest)); r.Label == support.Complete {
				t.Errorf("%s: %q: citations %v are not minimal: %v alone support it", name, s.Text, s.Citations, rest)
			}
		}
	}
	return cites
}

// The ALCE demonstrations (ASQA, ELI5, QAMPARI): `annalist answer --docs`
// on each; every sentence cites a set of documents the support judge finds
// supports it completely, and the set is minimal. The figures are logged
// for the first three demonstrations of each file and, apart, for the
// held-out last one.
func TestAnswerALCEDemonstrations(t *testing.T) {
	dir := datasettest.Require(t, "alce")
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no ALCE file in %s: %v", dir, err)
	}
	slices.Sort(files)
	type figures struct{ demos, sentences, cites, gold, goldCited, fired int }
	var dev, held figures
	tmp := t.TempDir()
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var file struct {
			Demos []alceDemo `json:"demos"`
		}
		if err := json.Unmarshal(b, &file); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for i, d := range file.Demos {
			name := fmt.Sprintf("%s#%d", filepath.Base(f), i)
			docsFile := filepath.Join(tmp, strconv.Itoa(i)+filepath.Base(f))
			db, _ := json.Marshal(d.Docs)
			if err := os.WriteFile(docsFile, db, 0o644); err != nil {
				t.Fatal(err)
			}
			stdout, stderr, code := run(t, "answer", d.Question, "--docs", docsFile, "--json", "--data-dir", filepath.Join(tmp, "data"))
			if code != 0 {
				t.Fatalf("%s: exit %d: %s", name, code, stderr)
			}
			var out answerJSON
			if err := json.Unmarshal([]byte(stdout), &out); err != nil {
				t.Fatalf("%s: %v\n%s", name, err, stdout)
			}
			if out.Question != d.Question || len(out.Sentences) == 0 || out.Stats.Unverified != 0 {
				t.Errorf("%s: question %q, %d sentences, %d unverified", name, out.Question, len(out.Sentences), out.Stats.Unverified)
			}
			fig := &dev
			if alceHeldOut(i, len(file.Demos)) {
				fig = &held
			}
			fig.demos++
			fig.sentences += len(out.Sentences)
			fig.cites += checkAttributed(t, name, d.Docs, out)
			if out.Gate.Fired {
				fig.fired++
			}
			// How far the cited documents agree with the ones the
			// hand-written answer cites.
			var gold []int
			for _, m := range goldMarker.FindAllStringSubmatch(d.Answer, -1) {
				k, _ := strconv.Atoi(m[1])
				gold = append(gold, k)
			}
			for _, s := range out.Sentences {
				for _, k := range s.Citations {
					fig.gold++
					if slices.Contains(gold, k) {
						fig.goldCited++
					}
				}
			}
		}
	}
	for _, x := range []struct {
		split string
		f     figures
	}{{"development", dev}, {"held-out", held}} {
		f := x.f
		t.Logf("ALCE %s: %d demonstrations, %d sentences, all supported and minimal by the support judge; "+
			"%.2f citations a sentence; %.2f of the citations are documents the hand-written answer cites; gate fired %d times",
			x.split, f.demos, f.sentences, float64(f.cites)/float64(max(f.sentences, 1)), float64(f.goldCited)/float64(max(f.gold, 1)), f.fired)
	}
	if dev.demos+held.demos != 12 {
		t.Errorf("%d demonstrations; the ALCE files hold 12", dev.demos+held.demos)
	}
}

// Bad input is refused with a clear error: not JSON, no document, a
// document without text (exit 1); no question or a bad threshold is a
// usage error (exit 2).
func TestAnswerBadInput(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	for _, tc := range []struct {
		name, content string
		code          int
		want          string
	}{
		{"prose.json", "not json", 1, "not JSON"},
		{"empty.json", "[]", 1, "no document"},
		{"notext.json", `[{"title": "T", "text": "A."}, {"title": "U", "text": " "}]`, 1, "document 2 has no text"},
		{"nodocs.json", `{"question": "q"}`, 1, "the object has no docs"},
	} {
		p := filepath.Join(dir, tc.name)
		if err := os.WriteFile(p, []byte(tc.content), 0o644); err != nil {
			t.Fatal(err)
		}
		_, stderr, code := run(t, "answer", "Who?", "--docs", p, "--json", "--data-dir", data)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, %q; want exit %d saying %q", tc.name, code, stderr, tc.code, tc.want)
		}
	}
	good := filepath.Join(dir, "good.json")
	if err := os.WriteFile(good, []byte(`[{"title": "T", "text": "The tower was completed in 1889."}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"--docs", good}, {"Who?", "--docs", good, "--tau", "0"}, {"Who?", "--docs", good, "--tau", "1.5"},
		{"Who?", "--docs", good, "--answer-sentences", "0"}} {
		if _, stderr, code := run(t, append(append([]string{"answer"}, args...), "--data-dir", data)...); code != 2 {
			t.Errorf("answer %v: exit %d (%s); want 2", args, code, stderr)
		}
	}
	// An ALCE item (an object with docs) is read as its documents.
	item := filepath.Join(dir, "item.json")
	if err := os.WriteFile(item, []byte(`{"question": "x", "docs": [{"title": "Tower", "text": "The tower was completed in 1889."}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := run(t, "answer", "When was the tower completed?", "--docs", item, "--json", "--data-dir", data)
	var out answerJSON
	if code != 0 || json.Unmarshal([]byte(stdout), &out) != nil || len(out.Sentences) != 1 || !slices.Equal(out.Sentences[0].Citations, []int{1}) {
		t.Fatalf("item: exit %d %s\n%s", code, stderr, stdout)
	}
}

// chatReply answers an OpenAI-compatible chat completion with content.
func chatReply(content string) func(w http.ResponseWriter, r *http.Request) {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "m",
			"choices": []map[string]any{{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": content}}},
		})
	}
}

// The LLM engine of `annalist answer` against an OpenAI-compatible server
// on loopback: a sentence the documents do not state is never printed,
// a usable answer is checked like the offline one, a model that answers
// prose falls back to the offline engine; calls and fallbacks are counted.
func TestAnswerLLMEngine(t *testing.T) {
	dir := t.TempDir()
	docs := filepath.Join(dir, "docs.json")
	if err := os.WriteFile(docs, []byte(`[
 {"title": "Eiffel Tower", "text": "The Eiffel Tower is a wrought-iron lattice tower in Paris. It was completed in 1889."},
 {"title": "Bananas", "text": "Bananas are yellow fruit that grow in the tropics."}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("ANNALIST_LLM_BASE_URL", "")
	ask := func(reply func(w http.ResponseWriter, r *http.Request)) (answerJSON, int64) {
		t.Helper()
		srv, calls := modelServer(t, reply)
		stdout, stderr, code := run(t, "answer", "Where is the Eiffel Tower?", "--docs", docs, "--json", "--data-dir", filepath.Join(dir, "data"),
			"--llm-base-url", srv.URL+"/v1", "--llm-model", "m", "--llm-max-retries", "-1")
		var out answerJSON
		if code != 0 || json.Unmarshal([]byte(stdout), &out) != nil {
			t.Fatalf("exit %d: %s\n%s", code, stderr, stdout)
		}
		return out, calls.Load()
	}
	out, calls := ask(chatReply(`{"sentences": [
 {"text": "The Eiffel Tower is a wrought-iron lattice tower in Paris.", "citations": [1, 2]},
 {"text": "The Eiffel Tower was painted gold by Napoleon in 1999.", "citations": [1]}]}`))
	if out.Engine != "llm" || out.Fallback != "" || out.Stats.LLMCalls != calls || calls < 1 || out.Stats.Fallbacks != 0 {
		t.Fatalf("engine %s, fallback %q, stats %+v, server calls %d", out.Engine, out.Fallback, out.Stats, calls)
	}
	if len(out.Sentences) != 1 || !slices.Equal(out.Sentences[0].Citations, []int{1}) ||
		!slices.ContainsFunc(out.Dropped, func(d answer.Dropped) bool { return strings.Contains(d.Text, "Napoleon") }) {
		t.Fatalf("sentences %+v, dropped %+v; want the supported one citing [1], the invented one dropped", out.Sentences, out.Dropped)
	}
	out, calls = ask(proseAnswer)
	if out.Engine != "llm" || out.Fallback == "" || out.Stats.Fallbacks != 1 || out.Stats.LLMCalls != calls || calls != 2 ||
		len(out.Sentences) == 0 || out.Stats.Unverified != 0 {
		t.Fatalf("prose: %+v after %d calls; want the offline answer, one fallback, two calls", out, calls)
	}
}
