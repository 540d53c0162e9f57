package cli_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const twoDiscussions = `{"id": "halep", "SBK": [{"paragraph_index": 1, "paragraph_text": "Simona Halep won the French Open on Saturday, beating Sloane Stephens in the final."},
 {"paragraph_index": 2, "paragraph_text": "Her coach Darren Cahill said Halep had been patient all season."}],
 "KGD": [{"participant": "Person1", "utterance": "She deserved the title after so many finals."},
  {"participant": "Person2", "utterance": "Her coach deserves credit too."}]}
{"SBK": [{"paragraph_index": 1, "paragraph_text": "Iga Swiatek won the Italian Open in Rome on Sunday."}],
 "KGD": [{"participant": "Person1", "utterance": "She is the best player on clay."}]}
`

// Bad input exits 1 with the record named, before any service starts (no
// data directory is created); a missing FILE is a usage error.
func TestIngestDiscussionsRefusesBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := writeFile(t, dir, "bad.jsonl", `{"SBK": [{"paragraph_index": 1, "paragraph_text": "x"}], "KGD": [{"participant": "P", "utterance": "u"}]}
{"SBK": [], "KGD": []}
`)
	data := filepath.Join(dir, "data")
	_, stderr, code := run(t, "ingest", "discussions", bad, "--data-dir", data)
	if code != 1 || !strings.Contains(stderr, "record 2") || !strings.Contains(stderr, "bad.jsonl") {
		t.Fatalf("bad record: exit %d, stderr %q; want 1 naming the file and record 2", code, stderr)
	}
	if _, err := os.Stat(data); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("bad input created the data directory: %v", err)
	}
	if _, _, code := run(t, "ingest", "discussions", "--data-dir", data); code != 2 {
		t.Errorf("no FILE: exit %d, want 2", code)
	}
	if _, stderr, code := run(t, "ingest", "discussions", filepath.Join(dir, "none.json"), "--data-dir", data); code != 1 || !strings.Contains(stderr, "none.json") {
		t.Errorf("missing file: exit %d, stderr %q", code, stderr)
	}
}

// Embedded, the discussions go through every stage in this process and
// the command prints each id with its summary's version and title; with
// --json one value with the ids and the summaries.
func TestIngestDiscussionsEmbedded(t *testing.T) {
	dir := t.TempDir()
	f := writeFile(t, dir, "two.jsonl", strings.ReplaceAll(strings.ReplaceAll(twoDiscussions, "\n ", " "), "\n  ", " "))
	data := filepath.Join(dir, "data")
	out, stderr, code := run(t, "ingest", "discussions", f, "--data-dir", data, "--log-level", "error")
	if code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "halep\tv1\tSimona Halep won the French Open") || !strings.HasPrefix(lines[1], "d-") {
		t.Fatalf("stdout %q; want halep then a content id, each with version and title", out)
	}
	// Again: the same summaries, nothing new.
	out, stderr, code = run(t, "ingest", "discussions", f, "--data-dir", data, "--json", "--log-level", "error")
	if code != 0 {
		t.Fatalf("again: exit %d\nstderr %s", code, stderr)
	}
	var res struct {
		IDs       []string `json:"ids"`
		Failed    int      `json:"failed"`
		Summaries []struct {
			ID   string `json:"id"`
			Item *struct {
				Version int `json:"version"`
				Summary struct {
					Opinions []struct {
						Participant string `json:"participant"`
					} `json:"opinions"`
				} `json:"summary"`
			} `json:"item"`
		} `json:"summaries"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("stdout %q: %v", out, err)
	}
	if len(res.IDs) != 2 || res.Failed != 0 || len(res.Summaries) != 2 || res.Summaries[0].Item == nil ||
		res.Summaries[0].Item.Version != 1 || len(res.Summaries[0].Item.Summary.Opinions) == 0 {
		t.Fatalf("again: %s; want the two version-1 summaries", out)
	}
}

// The benchmark on a small file: every discussion summarised, latencies
// ordered, sentences counted.
func TestBenchDiscussions(t *testing.T) {
	dir := t.TempDir()
	f := writeFile(t, dir, "two.jsonl", twoDiscussions)
	out, stderr, code := run(t, "bench", "discussions", "--data", f, "--data-dir", filepath.Join(dir, "data"), "--json", "--log-level", "error")
	if code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, stderr)
	}
	var b struct {
		Discussions        int     `json:"discussions"`
		Summaries          int     `json:"summaries"`
		P50Ms              float64 `json:"p50_ms"`
		P95Ms              float64 `json:"p95_ms"`
		MaxMs              float64 `json:"max_ms"`
		SummariesPerSecond float64 `json:"summaries_per_second"`
		Sentences          int     `json:"sentences"`
		Paragraphs         int     `json:"paragraphs"`
	}
	if err := json.Unmarshal([]byte(out), &b); err != nil {
		t.Fatalf("stdout %q: %v", out, err)
	}
	if b.Discussions != 2 || b.Summaries != 2 || b.P50Ms <= 0 || b.P50Ms > b.P95Ms || b.P95Ms > b.MaxMs ||
		b.SummariesPerSecond <= 0 || b.Sentences == 0 || b.Paragraphs != 3 {
		t.Fatalf("bench = %+v", b)
	}
	entries, err := os.ReadDir(filepath.Join(dir, "data"))
	if err != nil || len(entries) != 0 {
		t.Errorf("the bench left %v in the data directory (%v)", entries, err)
	}
}
