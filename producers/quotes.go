package producers

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/annalist-dev/annalist/internal/lang/quotes"
	"github.com/annalist-dev/annalist/schemas"
)

// ReadQuotes reads a quotation collection in the quotable format (a JSON
// array of {_id, content, author, tags}) from r, named name, into one
// document per quotation: its text the quotation verbatim, its profile
// and collection quotes', its title the author and tags (quotes.Title),
// its author and id in the metadata, its source name#id (or name#index
// without an id) so an edited quotation supersedes its earlier version. A
// record without content or author, or with a bad tag, is refused with
// the reason and the rest go on; a file that is not such an array is an
// error.
func ReadQuotes(r io.Reader, name string) (items []Item, errs []error) {
	recs, err := quotes.Parse(r)
	if err != nil {
		return nil, []error{fmt.Errorf("%w: %s: %w", ErrInput, name, err)}
	}
	for i, rec := range recs {
		if err := rec.Check(); err != nil {
			errs = append(errs, fmt.Errorf("%w: %s record %d: %w", ErrInput, name, i, err))
			continue
		}
		key := rec.ID
		if key == "" {
			key = fmt.Sprint(i)
		}
		meta := map[string]string{quotes.MetaAuthor: strings.TrimSpace(rec.Author)}
		if rec.ID != "" {
			meta[quotes.MetaID] = rec.ID
		}
		it, err := NewItem(schemas.Document{Source: name + "#" + key, Title: quotes.Title(rec.Author, rec.Tags),
			Collection: quotes.Collection, Profile: quotes.Profile, Lang: "en", Text: rec.Content, Metadata: meta})
		if err != nil {
			errs = append(errs, fmt.Errorf("%s record %d: %w", name, i, err))
			continue
		}
		items = append(items, it)
	}
	return items, errs
}

// IngestQuotes reads a quotation collection from r (ReadQuotes) and sends
// its documents to sink; refused records are in Summary.Errors.
func IngestQuotes(ctx context.Context, r io.Reader, name, tenant string, sink Sink) (Summary, error) {
	sum := Summary{Files: 1}
	items, errs := ReadQuotes(r, name)
	for _, e := range errs {
		sum.Errors = append(sum.Errors, e.Error())
	}
	for i := 0; i < len(items); i += sendBatch {
		end := min(i+sendBatch, len(items))
		if err := sink.Send(ctx, tenant, items[i:end]); err != nil {
			return sum, fmt.Errorf("publish quotations: %w", err)
		}
		for _, it := range items[i:end] {
			sum.Documents++
			sum.Bytes += int64(len(it.Doc.Text))
			sum.Chars += int64(len([]rune(it.Doc.Text)))
		}
	}
	return sum, nil
}
