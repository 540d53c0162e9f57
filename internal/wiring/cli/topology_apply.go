package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/annalist-dev/annalist/infra/kafka"
	"github.com/annalist-dev/annalist/topology"
)

func applyTopology(ctx context.Context, io IO, c common, brokers string) error {
	if brokers == "" {
		return fmt.Errorf("%w: topology apply needs --brokers HOST:PORT[,…]", errUsage)
	}
	cfg := kafka.Config{Brokers: strings.Split(brokers, ",")}
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if err := kafka.EnsureTopics(ctx, cfg, topology.Topics()); err != nil {
		return err
	}
	n := len(topology.AllTopics())
	if c.json {
		return writeJSON(io.Stdout, map[string]any{"topics": n, "brokers": cfg.Brokers})
	}
	_, err := fmt.Fprintf(io.Stdout, "%d topics present on %s (created where missing)\n", n, brokers)
	return err
}
