package verifier

import (
	"context"
	"fmt"
	"strings"

	"github.com/annalist-dev/annalist/internal/lang/quotes"
	"github.com/annalist-dev/annalist/internal/lang/text"
	"github.com/annalist-dev/annalist/schemas"
)

// WithQuotes wraps a checker for quotation sentences: a draft that cites
// a quotation of the reference set (a reference with an Author, added by
// a request for quotations), or that is written as a quotation
// (quotes.ParseSentence) on a set holding quotations, is checked here
// alone:
//
//   - its text must be a quotation sentence (AUTHOR said: "QUOTE");
//   - QUOTE must be found verbatim, byte for byte, in a cited quotation;
//   - AUTHOR must be that quotation's author.
//
// A sentence that passes is supported, its evidence the quoted span; any
// other is not_supported with the error type schemas.ErrorOther (routed
// as the other errors are: rewritten from the references or dropped), so
// a quotation altered by one word, or given to another author, is never
// published. Every other draft goes to inner unchanged. Safe for
// concurrent use when inner is.
func WithQuotes(inner Checker) Checker { return &quoteChecker{inner: inner} }

type quoteChecker struct{ inner Checker }

func (c *quoteChecker) Check(ctx context.Context, refs *schemas.ReferenceSet, d schemas.Draft) (schemas.Verdict, error) {
	if refs == nil {
		return c.inner.Check(ctx, refs, d)
	}
	var cited []schemas.Reference
	for _, id := range d.Citations {
		if r, ok := refs.Reference(id); ok && r.Author != "" {
			cited = append(cited, r)
		}
	}
	author, quote, isQuote := quotes.ParseSentence(d.Text)
	if len(cited) == 0 && (!isQuote || !holdsQuotes(refs)) {
		return c.inner.Check(ctx, refs, d)
	}
	if err := ctx.Err(); err != nil {
		return schemas.Verdict{}, err
	}
	switch {
	case !isQuote:
		return quoteRejected(d, "a sentence citing a quotation must quote it: AUTHOR said: \"QUOTE\""), nil
	case len(cited) == 0:
		return quoteRejected(d, fmt.Sprintf("the quotation of %s cites no quotation of the collection", author)), nil
	}
	var found []schemas.Reference
	for _, r := range cited {
		if strings.Contains(r.Text, quote) {
			found = append(found, r)
		}
	}
	if len(found) == 0 {
		return quoteRejected(d, fmt.Sprintf("the quoted text is not found verbatim in the cited quotation (%s)", ids(cited))), nil
	}
	for _, r := range found {
		if r.Author != author {
			continue
		}
		at := text.RuneLen(r.Text[:strings.Index(r.Text, quote)])
		f := schemas.FactVerdict{Fact: schemas.Fact{Text: d.Text, ChunkID: r.ChunkID}, Status: schemas.StatusSupported,
			Evidence: []schemas.Evidence{{ChunkID: r.ChunkID, Span: schemas.Span{Start: at, End: at + text.RuneLen(quote)}, Text: quote}},
			Message:  fmt.Sprintf("quoted verbatim from %s, said by %s", r.ChunkID, r.Author)}
		return schemas.Verdict{RequestID: d.RequestID, Kind: d.Kind, Subject: d.Subject, Index: d.Index,
			Attempt: d.Attempt, Draft: d, Status: schemas.StatusSupported, Facts: []schemas.FactVerdict{f}}, nil
	}
	return quoteRejected(d, fmt.Sprintf("the quotation is attributed to %s, but %s said it (%s)", author, found[0].Author, found[0].ChunkID)), nil
}

// holdsQuotes reports a reference set holding a quotation.
func holdsQuotes(refs *schemas.ReferenceSet) bool {
	for _, r := range refs.References {
		if r.Author != "" {
			return true
		}
	}
	return false
}

func ids(rs []schemas.Reference) string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.ChunkID
	}
	return strings.Join(out, ", ")
}

// quoteRejected is the not_supported verdict of a quotation sentence.
func quoteRejected(d schemas.Draft, reason string) schemas.Verdict {
	return schemas.Verdict{RequestID: d.RequestID, Kind: d.Kind, Subject: d.Subject, Index: d.Index,
		Attempt: d.Attempt, Draft: d, Status: schemas.StatusNotSupported, ErrorType: schemas.ErrorOther,
		Facts: []schemas.FactVerdict{{Fact: schemas.Fact{Text: d.Text}, Status: schemas.StatusNotSupported,
			ErrorType: schemas.ErrorOther, Message: reason}}}
}
