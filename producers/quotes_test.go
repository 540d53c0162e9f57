package producers

import (
	"errors"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/internal/lang/quotes"
)

// Every valid record becomes a document of the quotes profile holding the
// quotation verbatim; a record without author or content is refused with
// the reason, and the rest go on.
func TestReadQuotes(t *testing.T) {
	in := `[{"_id": "a1", "content": "Calm seas \u2014 \"idle\" sailors.", "author": " Ann Lee ", "tags": ["Sea"]},
	{"_id": "a2", "content": "No one said this.", "tags": ["Sea"]},
	{"_id": "a3", "content": "", "author": "Bo Ray"},
	{"content": "Untagged and unnamed id.", "author": "Bo Ray"}]`
	items, errs := ReadQuotes(strings.NewReader(in), "q.json")
	if len(items) != 2 || len(errs) != 2 {
		t.Fatalf("%d items, errors %v; want 2 and 2", len(items), errs)
	}
	if !errors.Is(errs[0], ErrInput) || !strings.Contains(errs[0].Error(), "no author") || !strings.Contains(errs[1].Error(), "no content") {
		t.Errorf("errors %v", errs)
	}
	d := items[0].Doc
	if d.Text != "Calm seas — \"idle\" sailors." || d.Profile != quotes.Profile || d.Collection != quotes.Collection ||
		d.Metadata[quotes.MetaAuthor] != "Ann Lee" || d.Title != "Ann Lee: Sea" || d.Source != "q.json#a1" {
		t.Errorf("document %+v", d)
	}
	if items[1].Doc.Source != "q.json#3" || items[1].Doc.Title != "Bo Ray" {
		t.Errorf("record without id: %+v", items[1].Doc)
	}
	if _, errs := ReadQuotes(strings.NewReader(`not json`), "bad.json"); len(errs) != 1 || !strings.Contains(errs[0].Error(), "bad.json") {
		t.Errorf("not JSON: %v", errs)
	}
}
