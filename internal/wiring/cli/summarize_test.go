package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/internal/wiring/cli"
	"github.com/annalist-dev/annalist/schemas"
)

// harbour is a discussion of our own in the KGDS shape, with a field the
// command ignores.
const harbour = `{"SBK": [
 {"paragraph_index": 1, "paragraph_text": "The city council of Marlow voted on Monday to close the old harbour to cargo ships. Union leader Petra Lind called the vote a betrayal."},
 {"paragraph_index": 2, "paragraph_text": "Lind said her members would strike for a week in protest against the closure of the harbour."},
 {"paragraph_index": 3, "paragraph_text": "A bakery on Quay Street celebrated its hundredth anniversary."}],
 "KGD": [
 {"participant": "Person1", "utterance": "I think she is right to call a strike against the closure of the harbour."},
 {"participant": "Person2", "utterance": "No, I think the council had no choice, and the strike will change nothing."}],
 "CAO": ["ignored"]}`

func runStdin(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := cli.Run(context.Background(), append([]string{"annalist"}, args...), strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), code
}

func TestSummarizeDiscussion(t *testing.T) {
	dir := t.TempDir()
	f := writeFile(t, dir, "harbour.json", harbour)
	dataDir := filepath.Join(dir, "state")
	out, stderr, code := run(t, "summarize", "discussion", f, "--json", "--data-dir", dataDir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(dataDir); !os.IsNotExist(err) {
		t.Errorf("summarize touched the data directory: %v", err)
	}
	// The contract's field names, exactly.
	var raw map[string]any
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatalf("not one JSON object: %v\n%s", err, out)
	}
	for _, k := range []string{"id", "background", "opinions"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("no %q in %s", k, out)
		}
	}
	bg, _ := raw["background"].(map[string]any)
	if _, ok := bg["paragraphs"]; !ok {
		t.Errorf("no background.paragraphs in %s", out)
	}
	if _, ok := bg["sentences"]; !ok {
		t.Errorf("no background.sentences in %s", out)
	}
	var sum schemas.DiscussionSummary
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatal(err)
	}
	if sum.ID == "" || len(sum.Background.Paragraphs) == 0 || len(sum.Opinions) != 2 {
		t.Fatalf("summary %+v", sum)
	}
	for _, s := range sum.Background.Sentences {
		if len(s.Citations) != 1 || !slices.Contains(sum.Background.Paragraphs, s.Citations[0].Paragraph) {
			t.Errorf("background sentence %q cites %v, not a selected paragraph", s.Text, s.Citations)
		}
	}
	for _, o := range sum.Opinions {
		for _, s := range o.Sentences {
			if len(s.Citations) == 0 || s.Citations[0].Turn < 0 || s.Citations[0].Turn > 1 {
				t.Errorf("%s: %q cites %v", o.Participant, s.Text, s.Citations)
			}
		}
	}
	// Stdin gives the same summary, id included (it comes from the content).
	out2, stderr, code := runStdin(t, harbour, "summarize", "discussion", "-", "--json")
	if code != 0 || out2 != out {
		t.Errorf("stdin: exit %d %s\n%s\nwant\n%s", code, stderr, out2, out)
	}
	// An id given is kept.
	withID := strings.Replace(harbour, `{"SBK"`, `{"id": 42, "SBK"`, 1)
	out, _, code = runStdin(t, withID, "summarize", "discussion", "-", "--json")
	if err := json.Unmarshal([]byte(out), &sum); code != 0 || err != nil || sum.ID != "42" {
		t.Errorf("id 42: exit %d, %v, id %q", code, err, sum.ID)
	}
	// Without --json: text naming the participants.
	out, _, code = run(t, "summarize", "discussion", f)
	if code != 0 || !strings.Contains(out, "Person1:") || !strings.Contains(out, "background: paragraphs") {
		t.Errorf("text: exit %d\n%s", code, out)
	}
}

func TestSummarizeDiscussionLines(t *testing.T) {
	compact := func(s string) string {
		var b bytes.Buffer
		if err := json.Compact(&b, []byte(s)); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	one := compact(harbour)
	two := strings.Replace(one, `{"SBK"`, `{"id": "b", "SBK"`, 1)
	out, stderr, code := runStdin(t, one+"\n\n"+two+"\n", "summarize", "discussion", "-", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("want one summary a line, got %d lines:\n%s", len(lines), out)
	}
	var a, b schemas.DiscussionSummary
	if json.Unmarshal([]byte(lines[0]), &a) != nil || json.Unmarshal([]byte(lines[1]), &b) != nil || a.ID == "" || b.ID != "b" {
		t.Errorf("lines: %s", out)
	}
}

func TestSummarizeDiscussionBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, input string
		code        int
		says        string
	}{
		{"empty", "", 1, "empty"},
		{"blank", "  \n", 1, "empty"},
		{"not json", "the council voted", 1, "not JSON"},
		{"truncated", `{"SBK": [`, 1, "not JSON"},
		{"not an object", `[1, 2]`, 1, "not a JSON object"},
		{"no SBK", `{"KGD": [{"participant": "Person1", "utterance": "Yes."}]}`, 1, "SBK"},
		{"no KGD", `{"SBK": [{"paragraph_index": 1, "paragraph_text": "News."}]}`, 1, "KGD"},
		{"empty turn", `{"SBK": [{"paragraph_index": 1, "paragraph_text": "News."}], "KGD": [{"participant": "Person1", "utterance": ""}]}`, 1, "turn 0"},
		{"second line bad", strings.ReplaceAll(harbour, "\n", "") + "\n{}", 1, "record 2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := writeFile(t, dir, strings.ReplaceAll(c.name, " ", "_")+".json", c.input)
			for _, args := range [][]string{{"summarize", "discussion", f, "--json"}} {
				out, stderr, code := run(t, args...)
				if code != c.code || !strings.Contains(stderr, c.says) || out != "" {
					t.Errorf("exit %d (want %d), stdout %q, stderr %q (want it to say %q)", code, c.code, out, stderr, c.says)
				}
			}
			_, stderr, code := runStdin(t, c.input, "summarize", "discussion", "-", "--json")
			if code != c.code || !strings.Contains(stderr, c.says) {
				t.Errorf("stdin: exit %d, stderr %q", code, stderr)
			}
		})
	}
	for _, args := range [][]string{
		{"summarize"},
		{"summarize", "discussion"},
		{"summarize", "debate", "x.json"},
		{"summarize", "discussion", "a.json", "b.json"},
	} {
		if _, stderr, code := run(t, args...); code != 2 || !strings.Contains(stderr, "usage") {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
	if _, stderr, code := run(t, "summarize", "discussion", filepath.Join(dir, "missing.json")); code != 1 || !strings.Contains(stderr, "missing.json") {
		t.Errorf("missing file: exit %d, stderr %q", code, stderr)
	}
}

func TestEvalKGDS(t *testing.T) {
	dir := t.TempDir()
	sample := strings.Replace(harbour, `"CAO": ["ignored"]`,
		`"id": "h", "BSP": [{"paragraph_index": 1, "paragraph_text": "x"}, {"paragraph_index": 2, "paragraph_text": "x"}],
		 "CAO": ["Person1 thinks that **Petra Lind** is right to call a strike.", "Person2 thinks that **the council** had no choice."]`, 1)
	f := writeFile(t, dir, "kgds.json", "["+sample+"]")
	out, stderr, code := run(t, "eval", "kgds", "--data", f, "--json", "--results")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep cli.EvalKGDS
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if rep.Samples != 1 || rep.Overall.Samples != 1 || len(rep.Results) != 1 || rep.Engine != "offline" {
		t.Fatalf("report %+v", rep)
	}
	if rep.Overall.BSPRecall <= 0 || rep.Overall.GoldOpinions != 2 {
		t.Errorf("scores %+v", rep.Overall)
	}
	if _, stderr, code := run(t, "eval", "kgds", "--data", filepath.Join(dir, "none.json")); code != 1 || stderr == "" {
		t.Errorf("missing data: exit %d", code)
	}
	if _, _, code := run(t, "eval", "kgds", "extra", "--data", f); code != 2 {
		t.Errorf("extra argument: exit %d", code)
	}
}
