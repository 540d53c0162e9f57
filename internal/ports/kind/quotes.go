package kind

import (
	"context"
	"errors"
)

// Quotation is one quotation of the quotes collection: its text as the
// collection holds it, its author, and the chunk that holds it (the
// citation).
type Quotation struct {
	ChunkID string
	Text    string
	Author  string
}

// Quotes finds the quotations that fit a query, best first, at most n
// (the ranking `annalist quote` uses). The kinds that take quotations
// (topic pages, discussion summaries) draw them through it.
// Implementations are safe for concurrent use.
type Quotes interface {
	Quotes(ctx context.Context, tenant, query string, n int) ([]Quotation, error)
}

// ErrNoQuotes is returned by a kind's planner for a request asking for
// quotations when the process has no quotation finder.
var ErrNoQuotes = errors.New("quotations asked for, but this writer has no quotation collection to draw them from")
