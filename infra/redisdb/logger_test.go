package redisdb_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/annalist-dev/annalist/internal/kit/logging/logtest"

	"github.com/rs/zerolog"

	"github.com/annalist-dev/annalist/infra/redisdb"
	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
)

// goRedisLine returns the one log line of buf that mentions marker,
// decoded: it fails unless there is exactly one and it is a JSON object.
func goRedisLine(t *testing.T, buf *logtest.Buffer, marker string) map[string]any {
	t.Helper()
	var found []map[string]any
	for _, line := range strings.Split(buf.String(), "\n") {
		if !strings.Contains(line, marker) {
			continue
		}
		var f map[string]any
		if err := json.Unmarshal([]byte(line), &f); err != nil {
			t.Fatalf("go-redis line is not JSON: %q", line)
		}
		found = append(found, f)
	}
	if len(found) != 1 {
		t.Fatalf("%d go-redis lines mentioning %q, want 1:\n%s", len(found), marker, buf.String())
	}
	return found[0]
}

// A line go-redis logs about itself (here: an expiry below its 1 ms
// resolution, which it truncates and reports) comes out as JSON through
// the zerolog logger of the context Connect was given, with the
// logger's own fields, instead of as a raw "redis: file.go:N" line on
// stderr. A command whose context carries a logger logs there instead.
func TestGoRedisLogsThroughZerolog(t *testing.T) {
	s := redistest.Server(t)
	var process, call logtest.Buffer
	ctx := zerolog.New(&process).With().Str("proc", "annalist").Logger().WithContext(context.Background())
	c, err := redisdb.Connect(ctx, redisdb.Config{Addr: s.Addr()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	if err := c.Set(context.Background(), "k", "v", 500*time.Microsecond).Err(); err != nil {
		t.Fatal(err)
	}
	f := goRedisLine(t, &process, "truncating to 1ms")
	if f["level"] != "warn" || f["component"] != "go-redis" || f["proc"] != "annalist" {
		t.Errorf("go-redis line %v: want level warn, component go-redis and the logger's fields", f)
	}

	callCtx := zerolog.New(&call).With().Str("trace_id", "tr-1").Logger().WithContext(context.Background())
	if err := c.Set(callCtx, "k", "v", 700*time.Microsecond).Err(); err != nil {
		t.Fatal(err)
	}
	if f := goRedisLine(t, &call, "700µs"); f["trace_id"] != "tr-1" {
		t.Errorf("go-redis line %v: want the call's trace id", f)
	}
	if strings.Contains(process.String(), "700µs") {
		t.Errorf("the call's line also went to the process logger:\n%s", process.String())
	}
}
