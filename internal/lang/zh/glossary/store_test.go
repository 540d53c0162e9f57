package glossary_test

import (
	"context"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/consumers/chunker"
	"github.com/annalist-dev/annalist/consumers/extractor"
	"github.com/annalist-dev/annalist/infra/kg"
	"github.com/annalist-dev/annalist/infra/redisdb"
	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
	"github.com/annalist-dev/annalist/internal/lang/zh/glossary"
	"github.com/annalist-dev/annalist/schemas"
)

const tenant = "t1"

// The Redis stores are what a Store reads in the pipeline.
var (
	_ glossary.Graph  = (*kg.Store)(nil)
	_ glossary.Chunks = (*redisdb.Chunks)(nil)
)

// ingest runs the shipped glossary through the chunker, the extractor and
// the knowledge graph as the pipeline would, plus one biography fact that
// makes 福清 a place node too, and returns a Store on the result.
func ingest(t *testing.T) (*glossary.Store, []schemas.Chunk) {
	t.Helper()
	ctx := context.Background()
	c := redistest.Client(t)
	graph, err := kg.New(c, kg.Config{})
	if err != nil {
		t.Fatal(err)
	}
	chunks := redisdb.NewChunks(c)

	doc := glossary.Document()
	doc.DocID = "glossary-doc"
	doc.Profile = "" // found by collection, as for a file ingested from a glossary folder
	res, err := chunker.New(chunker.Config{}).Segment(ctx, doc)
	if err != nil {
		t.Fatal(err)
	}
	if res.Profile != chunker.ProfileGlossary {
		t.Fatalf("chunked with profile %q, want %q", res.Profile, chunker.ProfileGlossary)
	}
	if err := chunks.PutDocument(ctx, tenant, doc, res.Chunks); err != nil {
		t.Fatal(err)
	}
	ex := extractor.New(extractor.Config{})
	var ts []schemas.Triplet
	for _, ch := range res.Chunks {
		got, err := ex.Extract(ctx, tenant, ch)
		if err != nil {
			t.Fatal(err)
		}
		ts = append(ts, got...)
	}
	ts = append(ts, schemas.Triplet{TripletID: "p1", Head: "叶向高", HeadType: schemas.EntityPerson,
		Relation: schemas.RelNativePlace, Tail: "福清", ChunkID: "bio-1", DocID: "bio", Entry: "叶向高",
		EntryChunk: "bio-1", Span: schemas.Span{Start: 8, End: 11}, Evidence: "福清人", Method: "regex", Confidence: 0.9})
	if _, err := graph.Apply(ctx, tenant, ts, nil); err != nil {
		t.Fatal(err)
	}
	return glossary.NewStore(graph, chunks), res.Chunks
}

func TestLookupAfterIngest(t *testing.T) {
	store, chunks := ingest(t)
	ctx := context.Background()
	if got, want := len(chunks), len(glossary.Parse(glossary.Text()))+1; got != want {
		t.Errorf("%d chunks, want one per entry and one for the heading: %d", got, want)
	}
	for _, tt := range []struct {
		term, entry string
		score       float64
	}{
		{"进士", "进士", glossary.ScoreTerm},
		{"廷试第一", "状元", glossary.ScoreAlias},
		{"编修", "编修", glossary.ScoreTerm},
		{"福清", "福清", glossary.ScoreTerm},
	} {
		refs, err := store.Lookup(ctx, tenant, tt.term)
		if err != nil {
			t.Fatal(err)
		}
		if len(refs) != 1 {
			t.Errorf("Lookup(%s) = %d references, want 1: %+v", tt.term, len(refs), refs)
			continue
		}
		r := refs[0]
		e, ok := glossary.ParseLine(strings.TrimSpace(r.Text))
		if !ok || e.Term() != tt.entry || !e.Has(tt.term) {
			t.Errorf("Lookup(%s) gave chunk %q, want the entry of %s", tt.term, r.Text, tt.entry)
		}
		if r.Source != schemas.SourceGlossary || r.Score != tt.score || r.Entity != "term:"+tt.entry || r.DocID != "glossary-doc" {
			t.Errorf("Lookup(%s) reference %+v: want source glossary, score %v, entity term:%s", tt.term, r, tt.score, tt.entry)
		}
	}
	refs, err := store.Lookup(ctx, tenant, "进士")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(refs[0].Text, "殿试") {
		t.Errorf("Lookup(进士) text %q does not hold the definition", refs[0].Text)
	}
	for _, unknown := range []string{"驸马都尉", "叶向高", " "} {
		refs, err := store.Lookup(ctx, tenant, unknown)
		if err != nil || len(refs) != 0 {
			t.Errorf("Lookup(%q) = %v, %v; want nothing", unknown, refs, err)
		}
	}
}
