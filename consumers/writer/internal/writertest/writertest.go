// Package writertest holds the knowledge-graph fixtures that the
// writer's drafter tests and the biography planner's tests share: a graph
// and chunk store on a real redis-server, a small volume in the manner of
// a liezhuan written for the tests, and ingestion of documents through the
// caller's chunker and extractor (passed in, so that this package imports
// no other stage). Only tests import it.
package writertest

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/infra/kg"
	"github.com/annalist-dev/annalist/infra/redisdb"
	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/producers"
	"github.com/annalist-dev/annalist/schemas"
)

// Tenant is the tenant the fixtures are written under.
const Tenant = "t1"

// World is a knowledge graph and chunk store on a real redis-server.
type World struct {
	G      *kg.Store
	Chunks *redisdb.Chunks
}

// NewWorld returns an empty world on a fresh redis-server (redistest).
func NewWorld(t testing.TB) *World {
	t.Helper()
	c := redistest.Client(t)
	g, err := kg.New(c, kg.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return &World{G: g, Chunks: redisdb.NewChunks(c)}
}

// Piece is one chunk of a fixture document; Entry names the person whose
// entry it belongs to ("" outside entries), First marks the entry's first
// chunk.
type Piece struct {
	Entry string
	First bool
	Text  string
}

// Doc stores a document made of pieces and returns the chunks, whose ids
// are docID-0000, docID-0001 …
func (w *World) Doc(t testing.TB, docID string, pieces ...Piece) []schemas.Chunk {
	t.Helper()
	var cs []schemas.Chunk
	var text, entryChunk string
	pos := 0
	for i, p := range pieces {
		id := fmt.Sprintf("%s-%04d", docID, i)
		c := schemas.Chunk{ChunkID: id, DocID: docID, Seq: i, Total: len(pieces), Profile: "liezhuan",
			Method: "pattern", Entry: p.Entry, Text: p.Text, Start: pos, End: pos + utf8.RuneCountInString(p.Text)}
		if p.First {
			entryChunk = id
			c.Subject = p.Entry
		}
		if p.Entry != "" {
			c.EntryChunk = entryChunk
		}
		pos = c.End
		text += p.Text
		cs = append(cs, c)
	}
	if err := w.Chunks.PutDocument(context.Background(), Tenant, schemas.Document{DocID: docID, Text: text}, cs); err != nil {
		t.Fatal(err)
	}
	return cs
}

// fact is a triplet to find in a chunk: its evidence must occur in the
// chunk's text.
type fact struct {
	head, rel, tail, tailType, evidence string
	quals                               map[string]string
}

// apply writes the facts of chunk c into the graph, with a mention of the
// entry's person as the extractor makes for every chunk of an entry.
func (w *World) apply(t testing.TB, c schemas.Chunk, fs ...fact) {
	t.Helper()
	if c.Entry != "" {
		fs = append([]fact{{head: c.Entry, rel: schemas.RelMention}}, fs...)
	}
	var ts []schemas.Triplet
	for _, f := range fs {
		start, end := 0, 0
		if f.evidence != "" {
			b := indexOf(c.Text, f.evidence)
			if b < 0 {
				t.Fatalf("evidence %q not in chunk %s", f.evidence, c.ChunkID)
			}
			start = utf8.RuneCountInString(c.Text[:b])
			end = start + utf8.RuneCountInString(f.evidence)
		}
		tr := schemas.Triplet{Head: f.head, HeadType: schemas.EntityPerson, Relation: f.rel, Tail: f.tail,
			TailType: f.tailType, Qualifiers: f.quals, ChunkID: c.ChunkID, DocID: c.DocID, Entry: c.Entry,
			EntryChunk: c.EntryChunk, Span: schemas.Span{Start: start, End: end}, Evidence: f.evidence,
			Method: "regex", Confidence: 0.9}
		tr.TripletID = pipeline.ContentID(c.ChunkID, f.head, f.rel, f.tail, f.evidence)
		ts = append(ts, tr)
	}
	if _, err := w.G.Apply(context.Background(), Tenant, ts, nil); err != nil {
		t.Fatal(err)
	}
}

// Fact is a triplet about Head to write from a chunk; Evidence, when set,
// must occur in the chunk's text.
type Fact struct {
	Head, Relation, Tail, TailType, Evidence string
	Qualifiers                               map[string]string
}

// Apply writes facts of chunk c into the graph as the fixture's own facts
// are written (with a mention of the entry's person for a chunk of an
// entry): new evidence arriving after a page was written.
func (w *World) Apply(t testing.TB, c schemas.Chunk, fs ...Fact) {
	t.Helper()
	var in []fact
	for _, f := range fs {
		in = append(in, fact{head: f.Head, rel: f.Relation, tail: f.Tail, tailType: f.TailType,
			evidence: f.Evidence, quals: f.Qualifiers})
	}
	w.apply(t, c, in...)
}

func indexOf(s, sub string) int {
	for i := range s {
		if len(s)-i >= len(sub) && s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

// Fixture is a small volume in the manner of a liezhuan, written for these
// tests:
//
//   - 黄中 of 闽县, applied first, so the place node 闽县 was first written
//     from his entry, which never names 林安;
//   - 林安 (courtesy name 子平, art name 石溪, of 闽县), an entry of two
//     chunks with his father 林昭;
//   - 周明, whose courtesy name is also 子平, whose entry names 林安, and
//     whom an archive note links to 林安;
//   - 陈平 three times: the subject of two entries in two volumes (one with
//     more facts) and, with more facts than either, a son-in-law
//     introduced in 周明's entry.
type Fixture struct {
	*World
	Huang, Lin1, Lin2, Zhou, Note, Chen1, Chen2 schemas.Chunk
}

// NewFixture writes the fixture into a new world.
func NewFixture(t testing.TB) *Fixture {
	t.Helper()
	f := &Fixture{World: NewWorld(t)}
	v0 := f.Doc(t, "v0",
		Piece{Text: "黄中\n"},
		Piece{Entry: "黄中", First: true, Text: "黄中，字正之，闽县人。少孤，力学。举万历二年进士，授行人。\n"})
	f.Huang = v0[1]
	f.apply(t, f.Huang,
		fact{head: "黄中", rel: schemas.RelCourtesyName, tail: "正之", evidence: "字正之"},
		fact{head: "黄中", rel: schemas.RelNativePlace, tail: "闽县", tailType: schemas.EntityPlace, evidence: "闽县人"})

	v1 := f.Doc(t, "v1",
		Piece{Text: "林安周明\n"},
		Piece{Entry: "林安", First: true, Text: "林安，字子平，号石溪，闽县人。父昭，以儒名。举万历五年进士，授编修。\n"},
		Piece{Entry: "林安", Text: "安历官吏部右侍郎，官至礼部尚书。卒，年六十二。\n"},
		Piece{Entry: "周明", First: true, Text: "周明，字子平，闽县人。与林安同举进士。官至户部尚书。婿陈平，以荫补中书舍人，历主事、员外郎、郎中，早卒。\n"},
		Piece{Entry: "陈平", First: true, Text: "陈平，字公衡，建安人。举万历八年进士，授御史。官至右副都御史。卒。\n"})
	f.Lin1, f.Lin2, f.Zhou, f.Chen1 = v1[1], v1[2], v1[3], v1[4]
	f.apply(t, f.Lin1,
		fact{head: "林安", rel: schemas.RelCourtesyName, tail: "子平", evidence: "字子平"},
		fact{head: "林安", rel: schemas.RelArtName, tail: "石溪", evidence: "号石溪"},
		fact{head: "林安", rel: schemas.RelNativePlace, tail: "闽县", tailType: schemas.EntityPlace, evidence: "闽县人"},
		fact{head: "林安", rel: schemas.RelRelative, tail: "林昭", tailType: schemas.EntityPerson, evidence: "父昭",
			quals: map[string]string{"kin": "父"}},
		fact{head: "林安", rel: schemas.RelJinshi, tail: "万历五年", tailType: schemas.EntityTime, evidence: "举万历五年进士",
			quals: map[string]string{"era": "万历", "year": "万历五年"}},
		fact{head: "林安", rel: schemas.RelOffice, tail: "编修", tailType: schemas.EntityOffice, evidence: "授编修"})
	f.apply(t, f.Lin2,
		fact{head: "林安", rel: schemas.RelOffice, tail: "吏部右侍郎", tailType: schemas.EntityOffice, evidence: "历官吏部右侍郎"},
		fact{head: "林安", rel: schemas.RelOffice, tail: "礼部尚书", tailType: schemas.EntityOffice, evidence: "官至礼部尚书"},
		fact{head: "林安", rel: schemas.RelDeathAge, tail: "六十二", tailType: schemas.EntityValue, evidence: "卒，年六十二"})
	f.apply(t, f.Zhou,
		fact{head: "周明", rel: schemas.RelCourtesyName, tail: "子平", evidence: "字子平"},
		fact{head: "周明", rel: schemas.RelNativePlace, tail: "闽县", tailType: schemas.EntityPlace, evidence: "闽县人"},
		fact{head: "周明", rel: schemas.RelRelative, tail: "陈平", tailType: schemas.EntityPerson, evidence: "婿陈平",
			quals: map[string]string{"kin": "婿"}},
		fact{head: "陈平", rel: schemas.RelOffice, tail: "中书舍人", tailType: schemas.EntityOffice, evidence: "补中书舍人"},
		fact{head: "陈平", rel: schemas.RelOffice, tail: "主事", tailType: schemas.EntityOffice, evidence: "历主事"},
		fact{head: "陈平", rel: schemas.RelOffice, tail: "员外郎", tailType: schemas.EntityOffice, evidence: "员外郎"},
		fact{head: "陈平", rel: schemas.RelOffice, tail: "郎中", tailType: schemas.EntityOffice, evidence: "、郎中"},
		fact{head: "陈平", rel: schemas.RelDeath, tail: "早卒", tailType: schemas.EntityTime, evidence: "早卒"})
	f.apply(t, f.Chen1,
		fact{head: "陈平", rel: schemas.RelCourtesyName, tail: "公衡", evidence: "字公衡"},
		fact{head: "陈平", rel: schemas.RelNativePlace, tail: "建安", tailType: schemas.EntityPlace, evidence: "建安人"},
		fact{head: "陈平", rel: schemas.RelJinshi, tail: "万历八年", tailType: schemas.EntityTime, evidence: "举万历八年进士"},
		fact{head: "陈平", rel: schemas.RelOffice, tail: "右副都御史", tailType: schemas.EntityOffice, evidence: "官至右副都御史"})

	v2 := f.Doc(t, "v2",
		Piece{Entry: "陈平", First: true, Text: "陈平，字子衡，莆田人。隐居不仕。\n"})
	f.Chen2 = v2[0]
	f.apply(t, f.Chen2,
		fact{head: "陈平", rel: schemas.RelNativePlace, tail: "莆田", tailType: schemas.EntityPlace, evidence: "莆田人"})

	// An archive note outside any entry: its persons are resolved by name.
	notes := f.Doc(t, "notes", Piece{Text: "周明尝从林安游，论学于鳌峰书院。"})
	f.Note = notes[0]
	f.apply(t, f.Note,
		fact{head: "周明", rel: schemas.RelRelative, tail: "林安", tailType: schemas.EntityPerson, evidence: "周明尝从林安游",
			quals: map[string]string{"kin": "友"}})
	return f
}

// ChunkFunc chunks a document (chunker.Chunker.Chunk).
type ChunkFunc func(ctx context.Context, d schemas.Document) ([]schemas.Chunk, error)

// ExtractFunc extracts a chunk's triplets (extractor.Extractor.Extract).
type ExtractFunc func(ctx context.Context, tenant string, c schemas.Chunk) ([]schemas.Triplet, error)

// Ingest chunks docs, extracts their triplets and writes both into w, as
// the ingestion stages would. It returns the chunks.
func (w *World) Ingest(tb testing.TB, chunk ChunkFunc, extract ExtractFunc, docs []schemas.Document) []schemas.Chunk {
	tb.Helper()
	ctx := context.Background()
	var all []schemas.Chunk
	for _, d := range docs {
		cs, err := chunk(ctx, d)
		if err != nil {
			tb.Fatal(err)
		}
		if err := w.Chunks.PutDocument(ctx, Tenant, d, cs); err != nil {
			tb.Fatal(err)
		}
		var ts []schemas.Triplet
		for _, c := range cs {
			tr, err := extract(ctx, Tenant, c)
			if err != nil {
				tb.Fatal(err)
			}
			ts = append(ts, tr...)
		}
		if _, err := w.G.Apply(ctx, Tenant, ts, nil); err != nil {
			tb.Fatal(err)
		}
		all = append(all, cs...)
	}
	return all
}

// VolumeDocs reads the named volumes of the History of Ming biographies
// from dir (datasettest.Require gives it) as the file producer would.
func VolumeDocs(tb testing.TB, dir string, names ...string) []schemas.Document {
	tb.Helper()
	var docs []schemas.Document
	for _, n := range names {
		if n == "" {
			continue
		}
		f := producers.File{Path: filepath.Join(dir, n), Rel: "mingshi-liezhuan/" + n}
		items, errs := producers.Read(f, producers.Options{})
		if len(errs) > 0 {
			tb.Fatal(errs[0])
		}
		for _, it := range items {
			docs = append(docs, it.Doc)
		}
	}
	return docs
}
