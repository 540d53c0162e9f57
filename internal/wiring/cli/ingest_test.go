package cli_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestIngestUnknownProfile: an unknown --profile is refused before
// anything is published, with the profiles to choose from.
func TestIngestUnknownProfile(t *testing.T) {
	dir := t.TempDir()
	f := writeFile(t, dir, "corpus/001.txt", volume)
	_, stderr, code := run(t, "ingest", f, "--profile", "nope", "--data-dir", filepath.Join(dir, "data"))
	if code == 0 || !strings.Contains(stderr, `unknown profile "nope"`) || !strings.Contains(stderr, "liezhuan") {
		t.Fatalf("ingest --profile nope: exit %d, stderr %q; want non-zero naming the profiles", code, stderr)
	}
}

// TestIngestNothingGood: when every input is refused the run fails with a
// one-line reason on stderr and, with --json, still one JSON value on
// stdout; a run that stops that early prints no "context canceled".
// Repeated because the noise came from a race between the stages'
// start-up and their stop.
func TestIngestNothingGood(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	corpus := filepath.Join(dir, "corpus")
	writeFile(t, corpus, "blank.txt", " \n\t\n")
	writeFile(t, corpus, "blank2.md", "\n\n")
	writeFile(t, corpus, "ansi.txt", "\x1b[31mred\x1b[0m\n")
	for i := range 3 {
		out, stderr, code := run(t, "ingest", corpus, "--data-dir", data, "--json", "--log-level", "error")
		if code != 1 {
			t.Fatalf("run %d: exit %d; want 1\nstdout %s\nstderr %s", i, code, out, stderr)
		}
		var res struct {
			Documents int      `json:"documents"`
			Errors    []string `json:"errors"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("run %d: stdout %q is not JSON: %v", i, out, err)
		}
		if res.Documents != 0 || len(res.Errors) != 3 {
			t.Fatalf("run %d: %+v; want 0 documents and 3 errors", i, res)
		}
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		if len(lines) != 1 || !strings.Contains(lines[0], "nothing ingested") {
			t.Fatalf("run %d: stderr %q; want one line saying nothing was ingested", i, stderr)
		}
		if strings.Contains(stderr, "context canceled") {
			t.Fatalf("run %d: stderr %q", i, stderr)
		}
	}
}

// TestIngestAgainSucceeds: ingesting what the store already holds is a
// success (the same ids change nothing), not "nothing ingested".
func TestIngestAgainSucceeds(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	f := writeFile(t, dir, "corpus/001.txt", volume)
	for i := range 2 {
		if _, stderr, code := run(t, "ingest", f, "--data-dir", data, "--log-level", "error"); code != 0 {
			t.Fatalf("run %d: exit %d: %s", i, code, stderr)
		}
	}
}
