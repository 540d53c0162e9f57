package summary

import (
	"context"
	"fmt"

	"github.com/annalist-dev/annalist/internal/ports/kind"
	"github.com/annalist-dev/annalist/schemas"
)

// Store reads the discussions the discussions stage stored
// (infra/discussionstore.Store implements it).
type Store interface {
	// Discussion reads a stored discussion; found is false when there is
	// none.
	Discussion(ctx context.Context, tenant, id string) (d schemas.Discussion, found bool, err error)
}

// Planner is the kind's planner: the reference set of a summary is the
// stored discussion (see the package doc).
type Planner struct {
	store  Store
	quotes kind.Quotes
}

var _ kind.Planner = (*Planner)(nil)

// NewPlanner returns the planner reading s; s must not be nil.
func NewPlanner(s Store, opts ...Option) *Planner {
	p := &Planner{store: s}
	for _, o := range opts {
		o(p)
	}
	return p
}

// Plan reads the discussion r.Subject names and returns its reference set
// (References). A discussion the store does not hold, or holds in a shape
// that does not validate, fails with an error wrapping
// kind.ErrUnknownSubject; a store error is returned as it is (transient).
// A request for quotations (r.Quotes) adds at most one to each section
// (see WithQuotes); without a quotation finder it fails with
// kind.ErrNoQuotes.
func (p *Planner) Plan(ctx context.Context, tenant string, r schemas.Request) (*schemas.ReferenceSet, error) {
	d, found, err := p.store.Discussion(ctx, tenant, r.Subject)
	if err != nil {
		return nil, fmt.Errorf("read discussion %q: %w", r.Subject, err)
	}
	if !found {
		return nil, fmt.Errorf("discussion %q: %w: no such discussion was received", r.Subject, kind.ErrUnknownSubject)
	}
	if d.ID == "" {
		d.ID = r.Subject
	}
	if err := d.Validate(); err != nil {
		return nil, fmt.Errorf("discussion %q: %w: the stored discussion is invalid: %w", r.Subject, kind.ErrUnknownSubject, err)
	}
	rs := References(d)
	if r.Quotes {
		if err := p.addQuotes(ctx, tenant, rs); err != nil {
			return nil, fmt.Errorf("discussion %q: %w", r.Subject, err)
		}
	}
	return rs, nil
}

// References is the reference set of a summary of d: Subject and Name its
// id, Lang "en", Discussion a copy of d, and as references its background
// paragraphs (ParagraphRef, SourceParagraph) then its turns (TurnRef,
// SourceTurn), in the discussion's order.
func References(d schemas.Discussion) *schemas.ReferenceSet {
	own := schemas.Discussion{ID: d.ID, Background: append([]schemas.Paragraph(nil), d.Background...),
		Turns: append([]schemas.Turn(nil), d.Turns...)}
	rs := &schemas.ReferenceSet{Subject: d.ID, Name: d.ID, Lang: "en", Discussion: &own,
		References: make([]schemas.Reference, 0, len(d.Background)+len(d.Turns))}
	for _, p := range d.Background {
		rs.References = append(rs.References, schemas.Reference{ChunkID: schemas.ParagraphRef(d.ID, p.Index),
			Text: p.Text, Score: 1, Source: schemas.SourceParagraph})
	}
	for i, t := range d.Turns {
		rs.References = append(rs.References, schemas.Reference{ChunkID: schemas.TurnRef(d.ID, i),
			Text: t.Utterance, Score: 1, Source: schemas.SourceTurn})
	}
	return rs
}
