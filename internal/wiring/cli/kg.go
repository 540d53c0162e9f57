package cli

import (
	"context"
	"fmt"

	"github.com/annalist-dev/annalist/internal/kit/kgview"
	"github.com/annalist-dev/annalist/internal/wiring/app"
)

func cmdKG(ctx context.Context, io IO, args []string) error {
	fs := newFlagSet("kg", io.Stderr)
	var s service
	s.register(fs)
	withText := fs.Bool("text", false, "include the text of the chunks the entity is mentioned in")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 || pos[0] != "show" {
		return fmt.Errorf("%w: want `kg show NAME`", errUsage)
	}
	a, _, err := s.open(ctx, io, app.Needs{Redis: true})
	if err != nil {
		return err
	}
	defer a.Close()
	v, err := kgview.Show(ctx, a.KG, a.Chunks, s.tenant, pos[1], *withText)
	if err != nil {
		return err
	}
	if s.json {
		return writeJSON(io.Stdout, v)
	}
	return v.WriteText(io.Stdout)
}
