package redisdb

import (
	"context"
	"fmt"
	"time"
)

// DefaultSeenTTL is how long an idempotency marker lives: longer than any
// redelivery window of a consumer group (a crashed stage restarted within a
// week still skips what it had finished).
const DefaultSeenTTL = 7 * 24 * time.Hour

// Seen stores idempotency markers seen:<group>:<event_id>. A marker is set
// only after the message's outputs were acknowledged, so its presence means
// "done, skip"; its absence means "maybe done": the handler runs again and
// must be idempotent.
type Seen struct {
	c   Client
	ttl time.Duration
}

// NewSeen returns a marker store; ttl <= 0 means DefaultSeenTTL.
func NewSeen(c Client, ttl time.Duration) *Seen {
	if ttl <= 0 {
		ttl = DefaultSeenTTL
	}
	return &Seen{c: c, ttl: ttl}
}

func seenKey(group, eventID string) string { return "seen:" + group + ":" + eventID }

// Seen reports which of the event ids already have a marker for group, in
// one round trip.
func (s *Seen) Seen(ctx context.Context, group string, eventIDs []string) ([]bool, error) {
	if len(eventIDs) == 0 {
		return nil, nil
	}
	p := s.c.Pipeline()
	cmds := make([]interface{ Val() int64 }, len(eventIDs))
	for i, id := range eventIDs {
		cmds[i] = p.Exists(ctx, seenKey(group, id))
	}
	if _, err := p.Exec(ctx); err != nil {
		return nil, fmt.Errorf("read seen markers of %s: %w", group, err)
	}
	out := make([]bool, len(eventIDs))
	for i, c := range cmds {
		out[i] = c.Val() == 1
	}
	return out, nil
}

// Mark sets markers for the event ids, in one round trip.
func (s *Seen) Mark(ctx context.Context, group string, eventIDs []string) error {
	if len(eventIDs) == 0 {
		return nil
	}
	p := s.c.Pipeline()
	for _, id := range eventIDs {
		p.Set(ctx, seenKey(group, id), 1, s.ttl)
	}
	if _, err := p.Exec(ctx); err != nil {
		return fmt.Errorf("set seen markers of %s: %w", group, err)
	}
	return nil
}
