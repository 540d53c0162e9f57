package cli

import (
	"context"
	"fmt"

	"github.com/annalist-dev/annalist/infra/broker"
	"github.com/annalist-dev/annalist/internal/app"
	"github.com/annalist-dev/annalist/topology"
)

// cmdConsume runs stages, each as a member of its consumer group, until
// SIGINT/SIGTERM, then drains: the in-flight batch is finished, produced
// and committed, and the member leaves the group.
func cmdConsume(ctx context.Context, io IO, args []string) error {
	fs := newFlagSet("consume", io.Stderr)
	var s service
	s.register(fs)
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return fmt.Errorf("%w: want STAGE... (a stage name, or ingest, generate, all)", errUsage)
	}
	var stages []string
	for _, p := range pos {
		switch p {
		case "all":
			stages = append(stages, app.AllStages()...)
		case "ingest":
			stages = append(stages, app.IngestStages()...)
		case "generate":
			stages = append(stages, app.GenerateStages()...)
		default:
			if _, err := topology.LookupStage(p); err != nil {
				return fmt.Errorf("%w: %v", errUsage, err)
			}
			stages = append(stages, p)
		}
	}
	a, log, err := s.open(ctx, io, app.NeedsFor(stages))
	if err != nil {
		return err
	}
	defer a.Close()
	log.Info().Strs("stages", stages).Str("services", a.Describe()).Msg("consuming")
	err = a.RunStages(ctx, stages, nil)
	log.Info().Strs("stages", stages).Msg("stopped")
	return err
}

// cmdBroker runs a standalone embedded broker for multi-process runs.
func cmdBroker(ctx context.Context, io IO, args []string) error {
	fs := newFlagSet("broker", io.Stderr)
	var c common
	c.register(fs)
	var cfg broker.Config
	cfg.RegisterFlags(fs)
	if _, err := parse(fs, args); err != nil {
		return err
	}
	log, err := c.logger(io.Stderr)
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	cfg.DataDir = c.dataDir + "/kafka"
	cfg.Logger = log
	return broker.Serve(ctx, cfg)
}
