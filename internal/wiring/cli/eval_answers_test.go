package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/internal/evaluation/dataset/datasettest"
	"github.com/annalist-dev/annalist/internal/wiring/cli"
)

// alceFixture is two demonstrations in ALCE's format, texts of the
// project's own: the second is held out.
const alceFixture = `{"demos": [
 {"question": "When was the Harbour Lighthouse built?",
  "answer": "The Harbour Lighthouse was built in 1842 [1]. Its lamp was electrified in 1921 [2].",
  "docs": [
   {"title": "Harbour Lighthouse", "text": "The Harbour Lighthouse was built in 1842 by the port authority. It stands on the northern breakwater."},
   {"title": "Harbour Lighthouse lamp", "text": "The lamp of the Harbour Lighthouse was electrified in 1921, replacing an oil burner."},
   {"title": "Fish market", "text": "The fish market opens at dawn every weekday."}]},
 {"question": "Who founded the Valley Choir?",
  "answer": "The Valley Choir was founded by Maria Ostrow in 1958 [2].",
  "docs": [
   {"title": "Mill", "text": "The old mill grinds barley in the autumn."},
   {"title": "Valley Choir", "text": "The Valley Choir was founded by Maria Ostrow in 1958. It sings in the chapel on Sundays."}]}]}`

// `annalist eval answers` on a small ALCE file: both splits are
// reported, every published sentence cites documents that support it
// (recall and precision 1 by the judge the citation agent uses), the
// hand-written answers are scored beside them, and with --retrieval the
// questions are answered from the ingested corpus, whose retrieval finds
// the documents the hand-written answers cite.
func TestEvalAnswers(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "alce")
	if err := os.MkdirAll(data, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "asqa_fixture.json"), []byte(alceFixture), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := run(t, "eval", "answers", "--data", data, "--retrieval", "--json", "--data-dir", filepath.Join(dir, "state"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var out cli.EvalAnswers
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	d, h := out.Documents.Dev, out.Documents.HeldOut
	if d.Demos != 1 || h.Demos != 1 || d.Empty+h.Empty != 0 || d.System.Sentences == 0 || h.System.Sentences == 0 {
		t.Fatalf("documents: dev %+v, held out %+v", d, h)
	}
	if d.System.Recall != 1 || d.System.Precision != 1 || d.System.CitedShare != 1 || h.System.Recall != 1 {
		t.Errorf("documents: dev %+v, held out %+v; want every sentence supported by its minimal citations", d.System, h.System)
	}
	if d.Gold.Sentences != 2 || d.Gold.Recall != 1 || h.Gold.Sentences != 1 || h.Gold.Recall != 1 {
		t.Errorf("hand-written: dev %+v, held out %+v", d.Gold, h.Gold)
	}
	if out.Retrieval == nil || len(out.Retrieval.Demos) != 2 || len(out.Refused) != 0 {
		t.Fatalf("retrieval %+v, refused %v", out.Retrieval, out.Refused)
	}
	for _, s := range out.Retrieval.Demos {
		if s.RetrievedGold == nil || !*s.RetrievedGold || s.System.Sentences == 0 || s.System.Recall != 1 {
			t.Errorf("retrieval %s#%d: retrieved %v, figures %+v", s.File, s.Index, s.Retrieved, s.System)
		}
	}
	if r := out.Retrieval; r.Dev.RetrievedGoldRate != 1 || r.HeldOut.RetrievedGoldRate != 1 {
		t.Errorf("retrieval: dev %+v, held out %+v", r.Dev, r.HeldOut)
	}
	// Plain output names both splits and the reference line.
	stdout, stderr, code = run(t, "eval", "answers", "--data", data, "--data-dir", filepath.Join(dir, "state"))
	if code != 0 || !strings.Contains(stdout, "held_out") || !strings.Contains(stdout, "hand-written") {
		t.Errorf("plain: exit %d %s\n%s", code, stderr, stdout)
	}
}

// Bad input: a folder without ALCE files or a file without
// demonstrations is a clear error (exit 1); a stray argument a usage
// error (exit 2).
func TestEvalAnswersBadInput(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	if _, stderr, code := run(t, "eval", "answers", "--data", dir, "--data-dir", state); code != 1 || !strings.Contains(stderr, "no ALCE file") {
		t.Errorf("empty folder: exit %d %s", code, stderr)
	}
	if err := os.WriteFile(filepath.Join(dir, "x.json"), []byte(`{"demos": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := run(t, "eval", "answers", "--data", dir, "--data-dir", state); code != 1 || !strings.Contains(stderr, "no demonstration") {
		t.Errorf("no demonstration: exit %d %s", code, stderr)
	}
	if _, stderr, code := run(t, "eval", "answers", "extra", "--data", dir, "--data-dir", state); code != 2 {
		t.Errorf("stray argument: exit %d %s", code, stderr)
	}
}

// The ALCE demonstrations: all twelve answered from their documents and
// from retrieval; the splits are those of TestAnswerALCEDemonstrations.
func TestEvalAnswersALCE(t *testing.T) {
	data := datasettest.Require(t, "alce")
	stdout, stderr, code := run(t, "eval", "answers", "--data", data, "--retrieval", "--json", "--data-dir", t.TempDir())
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var out cli.EvalAnswers
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatal(err)
	}
	for _, rep := range []struct {
		name string
		dev  int
		held int
	}{{"documents", out.Documents.Dev.Demos, out.Documents.HeldOut.Demos}, {"retrieval", out.Retrieval.Dev.Demos, out.Retrieval.HeldOut.Demos}} {
		if rep.dev != 9 || rep.held != 3 {
			t.Errorf("%s: %d dev, %d held out; want 9 and 3", rep.name, rep.dev, rep.held)
		}
	}
	for _, s := range out.Documents.Demos {
		if s.System.Sentences == 0 || s.System.Recall != 1 || s.Gold.Sentences == 0 {
			t.Errorf("%s#%d: %+v, hand-written %+v", s.File, s.Index, s.System, s.Gold)
		}
	}
	t.Logf("documents dev %+v\nheld out %+v\nretrieval dev %+v\nheld out %+v", out.Documents.Dev, out.Documents.HeldOut, out.Retrieval.Dev, out.Retrieval.HeldOut)
}
