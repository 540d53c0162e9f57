package writer

import (
	"context"
	"errors"

	"github.com/annalist-dev/annalist/schemas"
)

// ErrUnknownSubject reports a subject the knowledge graph has no entity
// for. The request then fails instead of producing an empty page.
var ErrUnknownSubject = errors.New("unknown subject")

// Drafter writes a page one sentence at a time.
type Drafter interface {
	// Draft writes sentence index of the page given the sentences accepted
	// so far. done=true (and a zero draft) when the page has no more
	// sentences.
	Draft(ctx context.Context, refs *schemas.ReferenceSet, accepted []schemas.PageSentence, index int) (d schemas.Draft, done bool, err error)
}
