package topic

import (
	"context"

	"github.com/annalist-dev/annalist/internal/ports/kind"
	"github.com/annalist-dev/annalist/schemas"
)

// Quotation is one quotation of the quotes collection (kind.Quotation).
type Quotation = kind.Quotation

// Quotes finds the quotations that fit a query (kind.Quotes).
type Quotes = kind.Quotes

// WithQuotes lets a request ask for quotations (schemas.Request.Quotes):
// q finds them.
func WithQuotes(q Quotes) Option {
	return func(c *Curator) { c.quotes = q }
}

// ErrNoQuotes is returned by Plan for a request asking for quotations of
// a curator without a quotation finder (WithQuotes).
var ErrNoQuotes = kind.ErrNoQuotes

// addQuotes adds at most one quotation to each section of rs's outline
// (kind.PickQuotes, the query the topic and the section's title): the
// best quotation not already on the page, as the section's last item
// (kind.QuoteItem, schemas.RelQuote), its chunk a reference of the set
// (schemas.SourceQuote, its author recorded). The drafters write it as
// quotes.Sentence, and the verifier (verifier.WithQuotes) publishes it
// only verbatim and attributed to the chunk's author.
func (c *Curator) addQuotes(ctx context.Context, tenant, topic string, rs *schemas.ReferenceSet) error {
	queries := make([]string, len(rs.Curation.Outline))
	for i, sec := range rs.Curation.Outline {
		queries[i] = topic
		if sec.Title != "" && sec.Title != topic {
			queries[i] = topic + " " + sec.Title
		}
	}
	picks, err := kind.PickQuotes(ctx, c.quotes, tenant, queries, rs)
	if err != nil {
		return err
	}
	for i, q := range picks {
		if q.ChunkID != "" {
			sec := &rs.Curation.Outline[i]
			sec.Items = append(sec.Items, kind.QuoteItem(q))
		}
	}
	return nil
}
