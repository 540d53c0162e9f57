package cli

import (
	"context"

	"github.com/annalist-dev/annalist/consumers/writer/topic"
)

// writerQuotes gives the topic page's writer the quotations the ranking
// of `annalist quote` finds (topic.Quotes).
type writerQuotes struct{ f *quoteFinder }

// Quotes returns at most n quotations fitting query, best first.
func (w writerQuotes) Quotes(ctx context.Context, tenant, query string, n int) ([]topic.Quotation, error) {
	ranked, err := w.f.Find(ctx, tenant, query, n, nil)
	if err != nil {
		return nil, err
	}
	out := make([]topic.Quotation, len(ranked))
	for i, r := range ranked {
		out[i] = topic.Quotation{ChunkID: r.ChunkID, Text: r.Text, Author: r.Author}
	}
	return out, nil
}
