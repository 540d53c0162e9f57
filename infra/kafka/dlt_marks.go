package kafka

import (
	"context"
	"errors"
	"strconv"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/annalist-dev/annalist/infra/redisdb"
)

// ReplayedTTL is how long a replay marker is kept: longer than the
// retention of any dead-letter topic the project configures, so a marker
// outlives its record. A record still there after its marker expired shows
// as not replayed; replaying it again reuses its event id.
const ReplayedTTL = 30 * 24 * time.Hour

// RedisReplayMarks keeps replay markers in Redis, one key per dead letter:
// dlt:replayed:<dlt topic>:<partition>:<offset>, holding the replay time.
type RedisReplayMarks struct{ c redisdb.Client }

// NewRedisReplayMarks returns the Redis marker store.
func NewRedisReplayMarks(c redisdb.Client) *RedisReplayMarks { return &RedisReplayMarks{c: c} }

// errNoRedis is the answer of a marker store built without a client (a
// process that did not open Redis).
var errNoRedis = errors.New("replay marks: no Redis client")

// ReplayedKey is the marker key of a dead letter.
func ReplayedKey(dltTopic string, pos DLTPosition) string {
	return "dlt:replayed:" + dltTopic + ":" + pos.String()
}

// Replayed reads the markers of pos in one round trip.
func (m *RedisReplayMarks) Replayed(ctx context.Context, dltTopic string, pos []DLTPosition) ([]bool, error) {
	out := make([]bool, len(pos))
	if len(pos) == 0 {
		return out, nil
	}
	if m.c == nil {
		return nil, errNoRedis
	}
	// A pipeline, not MGET: the keys hash to different cluster slots.
	p := m.c.Pipeline()
	cmds := make([]*goredis.IntCmd, len(pos))
	for i, ps := range pos {
		cmds[i] = p.Exists(ctx, ReplayedKey(dltTopic, ps))
	}
	if _, err := p.Exec(ctx); err != nil {
		return nil, err
	}
	for i, c := range cmds {
		out[i] = c.Val() > 0
	}
	return out, nil
}

// MarkReplayed sets the marker of pos.
func (m *RedisReplayMarks) MarkReplayed(ctx context.Context, dltTopic string, pos DLTPosition) error {
	if m.c == nil {
		return errNoRedis
	}
	return m.c.Set(ctx, ReplayedKey(dltTopic, pos), strconv.FormatInt(time.Now().Unix(), 10), ReplayedTTL).Err()
}
