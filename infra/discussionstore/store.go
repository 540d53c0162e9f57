// Package discussionstore is the Redis store of the discussion summaries
// feed: the discussions the discussions stage received (the kind's
// planner reads them) and the feed items the feed stage published (the
// API serves them as JSON Feed and Server-Sent Events).
//
// Keys (the tenant between braces is the Redis Cluster hash tag):
//
//	disc:{t}:<id>        string: the discussion (JSON, the KGDS shape)
//	disc:{t}:ids         sorted set: discussion ids by arrival (ms)
//	feed:{t}:<id>        string: the discussion's newest feed item (JSON)
//	feed:{t}:items       sorted set: discussion ids by their item's publish time (ms)
//	feed:{t}:events      channel: each published feed item (JSON)
package discussionstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/annalist-dev/annalist/infra/redisdb"
	"github.com/annalist-dev/annalist/schemas"
)

// ErrNotFound reports a discussion or feed item the store does not hold.
var ErrNotFound = errors.New("not found")

// Store holds discussions and feed items. It is safe for concurrent use.
type Store struct {
	c   redisdb.Client
	now func() time.Time
}

// Option configures a Store.
type Option func(*Store)

// WithClock sets the clock that orders discussions by arrival (default
// time.Now).
func WithClock(now func() time.Time) Option { return func(s *Store) { s.now = now } }

// New returns the store on c.
func New(c redisdb.Client, opts ...Option) *Store {
	s := &Store{c: c, now: time.Now}
	for _, o := range opts {
		o(s)
	}
	return s
}

func discKey(t, id string) string { return "disc:{" + t + "}:" + id }
func discIDs(t string) string     { return "disc:{" + t + "}:ids" }
func feedKey(t, id string) string { return "feed:{" + t + "}:" + id }
func feedItems(t string) string   { return "feed:{" + t + "}:items" }
func feedChannel(t string) string { return "feed:{" + t + "}:events" }

// Put stores a discussion (replacing one of the same id) and says whether
// the store already held exactly this discussion.
func (s *Store) Put(ctx context.Context, tenant string, d schemas.Discussion) (same bool, err error) {
	if d.ID == "" {
		return false, errors.New("put discussion: no id")
	}
	b, err := json.Marshal(d)
	if err != nil {
		return false, fmt.Errorf("put discussion %s: %w", d.ID, err)
	}
	old, err := s.c.SetArgs(ctx, discKey(tenant, d.ID), b, goredis.SetArgs{Get: true}).Result()
	if err != nil && !errors.Is(err, goredis.Nil) {
		return false, fmt.Errorf("put discussion %s: %w", d.ID, err)
	}
	if err := s.c.ZAddNX(ctx, discIDs(tenant), goredis.Z{Score: float64(s.now().UnixMilli()), Member: d.ID}).Err(); err != nil {
		return false, fmt.Errorf("put discussion %s: index: %w", d.ID, err)
	}
	return old == string(b), nil
}

// Discussion reads a stored discussion; found is false when there is none.
func (s *Store) Discussion(ctx context.Context, tenant, id string) (d schemas.Discussion, found bool, err error) {
	b, err := s.c.Get(ctx, discKey(tenant, id)).Bytes()
	if errors.Is(err, goredis.Nil) {
		return d, false, nil
	}
	if err != nil {
		return d, false, fmt.Errorf("read discussion %s: %w", id, err)
	}
	if err := json.Unmarshal(b, &d); err != nil {
		return d, false, fmt.Errorf("read discussion %s: %w", id, err)
	}
	return d, true, nil
}

// IDs lists stored discussion ids, newest first, at most limit (all when
// limit ≤ 0).
func (s *Store) IDs(ctx context.Context, tenant string, limit int) ([]string, error) {
	stop := int64(limit) - 1
	if limit <= 0 {
		stop = -1
	}
	ids, err := s.c.ZRevRange(ctx, discIDs(tenant), 0, stop).Result()
	if err != nil {
		return nil, fmt.Errorf("list discussions: %w", err)
	}
	return ids, nil
}

// PutItem stores a feed item as its discussion's newest, unless the store
// holds a newer version already (a redelivered older page), and announces
// it on the tenant's channel. stored is false when an item of the same or
// a newer version was there.
func (s *Store) PutItem(ctx context.Context, tenant string, it schemas.FeedItem) (stored bool, err error) {
	if err := it.Validate(); err != nil {
		return false, err
	}
	b, err := json.Marshal(it)
	if err != nil {
		return false, fmt.Errorf("put feed item %s: %w", it.ID, err)
	}
	published, err := time.Parse(time.RFC3339Nano, it.Published)
	if err != nil {
		return false, fmt.Errorf("put feed item %s: published: %w", it.ID, err)
	}
	res, err := putItem.Run(ctx, s.c, []string{feedKey(tenant, it.ID), feedItems(tenant)},
		b, it.Version, published.UnixMilli(), it.ID).Int()
	if err != nil {
		return false, fmt.Errorf("put feed item %s: %w", it.ID, err)
	}
	if res == 0 {
		return false, nil
	}
	if err := s.c.Publish(ctx, feedChannel(tenant), b).Err(); err != nil {
		return true, fmt.Errorf("announce feed item %s: %w", it.ID, err)
	}
	return true, nil
}

// putItem writes the item unless the stored one's version is the same or
// newer: KEYS[1] item key, KEYS[2] index; ARGV item JSON, version, ms, id.
var putItem = goredis.NewScript(`
local cur = redis.call('GET', KEYS[1])
if cur then
  local ok, old = pcall(cjson.decode, cur)
  if ok and tonumber(old['version']) >= tonumber(ARGV[2]) then return 0 end
end
redis.call('SET', KEYS[1], ARGV[1])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[4])
return 1`)

// Item reads a discussion's newest feed item.
func (s *Store) Item(ctx context.Context, tenant, id string) (schemas.FeedItem, error) {
	var it schemas.FeedItem
	b, err := s.c.Get(ctx, feedKey(tenant, id)).Bytes()
	if errors.Is(err, goredis.Nil) {
		return it, fmt.Errorf("feed item %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return it, fmt.Errorf("read feed item %s: %w", id, err)
	}
	if err := json.Unmarshal(b, &it); err != nil {
		return it, fmt.Errorf("read feed item %s: %w", id, err)
	}
	return it, nil
}

// Items lists feed items, newest first, at most limit (all when limit ≤ 0).
func (s *Store) Items(ctx context.Context, tenant string, limit int) ([]schemas.FeedItem, error) {
	stop := int64(limit) - 1
	if limit <= 0 {
		stop = -1
	}
	ids, err := s.c.ZRevRange(ctx, feedItems(tenant), 0, stop).Result()
	if err != nil {
		return nil, fmt.Errorf("list feed: %w", err)
	}
	out := make([]schemas.FeedItem, 0, len(ids))
	for _, id := range ids {
		it, err := s.Item(ctx, tenant, id)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, it)
	}
	return out, nil
}

// Subscribe delivers every feed item published after it returns, until
// ctx ends; the channel is closed then. Subscribe returns once the
// subscription is confirmed, so nothing published afterwards is missed.
func (s *Store) Subscribe(ctx context.Context, tenant string) (<-chan schemas.FeedItem, error) {
	sub := s.c.Subscribe(ctx, feedChannel(tenant))
	if _, err := sub.Receive(ctx); err != nil {
		sub.Close()
		return nil, fmt.Errorf("subscribe to the feed: %w", err)
	}
	out := make(chan schemas.FeedItem, 16)
	go func() {
		defer close(out)
		defer sub.Close()
		ch := sub.Channel()
		for {
			select {
			case <-ctx.Done():
				return
			case m, ok := <-ch:
				if !ok {
					return
				}
				var it schemas.FeedItem
				if json.Unmarshal([]byte(m.Payload), &it) != nil {
					continue
				}
				select {
				case out <- it:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return out, nil
}
