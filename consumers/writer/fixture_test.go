package writer_test

import (
	"context"
	"fmt"
	"testing"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/infra/kg"
	"github.com/annalist-dev/annalist/infra/redis"
	"github.com/annalist-dev/annalist/infra/redis/redistest"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
)

const tenant = "t1"

// world is a knowledge graph and chunk store on a real redis-server.
type world struct {
	g      *kg.Store
	chunks *redis.Chunks
}

func newWorld(t testing.TB) *world {
	t.Helper()
	c := redistest.Client(t)
	g, err := kg.New(c, kg.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return &world{g: g, chunks: redis.NewChunks(c)}
}

// piece is one chunk of a fixture document; entry names the person whose
// entry it belongs to ("" outside entries), first marks the entry's first
// chunk.
type piece struct {
	entry string
	first bool
	text  string
}

// doc stores a document made of pieces and returns the chunks, whose ids
// are docID-0000, docID-0001 …
func (w *world) doc(t testing.TB, docID string, pieces ...piece) []schemas.Chunk {
	t.Helper()
	var cs []schemas.Chunk
	var text, entryChunk string
	pos := 0
	for i, p := range pieces {
		id := fmt.Sprintf("%s-%04d", docID, i)
		c := schemas.Chunk{ChunkID: id, DocID: docID, Seq: i, Total: len(pieces), Profile: "liezhuan",
			Method: "pattern", Entry: p.entry, Text: p.text, Start: pos, End: pos + utf8.RuneCountInString(p.text)}
		if p.first {
			entryChunk = id
			c.Subject = p.entry
		}
		if p.entry != "" {
			c.EntryChunk = entryChunk
		}
		pos = c.End
		text += p.text
		cs = append(cs, c)
	}
	if err := w.chunks.PutDocument(context.Background(), tenant, schemas.Document{DocID: docID, Text: text}, cs); err != nil {
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
func (w *world) apply(t testing.TB, c schemas.Chunk, fs ...fact) {
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
	if _, err := w.g.Apply(context.Background(), tenant, ts, nil); err != nil {
		t.Fatal(err)
	}
}

func indexOf(s, sub string) int {
	for i := range s {
		if len(s)-i >= len(sub) && s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

// fixture is a small volume in the manner of a liezhuan, written for these
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
type fixture struct {
	*world
	huang, lin1, lin2, zhou, note, chen1, chen2 schemas.Chunk
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	f := &fixture{world: newWorld(t)}
	v0 := f.doc(t, "v0",
		piece{text: "黄中\n"},
		piece{entry: "黄中", first: true, text: "黄中，字正之，闽县人。少孤，力学。举万历二年进士，授行人。\n"})
	f.huang = v0[1]
	f.apply(t, f.huang,
		fact{head: "黄中", rel: schemas.RelCourtesyName, tail: "正之", evidence: "字正之"},
		fact{head: "黄中", rel: schemas.RelNativePlace, tail: "闽县", tailType: schemas.EntityPlace, evidence: "闽县人"})

	v1 := f.doc(t, "v1",
		piece{text: "林安周明\n"},
		piece{entry: "林安", first: true, text: "林安，字子平，号石溪，闽县人。父昭，以儒名。举万历五年进士，授编修。\n"},
		piece{entry: "林安", text: "安历官吏部右侍郎，官至礼部尚书。卒，年六十二。\n"},
		piece{entry: "周明", first: true, text: "周明，字子平，闽县人。与林安同举进士。官至户部尚书。婿陈平，以荫补中书舍人，历主事、员外郎、郎中，早卒。\n"},
		piece{entry: "陈平", first: true, text: "陈平，字公衡，建安人。举万历八年进士，授御史。官至右副都御史。卒。\n"})
	f.lin1, f.lin2, f.zhou, f.chen1 = v1[1], v1[2], v1[3], v1[4]
	f.apply(t, f.lin1,
		fact{head: "林安", rel: schemas.RelCourtesyName, tail: "子平", evidence: "字子平"},
		fact{head: "林安", rel: schemas.RelArtName, tail: "石溪", evidence: "号石溪"},
		fact{head: "林安", rel: schemas.RelNativePlace, tail: "闽县", tailType: schemas.EntityPlace, evidence: "闽县人"},
		fact{head: "林安", rel: schemas.RelRelative, tail: "林昭", tailType: schemas.EntityPerson, evidence: "父昭",
			quals: map[string]string{"kin": "父"}},
		fact{head: "林安", rel: schemas.RelJinshi, tail: "万历五年", tailType: schemas.EntityTime, evidence: "举万历五年进士",
			quals: map[string]string{"era": "万历", "year": "万历五年"}},
		fact{head: "林安", rel: schemas.RelOffice, tail: "编修", tailType: schemas.EntityOffice, evidence: "授编修"})
	f.apply(t, f.lin2,
		fact{head: "林安", rel: schemas.RelOffice, tail: "吏部右侍郎", tailType: schemas.EntityOffice, evidence: "历官吏部右侍郎"},
		fact{head: "林安", rel: schemas.RelOffice, tail: "礼部尚书", tailType: schemas.EntityOffice, evidence: "官至礼部尚书"},
		fact{head: "林安", rel: schemas.RelDeath, tail: "六十二", tailType: schemas.EntityTime, evidence: "卒，年六十二"})
	f.apply(t, f.zhou,
		fact{head: "周明", rel: schemas.RelCourtesyName, tail: "子平", evidence: "字子平"},
		fact{head: "周明", rel: schemas.RelNativePlace, tail: "闽县", tailType: schemas.EntityPlace, evidence: "闽县人"},
		fact{head: "周明", rel: schemas.RelRelative, tail: "陈平", tailType: schemas.EntityPerson, evidence: "婿陈平",
			quals: map[string]string{"kin": "婿"}},
		fact{head: "陈平", rel: schemas.RelOffice, tail: "中书舍人", tailType: schemas.EntityOffice, evidence: "补中书舍人"},
		fact{head: "陈平", rel: schemas.RelOffice, tail: "主事", tailType: schemas.EntityOffice, evidence: "历主事"},
		fact{head: "陈平", rel: schemas.RelOffice, tail: "员外郎", tailType: schemas.EntityOffice, evidence: "员外郎"},
		fact{head: "陈平", rel: schemas.RelOffice, tail: "郎中", tailType: schemas.EntityOffice, evidence: "、郎中"},
		fact{head: "陈平", rel: schemas.RelDeath, tail: "早卒", tailType: schemas.EntityTime, evidence: "早卒"})
	f.apply(t, f.chen1,
		fact{head: "陈平", rel: schemas.RelCourtesyName, tail: "公衡", evidence: "字公衡"},
		fact{head: "陈平", rel: schemas.RelNativePlace, tail: "建安", tailType: schemas.EntityPlace, evidence: "建安人"},
		fact{head: "陈平", rel: schemas.RelJinshi, tail: "万历八年", tailType: schemas.EntityTime, evidence: "举万历八年进士"},
		fact{head: "陈平", rel: schemas.RelOffice, tail: "右副都御史", tailType: schemas.EntityOffice, evidence: "官至右副都御史"})

	v2 := f.doc(t, "v2",
		piece{entry: "陈平", first: true, text: "陈平，字子衡，莆田人。隐居不仕。\n"})
	f.chen2 = v2[0]
	f.apply(t, f.chen2,
		fact{head: "陈平", rel: schemas.RelNativePlace, tail: "莆田", tailType: schemas.EntityPlace, evidence: "莆田人"})

	// An archive note outside any entry: its persons are resolved by name.
	notes := f.doc(t, "notes", piece{text: "周明尝从林安游，论学于鳌峰书院。"})
	f.note = notes[0]
	f.apply(t, f.note,
		fact{head: "周明", rel: schemas.RelRelative, tail: "林安", tailType: schemas.EntityPerson, evidence: "周明尝从林安游",
			quals: map[string]string{"kin": "友"}})
	return f
}
