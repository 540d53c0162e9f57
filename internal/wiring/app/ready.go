package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/annalist-dev/annalist/infra/kafka"
	"github.com/annalist-dev/annalist/schemas"
)

// readyTimeout bounds one readiness or admission check.
const readyTimeout = 2 * time.Second

// Ready reports whether the services this process uses answer: the broker,
// Redis and the vector store (each within two seconds). It backs /readyz.
func (a *App) Ready(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	errs := []error{a.writeReady(ctx)}
	if a.Vectors != nil {
		if _, err := a.Vectors.Count(ctx, schemas.DefaultTenant); err != nil {
			errs = append(errs, fmt.Errorf("vector store: %w", err))
		}
	}
	return errors.Join(errs...)
}

// WriteReady reports whether the services a write must reach to be
// accepted answer: the broker (documents and requests are published to
// it) and Redis (document ids are claimed, requests recorded, reviews
// decided there). The HTTP API admits writes only while it returns nil
// (api.Deps.Admit). The vector store is left out: the embedder waits for
// it without losing what was published.
func (a *App) WriteReady(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	return a.writeReady(ctx)
}

func (a *App) writeReady(ctx context.Context) error {
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
	return errors.Join(errs...)
}
