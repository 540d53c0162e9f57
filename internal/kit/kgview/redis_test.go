package kgview_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/internal/ports/graph"

	"github.com/annalist-dev/annalist/infra/kg"
	"github.com/annalist-dev/annalist/infra/redisdb"
	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
	"github.com/annalist-dev/annalist/internal/kit/kgview"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
)

// The stores the CLI passes to Show.
var (
	_ graph.Reader       = (*kg.Store)(nil)
	_ kgview.ChunkReader = (*redisdb.Chunks)(nil)
)

// An entry written for this test, shaped like a liezhuan biography.
const entryText = "叶向高，字进卿，福清人。举万历十一年进士，授庶吉士。"

// span finds sub in text as rune offsets.
func span(t *testing.T, text, sub string) schemas.Span {
	t.Helper()
	i := strings.Index(text, sub)
	if i < 0 {
		t.Fatalf("%q not in %q", sub, text)
	}
	start := utf8.RuneCountInString(text[:i])
	return schemas.Span{Start: start, End: start + utf8.RuneCountInString(sub)}
}

func TestShowOnRedis(t *testing.T) {
	ctx := context.Background()
	c := redistest.Client(t)
	chunks := redisdb.NewChunks(c)
	store, err := kg.New(c, kg.Config{})
	if err != nil {
		t.Fatal(err)
	}
	doc := schemas.Document{DocID: "doc-128", Source: "128.txt", Text: entryText}
	chunk := schemas.Chunk{ChunkID: "doc-128-0", DocID: doc.DocID, Seq: 0, Total: 1, Profile: "liezhuan",
		Method: "pattern", Subject: "叶向高", Entry: "叶向高", EntryChunk: "doc-128-0",
		Start: 0, End: utf8.RuneCountInString(entryText), Text: entryText}
	if err := chunks.PutDocument(ctx, schemas.DefaultTenant, doc, []schemas.Chunk{chunk}); err != nil {
		t.Fatal(err)
	}
	var ts []schemas.Triplet
	for _, f := range []struct{ rel, tail, typ, evidence string }{
		{schemas.RelCourtesyName, "进卿", schemas.EntityName, "叶向高，字进卿"},
		{schemas.RelNativePlace, "福清", schemas.EntityPlace, "福清人"},
		{schemas.RelJinshi, "万历十一年", schemas.EntityTime, "举万历十一年进士"},
	} {
		sp := span(t, entryText, f.evidence)
		ts = append(ts, schemas.Triplet{
			TripletID: pipeline.ContentID(chunk.ChunkID, f.rel, f.tail), Head: "叶向高", HeadType: schemas.EntityPerson,
			Relation: f.rel, Tail: f.tail, TailType: f.typ, ChunkID: chunk.ChunkID, DocID: doc.DocID,
			Entry: chunk.Entry, EntryChunk: chunk.EntryChunk, Span: sp, Evidence: f.evidence,
			Method: "regex", Confidence: 1,
		})
	}
	if _, err := store.Apply(ctx, schemas.DefaultTenant, ts, nil); err != nil {
		t.Fatal(err)
	}

	v, err := kgview.Show(ctx, store, chunks, schemas.DefaultTenant, "进卿", true)
	if err != nil {
		t.Fatal(err)
	}
	if v.Name != "叶向高" || v.Matched != kgview.MatchAlias || v.ID != kg.PersonID("叶向高", chunk.ChunkID) {
		t.Fatalf("进卿 shows %s [%s] matched %s", v.Name, v.ID, v.Matched)
	}
	want := map[string]string{
		schemas.RelCourtesyName: "进卿", schemas.RelNativePlace: "福清", schemas.RelJinshi: "万历十一年",
	}
	for _, e := range v.Edges {
		if want[e.Relation] != e.Tail || e.ChunkID != chunk.ChunkID {
			t.Errorf("edge %s %s from %s", e.Relation, e.Tail, e.ChunkID)
		}
		// The evidence is the text of the span in the chunk.
		if got := string([]rune(chunk.Text)[e.Span.Start:e.Span.End]); got != e.Evidence {
			t.Errorf("edge %s: span text %q, evidence %q", e.Relation, got, e.Evidence)
		}
		delete(want, e.Relation)
	}
	if len(want) != 0 {
		t.Errorf("missing edges %v", want)
	}
	if len(v.Chunks) != 1 || v.Chunks[0].Text != entryText {
		t.Fatalf("chunks = %+v", v.Chunks)
	}

	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var decoded struct {
		Aliases []string `json:"aliases"`
		Chunks  []struct {
			ChunkID string `json:"chunk_id"`
			Text    string `json:"text"`
		} `json:"chunks"`
	}
	if err := json.Unmarshal(b, &decoded); err != nil {
		t.Fatal(err)
	}
	if strings.Join(decoded.Aliases, ",") != "叶向高,进卿" || len(decoded.Chunks) != 1 || decoded.Chunks[0].Text != entryText {
		t.Fatalf("JSON = %s", b)
	}

	var text bytes.Buffer
	if err := v.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"native_place: 福清  [place:福清]", "jinshi: 万历十一年", entryText} {
		if !strings.Contains(text.String(), s) {
			t.Errorf("text lacks %q:\n%s", s, text.String())
		}
	}

	if _, err := kgview.Show(ctx, store, chunks, schemas.DefaultTenant, "无此人", false); !errors.Is(err, graph.ErrNotFound) {
		t.Fatalf("unknown name: err = %v", err)
	}
}
