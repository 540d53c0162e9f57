package extractor_test

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	goredis "github.com/redis/go-redis/v9"

	"github.com/annalist-dev/annalist/consumers/extractor"
	"github.com/annalist-dev/annalist/infra/kg"
	"github.com/annalist-dev/annalist/infra/redisdb"
	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
)

// knownGraph is a real KG that knows 陆文渊 and 顾承泽 from their entries,
// and a real chunk store, on one Redis client.
func knownGraph(t *testing.T) (redisdb.Client, *kg.Store, *redisdb.Chunks) {
	t.Helper()
	client := redistest.Client(t)
	store, err := kg.New(client, kg.Config{})
	if err != nil {
		t.Fatal(err)
	}
	entries := append(extract(t, chunk("c-lu", "陆文渊", entryLu)), extract(t, chunk("c-gu", "顾承泽", entryGu))...)
	if _, err := store.Apply(context.Background(), schemas.DefaultTenant, entries, nil); err != nil {
		t.Fatal(err)
	}
	return client, store, redisdb.NewChunks(client)
}

// archiveChunk is a chunk of an archive book: no entry, resolved by name.
func archiveChunk(id, text string) schemas.Chunk {
	return schemas.Chunk{
		ChunkID: id, DocID: "doc-" + id, Seq: 0, Total: 1, Profile: extractor.ProfileGeneric, Method: "window",
		Start: 0, End: utf8.RuneCountInString(text), Text: text,
	}
}

// TestFactsOfKnownPersonsOutsideEntries runs the extractor on archive text
// against a real KG that knows 陆文渊 and 顾承泽 from their entries and a
// real chunk store: the facts of a known person opening a sentence come
// when the person is linked to the chunk, not when the chunk arrives.
func TestFactsOfKnownPersonsOutsideEntries(t *testing.T) {
	ctx := context.Background()
	client, store, chunks := knownGraph(t)
	const archive = "十二月，陆文渊举嘉靖二十年进士。沈懋学，隆庆元年卒。顾承泽迁郎中，文渊荐之。\n" +
		"是年，顾承泽卒于官，年六十。王畿字汝中，别号龙溪，浙之山阴人。"
	a1 := archiveChunk("a1", archive)
	lu2 := chunk("c-lu2", "陆文渊", "顾承泽迁郎中。")
	for _, c := range []schemas.Chunk{a1, lu2} {
		if err := chunks.PutDocument(ctx, schemas.DefaultTenant, schemas.Document{DocID: c.DocID, Text: c.Text}, []schemas.Chunk{c}); err != nil {
			t.Fatal(err)
		}
	}
	x := extractor.New(extractor.Config{}, extractor.WithPersons(store, chunks))

	// When the chunk arrives: only what it introduces itself, whoever the
	// graph knows by then.
	ts, err := x.Extract(ctx, "", a1)
	if err != nil {
		t.Fatal(err)
	}
	if got := patterns(t, a1, ts); len(got) != 4 {
		t.Errorf("on arrival: %d facts, want the 4 of 王畿's opening: %v", len(got), got)
	}

	// When the linker links the known persons to it.
	linked := func(name, entry string, c schemas.Chunk) []string {
		t.Helper()
		ts, err := x.Linked(ctx, "", schemas.KGUpdate{EntityID: kg.PersonID(name, entry), Name: name,
			Type: schemas.EntityPerson, Chunks: []string{c.ChunkID}})
		if err != nil {
			t.Fatal(err)
		}
		return patterns(t, c, ts)
	}
	got := append(linked("陆文渊", "c-lu", a1), linked("顾承泽", "c-gu", a1)...)
	want := []string{
		// A known person opening a sentence, after a date.
		"陆文渊 jinshi 嘉靖二十年 {era=嘉靖 year=嘉靖二十年} @han.jinshi.known",
		"顾承泽 office 郎中 {verb=迁} @han.office.known",
		"顾承泽 death_age 六十 {place=官} @han.death.age.known",
	}
	if !slices.Equal(got, want) {
		t.Errorf("linked facts:\n got %v\nwant %v", got, want)
	}
	// 沈懋学 is not a person the KG knows, so nobody links him and his
	// death is not taken; a person the graph holds no names of gives
	// nothing either.
	if got := linked("沈懋学", "", a1); len(got) != 0 {
		t.Errorf("facts of a person without names: %v", got)
	}

	// An entry chunk is not read for known persons: its heads are anchored
	// to the entry.
	if got := linked("顾承泽", "c-gu", lu2); len(got) != 0 {
		t.Errorf("entry chunk gave a known person's facts: %v", got)
	}
	// Once this extractor has seen the entry chunk, it knows where the
	// chunk lies and does not read it back from the store.
	if _, err := x.Extract(ctx, "", lu2); err != nil {
		t.Fatal(err)
	}
	calls := &commandCount{}
	client.AddHook(calls)
	if got := linked("顾承泽", "c-gu", lu2); len(got) != 0 {
		t.Errorf("entry chunk gave a known person's facts: %v", got)
	}
	if calls.n.Load() != 0 {
		t.Errorf("%d Redis calls to link an entry chunk the extractor has seen, want none", calls.n.Load())
	}
	// The archive chunk this extractor extracted is kept with its
	// sections: only the person's names are read. Another extractor reads
	// the chunk, and gives the same facts.
	linked("顾承泽", "c-gu", a1)
	if calls.n.Load() != 1 {
		t.Errorf("%d Redis calls to link an archive chunk the extractor has seen, want 1 (the names)", calls.n.Load())
	}
	x = extractor.New(extractor.Config{}, extractor.WithPersons(store, chunks))
	calls.n.Store(0)
	if got := linked("顾承泽", "c-gu", a1); !slices.Equal(got, want[1:]) {
		t.Errorf("facts of an archive chunk read from the store: %v, want %v", got, want[1:])
	}
	if calls.n.Load() != 2 {
		t.Errorf("%d Redis calls to link an archive chunk the extractor has not seen, want 2 (the chunk, the names)", calls.n.Load())
	}
}

// TestBatchReadsNamesOnce: a batch of person updates that link a chunk
// outside entries reads all their names in one round trip, and gives the
// facts the updates give one at a time.
func TestBatchReadsNamesOnce(t *testing.T) {
	ctx := context.Background()
	client, store, chunks := knownGraph(t)
	a1 := archiveChunk("a1", "十二月，陆文渊举嘉靖二十年进士。顾承泽迁郎中，文渊荐之。")
	if err := chunks.PutDocument(ctx, schemas.DefaultTenant, schemas.Document{DocID: a1.DocID, Text: a1.Text}, []schemas.Chunk{a1}); err != nil {
		t.Fatal(err)
	}
	updates := []schemas.KGUpdate{
		{EntityID: kg.PersonID("陆文渊", "c-lu"), Name: "陆文渊", Type: schemas.EntityPerson, Chunks: []string{a1.ChunkID}},
		{EntityID: kg.PersonID("顾承泽", "c-gu"), Name: "顾承泽", Type: schemas.EntityPerson, Chunks: []string{a1.ChunkID}},
	}
	one := extractor.New(extractor.Config{}, extractor.WithPersons(store, chunks))
	var want []string
	for _, u := range updates {
		ts, err := one.Linked(ctx, "", u)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, patterns(t, a1, ts)...)
	}
	if len(want) != 2 {
		t.Fatalf("facts one update at a time: %v, want one of each person", want)
	}

	x := extractor.New(extractor.Config{}, extractor.WithPersons(store, chunks))
	if _, err := x.Extract(ctx, "", a1); err != nil {
		t.Fatal(err)
	}
	calls := &commandCount{}
	client.AddHook(calls)
	ins := make([]pipeline.Input, len(updates))
	for i, u := range updates {
		ins[i] = pipeline.Input{Msg: u}
	}
	out, err := x.BatchHandler()(ctx, ins)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range out {
		var ts []schemas.Triplet
		for _, p := range o {
			if tr, ok := pipeline.As[schemas.Triplet](p.Msg); ok {
				ts = append(ts, tr)
			}
		}
		got = append(got, patterns(t, a1, ts)...)
	}
	if !slices.Equal(got, want) {
		t.Errorf("batch facts %v, want %v", got, want)
	}
	if n := calls.n.Load(); n != 1 {
		t.Errorf("%d Redis calls for a batch of %d updates, want 1 (the names of all)", n, len(updates))
	}
}

// commandCount counts the Redis calls a client makes (a pipeline once).
type commandCount struct{ n atomic.Int64 }

func (c *commandCount) DialHook(next goredis.DialHook) goredis.DialHook { return next }

func (c *commandCount) ProcessHook(next goredis.ProcessHook) goredis.ProcessHook {
	return func(ctx context.Context, cmd goredis.Cmder) error {
		c.n.Add(1)
		return next(ctx, cmd)
	}
}

func (c *commandCount) ProcessPipelineHook(next goredis.ProcessPipelineHook) goredis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []goredis.Cmder) error {
		c.n.Add(1)
		return next(ctx, cmds)
	}
}

// patterns renders triplets as "fact @pattern", checking each against its
// chunk and that facts outside entries carry no entry.
func patterns(t *testing.T, c schemas.Chunk, ts []schemas.Triplet) []string {
	t.Helper()
	var got []string
	for _, tr := range ts {
		checkTriplet(t, c, tr)
		if c.Entry == "" && (tr.EntryChunk != "" || tr.Entry != "") {
			t.Errorf("%s: a fact outside entries carries entry %q/%q", fact(tr), tr.Entry, tr.EntryChunk)
		}
		got = append(got, fact(tr)+" @"+tr.Pattern)
	}
	return got
}
