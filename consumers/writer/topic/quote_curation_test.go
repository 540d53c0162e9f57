package topic_test

import (
	"context"
	"slices"
	"strconv"
	"testing"

	"github.com/annalist-dev/annalist/consumers/chunker"
	"github.com/annalist-dev/annalist/consumers/extractor"
	"github.com/annalist-dev/annalist/consumers/verifier"
	"github.com/annalist-dev/annalist/consumers/writer/internal/writertest"
	"github.com/annalist-dev/annalist/consumers/writer/topic"
	"github.com/annalist-dev/annalist/internal/lang/quotes"
	"github.com/annalist-dev/annalist/schemas"
)

// severnQuote is a quotation of the collection that names the free-text
// topic of the demo corpus.
const severnQuote = "The Severn Navigation Board keeps the river honest, and the river keeps the Severn Navigation Board humble."

// A quotation that a topic's curation reaches (here by vector search, its
// text naming the topic) is never written as a plain, unattributed
// sentence: without quotations asked for, the curation leaves the quotes
// collection out; asked for, the quotation enters the page only as its
// author's quotation (a reference with source quote and its author).
func TestCurationLeavesQuotationsOut(t *testing.T) {
	w, mv := demoWorld(t)
	doc := schemas.Document{DocID: "quote-severn", Title: quotes.Title("Mara Quill", []string{"rivers"}),
		Collection: quotes.Collection, Profile: quotes.Profile, Lang: "en", Text: severnQuote,
		Metadata: map[string]string{quotes.MetaAuthor: "Mara Quill"}}
	cs := w.Ingest(t, chunker.New(chunker.Config{}).Chunk, extractor.New(extractor.Config{}).Extract, []schemas.Document{doc})
	if len(cs) != 1 || cs[0].Profile != quotes.Profile {
		t.Fatalf("quotation chunks %+v", cs)
	}
	q := cs[0]
	vs, _ := hashEmbedder{}.Embed(context.Background(), []string{q.Text})
	mv.items[q.ChunkID] = vs[0]
	// The vector search the curation makes reaches the quotation.
	tv, _ := hashEmbedder{}.Embed(context.Background(), []string{"Severn Navigation Board"})
	hits, _ := mv.Search(context.Background(), tenant, tv[0], 30)
	reached := false
	for _, h := range hits {
		reached = reached || h.ChunkID == q.ChunkID
	}
	if !reached {
		t.Fatal("the topic's vector search does not reach the quotation")
	}

	c := topic.NewCurator(w.G, w.Chunks, topic.WithVectors(hashEmbedder{}, mv, 30),
		topic.WithQuotes(&writertest.FixedQuotes{Qs: []topic.Quotation{{ChunkID: q.ChunkID, Text: q.Text, Author: q.Subject}}}))
	rs := plan(t, c, "Severn Navigation Board")
	if r, ok := rs.Reference(q.ChunkID); ok {
		t.Errorf("without quotations asked for, the quotation is a reference: %+v", r)
	}
	for _, it := range topic.NewOffline(topic.OfflineConfig{}).Items(rs) {
		if slices.Contains(it.Citations, q.ChunkID) {
			t.Errorf("without quotations asked for, %q cites the quotation", it.Text)
		}
	}

	rs, err := c.Plan(context.Background(), tenant, schemas.Request{Kind: schemas.KindTopicPage, Subject: "Severn Navigation Board", Quotes: true})
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := rs.Reference(q.ChunkID); !ok || r.Source != schemas.SourceQuote || r.Author != "Mara Quill" {
		t.Errorf("with quotations asked for, the quotation's reference is %+v (%v)", r, ok)
	}
	check := verifier.WithQuotes(verifier.NewOffline(verifier.Config{}))
	n := 0
	for i, it := range topic.NewOffline(topic.OfflineConfig{}).Items(rs) {
		if !slices.Contains(it.Citations, q.ChunkID) {
			continue
		}
		n++
		v, err := check.Check(context.Background(), rs, schemas.Draft{Index: i, Text: it.Text, Citations: it.Citations})
		if err != nil || v.Status != schemas.StatusSupported || it.Text != quotes.Sentence(rs.Lang, "Mara Quill", severnQuote) {
			t.Errorf("%q citing the quotation: %s, %v", it.Text, v.Status, err)
		}
	}
	if n != 1 {
		t.Errorf("%d sentences cite the quotation, want its one quotation sentence", n)
	}
}

// Quotations nearer the topic than every source passage do not hide the
// sources from its vector search: the curation leaves the quotations out
// and searches further, so a free-text topic that the quotes collection
// also speaks of still finds its passages.
func TestVectorSearchLooksPastQuotations(t *testing.T) {
	w, mv := demoWorld(t)
	var docs []schemas.Document
	for i, text := range []string{"Severn Navigation Board.", "The Severn Navigation Board!", "Severn Navigation Board, always.",
		"O Severn Navigation Board.", "Severn, Navigation, Board.", "Severn Navigation Board again.", "Severn Navigation Board, at last."} {
		author := "Quill " + strconv.Itoa(i)
		docs = append(docs, schemas.Document{DocID: "quote-" + strconv.Itoa(i), Title: quotes.Title(author, []string{"rivers"}),
			Collection: quotes.Collection, Profile: quotes.Profile, Lang: "en", Text: text,
			Metadata: map[string]string{quotes.MetaAuthor: author}})
	}
	cs := w.Ingest(t, chunker.New(chunker.Config{}).Chunk, extractor.New(extractor.Config{}).Extract, docs)
	quoted := map[string]bool{}
	for _, c := range cs {
		vs, _ := hashEmbedder{}.Embed(context.Background(), []string{c.Text})
		mv.items[c.ChunkID] = vs[0]
		quoted[c.ChunkID] = true
	}
	const k = 5
	tv, _ := hashEmbedder{}.Embed(context.Background(), []string{"Severn Navigation Board"})
	hits, _ := mv.Search(context.Background(), tenant, tv[0], k)
	for _, h := range hits {
		if !quoted[h.ChunkID] {
			t.Fatalf("hit %s of the %d nearest is not a quotation; the test needs quotations nearest", h.ChunkID, k)
		}
	}
	rs := plan(t, topic.NewCurator(w.G, w.Chunks, topic.WithVectors(hashEmbedder{}, mv, k)), "Severn Navigation Board")
	if len(rs.References) == 0 {
		t.Fatal("no references")
	}
	for _, r := range rs.References {
		if quoted[r.ChunkID] {
			t.Errorf("the quotation %s is a reference", r.ChunkID)
		}
	}
}
