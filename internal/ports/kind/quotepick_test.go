package kind_test

import (
	"context"
	"errors"
	"testing"

	"github.com/annalist-dev/annalist/internal/ports/kind"
	"github.com/annalist-dev/annalist/schemas"
)

// listQuotes answers every query with its quotations, best first, or
// with err; it records the queries.
type listQuotes struct {
	qs      []kind.Quotation
	err     error
	queries []string
}

func (l *listQuotes) Quotes(_ context.Context, _, query string, n int) ([]kind.Quotation, error) {
	l.queries = append(l.queries, query)
	return l.qs[:min(n, len(l.qs))], l.err
}

// Each section takes the best whole quotation no earlier section took;
// an empty query asks nothing; a chosen quotation already a reference is
// marked a quotation, another is appended as one.
func TestPickQuotes(t *testing.T) {
	a := kind.Quotation{ChunkID: "q-a", Text: "Words of A.", Author: "A"}
	b := kind.Quotation{ChunkID: "q-b", Text: "Words of B.", Author: "B"}
	noAuthor := kind.Quotation{ChunkID: "q-c", Text: "Nobody's words."}
	f := &listQuotes{qs: []kind.Quotation{noAuthor, a, b}}
	rs := &schemas.ReferenceSet{References: []schemas.Reference{{ChunkID: "q-b", Text: b.Text, Source: schemas.SourceVector}}}
	picks, err := kind.PickQuotes(context.Background(), f, "t", []string{"one", "", "two", "three"}, rs)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.queries) != 3 {
		t.Errorf("queries %q, want the three non-empty ones", f.queries)
	}
	if picks[0] != a || picks[1] != (kind.Quotation{}) || picks[2] != b || picks[3] != (kind.Quotation{}) {
		t.Errorf("picks %+v: want A, none, B, none", picks)
	}
	want := []schemas.Reference{
		{ChunkID: "q-b", Text: b.Text, Source: schemas.SourceQuote, Author: "B"},
		{ChunkID: "q-a", Text: a.Text, Source: schemas.SourceQuote, Author: "A"},
	}
	if len(rs.References) != len(want) || rs.References[0] != want[0] || rs.References[1] != want[1] {
		t.Errorf("references %+v, want %+v", rs.References, want)
	}
	if it := kind.QuoteItem(a); it.Relation != schemas.RelQuote || it.Chunk != "q-a" || it.Name != "A" || it.Span.End != 11 {
		t.Errorf("item %+v", it)
	}
}

// No finder is kind.ErrNoQuotes; the finder's error names the query.
func TestPickQuotesErrors(t *testing.T) {
	rs := &schemas.ReferenceSet{}
	if _, err := kind.PickQuotes(context.Background(), nil, "t", []string{"x"}, rs); !errors.Is(err, kind.ErrNoQuotes) {
		t.Errorf("nil finder: %v", err)
	}
	boom := errors.New("boom")
	_, err := kind.PickQuotes(context.Background(), &listQuotes{err: boom}, "t", []string{"sea"}, rs)
	if !errors.Is(err, boom) || err.Error() != `quotations for "sea": boom` {
		t.Errorf("finder error: %v", err)
	}
}
