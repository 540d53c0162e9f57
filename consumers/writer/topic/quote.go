package topic

import (
	"context"
	"fmt"
	"slices"

	"github.com/annalist-dev/annalist/internal/lang/text"
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

// quoteCandidates is how many quotations a section's query reads, so
// that a quotation already on the page can be passed over.
const quoteCandidates = 8

// addQuotes adds at most one quotation to each section of rs's outline:
// the best quotation for the topic and the section's title not already
// on the page, as the section's last item (schemas.RelQuote), its chunk
// a reference of the set (schemas.SourceQuote, its author recorded). The
// drafters write it as quotes.Sentence, and the verifier
// (verifier.WithQuotes) publishes it only verbatim and attributed to the
// chunk's author.
func (c *Curator) addQuotes(ctx context.Context, tenant, topic string, rs *schemas.ReferenceSet) error {
	if c.quotes == nil {
		return ErrNoQuotes
	}
	used := map[string]bool{}
	for i := range rs.Curation.Outline {
		sec := &rs.Curation.Outline[i]
		query := topic
		if sec.Title != "" && sec.Title != topic {
			query = topic + " " + sec.Title
		}
		qs, err := c.quotes.Quotes(ctx, tenant, query, quoteCandidates)
		if err != nil {
			return fmt.Errorf("quotations for %q: %w", query, err)
		}
		i := slices.IndexFunc(qs, func(q Quotation) bool {
			return !used[q.ChunkID] && q.ChunkID != "" && q.Author != "" && q.Text != ""
		})
		if i < 0 {
			continue
		}
		q := qs[i]
		used[q.ChunkID] = true
		// A quotation the curation already reached (a free-text topic's
		// seeds) becomes a quotation too: its author is recorded, so no
		// sentence may quote it unattributed.
		if k := slices.IndexFunc(rs.References, func(r schemas.Reference) bool { return r.ChunkID == q.ChunkID }); k >= 0 {
			rs.References[k].Source, rs.References[k].Author = schemas.SourceQuote, q.Author
		} else {
			rs.References = append(rs.References, schemas.Reference{ChunkID: q.ChunkID, Text: q.Text,
				Source: schemas.SourceQuote, Author: q.Author})
		}
		sec.Items = append(sec.Items, schemas.OutlineItem{Name: q.Author, Chunk: q.ChunkID,
			Span: schemas.Span{Start: 0, End: text.RuneLen(q.Text)}, Relation: schemas.RelQuote, Value: q.Author})
	}
	return nil
}
