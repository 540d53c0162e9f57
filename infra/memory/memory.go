// Package memory keeps the agents' memory in Redis (ARCHITECTURE.md §9). For now it
// holds the extractor's regex demonstrations: validated regexes that the
// model wrote, per tenant and corpus profile, ranked by how often they
// served a chunk without a model call.
//
// Keys (the tenant between braces is the Redis Cluster hash tag, so one
// tenant's keys co-locate and the scripts below stay valid on a cluster):
//
//	mem:{t}:regex:<profile>           sorted set: pattern id → hits
//	mem:{t}:regex:<profile>:p:<id>    hash: relation, source, groups (JSON),
//	                                  example, prompt, created (RFC 3339)
//	mem:{t}:regex:<profile>:outcomes  hash: <key>:asked, <key>:found — what
//	                                  asking the model yielded, by question
package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/annalist-dev/annalist/internal/ports/regexmem"

	goredis "github.com/redis/go-redis/v9"

	"github.com/annalist-dev/annalist/infra/redisdb"
)

// DefaultMaxPatterns bounds the patterns kept per tenant and profile.
const DefaultMaxPatterns = 500

// Regexes is the extractor's regex memory in Redis. It is safe for
// concurrent use.
type Regexes struct {
	c   redisdb.Client
	max int
}

var _ regexmem.Memory = (*Regexes)(nil)

// NewRegexes returns a memory on c that keeps at most max patterns per
// tenant and profile (max <= 0 means DefaultMaxPatterns); past that, saving
// a new pattern evicts the least used ones.
func NewRegexes(c redisdb.Client, max int) *Regexes {
	if max <= 0 {
		max = DefaultMaxPatterns
	}
	return &Regexes{c: c, max: max}
}

func setKey(tenant, profile string) string { return "mem:{" + tenant + "}:regex:" + profile }

func patternKey(tenant, profile, id string) string { return setKey(tenant, profile) + ":p:" + id }

// saveScript adds a pattern atomically: the set member with score 0 unless
// it exists (NX keeps its hits), the details hash (created is kept when
// present), then evicts the least used patterns beyond the bound, with
// their hashes.
var saveScript = goredis.NewScript(`
local set, hash, id, max = KEYS[1], KEYS[2], ARGV[1], tonumber(ARGV[2])
redis.call('ZADD', set, 'NX', 0, id)
redis.call('HSET', hash, 'relation', ARGV[3], 'source', ARGV[4], 'groups', ARGV[5],
	'example', ARGV[6], 'prompt', ARGV[7])
redis.call('HSETNX', hash, 'created', ARGV[8])
local n = redis.call('ZCARD', set)
if n > max then
	-- Evict the least used, but never the pattern just saved.
	local drop = n - max
	for _, o in ipairs(redis.call('ZRANGE', set, 0, drop)) do
		if drop > 0 and o ~= id then
			redis.call('ZREM', set, o)
			redis.call('DEL', set .. ':p:' .. o)
			drop = drop - 1
		end
	end
end
return n
`)

// Save stores a validated pattern. Idempotent: saving a pattern that exists
// updates its details but keeps its hits and creation time.
func (r *Regexes) Save(ctx context.Context, tenant, profile string, p regexmem.Pattern) error {
	if p.ID == "" {
		p.ID = regexmem.ID(p.Relation, p.Source, p.Groups)
	}
	groups, err := json.Marshal(p.Groups)
	if err != nil {
		return fmt.Errorf("save regex %s: %w", p.ID, err)
	}
	created := p.Created
	if created.IsZero() {
		created = time.Now()
	}
	err = saveScript.Run(ctx, r.c, []string{setKey(tenant, profile), patternKey(tenant, profile, p.ID)},
		p.ID, r.max, p.Relation, p.Source, string(groups), p.Example, p.Prompt,
		created.UTC().Format(time.RFC3339Nano)).Err()
	if err != nil {
		return fmt.Errorf("save regex %s of %s/%s: %w", p.ID, tenant, profile, err)
	}
	return nil
}

// Hit records that pattern id served a chunk. A pattern evicted meanwhile
// is not brought back.
func (r *Regexes) Hit(ctx context.Context, tenant, profile, id string) error {
	err := r.c.ZAddArgsIncr(ctx, setKey(tenant, profile), goredis.ZAddArgs{
		XX: true, Members: []goredis.Z{{Score: 1, Member: id}},
	}).Err()
	if err != nil && err != goredis.Nil {
		return fmt.Errorf("record hit of regex %s of %s/%s: %w", id, tenant, profile, err)
	}
	return nil
}

// Patterns returns at most n patterns, the most used first (ties by id).
func (r *Regexes) Patterns(ctx context.Context, tenant, profile string, n int) ([]regexmem.Pattern, error) {
	if n <= 0 {
		return nil, nil
	}
	zs, err := r.c.ZRangeArgsWithScores(ctx, goredis.ZRangeArgs{
		Key: setKey(tenant, profile), Start: 0, Stop: n - 1, Rev: true,
	}).Result()
	if err != nil {
		return nil, fmt.Errorf("list regexes of %s/%s: %w", tenant, profile, err)
	}
	if len(zs) == 0 {
		return nil, nil
	}
	p := r.c.Pipeline()
	cmds := make([]*goredis.MapStringStringCmd, len(zs))
	for i, z := range zs {
		cmds[i] = p.HGetAll(ctx, patternKey(tenant, profile, z.Member.(string)))
	}
	if _, err := p.Exec(ctx); err != nil {
		return nil, fmt.Errorf("read regexes of %s/%s: %w", tenant, profile, err)
	}
	out := make([]regexmem.Pattern, 0, len(zs))
	for i, z := range zs {
		h := cmds[i].Val()
		if len(h) == 0 {
			continue
		}
		pat, err := fromHash(z.Member.(string), h)
		if err != nil {
			return nil, fmt.Errorf("read regex %s of %s/%s: %w", z.Member, tenant, profile, err)
		}
		pat.Hits = int64(z.Score)
		out = append(out, pat)
	}
	return out, nil
}

func fromHash(id string, h map[string]string) (regexmem.Pattern, error) {
	p := regexmem.Pattern{ID: id, Relation: h["relation"], Source: h["source"], Example: h["example"],
		Prompt: h["prompt"]}
	if err := json.Unmarshal([]byte(h["groups"]), &p.Groups); err != nil {
		return p, fmt.Errorf("groups %q: %w", h["groups"], err)
	}
	if c := h["created"]; c != "" {
		t, err := time.Parse(time.RFC3339Nano, c)
		if err != nil {
			return p, fmt.Errorf("created %q: %w", c, err)
		}
		p.Created = t
	}
	return p, nil
}

// Count returns how many patterns a tenant's profile holds.
func (r *Regexes) Count(ctx context.Context, tenant, profile string) (int64, error) {
	n, err := r.c.ZCard(ctx, setKey(tenant, profile)).Result()
	if err != nil {
		return 0, fmt.Errorf("count regexes of %s/%s: %w", tenant, profile, err)
	}
	return n, nil
}

var _ regexmem.Outcomes = (*Regexes)(nil)

// outcomesKey holds a profile's tallies: fields <key>:asked and
// <key>:found.
func outcomesKey(tenant, profile string) string { return setKey(tenant, profile) + ":outcomes" }

// RecordOutcome adds one question of key to the profile's tally.
func (r *Regexes) RecordOutcome(ctx context.Context, tenant, profile, key string, found bool) error {
	p := r.c.TxPipeline()
	p.HIncrBy(ctx, outcomesKey(tenant, profile), key+":asked", 1)
	if found {
		p.HIncrBy(ctx, outcomesKey(tenant, profile), key+":found", 1)
	}
	if _, err := p.Exec(ctx); err != nil {
		return fmt.Errorf("record outcome %s of %s/%s: %w", key, tenant, profile, err)
	}
	return nil
}

// Outcomes returns the profile's tallies by key.
func (r *Regexes) Outcomes(ctx context.Context, tenant, profile string) (map[string]regexmem.Outcome, error) {
	h, err := r.c.HGetAll(ctx, outcomesKey(tenant, profile)).Result()
	if err != nil {
		return nil, fmt.Errorf("read outcomes of %s/%s: %w", tenant, profile, err)
	}
	out := make(map[string]regexmem.Outcome, len(h)/2)
	for f, v := range h {
		i := strings.LastIndexByte(f, ':')
		if i < 0 {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("outcome %s of %s/%s: %w", f, tenant, profile, err)
		}
		o := out[f[:i]]
		switch f[i+1:] {
		case "asked":
			o.Asked = n
		case "found":
			o.Found = n
		default:
			continue
		}
		out[f[:i]] = o
	}
	return out, nil
}
