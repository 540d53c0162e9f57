package extractor_test

import (
	"context"
	"testing"

	"github.com/annalist-dev/annalist/consumers/extractor"
	"github.com/annalist-dev/annalist/internal/lang/quotes"
	"github.com/annalist-dev/annalist/schemas"
)

// A quotation chunk yields its author's "said" fact with the whole
// quotation as evidence and one topic per tag, and nothing the English
// prose patterns would read in its words.
func TestQuoteChunkFacts(t *testing.T) {
	text := "He was born in Swansea in 1788, said the harbour, and died in Bath."
	c := schemas.Chunk{ChunkID: "q-1-0000", DocID: "q-1", Seq: 0, Total: 1, Profile: quotes.Profile, Collection: quotes.Collection,
		Subject: "Ann Lee", Title: quotes.Title("Ann Lee", []string{"Sea", "Old Age"}), Start: 0, End: len([]rune(text)), Text: text, Lang: "en"}
	ts, err := extractor.New(extractor.Config{}).Extract(context.Background(), "", c)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]schemas.Triplet{}
	for _, tr := range ts {
		got[tr.Relation+"|"+tr.Head] = tr
	}
	said, ok := got[quotes.RelSaid+"|Ann Lee"]
	if len(ts) != 3 || !ok || said.Tail != text || said.Evidence != text || said.HeadType != schemas.EntityPerson {
		t.Fatalf("triplets %+v", ts)
	}
	for _, tag := range []string{"Sea", "Old Age"} {
		if tr, ok := got[schemas.RelMention+"|"+tag]; !ok || tr.HeadType != quotes.HeadType {
			t.Errorf("no topic %s: %+v", tag, ts)
		}
	}
	c.Subject = ""
	if _, err := extractor.New(extractor.Config{}).Extract(context.Background(), "", c); err == nil {
		t.Error("a quotation chunk without an author was read")
	}
}
