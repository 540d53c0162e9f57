package linker_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/annalist-dev/annalist/consumers/linker"
	"github.com/annalist-dev/annalist/infra/kg"
	"github.com/annalist-dev/annalist/infra/pages"
	"github.com/annalist-dev/annalist/infra/redisdb"
	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/pipeline/pipelinetest"
	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
)

const tenant = schemas.DefaultTenant

type fixture struct {
	g      *kg.Store
	chunks *redisdb.Chunks
	c      redisdb.Client
	st     *linker.Stage
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	c := redistest.Client(t)
	g, err := kg.New(c, kg.Config{})
	if err != nil {
		t.Fatal(err)
	}
	ch := redisdb.NewChunks(c)
	st, err := linker.New(g, ch, linker.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{g: g, chunks: ch, c: c, st: st}
}

// person writes the entry of name, with a courtesy name (or, without one,
// a native place), as the kg-writer would, and returns the updates it
// announces.
func (f *fixture) person(t *testing.T, name, courtesy, entry string) []schemas.KGUpdate {
	t.Helper()
	if courtesy == "" {
		return f.fact(t, name, schemas.RelNativePlace, "福清", entry)
	}
	return f.fact(t, name, schemas.RelCourtesyName, courtesy, entry)
}

// fact writes one fact of the entry of name, as the kg-writer would, and
// returns the updates it announces.
func (f *fixture) fact(t *testing.T, name, rel, tail, entry string) []schemas.KGUpdate {
	t.Helper()
	ts := []schemas.Triplet{{TripletID: "t-" + name + "-" + entry, Head: name, HeadType: schemas.EntityPerson,
		Relation: rel, Tail: tail, ChunkID: entry, DocID: "doc-" + entry,
		Entry: name, EntryChunk: entry, Span: schemas.Span{Start: 0, End: 4}, Method: "regex", Confidence: 0.9}}
	ch, err := f.g.Apply(context.Background(), tenant, ts, nil)
	if err != nil {
		t.Fatal(err)
	}
	return ch[0]
}

func (f *fixture) store(t *testing.T, doc string, cs ...schemas.Chunk) {
	t.Helper()
	if err := f.chunks.PutDocument(context.Background(), tenant, schemas.Document{DocID: doc, Text: "x"}, cs); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) handle(t *testing.T, ins ...pipeline.Input) []schemas.KGUpdate {
	t.Helper()
	outs, err := f.st.Handle(context.Background(), ins)
	if err != nil {
		t.Fatal(err)
	}
	var us []schemas.KGUpdate
	for _, o := range outs {
		for _, x := range o {
			us = append(us, x.Msg.(schemas.KGUpdate))
		}
	}
	return us
}

func (f *fixture) linked(t *testing.T, id string) []string {
	t.Helper()
	l, err := f.g.Linked(context.Background(), tenant, id)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

var archive = schemas.Chunk{ChunkID: "arch-0000", DocID: "arch", Total: 1, Text: "是岁，叶向高入阁，与方从哲议事。"}

// TestOrderIndependence: a chunk linked before the name arrives is linked
// by the backfill the name's kg-update triggers; linked after, directly;
// both give the same records, and a redelivery announces nothing new.
func TestOrderIndependence(t *testing.T) {
	for _, chunkFirst := range []bool{true, false} {
		f := newFixture(t)
		var us []schemas.KGUpdate
		f.store(t, "arch", archive)
		if chunkFirst {
			if got := f.handle(t, pipelinetest.Input(archive, pipelinetest.Event("e1"), pipelinetest.Tenant(tenant))); len(got) != 0 {
				t.Fatalf("no names yet, got %v", got)
			}
			upd := f.person(t, "叶向高", "进卿", "ms-0001")
			for i, u := range upd {
				us = append(us, f.handle(t, pipelinetest.Input(u, pipelinetest.Event("u"+string(rune('a'+i))), pipelinetest.Tenant(tenant)))...)
			}
		} else {
			f.person(t, "叶向高", "进卿", "ms-0001")
			us = f.handle(t, pipelinetest.Input(archive, pipelinetest.Event("e1"), pipelinetest.Tenant(tenant)))
		}
		id := kg.PersonID("叶向高", "ms-0001")
		if got := f.linked(t, id); !slices.Equal(got, []string{"arch-0000"}) {
			t.Fatalf("chunkFirst=%v: linked %v", chunkFirst, got)
		}
		if len(us) != 1 || us[0].EntityID != id || !slices.Equal(us[0].Chunks, []string{"arch-0000"}) ||
			!slices.Equal(us[0].DocIDs, []string{"arch"}) {
			t.Fatalf("chunkFirst=%v: updates %+v", chunkFirst, us)
		}
		if again := f.handle(t, pipelinetest.Input(archive, pipelinetest.Event("e2"), pipelinetest.Tenant(tenant))); len(again) != 0 {
			t.Fatalf("re-ingest announced %v", again)
		}
	}
}

// TestOneCharAndCourtesy: a one-character surface is never linked; a
// courtesy name with no surname or full name near it is kept unresolved.
func TestOneCharAndCourtesy(t *testing.T) {
	f := newFixture(t)
	f.person(t, "叶向高", "进卿", "ms-0001")
	f.person(t, "王", "", "ms-0002")
	c := schemas.Chunk{ChunkID: "b-0000", DocID: "b", Total: 1, Text: "王曰：进卿可用。"}
	f.store(t, "b", c)
	if us := f.handle(t, pipelinetest.Input(c, pipelinetest.Event("e1"), pipelinetest.Tenant(tenant))); len(us) != 0 {
		t.Fatalf("linked %+v", us)
	}
	js, err := f.g.ChunkLinks(context.Background(), tenant, "b-0000")
	if err != nil || js == "" {
		t.Fatalf("mention list %q, %v", js, err)
	}
}

// TestRetractedSkipped: a chunk of a retracted document is not linked.
func TestRetractedSkipped(t *testing.T) {
	f := newFixture(t)
	f.person(t, "叶向高", "进卿", "ms-0001")
	f.store(t, "arch", archive)
	if err := f.c.HSet(context.Background(), "doc:{"+tenant+"}:arch", "retracted", "2026-01-01T00:00:00Z").Err(); err != nil {
		t.Fatal(err)
	}
	if us := f.handle(t, pipelinetest.Input(archive, pipelinetest.Event("e1"), pipelinetest.Tenant(tenant))); len(us) != 0 {
		t.Fatalf("linked a retracted chunk: %+v", us)
	}
	if got := f.linked(t, kg.PersonID("叶向高", "ms-0001")); len(got) != 0 {
		t.Fatalf("linked %v", got)
	}
}

// TestAmbiguity: a courtesy name two men share is resolved to the one
// whose entry the chunk belongs to; a co-mentioned neighbour puts the
// other first among the candidates; with no evidence both are kept with
// the same score.
func TestAmbiguity(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.person(t, "林安", "子平", "v1-0001")
	f.person(t, "周明", "子平", "v1-0002")
	// 周明's entry names his friend 陈实, anchored to his entry.
	if _, err := f.g.Apply(ctx, tenant, []schemas.Triplet{{TripletID: "t-rel", Head: "周明", HeadType: schemas.EntityPerson,
		Relation: schemas.RelRelative, Tail: "陈实", ChunkID: "v1-0002", DocID: "doc-v1-0002", Entry: "周明",
		EntryChunk: "v1-0002", Span: schemas.Span{Start: 0, End: 4}, Method: "regex", Confidence: 0.9}}, nil); err != nil {
		t.Fatal(err)
	}
	lin, zhou := kg.PersonID("林安", "v1-0001"), kg.PersonID("周明", "v1-0002")
	own := schemas.Chunk{ChunkID: "v1-0003", DocID: "v1", Total: 4, Seq: 3, Entry: "林安", EntryChunk: "v1-0001", Text: "子平性刚直。"}
	friend := schemas.Chunk{ChunkID: "n-0000", DocID: "n", Total: 1, Text: "陈实与子平同游。"}
	none := schemas.Chunk{ChunkID: "m-0000", DocID: "m", Total: 1, Text: "子平过其门。"}
	f.store(t, "v1", own)
	f.store(t, "n", friend)
	f.store(t, "m", none)
	f.handle(t,
		pipelinetest.Input(own, pipelinetest.Event("e1"), pipelinetest.Tenant(tenant)),
		pipelinetest.Input(friend, pipelinetest.Event("e2"), pipelinetest.Tenant(tenant)),
		pipelinetest.Input(none, pipelinetest.Event("e3"), pipelinetest.Tenant(tenant)),
	)
	if got := f.linked(t, lin); !slices.Equal(got, []string{"v1-0003"}) {
		t.Errorf("林安 linked %v, want his own entry's chunk", got)
	}
	mentions := func(chunk string) []linker.Mention {
		t.Helper()
		js, err := f.g.ChunkLinks(ctx, tenant, chunk)
		if err != nil {
			t.Fatal(err)
		}
		var ms []linker.Mention
		if err := json.Unmarshal([]byte(js), &ms); err != nil {
			t.Fatal(err)
		}
		return ms
	}
	var pair linker.Mention
	for _, m := range mentions("n-0000") {
		if m.Surface == "子平" {
			pair = m
		}
	}
	if got := f.linked(t, zhou); len(got) != 0 && !slices.Equal(got, []string{"n-0000"}) ||
		len(pair.Candidates) != 2 || pair.Candidates[0].Entity != zhou || pair.Candidates[0].Score <= pair.Candidates[1].Score {
		t.Errorf("the chunk naming 周明's friend: linked %v, mention %+v, want 周明 first", got, pair)
	}
	ms := mentions("m-0000")
	if len(ms) != 1 || ms[0].Entity != "" || len(ms[0].Candidates) != 2 || ms[0].Start != 0 || ms[0].End != 2 ||
		ms[0].Candidates[0].Score != ms[0].Candidates[1].Score {
		t.Errorf("unresolved mention %+v, want both candidates kept alike", ms)
	}
}

// TestBackfillIdempotent: the same kg-update twice links nothing more, and
// a second person of a known name, of another native place, makes the
// chunks that name it be linked again (here: no longer to the first
// alone).
func TestBackfillIdempotent(t *testing.T) {
	f := newFixture(t)
	c := schemas.Chunk{ChunkID: "arch-0000", DocID: "arch", Total: 1, Text: "王安国奏事。"}
	f.store(t, "arch", c)
	f.handle(t, pipelinetest.Input(c, pipelinetest.Event("e1"), pipelinetest.Tenant(tenant)))
	upd := f.person(t, "王安国", "", "s-0001")
	first := f.handle(t, pipelinetest.Input(upd[0], pipelinetest.Event("u1"), pipelinetest.Tenant(tenant)))
	wang1 := kg.PersonID("王安国", "s-0001")
	if len(first) != 1 || first[0].EntityID != wang1 {
		t.Fatalf("backfill updates %+v", first)
	}
	if again := f.handle(t, pipelinetest.Input(upd[0], pipelinetest.Event("u2"), pipelinetest.Tenant(tenant))); len(again) != 0 {
		t.Fatalf("the same update again announced %+v", again)
	}
	upd2 := f.fact(t, "王安国", schemas.RelNativePlace, "莆田", "s-0009")
	us := f.handle(t, pipelinetest.Input(upd2[0], pipelinetest.Event("u3"), pipelinetest.Tenant(tenant)))
	if len(us) != 1 || us[0].EntityID != wang1 || !slices.Equal(us[0].RemovedChunks, []string{"arch-0000"}) {
		t.Fatalf("second 王安国: updates %+v, want the first to lose the chunk", us)
	}
	if got := f.linked(t, wang1); len(got) != 0 {
		t.Fatalf("still linked to the first 王安国: %v", got)
	}
}

// TestLinkerOwnUpdatesIgnored: the linker's own kg-updates carry no new
// surface and trigger nothing.
func TestLinkerOwnUpdatesIgnored(t *testing.T) {
	f := newFixture(t)
	f.person(t, "叶向高", "进卿", "ms-0001")
	f.store(t, "arch", archive)
	us := f.handle(t, pipelinetest.Input(archive, pipelinetest.Event("e1"), pipelinetest.Tenant(tenant)))
	if len(us) != 1 {
		t.Fatalf("updates %+v", us)
	}
	if again := f.handle(t, pipelinetest.Input(us[0], pipelinetest.Event("own"), pipelinetest.Tenant(tenant))); len(again) != 0 {
		t.Fatalf("own update triggered %+v", again)
	}
}

// TestBackfillBound: a backfill scans at most MaxBackfill stored chunks per
// batch; the next batch, even one of chunks alone, goes on where it
// stopped.
func TestBackfillBound(t *testing.T) {
	c := redistest.Client(t)
	g, err := kg.New(c, kg.Config{})
	if err != nil {
		t.Fatal(err)
	}
	ch := redisdb.NewChunks(c)
	st, err := linker.New(g, ch, linker.Config{MaxBackfill: 1, BackfillPage: 1})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{g: g, chunks: ch, c: c, st: st}
	a := schemas.Chunk{ChunkID: "a-0000", DocID: "a", Total: 1, Text: "叶向高入阁。"}
	b := schemas.Chunk{ChunkID: "b-0000", DocID: "b", Total: 1, Text: "叶向高致仕。"}
	other := schemas.Chunk{ChunkID: "o-0000", DocID: "o", Total: 1, Text: "无事。"}
	f.store(t, "a", a)
	f.store(t, "b", b)
	f.store(t, "o", other)
	f.handle(t,
		pipelinetest.Input(a, pipelinetest.Event("e1"), pipelinetest.Tenant(tenant)),
		pipelinetest.Input(b, pipelinetest.Event("e2"), pipelinetest.Tenant(tenant)),
	)
	upd := f.person(t, "叶向高", "进卿", "ms-0001")
	ye := kg.PersonID("叶向高", "ms-0001")
	for i, u := range upd {
		f.handle(t, pipelinetest.Input(u, pipelinetest.Event("u"+string(rune('a'+i))), pipelinetest.Tenant(tenant)))
	}
	if got := f.linked(t, ye); len(got) != 1 {
		t.Fatalf("after the first batch: linked %v, want one chunk", got)
	}
	f.handle(t, pipelinetest.Input(other, pipelinetest.Event("e3"), pipelinetest.Tenant(tenant)))
	if got := f.linked(t, ye); !slices.Equal(got, []string{"a-0000", "b-0000"}) {
		t.Fatalf("after the next batch: linked %v", got)
	}
}

// TestNameInAPlainNote: a person's two-character name, which no other
// person of the graph bears, is linked in a note that says nothing else
// about him; a relative the graph knows by his given name is not linked
// where the same two characters end another man's name (崔应元).
func TestNameInAPlainNote(t *testing.T) {
	f := newFixture(t)
	f.person(t, "夏言", "公谨", "ms-0001")
	f.person(t, "应元", "", "ms-0002")
	// The corpus the names came from: their entries, linked first.
	entry := schemas.Chunk{ChunkID: "ms-0001", DocID: "ms", Total: 3, Seq: 1, Entry: "夏言", EntryChunk: "ms-0001",
		Text: "夏言，字公谨，贵溪人。正德十二年进士。授行人，擢兵科给事中。时帝欲更定祀典，言请分祀天地，帝大悦。"}
	other := schemas.Chunk{ChunkID: "ms-0002", DocID: "ms", Total: 3, Seq: 2, Entry: "应元", EntryChunk: "ms-0002",
		Text: "子应元，字善长，万历中举人。尝与夏言论事不合，归。"}
	f.store(t, "ms", entry, other)
	f.handle(t,
		pipelinetest.Input(entry, pipelinetest.Event("e0"), pipelinetest.Tenant(tenant)),
		pipelinetest.Input(other, pipelinetest.Event("e1"), pipelinetest.Tenant(tenant)),
	)
	note := schemas.Chunk{ChunkID: "note-0000", DocID: "note", Total: 1,
		Text: "夏言晚年归里，筑观澜书院，讲学其中，从游者数百人。"}
	arch := schemas.Chunk{ChunkID: "arch-0000", DocID: "arch", Total: 1, Text: "魏忠贤使崔应元、许显纯拷掠之，备极惨毒。"}
	f.store(t, "note", note)
	f.store(t, "arch", arch)
	f.handle(t,
		pipelinetest.Input(note, pipelinetest.Event("e2"), pipelinetest.Tenant(tenant)),
		pipelinetest.Input(arch, pipelinetest.Event("e3"), pipelinetest.Tenant(tenant)),
	)
	if got := f.linked(t, kg.PersonID("夏言", "ms-0001")); !slices.Contains(got, "note-0000") {
		t.Errorf("夏言 linked %v, want the note among them", got)
	}
	if got := f.linked(t, kg.PersonID("应元", "ms-0002")); slices.Contains(got, "arch-0000") {
		t.Errorf("应元 linked %v: inside 崔应元", got)
	}
}

// TestUndecidedMentionReviewed: a name two men of different places bear,
// in a chunk that says nothing that tells them apart, opens a review with
// both as options and
// "none"; a decision for one links the chunk to him once the decision's
// update reaches the linker, and "none" unlinks it.
func TestUndecidedMentionReviewed(t *testing.T) {
	c := redistest.Client(t)
	g, err := kg.New(c, kg.Config{})
	if err != nil {
		t.Fatal(err)
	}
	ch := redisdb.NewChunks(c)
	rs := pages.New(c)
	st, err := linker.New(g, ch, linker.Config{Reviews: rs})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{g: g, chunks: ch, c: c, st: st}
	ctx := context.Background()
	f.fact(t, "王文", schemas.RelNativePlace, "束鹿", "v1-0001")
	f.fact(t, "王文", schemas.RelNativePlace, "莆田", "v2-0001")
	lin := kg.PersonID("王文", "v1-0001")
	chunk := schemas.Chunk{ChunkID: "m-0000", DocID: "m", Total: 1, Text: "是日，吏部尚书王文等言，宜罢其事。"}
	f.store(t, "m", chunk)
	outs, err := st.Handle(ctx, []pipeline.Input{pipelinetest.Input(chunk, pipelinetest.Event("e1"), pipelinetest.Tenant(tenant))})
	if err != nil {
		t.Fatal(err)
	}
	var opened []schemas.Review
	for _, o := range outs[0] {
		if rv, ok := o.Msg.(schemas.Review); ok && o.Topic == topology.Reviews {
			opened = append(opened, rv)
		}
	}
	id := linker.ReviewID(tenant, "m-0000", "王文")
	if len(opened) != 1 || opened[0].ReviewID != id || len(opened[0].Options) != 3 ||
		opened[0].Relation != schemas.ReviewMention || opened[0].Subject != "王文" {
		t.Fatalf("reviews published %+v", opened)
	}
	if stored, err := rs.Review(ctx, tenant, id); err != nil || stored.Status != schemas.ReviewOpen {
		t.Fatalf("review stored %+v, %v", stored, err)
	}
	if got := f.linked(t, lin); len(got) != 0 {
		t.Fatalf("linked %v before a decision", got)
	}
	decided := func(value, event string) []schemas.KGUpdate {
		t.Helper()
		if _, err := rs.Decide(ctx, tenant, id, value); err != nil {
			t.Fatal(err)
		}
		return f.handle(t, pipelinetest.Input(schemas.KGUpdate{EntityID: "review:" + id, Name: "王文", Type: schemas.EntityReview,
			Chunks: []string{"m-0000"}}, pipelinetest.Event(event), pipelinetest.Tenant(tenant)))
	}
	if us := decided(lin, "d1"); len(us) != 1 || us[0].EntityID != lin {
		t.Fatalf("after the decision: updates %+v", us)
	}
	if got := f.linked(t, lin); !slices.Equal(got, []string{"m-0000"}) {
		t.Fatalf("linked %v after the decision", got)
	}
	if us := decided(schemas.ReviewNone, "d2"); len(us) != 1 || !slices.Equal(us[0].RemovedChunks, []string{"m-0000"}) {
		t.Fatalf("after none: updates %+v", us)
	}
}

// TestOneManHeldTwice: a name the graph holds for two persons whose places
// and lifetimes do not disagree (one entry in a history, one heading in
// an archive book) is linked to the better attested of them.
func TestOneManHeldTwice(t *testing.T) {
	f := newFixture(t)
	f.fact(t, "牛金星", schemas.RelNativePlace, "宝丰", "v1-0001")
	f.fact(t, "牛金星", schemas.RelCourtesyName, "聚明", "v1-0001")
	f.fact(t, "牛金星", schemas.RelNativePlace, "宝丰", "b2-0003")
	c := schemas.Chunk{ChunkID: "n-0000", DocID: "n", Total: 1, Text: "是日，伪大学士牛金星坐于殿左，百官以次朝见。"}
	f.store(t, "n", c)
	f.handle(t, pipelinetest.Input(c, pipelinetest.Event("e1"), pipelinetest.Tenant(tenant)))
	if got := f.linked(t, kg.PersonID("牛金星", "v1-0001")); !slices.Equal(got, []string{"n-0000"}) {
		t.Errorf("the better attested 牛金星 linked %v", got)
	}
	if got := f.linked(t, kg.PersonID("牛金星", "b2-0003")); len(got) != 0 {
		t.Errorf("the other linked %v", got)
	}
}

// countingGraph counts the rows written for each chunk.
type countingGraph struct {
	*kg.Store
	rows map[string]int
}

func (g *countingGraph) Link(ctx context.Context, tenant string, rows [][]string) ([]string, error) {
	for _, r := range rows {
		g.rows[r[0]]++
	}
	return g.Store.Link(ctx, tenant, rows)
}

// TestRedeliveryKeepsLinks: a chunk delivered again is not linked again
// when no name arrived since, whatever the corpus counts did meanwhile, so
// a document published twice changes nothing; after a new name arrives it
// is linked again.
func TestRedeliveryKeepsLinks(t *testing.T) {
	c := redistest.Client(t)
	store, err := kg.New(c, kg.Config{})
	if err != nil {
		t.Fatal(err)
	}
	g := &countingGraph{Store: store, rows: map[string]int{}}
	ch := redisdb.NewChunks(c)
	st, err := linker.New(g, ch, linker.Config{})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{g: store, chunks: ch, c: c, st: st}
	f.person(t, "王安", "", "s-0001")
	first := schemas.Chunk{ChunkID: "a-0000", DocID: "a", Total: 1, Text: "是岁，王安入朝，上言边事。"}
	f.store(t, "a", first)
	f.handle(t, pipelinetest.Input(first, pipelinetest.Event("e1"), pipelinetest.Tenant(tenant)))
	other := schemas.Chunk{ChunkID: "b-0000", DocID: "b", Total: 1, Text: "王安入朝，帝慰劳之。"}
	f.store(t, "b", other)
	f.handle(t, pipelinetest.Input(other, pipelinetest.Event("e2"), pipelinetest.Tenant(tenant)))
	if us := f.handle(t, pipelinetest.Input(first, pipelinetest.Event("e1-again"), pipelinetest.Tenant(tenant))); len(us) != 0 || g.rows["a-0000"] != 1 {
		t.Fatalf("delivered again: announced %+v, %d writes of the chunk, want none and 1", us, g.rows["a-0000"])
	}
	if got := f.linked(t, kg.PersonID("王安", "s-0001")); !slices.Contains(got, "a-0000") {
		t.Fatalf("linked %v after the chunk was delivered again", got)
	}
	f.person(t, "边事", "", "s-0002")
	f.handle(t, pipelinetest.Input(first, pipelinetest.Event("e1-third"), pipelinetest.Tenant(tenant)))
	if g.rows["a-0000"] < 2 {
		t.Fatalf("after a new name the chunk was written %d times, want it linked again", g.rows["a-0000"])
	}
}

// TestDesignationNeedsEvidence: a woman the graph knows by her family
// name (陈氏) is linked in her own entry, and 陈氏 in another document,
// which names a family or another woman of it and says nothing of her,
// keeps its candidate unlinked.
func TestDesignationNeedsEvidence(t *testing.T) {
	f := newFixture(t)
	f.fact(t, "陈氏", schemas.RelNativePlace, "定远", "lz-0001")
	own := schemas.Chunk{ChunkID: "lz-0001", DocID: "doc-lz-0001", Total: 1, Entry: "陈氏", EntryChunk: "lz-0001",
		Text: "陈氏，定远人，汪广洋妾也。广洋赐死，陈氏从死。"}
	other := schemas.Chunk{ChunkID: "ar-0000", DocID: "ar", Total: 1,
		Text: "友谅既死，其子理降。时有言当复立陈氏后者，帝不许。"}
	f.store(t, "doc-lz-0001", own)
	f.store(t, "ar", other)
	f.handle(t,
		pipelinetest.Input(own, pipelinetest.Event("e0"), pipelinetest.Tenant(tenant)),
		pipelinetest.Input(other, pipelinetest.Event("e1"), pipelinetest.Tenant(tenant)),
	)
	got := f.linked(t, kg.PersonID("陈氏", "lz-0001"))
	if !slices.Contains(got, "lz-0001") || slices.Contains(got, "ar-0000") {
		t.Errorf("陈氏 linked %v, want her entry and not the family of 友谅", got)
	}
}

// TestGivenNameInOwnEntry: in 申时行's entry, 时行 is he, although the
// graph knows 时行 only as 张弘至's courtesy name; outside his entry the
// given name is not his.
func TestGivenNameInOwnEntry(t *testing.T) {
	f := newFixture(t)
	f.person(t, "申时行", "", "ms-0001")
	f.person(t, "张弘至", "时行", "ms-0009")
	entry := schemas.Chunk{ChunkID: "ms-0002", DocID: "ms", Total: 3, Seq: 2, Entry: "申时行", EntryChunk: "ms-0001",
		Text: "十八年，帝召皇长子、皇三子，令时行入见毓德宫。时行拜贺，请亟定大计。"}
	outside := schemas.Chunk{ChunkID: "ar-0000", DocID: "ar", Total: 1, Text: "是岁，时行入见，帝慰劳之。"}
	f.store(t, "ms", entry)
	f.store(t, "ar", outside)
	f.handle(t,
		pipelinetest.Input(entry, pipelinetest.Event("e0"), pipelinetest.Tenant(tenant)),
		pipelinetest.Input(outside, pipelinetest.Event("e1"), pipelinetest.Tenant(tenant)),
	)
	shen, zhang := kg.PersonID("申时行", "ms-0001"), kg.PersonID("张弘至", "ms-0009")
	if got := f.linked(t, shen); !slices.Contains(got, "ms-0002") || slices.Contains(got, "ar-0000") {
		t.Errorf("申时行 linked %v, want his entry's chunk and not the other", got)
	}
	if got := f.linked(t, zhang); slices.Contains(got, "ms-0002") {
		t.Errorf("张弘至 linked %v: 时行 in 申时行's entry", got)
	}
}

// TestCourtesyNameOfTheManBeforeIt: "朱守仁者，字元夫" gives 元夫 to 朱守仁;
// the graph's other bearer of the courtesy name is not named there. Where
// the name before 字 is his, he is.
func TestCourtesyNameOfTheManBeforeIt(t *testing.T) {
	f := newFixture(t)
	f.person(t, "夏统春", "元夫", "ms-0005")
	other := schemas.Chunk{ChunkID: "ar-0000", DocID: "ar", Total: 1,
		Text: "徐州朱守仁者，字元夫。元末亦以保障功官枢密同知，守徐州。"}
	his := schemas.Chunk{ChunkID: "ar-0001", DocID: "ar1", Total: 1,
		Text: "时有夏统春，字元夫，以孝闻，元夫尝割股疗母疾。"}
	f.store(t, "ar", other)
	f.store(t, "ar1", his)
	f.handle(t,
		pipelinetest.Input(other, pipelinetest.Event("e0"), pipelinetest.Tenant(tenant)),
		pipelinetest.Input(his, pipelinetest.Event("e1"), pipelinetest.Tenant(tenant)),
	)
	got := f.linked(t, kg.PersonID("夏统春", "ms-0005"))
	if slices.Contains(got, "ar-0000") || !slices.Contains(got, "ar-0001") {
		t.Errorf("夏统春 linked %v, want ar-0001 and not 朱守仁's courtesy name in ar-0000", got)
	}
}
