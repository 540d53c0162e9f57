package cli_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// benchVolume is a small volume for the ingest benchmark: one entry the
// hand-made patterns read whole, one whose courtesy name follows 表字.
const benchVolume = "甲乙丁戊\n" +
	"甲乙，字子明，号东山，福清人。举万历十一年进士，授编修。\n" +
	"丁戊，表字伯玉，吴县人。举嘉靖二十年进士，授行人。\n"

type benchIngestLLM struct {
	Chunks           int      `json:"chunks"`
	Triplets         int      `json:"triplets"`
	Engine           string   `json:"engine"`
	LLMCalls         *int64   `json:"llm_calls"`
	LLMCallsPerChunk *float64 `json:"llm_calls_per_chunk"`
	LLM              *struct {
		Model        string `json:"model"`
		ChunkerCalls int64  `json:"chunker_calls"`
		Extractor    struct {
			LLMCalls     int64 `json:"llm_calls"`
			RegexCalls   int64 `json:"regex_calls"`
			PlanBCalls   int64 `json:"plan_b_calls"`
			RegexLearned int64 `json:"regex_learned"`
		} `json:"extractor"`
		Relations   map[string]struct{ Gaps, RegexCalls int64 } `json:"relations"`
		ServerCalls map[string]int                              `json:"server_calls"`
		Unexpected  []string                                    `json:"unexpected"`
	} `json:"llm"`
}

// `bench ingest --engine llm` serves the scripted ingestion model on
// loopback and reports where the model calls went; the offline engine's
// output has none of those fields.
func TestBenchIngestLLMEngine(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "vols"), "001.txt", benchVolume)
	out, stderr, code := run(t, "bench", "ingest", "--engine", "llm", "--data", filepath.Join(dir, "vols"),
		"--data-dir", filepath.Join(dir, "data"), "--json", "--log-level", "error")
	if code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, stderr)
	}
	var b benchIngestLLM
	if err := json.Unmarshal([]byte(out), &b); err != nil {
		t.Fatalf("stdout %q: %v", out, err)
	}
	if b.Engine != "llm" || b.LLM == nil || b.LLMCalls == nil || b.LLMCallsPerChunk == nil || b.Chunks == 0 {
		t.Fatalf("bench = %s", out)
	}
	l := b.LLM
	if l.Model != "scripted" || len(l.Unexpected) != 0 || l.ChunkerCalls != 1 {
		t.Fatalf("llm = %+v", l)
	}
	// 丁戊's courtesy name: one regex call, learned.
	if l.Extractor.RegexCalls != 1 || l.Extractor.RegexLearned != 1 || l.Extractor.PlanBCalls != 0 ||
		l.Relations["courtesy_name"].Gaps != 1 {
		t.Fatalf("extractor = %+v, relations %+v", l.Extractor, l.Relations)
	}
	server := 0
	for _, n := range []string{"chunker_anchors", "regex", "plan_b"} {
		server += l.ServerCalls[n]
	}
	if *b.LLMCalls != l.ChunkerCalls+l.Extractor.LLMCalls || int64(server) != *b.LLMCalls ||
		*b.LLMCallsPerChunk != float64(*b.LLMCalls)/float64(b.Chunks) {
		t.Fatalf("calls %d (server %d), per chunk %v, chunks %d", *b.LLMCalls, server, *b.LLMCallsPerChunk, b.Chunks)
	}

	out, stderr, code = run(t, "bench", "ingest", "--data", filepath.Join(dir, "vols"),
		"--data-dir", filepath.Join(dir, "data2"), "--json", "--log-level", "error")
	if code != 0 {
		t.Fatalf("offline: exit %d\nstdout %s\nstderr %s", code, out, stderr)
	}
	if strings.Contains(out, "llm") || !strings.Contains(out, `"engine": "offline"`) {
		t.Fatalf("offline bench = %s", out)
	}
	if off := (benchIngestLLM{}); json.Unmarshal([]byte(out), &off) != nil || off.Triplets >= b.Triplets {
		t.Fatalf("offline triplets %d, llm %d: want the LLM engine to add 丁戊's courtesy name", off.Triplets, b.Triplets)
	}

	_, stderr, code = run(t, "bench", "ingest", "--engine", "gpt", "--data", filepath.Join(dir, "vols"),
		"--data-dir", filepath.Join(dir, "data3"))
	if code == 0 || !strings.Contains(stderr, "--engine") {
		t.Fatalf("--engine gpt: exit %d, %s", code, stderr)
	}
}
