package redisdb

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// Client is the Redis client type the rest of the project passes around.
type Client = goredis.UniversalClient

// Nil is returned by reads of missing keys.
var Nil = goredis.Nil

// Config selects a Redis server. The zero value means: start an embedded
// server under the data directory.
type Config struct {
	// Addr is host:port of an existing server; empty starts an embedded one.
	Addr     string
	Password string
	// DB is the logical database (default 0).
	DB int
	// PoolSize is the connection pool size (default 10 per CPU, go-redis's).
	PoolSize int
}

// RegisterFlags binds the config to flags with the given prefix.
func (c *Config) RegisterFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.Addr, "redis-addr", c.Addr, "Redis host:port; empty starts an embedded server under --data-dir (env ANNALIST_REDIS_ADDR)")
	fs.StringVar(&c.Password, "redis-password", c.Password, "Redis password (env ANNALIST_REDIS_PASSWORD)")
	fs.IntVar(&c.DB, "redis-db", c.DB, "Redis logical database (env ANNALIST_REDIS_DB)")
}

// Validate reports an unusable config.
func (c Config) Validate() error {
	if c.DB < 0 {
		return fmt.Errorf("redis db %d: must not be negative", c.DB)
	}
	return nil
}

// Connect opens a client to cfg.Addr and checks it answers. go-redis's
// own log lines go through zerolog from then on: to the logger ctx
// carries (zerolog.Ctx), else to the one an earlier Connect was given,
// else as JSON to stderr (see libLog: the library has one logger per
// process).
func Connect(ctx context.Context, cfg Config) (Client, error) {
	if cfg.Addr == "" {
		return nil, errors.New("connect redis: no address")
	}
	routeLibLog(ctx)
	c := goredis.NewClient(&goredis.Options{
		Addr:     cfg.Addr,
		Password: cfg.Password,
		DB:       cfg.DB,
		PoolSize: cfg.PoolSize,
	})
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := c.Ping(pctx).Err(); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("connect redis %s: %w", cfg.Addr, err)
	}
	return c, nil
}
