package writertest

import (
	"context"
	"sync"

	"github.com/annalist-dev/annalist/internal/ports/kind"
)

// Two quotations of a collection written for the tests, the first with
// quotation marks and a dash of its own.
var (
	Harbour = kind.Quotation{ChunkID: "quotes-q1", Author: "Mara Quill",
		Text: "A harbour is a promise the land makes to the sea — and keeps \"every\" night."}
	Oar = kind.Quotation{ChunkID: "quotes-q2", Author: "Tomas Ledger",
		Text: "Patience is the oar that rows when the wind has gone home."}
)

// FixedQuotes is a quotation finder (kind.Quotes) that returns the same
// quotations, best first, for every query, and records the queries.
type FixedQuotes struct {
	Qs []kind.Quotation

	mu      sync.Mutex
	queries []string
}

// Quotes returns the first n quotations and records query.
func (f *FixedQuotes) Quotes(_ context.Context, _, query string, n int) ([]kind.Quotation, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.queries = append(f.queries, query)
	return f.Qs[:min(n, len(f.Qs))], nil
}

// Queries returns the queries asked so far, in order.
func (f *FixedQuotes) Queries() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.queries...)
}
