package cli

import (
	"context"
	"fmt"

	"github.com/annalist-dev/annalist/internal/wiring/app"
	"github.com/annalist-dev/annalist/topology"
)

func cmdTopology(ctx context.Context, io IO, args []string) error {
	return topologyCommand(ctx, io, args, app.DefaultStages())
}

// topologyCommand is `annalist topology` on the stages of reg: it
// validates the declarations, then prints the graph or creates its topics.
func topologyCommand(ctx context.Context, io IO, args []string, reg app.Registry) error {
	fs := newFlagSet("topology", io.Stderr)
	var c common
	c.register(fs)
	brokers := fs.String("brokers", "", "comma-separated Kafka bootstrap brokers (for `topology apply`)")
	mermaid := fs.Bool("mermaid", false, "print the graph as a Mermaid flowchart (the picture in ARCHITECTURE.md)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if err := reg.Validate(); err != nil {
		return err
	}
	switch {
	case len(pos) == 0:
		if c.json {
			return writeJSON(io.Stdout, map[string]any{
				"topics": topology.Topics(), "stages": stageJSON(reg),
			})
		}
		if *mermaid {
			_, err := fmt.Fprint(io.Stdout, topology.Mermaid(reg.Graph()))
			return err
		}
		_, err := fmt.Fprint(io.Stdout, topology.Render(reg.Graph()))
		return err
	case pos[0] == "apply" && len(pos) == 1:
		return applyTopology(ctx, io, c, *brokers)
	default:
		return fmt.Errorf("%w: want `topology` or `topology apply --brokers HOST:PORT`", errUsage)
	}
}

func stageJSON(reg app.Registry) []map[string]any {
	var out []map[string]any
	for _, s := range reg {
		needs := []string{"broker", "redis"}
		if n := reg.Needs([]string{s.Name}); n.Vectors {
			needs = append(needs, "vectors")
		}
		st := map[string]any{"name": s.Name, "group": s.Group(), "reads": s.Reads, "writes": s.Writes,
			"part": s.Part, "needs": needs, "doc": s.Doc}
		if s.Solver != "" {
			st["solver"] = s.Solver
		}
		out = append(out, st)
	}
	return out
}
