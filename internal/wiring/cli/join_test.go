package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
	"github.com/annalist-dev/annalist/internal/wiring/cli"
)

// endpoints is what the owner of a data directory publishes in
// <data-dir>/endpoints.json, as far as these tests look.
type endpoints struct {
	PID      int      `json:"pid"`
	Command  string   `json:"command"`
	API      string   `json:"api"`
	Stages   []string `json:"stages"`
	Embedder string   `json:"embedder"`
}

// ownerOf waits until the process pid has published the endpoints of data
// and ok says they are complete, and returns them.
func ownerOf(t *testing.T, data string, pid int, c *child, ok func(endpoints) bool) endpoints {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		var ep endpoints
		b, err := os.ReadFile(filepath.Join(data, "endpoints.json"))
		if err == nil && json.Unmarshal(b, &ep) == nil && ep.PID == pid && ok(ep) {
			return ep
		}
		if time.Now().After(deadline) {
			t.Fatalf("no complete endpoints.json of pid %d in %s (last %s, %v)\n%s", pid, data, b, err, c.stderr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestCommandsJoinServe: on a data directory that `serve` holds, ingest,
// kg show, retrieve and generate join it instead of failing: ingest only
// publishes and waits until serve's stages have finished its document,
// the others read serve's Redis, retrieve gets its vector hits from
// serve's API, generate's request is written by serve's stages. No second
// broker or redis-server is started, and the owner stays the owner.
func TestCommandsJoinServe(t *testing.T) {
	redistest.Require(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	redistest.KillServersInAtCleanup(t, data)
	corpus := filepath.Join(dir, "corpus")
	writeFile(t, corpus, "001.txt", volume)

	addr := freeAddr(t)
	c := startChild(t, "serve", "--addr", addr, "--data-dir", data, "--log-level", "warn")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	waitReady(t, ctx, addr, c)
	owner := ownerOf(t, data, c.cmd.Process.Pid, c, func(ep endpoints) bool { return ep.API != "" })
	if owner.Command != "serve" || owner.API != "http://"+addr || len(owner.Stages) == 0 || owner.Embedder == "" {
		t.Fatalf("serve published %+v; want its command, API, stages and embedder", owner)
	}

	out, stderr, code := run(t, "ingest", corpus, "--data-dir", data, "--json", "--log-level", "info")
	if code != 0 {
		t.Fatalf("joined ingest: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "joining the services") || !strings.Contains(stderr, fmt.Sprintf("pid %d", owner.PID)) {
		t.Fatalf("ingest did not say it joined annalist serve (pid %d):\n%s", owner.PID, stderr)
	}
	var res struct {
		Documents int `json:"documents"`
		// Produced by stages of the ingest process itself.
		Chunks   int `json:"chunks"`
		Triplets int `json:"triplets"`
		Vectors  int `json:"vectors"`
		Store    struct {
			Documents, Chunks, Nodes, Edges int
			Vectors                         int
		} `json:"store"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("ingest --json printed %q: %v", out, err)
	}
	if res.Chunks != 0 || res.Triplets != 0 || res.Vectors != 0 {
		t.Fatalf("the joined ingest ran stages itself: %+v", res)
	}
	// The store is as a one-shot ingest leaves it: serve's stages chunked,
	// extracted, applied and embedded the document before ingest returned.
	if res.Documents != 1 || res.Store.Documents != 1 || res.Store.Chunks == 0 || res.Store.Nodes == 0 ||
		res.Store.Edges == 0 || res.Store.Vectors != res.Store.Chunks {
		t.Fatalf("joined ingest result %+v", res)
	}

	out, stderr, code = run(t, "kg", "show", "子明", "--data-dir", data, "--json", "--log-level", "error")
	if code != 0 {
		t.Fatalf("joined kg show: exit %d\n%s", code, stderr)
	}
	var v struct {
		Name  string `json:"name"`
		Edges []struct {
			Relation string `json:"relation"`
			Tail     string `json:"tail"`
			ChunkID  string `json:"chunk_id"`
		} `json:"edges"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("kg show --json printed %q: %v", out, err)
	}
	docID := ""
	for _, e := range v.Edges {
		if e.Relation == "native_place" && e.Tail == "福清" {
			docID = e.ChunkID[:strings.LastIndex(e.ChunkID, "-")]
		}
	}
	if v.Name != "甲乙" || docID == "" {
		t.Fatalf("kg show 子明 on the joined Redis: %+v", v)
	}
	// serve's stages marked the document: they did the work.
	resp, err := http.Get("http://" + addr + "/v1/documents/" + docID)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Stages struct{ Chunked, Extracted, Indexed bool } `json:"stages"`
	}
	err = json.NewDecoder(resp.Body).Decode(&doc)
	resp.Body.Close()
	if err != nil || !doc.Stages.Chunked || !doc.Stages.Extracted || !doc.Stages.Indexed {
		t.Fatalf("document %s at serve: %+v, %v", docID, doc, err)
	}

	out, stderr, code = run(t, "retrieve", "甲乙", "--data-dir", data, "--json", "--log-level", "warn")
	if code != 0 {
		t.Fatalf("joined retrieve: exit %d\n%s", code, stderr)
	}
	if strings.Contains(stderr, "vector store unavailable") {
		t.Fatalf("retrieve did not get the vectors from serve:\n%s", stderr)
	}
	var ret cli.RetrieveOutput
	if err := json.Unmarshal([]byte(out), &ret); err != nil {
		t.Fatalf("retrieve --json printed %q: %v", out, err)
	}
	if ret.Name != "甲乙" || len(ret.KG) == 0 || len(ret.Vector) == 0 || len(ret.Vector) > res.Store.Chunks {
		t.Fatalf("retrieve 甲乙 joined: %d kg references, %d vector hits of %d chunks (%+v)",
			len(ret.KG), len(ret.Vector), res.Store.Chunks, ret)
	}
	for _, r := range ret.Vector {
		if !strings.HasPrefix(r.ChunkID, docID+"-") {
			t.Fatalf("vector hit %s is not a chunk of %s", r.ChunkID, docID)
		}
	}

	out, stderr, code = run(t, "generate", "biography", "甲乙", "--data-dir", data, "--json", "--log-level", "warn")
	if code != 0 {
		t.Fatalf("joined generate: exit %d\n%s\n%s", code, out, stderr)
	}
	var page struct {
		Subject   string `json:"subject"`
		Sentences []struct {
			Text      string `json:"text"`
			Citations []struct {
				ChunkID string `json:"chunk_id"`
			} `json:"citations"`
		} `json:"sentences"`
	}
	if err := json.Unmarshal([]byte(out), &page); err != nil {
		t.Fatalf("generate --json printed %q: %v", out, err)
	}
	cited := 0
	for _, s := range page.Sentences {
		for _, ci := range s.Citations {
			if strings.HasPrefix(ci.ChunkID, docID+"-") {
				cited++
			}
		}
	}
	if len(page.Sentences) == 0 || cited == 0 {
		t.Fatalf("page written by serve's stages for the joined generate: %+v", page)
	}

	// A joined command whose embedder is not the index's is refused, not
	// answered with vectors that do not compare.
	_, stderr, code = run(t, "ingest", corpus, "--data-dir", data, "--embed-offline-dim", "128", "--log-level", "error")
	if code == 0 || !strings.Contains(stderr, owner.Embedder) || !strings.Contains(stderr, "offline/128") {
		t.Fatalf("ingest with another embedder: exit %d\n%s", code, stderr)
	}

	if pids := redistest.ServersIn(t, data); len(pids) != 1 {
		t.Fatalf("redis-servers on the data directory: %v; want serve's alone", pids)
	}
	if after := ownerOf(t, data, owner.PID, c, func(endpoints) bool { return true }); after.API != owner.API {
		t.Fatalf("endpoints changed under the joined commands: %+v, was %+v", after, owner)
	}
}

// TestJoinOwnerWithoutAPI: a process that owns the data directory but
// serves no API (here `consume chunker`) cannot lend its vector index or
// its stages: ingest and generate fail at once with one error that names
// its pid and command, while kg show, which reads Redis alone, joins it.
func TestJoinOwnerWithoutAPI(t *testing.T) {
	redistest.Require(t)
	data := t.TempDir()
	redistest.KillServersInAtCleanup(t, data)
	corpus := t.TempDir()
	writeFile(t, corpus, "001.txt", volume)

	c := startChild(t, "consume", "chunker", "--data-dir", data, "--log-level", "warn")
	owner := ownerOf(t, data, c.cmd.Process.Pid, c, func(ep endpoints) bool { return ep.Command == "consume" })
	if owner.API != "" {
		t.Fatalf("consume published an API: %+v", owner)
	}
	who := fmt.Sprintf("annalist consume (pid %d)", owner.PID)

	for _, args := range [][]string{
		{"ingest", corpus},
		{"generate", "biography", "甲乙"},
	} {
		out, stderr, code := run(t, append(args, "--data-dir", data, "--log-level", "error")...)
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		if code != 1 || len(lines) != 1 || !strings.Contains(stderr, who) || !strings.Contains(stderr, "serves no API") {
			t.Errorf("%s on a directory %s owns: exit %d, stdout %q, stderr:\n%s", args[0], who, code, out, stderr)
		}
	}
	if _, stderr, code := run(t, "kg", "show", "甲乙", "--data-dir", data, "--log-level", "error"); code != 1 || !strings.Contains(stderr, "not found") {
		t.Fatalf("kg show on the joined Redis: exit %d (want 1: nothing ingested)\n%s", code, stderr)
	}
	if pids := redistest.ServersIn(t, data); len(pids) != 1 {
		t.Fatalf("redis-servers on the data directory: %v; want consume's alone", pids)
	}
}
