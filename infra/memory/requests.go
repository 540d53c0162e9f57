package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/annalist-dev/annalist/internal/genmem"

	goredis "github.com/redis/go-redis/v9"

	"github.com/annalist-dev/annalist/infra/redis"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
)

// DefaultRequestTTL is how long a request's conversation is kept after its
// last step. Pages outlive it: they are in the page store.
const DefaultRequestTTL = 24 * time.Hour

// Requests is the per-request agent memory of the generation loop: the
// reference set, where the loop stands (sentence, attempt), the final
// sentences, counters and the outputs of every step taken, so a redelivered
// input replays its step's outputs instead of taking it twice.
//
// Keys, all expiring TTL after the last step:
//
//	mem:{t}:req:<id>        hash: kind, subject, name, request, k, a, done, started_ms, counters
//	mem:{t}:req:<id>:refs   string: the reference set (JSON)
//	mem:{t}:req:<id>:sent   hash: sentence index → genmem.Final (JSON)
//	mem:{t}:req:<id>:out    hash: step key → the step's outputs (opaque bytes)
//
// It is safe for concurrent use.
type Requests struct {
	c   redis.Client
	ttl time.Duration
}

var _ genmem.Memory = (*Requests)(nil)

// NewRequests returns the request memory on c; ttl <= 0 means
// DefaultRequestTTL.
func NewRequests(c redis.Client, ttl time.Duration) *Requests {
	if ttl <= 0 {
		ttl = DefaultRequestTTL
	}
	return &Requests{c: c, ttl: ttl}
}

func reqKey(tenant, id string) string { return "mem:{" + tenant + "}:req:" + id }

// stepScript takes one step of a request's loop atomically. A step already
// taken (its key is in the out hash) returns its stored outputs; a step
// whose expectation does not hold (the loop has moved on, or a start of a
// request that exists) returns nothing; otherwise the state moves, the
// final sentence and counters are written, the outputs are stored under the
// step key and returned.
//
// KEYS: hash, sent, out, refs
// ARGV: step key, mode (start|step), expected k, expected a, new k, new a,
// done (0|1), record index (empty for none), record JSON, outputs, ttl seconds,
// then field/value pairs: start fields for a start ("f:<name>"), counter
// increments ("i:<name>").
var stepScript = goredis.NewScript(`
local h, sent, out, refs = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local key, mode = ARGV[1], ARGV[2]
local prev = redis.call('HGET', out, key)
if prev then return {0, prev} end
if mode == 'start' then
  if redis.call('EXISTS', h) == 1 then return {0, false} end
else
  local cur = redis.call('HMGET', h, 'k', 'a', 'done')
  if cur[1] ~= ARGV[3] or cur[2] ~= ARGV[4] or cur[3] == '1' then return {0, false} end
end
redis.call('HSET', h, 'k', ARGV[5], 'a', ARGV[6], 'done', ARGV[7])
for i = 12, #ARGV, 2 do
  local f, v = ARGV[i], ARGV[i + 1]
  local kind, name = string.sub(f, 1, 1), string.sub(f, 3)
  if kind == 'f' then
    redis.call('HSET', h, name, v)
  else
    redis.call('HINCRBY', h, name, v)
  end
end
if ARGV[8] ~= '' then redis.call('HSET', sent, ARGV[8], ARGV[9]) end
redis.call('HSET', out, key, ARGV[10])
local ttl = tonumber(ARGV[11])
for _, k in ipairs(KEYS) do
  if redis.call('EXISTS', k) == 1 then redis.call('EXPIRE', k, ttl) end
end
return {1, ARGV[10]}
`)

// Step implements genmem.Memory.
func (m *Requests) Step(ctx context.Context, tenant, id string, s genmem.Step) (bool, []byte, error) {
	if tenant == "" || id == "" {
		return false, nil, errors.New("step: tenant and request id are required")
	}
	base := reqKey(tenant, id)
	keys := []string{base, base + ":sent", base + ":out", base + ":refs"}
	mode := "step"
	if s.Start != nil {
		mode = "start"
	}
	rec, recJSON := "", ""
	if s.Record != nil {
		b, err := json.Marshal(s.Record)
		if err != nil {
			return false, nil, fmt.Errorf("step %s of %s: encode sentence: %w", s.Key, id, err)
		}
		rec, recJSON = strconv.Itoa(s.Record.Index), string(b)
	}
	args := []any{s.Key, mode, strconv.Itoa(s.ExpectIndex), strconv.Itoa(s.ExpectAttempt),
		strconv.Itoa(s.NextIndex), strconv.Itoa(s.NextAttempt), flag(s.Done), rec, recJSON,
		string(s.Output), int64(m.ttl / time.Second)}
	if s.Start != nil {
		req, err := json.Marshal(s.Start)
		if err != nil {
			return false, nil, fmt.Errorf("step %s of %s: encode request: %w", s.Key, id, err)
		}
		args = append(args, "f:kind", s.Start.Kind, "f:subject", s.Start.Subject, "f:name", s.Name,
			"f:request", string(req), "f:started_ms", strconv.FormatInt(s.StartedMillis, 10))
	}
	names := make([]string, 0, len(s.Incr))
	for n := range s.Incr {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		args = append(args, "i:"+n, s.Incr[n])
	}
	res, err := stepScript.Run(ctx, m.c, keys, args...).Slice()
	if err != nil {
		return false, nil, fmt.Errorf("step %s of %s: %w", s.Key, id, err)
	}
	applied := len(res) > 0 && res[0] == int64(1)
	var out []byte
	if len(res) > 1 {
		if v, ok := res[1].(string); ok {
			out = []byte(v)
		}
	}
	return applied, out, nil
}

// Outputs implements genmem.Memory.
func (m *Requests) Outputs(ctx context.Context, tenant, id, key string) ([]byte, error) {
	b, err := m.c.HGet(ctx, reqKey(tenant, id)+":out", key).Bytes()
	if errors.Is(err, goredis.Nil) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("outputs of step %s of %s: %w", key, id, err)
	}
	return b, nil
}

func flag(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// State implements genmem.Memory. A request memory does not know gives
// ok=false.
func (m *Requests) State(ctx context.Context, tenant, id string) (genmem.State, bool, error) {
	h, err := m.c.HGetAll(ctx, reqKey(tenant, id)).Result()
	if err != nil {
		return genmem.State{}, false, fmt.Errorf("read state of request %s: %w", id, err)
	}
	if len(h) == 0 {
		return genmem.State{}, false, nil
	}
	st := genmem.State{RequestID: id, Kind: h["kind"], Subject: h["subject"], Name: h["name"],
		Done: h["done"] == "1", Counters: map[string]int64{}}
	st.Index, _ = strconv.Atoi(h["k"])
	st.Attempt, _ = strconv.Atoi(h["a"])
	st.StartedMillis, _ = strconv.ParseInt(h["started_ms"], 10, 64)
	if r := h["request"]; r != "" {
		if err := json.Unmarshal([]byte(r), &st.Request); err != nil {
			return genmem.State{}, false, fmt.Errorf("read state of request %s: decode request: %w", id, err)
		}
	}
	for f, v := range h {
		switch f {
		case "kind", "subject", "name", "k", "a", "done", "started_ms", "request":
			continue
		}
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			st.Counters[f] = n
		}
	}
	return st, true, nil
}

// PutReferences implements genmem.Memory.
func (m *Requests) PutReferences(ctx context.Context, tenant, id string, refs *schemas.ReferenceSet) error {
	b, err := json.Marshal(refs)
	if err != nil {
		return fmt.Errorf("store references of %s: %w", id, err)
	}
	if err := m.c.Set(ctx, reqKey(tenant, id)+":refs", b, m.ttl).Err(); err != nil {
		return fmt.Errorf("store references of %s: %w", id, err)
	}
	return nil
}

// References returns the reference set of a request; a missing one fails
// with a permanent error (no retry brings it back) wrapping
// genmem.ErrNoReferences.
func (m *Requests) References(ctx context.Context, tenant, id string) (*schemas.ReferenceSet, error) {
	b, err := m.c.Get(ctx, reqKey(tenant, id)+":refs").Bytes()
	if errors.Is(err, goredis.Nil) {
		return nil, pipeline.Permanent(fmt.Errorf("references of request %s: %w", id, genmem.ErrNoReferences))
	}
	if err != nil {
		return nil, fmt.Errorf("references of request %s: %w", id, err)
	}
	var rs schemas.ReferenceSet
	if err := json.Unmarshal(b, &rs); err != nil {
		return nil, fmt.Errorf("references of request %s: decode: %w", id, err)
	}
	return &rs, nil
}

// Sentences implements genmem.Memory: the final sentences (accepted or
// dropped) in index order.
func (m *Requests) Sentences(ctx context.Context, tenant, id string) ([]genmem.Final, error) {
	h, err := m.c.HGetAll(ctx, reqKey(tenant, id)+":sent").Result()
	if err != nil {
		return nil, fmt.Errorf("read sentences of request %s: %w", id, err)
	}
	out := make([]genmem.Final, 0, len(h))
	for k, v := range h {
		var f genmem.Final
		if err := json.Unmarshal([]byte(v), &f); err != nil {
			return nil, fmt.Errorf("read sentences of request %s: sentence %s: %w", id, k, err)
		}
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Index < out[j].Index })
	return out, nil
}
