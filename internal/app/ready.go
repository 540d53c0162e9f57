package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/annalist-dev/annalist/infra/kafka"
	"github.com/annalist-dev/annalist/schemas"
)

// Ready reports whether the services this process uses answer: the broker,
// Redis and the vector store (each within two seconds). It backs /readyz.
func (a *App) Ready(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	var errs []error
	if len(a.Config.Kafka.Brokers) > 0 {
		if err := kafka.Ping(ctx, a.Config.Kafka); err != nil {
			errs = append(errs, fmt.Errorf("broker: %w", err))
		}
	}
	if a.Redis != nil {
		if err := a.Redis.Ping(ctx).Err(); err != nil {
			errs = append(errs, fmt.Errorf("redis: %w", err))
		}
	}
	if a.Vectors != nil {
		if _, err := a.Vectors.Count(ctx, schemas.DefaultTenant); err != nil {
			errs = append(errs, fmt.Errorf("vector store: %w", err))
		}
	}
	return errors.Join(errs...)
}
