package app_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/annalist-dev/annalist/infra/pages"
	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
	"github.com/annalist-dev/annalist/internal/lang/quotes"
	"github.com/annalist-dev/annalist/internal/wiring/app"
	"github.com/annalist-dev/annalist/producers"
	"github.com/annalist-dev/annalist/schemas"
)

// placeQuotes is a quotation collection for the topic test's volume: one
// quotation tagged with a place of the volume, one with a tag no page of
// it names.
const placeQuotes = `[
 {"_id": "p1", "content": "In Wu county the gardens keep the scholars, and the scholars keep the gardens.", "author": "Mara Quill", "tags": ["苏州吴县"]},
 {"_id": "p2", "content": "The tide asks nothing and is answered by every shore.", "author": "Tomas Ledger", "tags": ["Sea"]}
]`

// Every process that runs the writer (serve, consume, a command) draws a
// topic page's quotations from its own collection: the
// page of the place publishes the quotation tagged with it, verbatim and
// attributed, and not the one that fits no section.
func TestTopicQuotesFromTheProcessCollection(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the embedded pipeline")
	}
	redistest.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	const tenant = "default"
	dir := t.TempDir()
	vol, err := producers.NewItem(schemas.Document{Source: "fixture/liezhuan/topics.txt", Title: "topics",
		Collection: "fixture", Text: topicVolume})
	if err != nil {
		t.Fatal(err)
	}
	in := scriptedApp(t, dir, nil, app.IngestStages())
	if _, err := in.Ingest(ctx, tenant, true, true, func(ctx context.Context, sink producers.Sink) (producers.Summary, error) {
		return producers.Summary{Documents: 1}, sink.Send(ctx, tenant, []producers.Item{vol})
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Ingest(ctx, tenant, true, true, func(ctx context.Context, sink producers.Sink) (producers.Summary, error) {
		return producers.IngestQuotes(ctx, strings.NewReader(placeQuotes), "quotes.json", tenant, sink)
	}); err != nil {
		t.Fatal(err)
	}
	in.Close()

	b := runGenerating(t, dir, nil)
	res, err := b.Generate(ctx, tenant, false, true, []schemas.Request{{Kind: schemas.KindTopicPage, Subject: "苏州吴县",
		Quotes: true, Params: map[string]string{"incremental": "false"}}})
	if err != nil {
		t.Fatal(err)
	}
	if st := res[0].Status; st.State != pages.RequestPublished || res[0].Page == nil {
		t.Fatalf("not published: %s %s", st.State, st.Error)
	}
	var quoted []string
	for _, s := range res[0].Page.Sentences {
		if author, q, ok := quotes.ParseSentence(s.Text); ok {
			quoted = append(quoted, author+": "+q)
		}
	}
	want := "Mara Quill: In Wu county the gardens keep the scholars, and the scholars keep the gardens."
	if len(quoted) != 1 || quoted[0] != want {
		t.Errorf("quotations on the page %q, want only %q", quoted, want)
	}
}
