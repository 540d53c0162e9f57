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

// RoundTrips is what the client spent on one kind of Redis call: how
// many calls, and the seconds they took as the client saw them.
type RoundTrips struct {
	Calls   uint64  `json:"calls"`
	Seconds float64 `json:"seconds"`
}

// RedisRoundTrips returns the Redis calls made since the registry was
// wired, by command; a pipeline or transaction counts once, under
// "pipeline".
func (r *Registry) RedisRoundTrips() (map[string]RoundTrips, error) {
	return r.histogramSums("redis_command_seconds", "command")
}

// StageHandling returns, by stage, the handler calls (batches) made and
// the seconds spent in them.
func (r *Registry) StageHandling() (map[string]RoundTrips, error) {
	return r.histogramSums("stage_handle_seconds", "stage")
}

// histogramSums reads a histogram of the registry: its count and sum by
// the value of one label.
func (r *Registry) histogramSums(name, label string) (map[string]RoundTrips, error) {
	fams, err := r.reg.Gather()
	if err != nil {
		return nil, err
	}
	out := map[string]RoundTrips{}
	for _, f := range fams {
		if f.GetName() != namespace+"_"+name {
			continue
		}
		for _, m := range f.GetMetric() {
			key := ""
			for _, l := range m.GetLabel() {
				if l.GetName() == label {
					key = l.GetValue()
				}
			}
			h := m.GetHistogram()
			out[key] = RoundTrips{Calls: h.GetSampleCount(), Seconds: h.GetSampleSum()}
		}
	}
	return out, nil
}
