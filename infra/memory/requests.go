package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/annalist-dev/annalist/internal/ports/genmem"

	goredis "github.com/redis/go-redis/v9"

	"github.com/annalist-dev/annalist/infra/redisdb"
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
//	mem:{t}:req:<id>        hash: kind, subject, name, request, k, a, done, started_ms,
//	                        place and review (JSON), counters
//	mem:{t}:req:<id>:refs   string: the reference set (JSON)
//	mem:{t}:req:<id>:sent   hash: sentence index → genmem.Final (JSON)
//	mem:{t}:req:<id>:slog   list: the index of every final sentence written, in order
//	mem:{t}:req:<id>:out    hash: step key → the step's outputs (opaque bytes)
//	mem:{t}:req:<id>:prev   hash: index → a sentence of the page version the
//	                        request regenerates (JSON), and u:<index> → its use
//
// A request's reference set is written once, when the request starts,
// and read for every sentence after it: the process keeps the sets it
// wrote or read last (refsCached of them) and answers from them without
// a round trip. Another process reads the stored set. The final sentences
// are read on every step, and a step writes one or a few: the process
// keeps those it read with how many had been written (the length of
// :slog), and reads only the ones written since, where reading them all
// on every step made a page of n sentences cost n²/2 decoded sentences.
//
// It is safe for concurrent use.
type Requests struct {
	c   redisdb.Client
	ttl time.Duration

	// refs are the reference sets and finals the final sentences read
	// last, by request key.
	refs   kept[*schemas.ReferenceSet]
	finals kept[keptFinals]
}

// kept is a process's copy of what it wrote or read of the requests, by
// request key: at most refsCached of them, the oldest dropped first. It is
// safe for concurrent use.
type kept[V any] struct {
	mu    sync.Mutex
	byKey map[string]V
	order []string
}

func (k *kept[V]) get(key string) (V, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	v, ok := k.byKey[key]
	return v, ok
}

func (k *kept[V]) put(key string, v V) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.byKey == nil {
		k.byKey = map[string]V{}
	}
	if _, ok := k.byKey[key]; !ok {
		if len(k.order) >= refsCached {
			delete(k.byKey, k.order[0])
			k.order = k.order[1:]
		}
		k.order = append(k.order, key)
	}
	k.byKey[key] = v
}

// keptFinals are a request's final sentences by index, as read when n
// had been written.
type keptFinals struct {
	n      int64
	byIdx  map[int]genmem.Final
	sorted []genmem.Final
}

// refsCached is how many reference sets a process keeps: more than the
// requests a writer has in flight.
const refsCached = 1024

var _ genmem.Memory = (*Requests)(nil)

// NewRequests returns the request memory on c; ttl <= 0 means
// DefaultRequestTTL.
func NewRequests(c redisdb.Client, ttl time.Duration) *Requests {
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
// final sentences, previous sentences, their uses and the counters are
// written, the outputs are stored under the step key and returned, all or
// nothing.
//
// KEYS: hash, sent, out, refs, prev, slog
// ARGV: step key, mode (start|step), expected k, expected a, new k, new a,
// done (0|1), outputs, ttl seconds, then field/value pairs whose field's
// first letter says what they are: "f:<name>" a start field of the hash,
// "i:<name>" a counter increment, "r:<index>" a final sentence (JSON),
// "p:<index>" a previous sentence (JSON), "u:<index>" the use of a
// previous sentence.
var stepScript = goredis.NewScript(`
local h, sent, out, refs, prev, slog = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local key, mode = ARGV[1], ARGV[2]
local stored = redis.call('HGET', out, key)
if stored then return {0, stored} end
if mode == 'start' then
  if redis.call('EXISTS', h) == 1 then return {0, false} end
else
  local cur = redis.call('HMGET', h, 'k', 'a', 'done')
  if cur[1] ~= ARGV[3] or cur[2] ~= ARGV[4] or cur[3] == '1' then return {0, false} end
end
redis.call('HSET', h, 'k', ARGV[5], 'a', ARGV[6], 'done', ARGV[7])
for i = 10, #ARGV, 2 do
  local f, v = ARGV[i], ARGV[i + 1]
  local kind, name = string.sub(f, 1, 1), string.sub(f, 3)
  if kind == 'f' then
    redis.call('HSET', h, name, v)
  elseif kind == 'i' then
    redis.call('HINCRBY', h, name, v)
  elseif kind == 'r' then
    redis.call('HSET', sent, name, v)
    redis.call('RPUSH', slog, name)
  elseif kind == 'p' then
    redis.call('HSET', prev, name, v)
  elseif kind == 'u' then
    redis.call('HSET', prev, 'u:' .. name, v)
  else
    return redis.error_reply('step: unknown argument ' .. f)
  end
end
redis.call('HSET', out, key, ARGV[8])
local ttl = tonumber(ARGV[9])
for _, k in ipairs(KEYS) do
  if redis.call('EXISTS', k) == 1 then redis.call('EXPIRE', k, ttl) end
end
return {1, ARGV[8]}
`)

// Step implements genmem.Memory.
func (m *Requests) Step(ctx context.Context, tenant, id string, s genmem.Step) (bool, []byte, error) {
	if tenant == "" || id == "" {
		return false, nil, errors.New("step: tenant and request id are required")
	}
	base := reqKey(tenant, id)
	keys := []string{base, base + ":sent", base + ":out", base + ":refs", base + ":prev", base + ":slog"}
	mode := "step"
	if s.Start != nil {
		mode = "start"
	}
	args := []any{s.Key, mode, strconv.Itoa(s.ExpectIndex), strconv.Itoa(s.ExpectAttempt),
		strconv.Itoa(s.NextIndex), strconv.Itoa(s.NextAttempt), flag(s.Done), string(s.Output),
		int64(m.ttl / time.Second)}
	if s.Start != nil {
		req, err := json.Marshal(s.Start)
		if err != nil {
			return false, nil, fmt.Errorf("step %s of %s: encode request: %w", s.Key, id, err)
		}
		args = append(args, "f:kind", s.Start.Kind, "f:subject", s.Start.Subject, "f:name", s.Name,
			"f:request", string(req), "f:started_ms", strconv.FormatInt(s.StartedMillis, 10))
	}
	fields := map[string]any{}
	if s.Place != nil {
		fields["place"] = s.Place
	}
	if s.Review != nil {
		fields["review"] = s.Review
	}
	for name, v := range fields {
		b, err := json.Marshal(v)
		if err != nil {
			return false, nil, fmt.Errorf("step %s of %s: encode %s: %w", s.Key, id, name, err)
		}
		args = append(args, "f:"+name, string(b))
	}
	records := s.Records
	if s.Record != nil {
		records = append([]genmem.Final{*s.Record}, records...)
	}
	for _, r := range records {
		b, err := json.Marshal(r)
		if err != nil {
			return false, nil, fmt.Errorf("step %s of %s: encode sentence %d: %w", s.Key, id, r.Index, err)
		}
		args = append(args, "r:"+strconv.Itoa(r.Index), string(b))
	}
	for i, p := range s.Previous {
		b, err := json.Marshal(p)
		if err != nil {
			return false, nil, fmt.Errorf("step %s of %s: encode previous sentence %d: %w", s.Key, id, i, err)
		}
		args = append(args, "p:"+strconv.Itoa(i), string(b))
	}
	uses := make([]int, 0, len(s.Use))
	for i := range s.Use {
		uses = append(uses, i)
	}
	sort.Ints(uses)
	for _, i := range uses {
		args = append(args, "u:"+strconv.Itoa(i), s.Use[i])
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
	for f, into := range map[string]any{"place": &st.Place, "review": &st.Review} {
		if v := h[f]; v != "" {
			if err := json.Unmarshal([]byte(v), into); err != nil {
				return genmem.State{}, false, fmt.Errorf("read state of request %s: decode %s: %w", id, f, err)
			}
		}
	}
	for f, v := range h {
		switch f {
		case "kind", "subject", "name", "k", "a", "done", "started_ms", "request", "place", "review":
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
	m.refs.put(reqKey(tenant, id), refs)
	return nil
}

// References returns the reference set of a request; a missing one fails
// with a permanent error (no retry brings it back) wrapping
// genmem.ErrNoReferences. The set is shared with the process's other
// readers of it: callers do not modify it.
func (m *Requests) References(ctx context.Context, tenant, id string) (*schemas.ReferenceSet, error) {
	if refs, ok := m.refs.get(reqKey(tenant, id)); ok {
		return refs, nil
	}
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
	m.refs.put(reqKey(tenant, id), &rs)
	return &rs, nil
}

// sentencesScript reads a request's final sentences: how many were
// written (the length of :slog), then, for a caller holding those written
// up to a count below that, the indices and sentences written since, and
// for any other caller all of them.
//
// KEYS: slog, sent
// ARGV: the count the caller holds ("" for none)
var sentencesScript = goredis.NewScript(`
local n = redis.call('LLEN', KEYS[1])
local held = tonumber(ARGV[1])
if held and held == n then return {n} end
if held and held > 0 and held < n then
  local idx = redis.call('LRANGE', KEYS[1], held, -1)
  return {n, 0, idx, redis.call('HMGET', KEYS[2], unpack(idx))}
end
return {n, 1, redis.call('HGETALL', KEYS[2])}
`)

// Sentences implements genmem.Memory: the final sentences (accepted or
// dropped) in index order. The slice is the caller's; the sentences'
// own slices are shared with the process's other readers: callers do not
// modify them.
func (m *Requests) Sentences(ctx context.Context, tenant, id string) ([]genmem.Final, error) {
	key := reqKey(tenant, id)
	kept, ok := m.finals.get(key)
	held := ""
	if ok {
		held = strconv.FormatInt(kept.n, 10)
	}
	res, err := sentencesScript.Run(ctx, m.c, []string{key + ":slog", key + ":sent"}, held).Slice()
	if err != nil {
		return nil, fmt.Errorf("read sentences of request %s: %w", id, err)
	}
	n, _ := res[0].(int64)
	if len(res) < 3 {
		return slices.Clone(kept.sorted), nil
	}
	decode := func(k, v string) (genmem.Final, error) {
		var f genmem.Final
		if err := json.Unmarshal([]byte(v), &f); err != nil {
			return f, fmt.Errorf("read sentences of request %s: sentence %s: %w", id, k, err)
		}
		return f, nil
	}
	next := keptFinals{n: n, byIdx: map[int]genmem.Final{}}
	var pairs []any
	if full, _ := res[1].(int64); full == 1 {
		pairs, _ = res[2].([]any)
	} else {
		maps.Copy(next.byIdx, kept.byIdx)
		idx, _ := res[2].([]any)
		vals, _ := res[3].([]any)
		for i := range min(len(idx), len(vals)) {
			pairs = append(pairs, idx[i], vals[i])
		}
	}
	for i := 0; i+1 < len(pairs); i += 2 {
		k, _ := pairs[i].(string)
		v, _ := pairs[i+1].(string)
		f, err := decode(k, v)
		if err != nil {
			return nil, err
		}
		next.byIdx[f.Index] = f
	}
	next.sorted = make([]genmem.Final, 0, len(next.byIdx))
	for _, f := range next.byIdx {
		next.sorted = append(next.sorted, f)
	}
	sort.Slice(next.sorted, func(i, j int) bool { return next.sorted[i].Index < next.sorted[j].Index })
	m.finals.put(key, next)
	return slices.Clone(next.sorted), nil
}

// Previous implements genmem.Memory: the previous version's sentences in
// index order, each with its use so far.
func (m *Requests) Previous(ctx context.Context, tenant, id string) ([]genmem.Previous, error) {
	h, err := m.c.HGetAll(ctx, reqKey(tenant, id)+":prev").Result()
	if err != nil {
		return nil, fmt.Errorf("read previous sentences of request %s: %w", id, err)
	}
	var out []genmem.Previous
	for f, v := range h {
		if strings.HasPrefix(f, "u:") {
			continue
		}
		i, err := strconv.Atoi(f)
		if err != nil {
			return nil, fmt.Errorf("read previous sentences of request %s: field %q", id, f)
		}
		p := genmem.Previous{Index: i, Use: h["u:"+f]}
		if err := json.Unmarshal([]byte(v), &p.Sentence); err != nil {
			return nil, fmt.Errorf("read previous sentences of request %s: sentence %s: %w", id, f, err)
		}
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Index < out[j].Index })
	return out, nil
}
