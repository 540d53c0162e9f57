package kind

import (
	"context"
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/schemas"
)

// QuoteCandidates is how many quotations PickQuotes reads for each
// section, so that a quotation already on the page can be passed over.
const QuoteCandidates = 8

// PickQuotes chooses at most one quotation for each section of a page,
// queries[i] being what section i is about, in page order. Section i's
// quotation is the first of q's best QuoteCandidates for queries[i] that
// is whole (chunk, text and author) and not already chosen for an earlier
// section, so a quotation is on a page once; picks[i] is the zero
// Quotation when none fits. An empty query chooses none.
//
// Each chosen quotation becomes a reference of rs: source
// schemas.SourceQuote, its author recorded (the verifier then publishes a
// sentence citing it only as that author's quotation, verbatim). A
// reference of the same chunk already in rs is marked so, else one is
// appended. A nil q fails with ErrNoQuotes; a failure of q is returned
// with the query.
func PickQuotes(ctx context.Context, q Quotes, tenant string, queries []string, rs *schemas.ReferenceSet) ([]Quotation, error) {
	if q == nil {
		return nil, ErrNoQuotes
	}
	picks := make([]Quotation, len(queries))
	used := map[string]bool{}
	for i, query := range queries {
		if query == "" {
			continue
		}
		qs, err := q.Quotes(ctx, tenant, query, QuoteCandidates)
		if err != nil {
			return nil, fmt.Errorf("quotations for %q: %w", query, err)
		}
		k := slices.IndexFunc(qs, func(q Quotation) bool {
			return !used[q.ChunkID] && q.ChunkID != "" && q.Author != "" && q.Text != ""
		})
		if k < 0 {
			continue
		}
		picks[i] = qs[k]
		used[qs[k].ChunkID] = true
		MarkQuote(rs, qs[k])
	}
	return picks, nil
}

// MarkQuote makes q a quotation reference of rs: the reference of q's
// chunk, when rs holds it, takes source schemas.SourceQuote and q's
// author; otherwise a reference of q is appended.
func MarkQuote(rs *schemas.ReferenceSet, q Quotation) {
	if k := slices.IndexFunc(rs.References, func(r schemas.Reference) bool { return r.ChunkID == q.ChunkID }); k >= 0 {
		rs.References[k].Source, rs.References[k].Author = schemas.SourceQuote, q.Author
		return
	}
	rs.References = append(rs.References, schemas.Reference{ChunkID: q.ChunkID, Text: q.Text,
		Source: schemas.SourceQuote, Author: q.Author})
}

// QuoteItem is the outline item that quotes q (schemas.RelQuote): its
// chunk q's, its name and value the author, its span the whole text. A
// drafter writes it as the author's quotation sentence (quotes.Sentence).
func QuoteItem(q Quotation) schemas.OutlineItem {
	return schemas.OutlineItem{Name: q.Author, Chunk: q.ChunkID, Span: schemas.Span{Start: 0, End: utf8.RuneCountInString(q.Text)},
		Relation: schemas.RelQuote, Value: q.Author}
}
