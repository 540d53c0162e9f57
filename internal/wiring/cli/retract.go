package cli

import (
	"context"
	"fmt"

	"github.com/annalist-dev/annalist/internal/wiring/app"
)

// cmdRetract retracts one document by id or source: the mark is set and
// the retraction published; the retractor stage then removes the
// document's chunks, facts, links and vectors, and the scheduler updates
// the pages that cited it. Retracting a document twice is no error.
func cmdRetract(ctx context.Context, io IO, args []string) error {
	fs := newFlagSet("retract", io.Stderr)
	var s service
	s.register(fs)
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("%w: want `retract DOC_ID|SOURCE`", errUsage)
	}
	a, _, err := s.open(ctx, io, app.Needs{Broker: true, Redis: true})
	if err != nil {
		return err
	}
	defer a.Close()
	mark, err := a.Retract(ctx, s.tenant, pos[0])
	if err != nil {
		return err
	}
	if s.json {
		return writeJSON(io.Stdout, mark)
	}
	by := ""
	if mark.SupersededBy != "" {
		by = " by " + mark.SupersededBy
	}
	_, err = fmt.Fprintf(io.Stdout, "retracted %s (%s%s) at %s\n", mark.DocID, mark.Reason, by, mark.At)
	return err
}
