//go:build engines

package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"
	kafkago "github.com/segmentio/kafka-go"

	"github.com/annalist-dev/annalist/infra/redisdb"
	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
	"github.com/annalist-dev/annalist/internal/evaluation/dataset"
	"github.com/annalist-dev/annalist/internal/kit/enginestest"
	"github.com/annalist-dev/annalist/internal/wiring/app"
	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
)

// The end-to-end tests on real engines: Apache Kafka, Milvus Lite and a
// redis-server with AOF, with the stages in `annalist consume` processes
// of their own, as the distributed mode deploys them. Every test starts
// its own redis-server and names its own Milvus collections, so what one
// test stored is never another's; the broker's topics are shared, and
// every test ends with the consumer groups it ran caught up.

// e2eData is the evaluation data folder name under dataset.Root: the
// engine suite fails without it, it never skips.
func e2eData(t *testing.T, name string) string {
	t.Helper()
	p := dataset.Path(name)
	if p == "" {
		t.Fatalf("evaluation data %q not found (set %s or place shared/data beside the repository)", name, dataset.EnvVar)
	}
	return p
}

// e2eCluster is a distributed deployment on the real engines: a
// redis-server of the test's own and the stages in child processes.
type e2eCluster struct {
	e      enginestest.Engines
	redis  string
	tenant string
	// common reaches the cluster's services from an annalist command line.
	common []string
}

// newCluster applies the topology on the broker and starts a redis-server
// with AOF; consumers are started with consume.
func newCluster(t *testing.T, e enginestest.Engines) *e2eCluster {
	t.Helper()
	rs := redistest.Server(t)
	prefix := fmt.Sprintf("e2e_%x", rand.Uint64())
	c := &e2eCluster{e: e, redis: rs.Addr(), tenant: "default"}
	c.common = []string{"--brokers", e.Brokers, "--redis-addr", rs.Addr(), "--data-dir", t.TempDir(),
		"--vector-store", "milvus", "--milvus-addr", e.Milvus, "--milvus-collection-prefix", prefix,
		"--kafka-session-timeout", "6s", "--kafka-heartbeat-interval", "1s",
		"--kafka-max-backoff", "2s", "--log-level", "warn"}
	if out, errs, code := run(t, "topology", "apply", "--brokers", e.Brokers); code != 0 {
		t.Fatalf("topology apply: exit %d\n%s\n%s", code, out, errs)
	}
	waitLeaders(t, e.Brokers)
	return c
}

// waitLeaders waits until every partition of every topic answers its
// offsets from its leader: a topic just created may refuse a produce with
// Not Leader For Partition until then.
func waitLeaders(t *testing.T, brokers string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for _, topic := range topology.AllTopics() {
		for {
			err := leadersAnswer(ctx, brokers, topic)
			if err == nil {
				break
			}
			if ctx.Err() != nil {
				t.Fatalf("topic %s: no leader answers: %v", topic, err)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}

func leadersAnswer(ctx context.Context, brokers, topic string) error {
	conn, err := kafkago.DialContext(ctx, "tcp", brokers)
	if err != nil {
		return err
	}
	parts, err := conn.ReadPartitions(topic)
	conn.Close()
	if err != nil {
		return err
	}
	for _, p := range parts {
		pc, err := kafkago.DialLeader(ctx, "tcp", brokers, topic, p.ID)
		if err != nil {
			return err
		}
		_, err = pc.ReadLastOffset()
		pc.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// args is a command line with the cluster's flags after it.
func (c *e2eCluster) args(a ...string) []string {
	return append(append(slices.Clone(a), c.common...), "--tenant", c.tenant)
}

// consume starts `annalist consume STAGE...` in a child process.
func (c *e2eCluster) consume(t *testing.T, stages ...string) *child {
	t.Helper()
	ch := startChild(t, c.args(append([]string{"consume"}, stages...)...)...)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("consume %s stderr:\n%s", strings.Join(stages, " "), tail(ch.stderr.String(), 3000))
		}
	})
	return ch
}

// ingestJSON runs `ingest … --json` and decodes its summary.
func ingestJSON(t *testing.T, args ...string) app.IngestResult {
	t.Helper()
	out, errs, code := run(t, append(append([]string{"ingest"}, args...), "--json")...)
	if code != 0 {
		t.Fatalf("ingest %q: exit %d\n%s\n%s", args, code, out, tail(errs, 3000))
	}
	var res app.IngestResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("ingest %q: %v\n%s", args, err, out)
	}
	return res
}

// bioSentence is a sentence of `generate biography --json` without what
// differs by run (timings).
type bioSentence struct {
	Text      string `json:"text"`
	Status    string `json:"status"`
	Citations []struct {
		ChunkID string `json:"chunk_id"`
	} `json:"citations"`
}

// generateJSON runs `generate biography NAME --json` and returns the page's
// sentences.
func generateJSON(t *testing.T, args ...string) []bioSentence {
	t.Helper()
	out, errs, code := run(t, append(append([]string{"generate", "biography"}, args...), "--json")...)
	if code != 0 {
		t.Fatalf("generate %q: exit %d\n%s\n%s", args, code, out, tail(errs, 3000))
	}
	var p struct {
		Sentences []bioSentence `json:"sentences"`
	}
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatalf("generate %q: %v\n%s", args, err, out)
	}
	return p.Sentences
}

// samplePersons draws n persons with an entry of their own from the
// volumes of dir, seeded: n volumes, then one main entry's subject of each
// as the chunker makes them.
func samplePersons(t *testing.T, dir string, n int, seed uint64) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".txt") {
			files = append(files, e.Name())
		}
	}
	slices.Sort(files)
	r := rand.New(rand.NewPCG(seed, seed))
	var out []string
	for _, i := range r.Perm(len(files)) {
		if len(out) == n {
			break
		}
		stdout, errs, code := run(t, "chunk", filepath.Join(dir, files[i]), "--json")
		if code != 0 {
			t.Fatalf("chunk %s: %s", files[i], errs)
		}
		var chunks []struct {
			Subject  string `json:"subject"`
			Attached bool   `json:"attached"`
			Main     string `json:"main"`
		}
		if err := json.Unmarshal([]byte(stdout), &chunks); err != nil {
			t.Fatal(err)
		}
		var subjects []string
		for _, c := range chunks {
			if c.Subject != "" && !c.Attached && c.Main == "" && !slices.Contains(subjects, c.Subject) && !slices.Contains(out, c.Subject) {
				subjects = append(subjects, c.Subject)
			}
		}
		if len(subjects) > 0 {
			out = append(out, subjects[r.IntN(len(subjects))])
		}
	}
	return out
}

// TestEnginesDistributedEqualsEmbedded ingests the History of Ming's
// biography volumes, then the archive, through the distributed mode — the
// topology applied on Kafka, two `consume ingest` processes and one
// `consume generate`, a redis-server with AOF, Milvus Lite — and through
// the embedded mode, and requires the same store counts (documents,
// chunks, KG nodes, edges, aliases, vectors) and the same biographies of
// five persons drawn with a fixed seed.
func TestEnginesDistributedEqualsEmbedded(t *testing.T) {
	e := enginestest.Require(t)
	ming, archive := e2eData(t, "mingshi-liezhuan"), e2eData(t, "archive")
	c := newCluster(t, e)
	c.consume(t, "ingest")
	c.consume(t, "ingest")
	c.consume(t, "generate")

	var dist, emb []app.IngestResult
	for _, dir := range []string{ming, archive} {
		dist = append(dist, ingestJSON(t, c.args(dir)...))
	}
	data := t.TempDir()
	redistest.KillServersInAtCleanup(t, data)
	for _, dir := range []string{ming, archive} {
		emb = append(emb, ingestJSON(t, dir, "--data-dir", data, "--log-level", "warn"))
	}
	rate := func(rs []app.IngestResult) (chars int64, secs float64) {
		for _, r := range rs {
			chars += r.Chars
			secs += r.Seconds
		}
		return chars, secs
	}
	dc, ds := rate(dist)
	ec, es := rate(emb)
	t.Logf("distributed (Kafka, 2 consume ingest, Redis AOF, Milvus Lite): %d chars in %.1fs, %.0f chars/s; embedded: %d chars in %.1fs, %.0f chars/s",
		dc, ds, float64(dc)/ds, ec, es, float64(ec)/es)
	// After the Ming volumes the stores are equal, count for count.
	if d, e := dist[0].Store, emb[0].Store; d != e {
		t.Errorf("after the Ming volumes, store counts differ: distributed %+v, embedded %+v", d, e)
	}
	// After the archive, documents, chunks, aliases and vectors are equal.
	// Nodes and edges may differ by a person, in either mode from run to
	// run: an archive document that names a person before his entry, in
	// another archive document, reaches the graph makes an unanchored
	// node of him (with the edges its chunk gives), and the entry's person
	// arriving later does not absorb it; which document comes first
	// depends on the partitions' interleaving.
	dStore, eStore := dist[len(dist)-1].Store, emb[len(emb)-1].Store
	t.Logf("store distributed %+v, embedded %+v", dStore, eStore)
	if dStore.Documents != eStore.Documents || dStore.Chunks != eStore.Chunks ||
		dStore.Aliases != eStore.Aliases || dStore.Vectors != eStore.Vectors {
		t.Errorf("store counts differ: distributed %+v, embedded %+v", dStore, eStore)
	}
	if dStore.Vectors == 0 || int64(dStore.Vectors) != dStore.Chunks {
		t.Errorf("distributed: %d vectors for %d chunks", dStore.Vectors, dStore.Chunks)
	}

	persons := samplePersons(t, ming, 5, 7)
	if len(persons) != 5 {
		t.Fatalf("drew %d persons: %q", len(persons), persons)
	}
	for _, p := range persons {
		got := generateJSON(t, c.args(p)...)
		want := generateJSON(t, p, "--data-dir", data, "--log-level", "warn")
		if len(want) == 0 {
			t.Errorf("%s: the embedded page has no sentence", p)
		}
		gb, _ := json.Marshal(got)
		wb, _ := json.Marshal(want)
		if string(gb) != string(wb) {
			t.Errorf("biography of %s differs:\ndistributed %s\nembedded    %s", p, gb, wb)
		}
	}
	t.Logf("biographies of %q equal in both modes", persons)
}

// pagesOf opens the cluster's page store from the test.
func (c *e2eCluster) pagesOf(t *testing.T, ctx context.Context) *app.App {
	t.Helper()
	a, err := app.Open(ctx, app.Config{DataDir: t.TempDir(), Redis: redisdb.Config{Addr: c.redis}}, zerolog.Nop(), app.Needs{Redis: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close() })
	return a
}

// citesDoc reports whether a page cites a chunk of document doc.
func citesDoc(p schemas.Page, doc string) bool {
	for _, s := range p.Sentences {
		for _, c := range s.Citations {
			if strings.HasPrefix(c.ChunkID, doc+"-") {
				return true
			}
		}
	}
	return false
}

// TestEnginesLivingPageFollowsNoteVersionAndRetraction: a biography is
// written; a new note about the person, a new version of the note under
// the same source, and the note's retraction each make a new version of
// the page: the first and second citing the note's current version (the
// second no longer the first note), the last citing neither.
func TestEnginesLivingPageFollowsNoteVersionAndRetraction(t *testing.T) {
	e := enginestest.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c := newCluster(t, e)
	c.consume(t, "ingest")
	c.consume(t, "generate")

	dir := filepath.Join(t.TempDir(), "living")
	var docs []faultDoc
	for i := 0; i < 6; i++ {
		d := newFaultDoc(300 + i)
		docs = append(docs, d)
		writeFile(t, dir, fmt.Sprintf("%03d.txt", i+1), d.Text+"\n")
	}
	ingestJSON(t, c.args(dir)...)
	subject := docs[2].Name
	if s := generateJSON(t, c.args(subject)...); len(s) == 0 {
		t.Fatalf("no sentence on the page of %s", subject)
	}
	a := c.pagesOf(t, ctx)
	current := func() schemas.Page {
		p, err := a.Pages.CurrentOf(ctx, c.tenant, schemas.KindBiography, subject)
		if err != nil {
			t.Fatalf("page of %s: %v", subject, err)
		}
		return p
	}
	// follow waits for a version after base made for doc with reason,
	// which cites doc unless it was retracted, and cites none of gone.
	follow := func(base int, reason, doc string, gone ...string) schemas.Page {
		t.Helper()
		for {
			p := current()
			if p.Version > base && p.Reason == reason && slices.Contains(p.TriggerDocIDs, doc) {
				if cites := citesDoc(p, doc); cites != (reason == schemas.ReasonRetracted) {
					for _, g := range gone {
						if citesDoc(p, g) {
							t.Errorf("version %d (%s) still cites %s", p.Version, reason, g)
						}
					}
					t.Logf("version %d: %s, triggered by %v", p.Version, reason, p.TriggerDocIDs)
					return p
				}
			}
			if ctx.Err() != nil {
				t.Fatalf("the page of %s did not follow %s (%s): current version %d, reason %s, triggers %v",
					subject, doc, reason, p.Version, p.Reason, p.TriggerDocIDs)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	v1 := current()
	source := "notes/" + subject
	note := func(id, text string) {
		t.Helper()
		line, _ := json.Marshal(map[string]string{"doc_id": id, "source": source, "collection": "notes",
			"title": "notes on " + subject, "text": text})
		f := writeFile(t, t.TempDir(), "note.jsonl", string(line)+"\n")
		ingestJSON(t, c.args(f)...)
	}
	note("note-1", subject+"晚年归里，筑室山中，聚书数千卷，讲学其间，从游者甚众。")
	v2 := follow(v1.Version, schemas.ReasonNewEvidence, "note-1")
	note("note-2", "时人称"+subject+"廉介，居官所得俸禄，悉以周贫乏，家无余财。")
	v3 := follow(v2.Version, schemas.ReasonSuperseded, "note-2", "note-1")
	if out, errs, code := run(t, c.args("retract", source, "--json")...); code != 0 {
		t.Fatalf("retract %s: exit %d\n%s\n%s", source, code, out, errs)
	}
	follow(v3.Version, schemas.ReasonRetracted, "note-2", "note-1")
}

// TestEnginesDiscussionFeed ingests discussions through the stream and
// reads their summaries back from the compacted feed topic with a plain
// kafka-go reader: one item per discussion, of the test's tenant, each a
// valid feed item with cited sentences.
func TestEnginesDiscussionFeed(t *testing.T) {
	e := enginestest.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	src := e2eData(t, filepath.Join("kgds", "dev.json"))
	raw, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var all []json.RawMessage
	if err := json.Unmarshal(raw, &all); err != nil {
		t.Fatal(err)
	}
	const n = 8
	sub, _ := json.Marshal(all[:n])
	file := writeFile(t, t.TempDir(), "dev.json", string(sub))

	c := newCluster(t, e)
	c.tenant = fmt.Sprintf("e2e%x", rand.Uint32())
	c.consume(t, "ingest")
	c.consume(t, "generate")
	out, errs, code := run(t, c.args("ingest", "discussions", file, "--json")...)
	if code != 0 {
		t.Fatalf("ingest discussions: exit %d\n%s\n%s", code, out, tail(errs, 3000))
	}
	var res struct {
		IDs       []string          `json:"ids"`
		Summaries []json.RawMessage `json:"summaries"`
		Failed    int               `json:"failed"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(res.IDs) != n || res.Failed != 0 {
		t.Fatalf("ingest discussions: %s", out)
	}

	items := readFeed(t, ctx, e.Brokers, c.tenant)
	for _, id := range res.IDs {
		it, ok := items[id]
		if !ok {
			t.Errorf("no feed item for discussion %s", id)
			continue
		}
		if err := it.Validate(); err != nil {
			t.Errorf("feed item %s: %v", id, err)
		}
		if len(it.Summary.Background.Sentences)+len(it.Summary.Opinions) == 0 {
			t.Errorf("feed item %s has an empty summary", id)
		}
	}
	if len(items) != n {
		t.Errorf("%d feed items of tenant %s, want %d", len(items), c.tenant, n)
	}
	t.Logf("%d discussions, %d feed items read back from the feed topic", n, len(items))
}

// readFeed reads every partition of the feed topic from its first offset
// to its last with a reader of no group and returns the newest item of
// each discussion of the tenant.
func readFeed(t *testing.T, ctx context.Context, brokers, tenant string) map[string]schemas.FeedItem {
	t.Helper()
	conn, err := kafkago.DialContext(ctx, "tcp", brokers)
	if err != nil {
		t.Fatal(err)
	}
	parts, err := conn.ReadPartitions("feed")
	conn.Close()
	if err != nil {
		t.Fatal(err)
	}
	items := map[string]schemas.FeedItem{}
	for _, p := range parts {
		pc, err := kafkago.DialLeader(ctx, "tcp", brokers, "feed", p.ID)
		if err != nil {
			t.Fatal(err)
		}
		first, last, err := pc.ReadOffsets()
		pc.Close()
		if err != nil {
			t.Fatal(err)
		}
		if last <= first {
			continue
		}
		r := kafkago.NewReader(kafkago.ReaderConfig{Brokers: []string{brokers}, Topic: "feed", Partition: p.ID, MaxBytes: 32 << 20})
		if err := r.SetOffset(first); err != nil {
			t.Fatal(err)
		}
		for {
			m, err := r.ReadMessage(ctx)
			if err != nil {
				r.Close()
				t.Fatalf("read feed partition %d: %v", p.ID, err)
			}
			mine := false
			for _, h := range m.Headers {
				if h.Key == schemas.HeaderTenant && string(h.Value) == tenant {
					mine = true
				}
			}
			if mine {
				var it schemas.FeedItem
				if err := json.Unmarshal(m.Value, &it); err != nil {
					t.Errorf("feed record %d/%d: %v", p.ID, m.Offset, err)
				} else if string(m.Key) != it.ID {
					t.Errorf("feed record %d/%d: key %q, item %q", p.ID, m.Offset, m.Key, it.ID)
				} else if old, ok := items[it.ID]; !ok || it.Version >= old.Version {
					items[it.ID] = it
				}
			}
			if m.Offset+1 >= last {
				break
			}
		}
		r.Close()
	}
	return items
}

// faultCluster is the distributed mode a fault test runs: the ingestion
// stages in procs `consume` processes (the first with the scheduler, so
// every group reading kg-updates keeps up) and the API in `serve
// --stages=false`, on the real engines.
func faultCluster(t *testing.T, ctx context.Context, e enginestest.Engines, procs int) (*e2eCluster, *faultServer, []*child, string) {
	t.Helper()
	c := newCluster(t, e)
	ops := freeAddr(t)
	var consumers []*child
	for i := 0; i < procs; i++ {
		stages := []string{"ingest"}
		if i == 0 {
			stages = append(stages, "scheduler", "--metrics-addr", ops)
		}
		consumers = append(consumers, c.consume(t, stages...))
	}
	s := &faultServer{addr: freeAddr(t)}
	s.c = startChild(t, c.args("serve", "--stages=false", "--addr", s.addr)...)
	waitReady(t, ctx, s.addr, s.c)
	return c, s, consumers, "http://" + ops + "/metrics"
}

// vectorsOf counts the tenant's vectors in the cluster's Milvus
// collections.
func (c *e2eCluster) vectorsOf(t *testing.T, ctx context.Context) int {
	t.Helper()
	out, errs, code := run(t, c.args("ingest", "-", "--json")...)
	// Nothing on stdin: the command exits 1 and still prints the counts.
	if code != 1 {
		t.Fatalf("ingest of nothing: exit %d\n%s\n%s", code, out, errs)
	}
	var res app.IngestResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return res.Store.Vectors
}

// afterFault checks what every fault test checks: every acknowledged
// document processed, nothing dead-lettered, each document's chunks and
// KG content equal to a clean embedded run's, and one vector per chunk.
func afterFault(t *testing.T, ctx context.Context, c *e2eCluster, s *faultServer, metrics string, accepted []faultDoc) {
	t.Helper()
	waitProcessed(t, ctx, s, ids(accepted), 120*time.Second)
	t.Logf("all %d acknowledged documents fully processed: 0 lost", len(accepted))
	checkNoDeadLetters(t, ctx, metrics)
	compareWithCleanRun(t, ctx, s, accepted)
	chunks := 0
	for _, d := range accepted {
		code, body := httpJSON(ctx, http.MethodGet, s.url("/v1/documents/"+d.ID), nil)
		var st docState
		if code != http.StatusOK || json.Unmarshal(body, &st) != nil {
			t.Fatalf("document %s: %d %s", d.ID, code, body)
		}
		chunks += st.Chunks
	}
	if n := c.vectorsOf(t, ctx); n != chunks {
		t.Errorf("Milvus holds %d vectors for the %d chunks of the acknowledged documents", n, chunks)
	}
}

// TestEnginesConsumerKilledLosesNothing: one of two `consume ingest`
// processes is killed with SIGKILL while documents arrive; the group
// rebalances onto the other, and every acknowledged document ends
// processed once in effect.
func TestEnginesConsumerKilledLosesNothing(t *testing.T) {
	e := enginestest.Require(t)
	ctx := faultTest(t, 150*time.Second)
	c, s, consumers, metrics := faultCluster(t, ctx, e, 2)
	victim := consumers[1]
	accepted, _ := ingestUnderFault(t, ctx, s, 8*time.Second, 2*time.Second, 20, func() {
		if err := victim.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Errorf("kill consume ingest: %v", err)
		}
	})
	afterFault(t, ctx, c, s, metrics, accepted)
}

// TestEnginesKafkaKilledAndRestartedLosesNothing: the Kafka broker is
// killed with SIGKILL while documents arrive and started again on its
// port and log; every acknowledged document ends processed once in effect.
func TestEnginesKafkaKilledAndRestartedLosesNothing(t *testing.T) {
	engineKilledAndRestarted(t, enginestest.Kafka)
}

// TestEnginesMilvusKilledAndRestartedLosesNothing: Milvus Lite is killed
// with SIGKILL under the embedder while documents arrive and started again;
// the embedder pauses and resumes, and every chunk ends with its vector.
func TestEnginesMilvusKilledAndRestartedLosesNothing(t *testing.T) {
	engineKilledAndRestarted(t, enginestest.Milvus)
}

// engineKilledAndRestarted kills an engine with SIGKILL while documents
// arrive, starts it again a second later on its port and state, and
// checks that every acknowledged document ends processed once in effect.
func engineKilledAndRestarted(t *testing.T, name string) {
	e := enginestest.Require(t)
	ctx := faultTest(t, 200*time.Second)
	c, s, _, metrics := faultCluster(t, ctx, e, 1)
	accepted, refused := ingestUnderFault(t, ctx, s, 8*time.Second, 2*time.Second, 20, func() {
		e.Kill(t, name)
		time.Sleep(time.Second)
		e.Up(t)
	})
	t.Logf("%d posts refused while %s was down", refused, name)
	afterFault(t, ctx, c, s, metrics, accepted)
}

// TestEnginesOversizedDocumentRefusedAtTheEdge: a document larger than
// the broker admits in one record (16 MiB) is refused before anything is
// published, by the CLI (exit 1 naming the file and the limit) and by the
// API (4xx), and the stages go on with the next document.
func TestEnginesOversizedDocumentRefusedAtTheEdge(t *testing.T) {
	e := enginestest.Require(t)
	ctx := faultTest(t, 120*time.Second)
	c, s, _, metrics := faultCluster(t, ctx, e, 1)
	big := strings.Repeat(newFaultDoc(500).Text+"\n", (17<<20)/len(newFaultDoc(500).Text)+1)
	dir := filepath.Join(t.TempDir(), "big")
	writeFile(t, dir, "big.txt", big)
	out, errs, code := run(t, c.args("ingest", dir, "--json")...)
	if code != 1 || !strings.Contains(errs, "big.txt") || !strings.Contains(errs, "limit") {
		t.Errorf("ingest of a %d-byte file: exit %d, want 1 naming the file and the limit\n%s\n%s", len(big), code, out, tail(errs, 2000))
	}
	var res app.IngestResult
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Documents != 0 || res.Store.Documents != 0 {
		t.Errorf("ingest of a %d-byte file: %v %s, want nothing published", len(big), err, out)
	}
	code, body := httpJSON(ctx, http.MethodPost, s.url("/v1/documents"), map[string]string{"doc_id": "big", "text": big})
	if code < 400 || code >= 500 {
		t.Errorf("POST of a %d-byte document: %d %.300s, want a 4xx", len(big), code, body)
	}
	t.Logf("refused: CLI %q; API %d %.200s", lastLine(errs), code, body)
	d := newFaultDoc(501)
	if code, body := httpJSON(ctx, http.MethodPost, s.url("/v1/documents"), d.record()); code != http.StatusAccepted {
		t.Fatalf("POST after the refusal: %d %s", code, body)
	}
	afterFault(t, ctx, c, s, metrics, []faultDoc{d})
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}
