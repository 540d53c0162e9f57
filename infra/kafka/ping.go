package kafka

import (
	"context"
	"fmt"

	kafkago "github.com/segmentio/kafka-go"
)

// Ping asks the brokers for cluster metadata: nil when one answers within
// ctx, the error otherwise. Readiness checks use it.
func Ping(ctx context.Context, cfg Config) error {
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("ping brokers: %w", err)
	}
	cfg = cfg.withDefaults()
	t := newTransport(cfg)
	defer t.CloseIdleConnections()
	if _, err := newClient(cfg, t).Metadata(ctx, &kafkago.MetadataRequest{Topics: []string{}}); err != nil {
		return fmt.Errorf("ping brokers %v: %w", cfg.Brokers, err)
	}
	return nil
}
