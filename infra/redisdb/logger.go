package redisdb

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	goredis "github.com/redis/go-redis/v9"
	"github.com/rs/zerolog"
)

// go-redis logs its own trouble (a pool that cannot dial, a connection
// dropped by a hook, a truncated expiry) through one logger per process,
// by default a log.Logger on stderr whose "redis: pool.go:770: …" lines
// would break a JSON log. libLog routes those lines through zerolog
// instead.
//
// The go-redis logger is a global of the library, so it is installed once,
// on the first Connect (libLogOnce), and never swapped again; what changes
// is where libLog writes: the logger of the latest Connect whose context
// carries one (zerolog.Ctx), and until then a JSON logger on stderr, the
// process log's default format. A line logged while serving a command
// whose context carries a logger (a stage's handler) goes there instead,
// with that call's fields.
var (
	libLogOnce sync.Once
	libLog     = newZerologLib(zerolog.New(os.Stderr).With().Timestamp().Logger())
)

// zerologLib adapts zerolog to go-redis's logging interface.
type zerologLib struct {
	to atomic.Pointer[zerolog.Logger]
}

func newZerologLib(l zerolog.Logger) *zerologLib {
	z := &zerologLib{}
	z.to.Store(&l)
	return z
}

// Printf writes one line of go-redis as a warning: the library logs only
// what went wrong, never routine events.
func (z *zerologLib) Printf(ctx context.Context, format string, v ...any) {
	l := z.to.Load()
	if c := loggerOf(ctx); c != nil {
		l = c
	}
	l.Warn().Str("component", "go-redis").Msg(strings.TrimSpace(fmt.Sprintf(format, v...)))
}

// loggerOf is the logger ctx carries, nil when it carries none (or one
// that logs nothing, which cannot be told apart).
func loggerOf(ctx context.Context) *zerolog.Logger {
	if ctx == nil {
		return nil
	}
	if l := zerolog.Ctx(ctx); l.GetLevel() != zerolog.Disabled {
		return l
	}
	return nil
}

// routeLibLog installs libLog as go-redis's logger, once per process, and
// points it at the logger of ctx when ctx carries one.
func routeLibLog(ctx context.Context) {
	libLogOnce.Do(func() { goredis.SetLogger(libLog) })
	if l := loggerOf(ctx); l != nil {
		libLog.to.Store(l)
	}
}
