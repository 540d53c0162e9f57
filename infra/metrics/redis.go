package metrics

import (
	"context"
	"errors"
	"net"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// RedisHook returns a go-redis hook that times every command and pipeline
// (label command: the command's name, or "pipeline") and counts failures.
// Add it once to the process's client: client.AddHook(r.RedisHook()).
func (r *Registry) RedisHook() goredis.Hook { return redisHook{r} }

type redisHook struct{ r *Registry }

func (h redisHook) DialHook(next goredis.DialHook) goredis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		start := time.Now()
		c, err := next(ctx, network, addr)
		h.observe("dial", start, err)
		return c, err
	}
}

func (h redisHook) ProcessHook(next goredis.ProcessHook) goredis.ProcessHook {
	return func(ctx context.Context, cmd goredis.Cmder) error {
		start := time.Now()
		err := next(ctx, cmd)
		h.observe(commandName(cmd.Name()), start, err)
		return err
	}
}

func (h redisHook) ProcessPipelineHook(next goredis.ProcessPipelineHook) goredis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []goredis.Cmder) error {
		start := time.Now()
		err := next(ctx, cmds)
		h.observe("pipeline", start, err)
		return err
	}
}

func (h redisHook) observe(command string, start time.Time, err error) {
	h.r.redisSeconds.WithLabelValues(command).Observe(time.Since(start).Seconds())
	if err != nil && !errors.Is(err, goredis.Nil) && !errors.Is(err, context.Canceled) {
		h.r.redisErrors.WithLabelValues(command).Inc()
	}
}
