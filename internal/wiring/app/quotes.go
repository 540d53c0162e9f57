package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/annalist-dev/annalist/internal/lang/quotes"
)

// QuoteFinder is the quotation finder on the app's knowledge graph,
// chunk store and, when open, vectors (quotes.Finder): what `annalist
// quote` ranks with and what the kinds draw quotations from. A tenant's
// word index is kept until the tenant's graph changes size (its nodes
// and edges: every quotation ingested adds the edge of its author), a
// check of one round trip, so a long-running process reads the
// collection once and again only after an ingestion.
func (a *App) QuoteFinder() (*quotes.Finder, error) {
	if a.KG == nil || a.Chunks == nil {
		return nil, errors.New("the quotation finder needs redis")
	}
	cfg := quotes.Config{KG: a.KG, Chunks: a.Chunks, Stamp: func(ctx context.Context, tenant string) (string, error) {
		c, err := a.KG.Counts(ctx, tenant)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%d/%d", c.Nodes, c.Edges), nil
	}}
	if a.Vectors != nil && a.Embedder != nil {
		cfg.Embedder, cfg.Vectors = a.Embedder, a.Vectors
	}
	return quotes.NewFinder(cfg)
}
