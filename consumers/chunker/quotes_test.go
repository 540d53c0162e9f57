package chunker_test

import (
	"context"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/consumers/chunker"
	"github.com/annalist-dev/annalist/internal/lang/quotes"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
)

// A quotation document is one chunk, the quotation verbatim however long
// (longer than any window), its author the subject and its title kept; a
// quotation document without an author is refused for good.
func TestQuotesProfileOneChunkPerQuotation(t *testing.T) {
	long := strings.Repeat("The sea keeps what the shore forgets, and every wave returns it. ", 60)
	doc := schemas.Document{DocID: "q-1", Text: long, Profile: quotes.Profile, Collection: quotes.Collection,
		Title: quotes.Title("Ann Lee", []string{"Sea"}), Metadata: map[string]string{quotes.MetaAuthor: "Ann Lee"}}
	ch := chunker.New(chunker.Config{})
	cs, err := ch.Chunk(context.Background(), doc)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 1 || cs[0].Text != long || cs[0].Subject != "Ann Lee" || cs[0].Title != doc.Title || cs[0].Profile != quotes.Profile || cs[0].Validate() != nil {
		t.Fatalf("chunks %+v", cs)
	}
	doc.Metadata = nil
	if _, err := ch.Chunk(context.Background(), doc); err == nil || !pipeline.IsPermanent(err) {
		t.Errorf("no author: %v, want a permanent error", err)
	}
}
