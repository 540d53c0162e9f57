package quotes

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/internal/ports/graph"
	"github.com/annalist-dev/annalist/schemas"
)

// memCollection is a quotation collection in memory, as the knowledge
// graph and the chunk store hold it after ingestion: a person per author
// with the said edges of their quotations, a chunk per quotation with its
// tags in the title. reads counts the graph's listings.
type memCollection struct {
	recs  []Record
	reads int
}

func (m *memCollection) chunkID(i int) string { return fmt.Sprintf("c%d", i) }

func (m *memCollection) Nodes(_ context.Context, _, typ string) ([]string, error) {
	m.reads++
	seen := map[string]bool{}
	var out []string
	for _, r := range m.recs {
		if typ == "person" && !seen[r.Author] {
			seen[r.Author] = true
			out = append(out, "person:"+r.Author)
		}
	}
	return out, nil
}

func (m *memCollection) Entities(_ context.Context, _ string, ids []string) ([]graph.Entity, []error, error) {
	es := make([]graph.Entity, len(ids))
	for k, id := range ids {
		es[k].ID = id
		for i, r := range m.recs {
			if "person:"+r.Author == id {
				es[k].Edges = append(es[k].Edges, graph.Edge{Relation: RelSaid, ChunkID: m.chunkID(i)})
			}
		}
	}
	return es, nil, nil
}

func (m *memCollection) Get(_ context.Context, _ string, ids []string) ([]schemas.Chunk, error) {
	var out []schemas.Chunk
	for _, id := range ids {
		for i, r := range m.recs {
			if m.chunkID(i) == id {
				out = append(out, schemas.Chunk{ChunkID: id, Text: r.Content, Subject: r.Author, Title: Title(r.Author, r.Tags), Profile: Profile})
			}
		}
	}
	return out, nil
}

// The word index finds a quotation the collection does not tag by the
// words of the topic's tagged quotations (sailor), not the query's; the
// kind.Quotes method returns only what passes the model's cut, while Find
// ranks everything; the index is read again only when the stamp changes.
func TestFinderFindsUntaggedQuotations(t *testing.T) {
	col := &memCollection{recs: []Record{
		{Content: "The sea keeps every promise a sailor makes.", Author: "Mara Quill", Tags: []string{"Sea"}},
		{Content: "A sailor reads the sea as a scholar reads a book.", Author: "Ivo Brand", Tags: []string{"Sea"}},
		{Content: "Every harbour waits for its sailor.", Author: "Lena Voss"},
		{Content: "Patience is the oar that rows when the wind has gone home.", Author: "Tomas Ledger", Tags: []string{"Patience"}},
		{Content: "Bread rises for those who wait.", Author: "Otto Kern"},
	}}
	stamp := "1"
	f, err := NewFinder(Config{KG: col, Chunks: col, Stamp: func(context.Context, string) (string, error) { return stamp, nil }})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ranked, err := f.Find(ctx, "t", "sea", 5, nil)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, r := range ranked {
		texts = append(texts, r.Text)
	}
	if len(ranked) < 3 || ranked[0].Author == "Lena Voss" || !strings.Contains(strings.Join(texts, "|"), "Every harbour") {
		t.Fatalf("sea: %q; want the tagged quotations first and the untagged one about a sailor found", texts)
	}
	for _, r := range ranked {
		if strings.HasPrefix(r.Text, "Bread") {
			t.Errorf("sea: a quotation sharing no word with the topic was a candidate: %+v", r)
		}
	}
	qs, err := f.Quotes(ctx, "t", "sea", 5)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range qs {
		var fits bool
		for _, r := range ranked {
			if r.ChunkID == q.ChunkID {
				fits = r.Fits && r.Score >= f.cfg.Model.Cut
			}
		}
		if !fits {
			t.Errorf("Quotes returned %+v, which does not pass the cut", q)
		}
	}
	if none, err := f.Quotes(ctx, "t", "astronomy", 5); err != nil || len(none) != 0 {
		t.Errorf("astronomy: %+v, %v; want no fitting quotation", none, err)
	}
	reads := col.reads
	if _, err := f.Find(ctx, "t", "patience", 1, nil); err != nil || col.reads != reads {
		t.Errorf("the index was read again (%d → %d) with the stamp unchanged: %v", reads, col.reads, err)
	}
	stamp = "2"
	if _, err := f.Find(ctx, "t", "patience", 1, nil); err != nil || col.reads != reads+1 {
		t.Errorf("the index was not read again after the stamp changed: %d reads, %v", col.reads, err)
	}
}

// TopicWords learns the words a topic's quotations use more often than
// the collection, and leaving a quotation out takes its words' counts
// away.
func TestTopicWords(t *testing.T) {
	docs := []map[string]bool{ContentWords("the sea and the harbour"), ContentWords("harbour lights on the sea"), ContentWords("sea salt")}
	df := CountWords(append(docs, ContentWords("bread and salt"), ContentWords("wind and bread")))
	tw := TopicWords(CountWords(docs), len(docs), df, 5, nil)
	if tw["sea"] <= 0 || tw["harbour"] <= 0 || tw["salt"] != 0 || tw["bread"] != 0 {
		t.Errorf("topic words %v: want sea and harbour, not salt (once) or bread", tw)
	}
	loo := TopicWords(CountWords(docs), len(docs), df, 5, docs[0])
	if loo["harbour"] != 0 || loo["sea"] <= 0 {
		t.Errorf("leaving out the first quotation: %v; want harbour gone (once left), sea kept", loo)
	}
	if Expansion(ContentWords("a harbour by the sea"), tw) <= Expansion(ContentWords("a loaf of bread"), tw) {
		t.Error("a quotation in the topic's words does not score above one without them")
	}
}
