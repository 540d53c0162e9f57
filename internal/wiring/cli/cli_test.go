package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/internal/wiring/cli"
)

// run executes a command line in-process and returns stdout, stderr and
// the exit code.
func run(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := cli.Run(context.Background(), append([]string{"annalist"}, args...), strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), code
}

const volume = "甲乙(子丙)丁戊\n" +
	"甲乙，字子明，号东山，福清人。举万历十一年进士，授编修。卒，年六十。\n" +
	"子丙，字季常，以荫官中书舍人。\n" +
	"丁戊，字伯玉，吴县人。举嘉靖二十年进士，授行人，官至礼部尚书。\n"

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestChunkJSONTilesTheFile(t *testing.T) {
	f := writeFile(t, t.TempDir(), "001.txt", volume)
	// The flag after the positional argument is honoured.
	out, stderr, code := run(t, "chunk", f, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var chunks []struct {
		ID       string `json:"id"`
		Subject  string `json:"subject"`
		Attached *bool  `json:"attached"`
		Main     string `json:"main"`
		Start    int    `json:"start"`
		End      int    `json:"end"`
		Text     string `json:"text"`
	}
	if err := json.Unmarshal([]byte(out), &chunks); err != nil {
		t.Fatalf("stdout is not the JSON array: %v\n%s", err, out)
	}
	var text strings.Builder
	var subjects, attached []string
	prevEnd := 0
	for _, c := range chunks {
		if c.Start != prevEnd || c.End-c.Start != len([]rune(c.Text)) || c.ID == "" || c.Attached == nil {
			t.Fatalf("chunk %+v does not continue at %d or lacks attached", c, prevEnd)
		}
		prevEnd = c.End
		text.WriteString(c.Text)
		switch {
		case *c.Attached:
			attached = append(attached, c.Subject+"<"+c.Main)
		case c.Subject != "":
			subjects = append(subjects, c.Subject)
		}
	}
	if text.String() != volume {
		t.Fatal("chunks do not tile the file")
	}
	// 子丙 opens an entry of his own inside his father's: the listing's
	// relative, his surname completed.
	if strings.Join(subjects, ",") != "甲乙,丁戊" || strings.Join(attached, ",") != "甲丙<甲乙" {
		t.Fatalf("entry subjects %v and attached %v, want 甲乙 and 丁戊, and 甲丙 in 甲乙's entry", subjects, attached)
	}
}

func TestIngestThenKGShowByCourtesyName(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	corpus := filepath.Join(dir, "corpus")
	writeFile(t, corpus, "001.txt", volume)
	writeFile(t, corpus, "bad.jsonl", "{not json}\n")

	out, stderr, code := run(t, "ingest", corpus, "--data-dir", data, "--json", "--log-level", "error")
	if code != 0 {
		t.Fatalf("ingest exit %d: %s", code, stderr)
	}
	var res struct {
		Documents int      `json:"documents"`
		Errors    []string `json:"errors"`
		Store     struct {
			Chunks, Nodes, Edges int
			Vectors              int
		} `json:"store"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("ingest --json printed %q: %v", out, err)
	}
	if res.Documents != 1 || len(res.Errors) != 1 || res.Store.Nodes == 0 || res.Store.Vectors != res.Store.Chunks {
		t.Fatalf("ingest result %+v", res)
	}

	out, stderr, code = run(t, "kg", "show", "子明", "--data-dir", data, "--json", "--log-level", "error")
	if code != 0 {
		t.Fatalf("kg show exit %d: %s", code, stderr)
	}
	var v struct {
		Name    string   `json:"name"`
		Aliases []string `json:"aliases"`
		Edges   []struct {
			Relation string `json:"relation"`
			Tail     string `json:"tail"`
			ChunkID  string `json:"chunk_id"`
		} `json:"edges"`
		Chunks []json.RawMessage `json:"chunks"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("kg show --json printed %q: %v", out, err)
	}
	if v.Name != "甲乙" {
		t.Fatalf("子明 resolved to %q, want 甲乙", v.Name)
	}
	want := map[string]string{"courtesy_name": "子明", "art_name": "东山", "native_place": "福清", "jinshi": "万历十一年"}
	for _, e := range v.Edges {
		if want[e.Relation] == e.Tail && e.ChunkID != "" {
			delete(want, e.Relation)
		}
	}
	if len(want) > 0 || len(v.Chunks) == 0 {
		t.Fatalf("missing facts %v in %+v", want, v)
	}

	_, stderr, code = run(t, "kg", "show", "无此人", "--data-dir", data, "--log-level", "error")
	if code != 1 || !strings.Contains(stderr, "not found") {
		t.Fatalf("unknown name: exit %d, %q", code, stderr)
	}
}

func TestEvalSegmentationJSON(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "001.txt", volume)
	out, stderr, code := run(t, "eval", "segmentation", "--data", dir, "--json", "--log-level", "error")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var r map[string]any
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if r["volumes"] != 1.0 || r["volumes_exact"] != 1.0 || r["name_recall"] != 1.0 || r["name_precision"] != 1.0 {
		t.Fatalf("report %v", r)
	}
}

func TestUsageErrorsAndEnvironment(t *testing.T) {
	if _, _, code := run(t, "nosuch"); code != 2 {
		t.Fatalf("unknown command: exit %d", code)
	}
	if _, stderr, code := run(t, "chunk"); code != 2 || !strings.Contains(stderr, "FILE") {
		t.Fatalf("chunk without file: exit %d %q", code, stderr)
	}
	t.Setenv("ANNALIST_LOG_LEVEL", "shouting")
	if _, stderr, code := run(t, "eval", "segmentation", "--data", t.TempDir()); code != 2 || !strings.Contains(stderr, "shouting") {
		t.Fatalf("bad level from the environment must be a usage error: exit %d %q", code, stderr)
	}
	// A flag given on the command line wins over the environment.
	if _, stderr, code := run(t, "eval", "segmentation", "--data", t.TempDir(), "--log-level", "error"); code == 2 {
		t.Fatalf("flag should override the environment: %q", stderr)
	}
	out, _, code := run(t, "topology", "--json")
	if code != 0 || !strings.Contains(out, `"annalist.chunker"`) {
		t.Fatalf("topology --json: %d %s", code, out)
	}
}

// A busy port is one error line: the listener is opened before any stage
// starts, so no stage reports its own cancellation after it (serve), and
// nothing of the demo runs first (demo).
func TestBusyPortIsOneError(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, cmd := range []string{"serve", "demo"} {
		out, errs, code := run(t, cmd, "--addr", l.Addr().String(), "--data-dir", t.TempDir(), "--log-level", "error")
		if code == 0 {
			t.Fatalf("%s on a busy port exited 0", cmd)
		}
		lines := strings.Split(strings.TrimSpace(errs), "\n")
		if len(lines) != 1 || !strings.Contains(lines[0], "address already in use") {
			t.Errorf("%s on a busy port: stderr has %d lines, want the one error:\n%s", cmd, len(lines), errs)
		}
		if out != "" {
			t.Errorf("%s on a busy port printed %q", cmd, out)
		}
	}
}

// A path flag whose value was left out takes the next flag as its value;
// that is refused, so no folder named like a flag is made.
func TestPathFlagRefusesAFlagAsItsValue(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, args := range [][]string{
		{"ingest", "x.txt", "--data-dir", "--json"},
		{"bench", "ingest", "--data", "--json"},
		{"kg", "stats", "--data-dir=-x"},
	} {
		_, stderr, code := run(t, args...)
		if code != 2 || !strings.Contains(stderr, "looks like a flag, not a path") {
			t.Errorf("%q: exit %d, stderr %q; want a usage error", args, code, stderr)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("the refused commands left %d entries in the working directory", len(entries))
	}
}
