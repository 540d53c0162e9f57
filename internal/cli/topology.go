package cli

import (
	"context"
	"fmt"

	"github.com/annalist-dev/annalist/topology"
)

func cmdTopology(ctx context.Context, io IO, args []string) error {
	fs := newFlagSet("topology", io.Stderr)
	var c common
	c.register(fs)
	brokers := fs.String("brokers", "", "comma-separated Kafka bootstrap brokers (for `topology apply`)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if err := topology.Validate(); err != nil {
		return err
	}
	switch {
	case len(pos) == 0:
		if c.json {
			return writeJSON(io.Stdout, map[string]any{
				"topics": topology.Topics(), "stages": stageJSON(),
			})
		}
		_, err := fmt.Fprint(io.Stdout, topology.Render())
		return err
	case pos[0] == "apply" && len(pos) == 1:
		return applyTopology(ctx, io, c, *brokers)
	default:
		return fmt.Errorf("%w: want `topology` or `topology apply --brokers HOST:PORT`", errUsage)
	}
}

func stageJSON() []map[string]any {
	var out []map[string]any
	for _, s := range topology.Stages() {
		out = append(out, map[string]any{"name": s.Name, "group": s.Group(), "reads": s.Reads, "writes": s.Writes, "doc": s.Doc})
	}
	return out
}
