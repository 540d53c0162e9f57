package extractor_test

import (
	"context"
	"testing"

	"github.com/annalist-dev/annalist/consumers/extractor"
	"github.com/annalist-dev/annalist/internal/lang/text"
	"github.com/annalist-dev/annalist/schemas"
)

func TestGlossaryChunk(t *testing.T) {
	// A definition that would give prose facts (an office after a verb)
	// gives none: it states no one's career.
	c := schemas.Chunk{ChunkID: "g-0001", DocID: "g", Seq: 1, Total: 2, Collection: "glossary",
		Profile: extractor.ProfileGlossary, Method: "pattern",
		Text: "状元、廷试第一｜rank｜殿试一甲第一名，例授翰林院修撰。\n"}
	c.Start, c.End = 10, 10+text.RuneLen(c.Text)
	ts, err := extractor.New(extractor.Config{}).Extract(context.Background(), "", c)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ rel, tail, evidence string }{
		{schemas.RelAlias, "廷试第一", "廷试第一"},
		{"category", "rank", "殿试一甲第一名，例授翰林院修撰。"},
	}
	if len(ts) != len(want) {
		t.Fatalf("%d triplets, want %d: %+v", len(ts), len(want), ts)
	}
	for i, w := range want {
		tr := ts[i]
		if tr.Head != "状元" || tr.HeadType != "term" || tr.Relation != w.rel || tr.Tail != w.tail || tr.Evidence != w.evidence {
			t.Errorf("triplet %d = %s(%s) %s %s %q, want 状元(term) %s %s %q", i, tr.Head, tr.HeadType, tr.Relation, tr.Tail, tr.Evidence, w.rel, w.tail, w.evidence)
		}
		if got := text.Substr(c.Text, tr.Span.Start, tr.Span.End); got != tr.Evidence {
			t.Errorf("triplet %d span gives %q, evidence %q", i, got, tr.Evidence)
		}
		if err := tr.Validate(); err != nil {
			t.Error(err)
		}
	}
	// A comment line alone gives nothing.
	c.Text = "# 官职\n"
	c.End = c.Start + text.RuneLen(c.Text)
	if ts, err := extractor.New(extractor.Config{}).Extract(context.Background(), "", c); err != nil || len(ts) != 0 {
		t.Errorf("comment chunk: %v, %v; want no triplets", ts, err)
	}
}
