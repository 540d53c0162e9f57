package cli_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/producers"
)

// TestRetractCommand: `retract DOC_ID` marks an ingested document
// retracted and prints the mark (--json); asking again prints the same
// mark; an unknown id or source is exit 1 naming it; no argument is a
// usage error.
func TestRetractCommand(t *testing.T) {
	corpus, data := t.TempDir(), t.TempDir()
	writeFile(t, corpus, "vol.txt", volume)
	if _, stderr, code := run(t, "ingest", corpus, "--data-dir", data, "--json", "--log-level", "error"); code != 0 {
		t.Fatalf("ingest exit %d: %s", code, stderr)
	}
	// A file's source is its path under the ingested directory, prefixed
	// with the directory's name.
	source := filepath.Base(corpus) + "/vol.txt"
	id := producers.DocID(source, volume)
	out, stderr, code := run(t, "retract", id, "--data-dir", data, "--json", "--log-level", "error")
	if code != 0 {
		t.Fatalf("retract exit %d: %s", code, stderr)
	}
	var mark struct {
		DocID  string `json:"doc_id"`
		Source string `json:"source"`
		Reason string `json:"reason"`
		At     string `json:"at"`
	}
	if err := json.Unmarshal([]byte(out), &mark); err != nil {
		t.Fatalf("retract --json printed %q: %v", out, err)
	}
	if mark.DocID != id || mark.Reason != "retracted" || mark.Source != source || mark.At == "" {
		t.Fatalf("retract printed %+v", mark)
	}
	again, stderr, code := run(t, "retract", id, "--data-dir", data, "--json", "--log-level", "error")
	if code != 0 || again != out {
		t.Fatalf("retract again: exit %d, %q (%s); want exit 0 and %q", code, again, stderr, out)
	}
	_, stderr, code = run(t, "retract", "no-such-doc", "--data-dir", data, "--log-level", "error")
	if code != 1 || !strings.Contains(stderr, "no-such-doc") {
		t.Fatalf("retract of an unknown id: exit %d, %s", code, stderr)
	}
	if _, _, code := run(t, "retract", "--data-dir", data); code == 0 {
		t.Fatal("retract without an argument succeeded")
	}
}
