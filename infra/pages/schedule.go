package pages

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/annalist-dev/annalist/infra/redisdb"
	"github.com/annalist-dev/annalist/schemas"
)

// Schedule is the scheduler's state in Redis: the regenerations waiting
// for their debounce window, the ones claimed by an emitter, and the
// tenants that have any. It lives beside the page store because its
// scripts write the pages' stale marks in the same step as the trigger
// they stand for.
//
// Keys (the tenant between braces; P is sched:{t}:, pk a page key,
// schemas.PageKey):
//
//	P trig:<pk>     hash: the page's pending trigger: kind, subject, rank, reason, first and due (ms)
//	P docs:<pk>     set: the documents behind the pending trigger
//	P due:<rank>    sorted set: pages with a pending trigger of that rank (3 retracted, 2 superseded, 1 new evidence) by due time
//	P flight        sorted set: claimed pages by lease expiry
//	P flight:<pk>   hash: the claimed trigger: kind, subject, reason, rank, docs (JSON), first, gen, rid
//	P gen           hash: page key → trigger generations claimed so far
//	P age           sorted set: pages pending or in flight by their oldest trigger (ms)
//	P upd:<key>     string: an update already recorded (expires after UpdateTTL)
//	sched:tenants   set: tenants that may have pending work or stale pages
//
// A claim turns the pending trigger into the in-flight one and names its
// request after the page and the generation (RequestID), so that an
// emitter that dies after publishing leaves a claim whose lease expires
// and whose request, published again under the same id, is deduplicated
// downstream. A trigger recorded while the page is in flight starts a new
// pending trigger; it is claimed after the in-flight one is acknowledged.
type Schedule struct{ c redisdb.Client }

// NewSchedule returns the schedule on c.
func NewSchedule(c redisdb.Client) *Schedule { return &Schedule{c: c} }

// Schedule returns the schedule on the store's Redis.
func (s *Store) Schedule() *Schedule { return NewSchedule(s.c) }

// UpdateTTL is how long a recorded update is remembered, so that the same
// update announced again within it changes nothing.
const UpdateTTL = 24 * time.Hour

const tenantsKey = "sched:tenants"

func schedPrefix(t string) string { return "sched:{" + t + "}:" }

// Trigger is what changed under some pages: why, because of which
// documents, and a key that is the same for the same change announced
// again.
type Trigger struct {
	Reason string
	DocIDs []string
	Key    string
}

// recordScript records one trigger on pages. A page's pending trigger
// keeps the highest-ranked reason and the union of documents; its due time
// is now + window, but never later than its first trigger + max delay
// (trailing debounce that a steady stream cannot starve).
// KEYS: the update's key, stale pages
// ARGV: prefix, now, window, max delay, reason, rank, ttl seconds, number
// of docs, docs…, then kind and subject of each page.
var recordScript = goredis.NewScript(`
local P = ARGV[1]
local now, window, maxd = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local reason, rank = ARGV[5], tonumber(ARGV[6])
if not redis.call('SET', KEYS[1], '1', 'NX', 'EX', ARGV[7]) then
  return -1
end
local nd = tonumber(ARGV[8])
local n = 0
for i = 9 + nd, #ARGV, 2 do
  local kind, subject = ARGV[i], ARGV[i + 1]
  local pk = subject
  if kind ~= '' and kind ~= 'biography' then
    pk = kind .. ':' .. subject
  end
  local h = P .. 'trig:' .. pk
  local cur = redis.call('HMGET', h, 'rank', 'first', 'reason')
  local old = tonumber(cur[1]) or 0
  local first = tonumber(cur[2]) or now
  local r, why = rank, reason
  if old > rank then
    r, why = old, cur[3]
  end
  local due = math.min(now + window, first + maxd)
  if old > 0 and old ~= r then
    redis.call('ZREM', P .. 'due:' .. old, pk)
  end
  redis.call('ZADD', P .. 'due:' .. r, due, pk)
  redis.call('HSET', h, 'kind', kind, 'subject', subject, 'rank', r, 'reason', why, 'first', first, 'due', due)
  if nd > 0 then
    redis.call('SADD', P .. 'docs:' .. pk, unpack(ARGV, 9, 8 + nd))
  end
  redis.call('ZADD', P .. 'age', 'NX', first, pk)
  redis.call('HSET', KEYS[2], pk, 'pending')
  n = n + 1
end
return n
`)

// Record records tr on the pages: each gets (or adds to) a pending
// trigger and is marked stale. It returns how many pages it recorded; 0
// when tr.Key was recorded before (within UpdateTTL), which changes
// nothing. The tenant is listed among those with pending work after the
// trigger is recorded (see Forget).
func (s *Schedule) Record(ctx context.Context, tenant string, tr Trigger, pages []PageRef, now time.Time, window, maxDelay time.Duration) (int, error) {
	if tr.Key == "" {
		return 0, errors.New("record trigger: key is required")
	}
	if len(pages) == 0 {
		return 0, nil
	}
	args := []any{schedPrefix(tenant), now.UnixMilli(), window.Milliseconds(), maxDelay.Milliseconds(),
		tr.Reason, schemas.ReasonRank(tr.Reason), int64(UpdateTTL / time.Second), len(tr.DocIDs)}
	for _, d := range tr.DocIDs {
		args = append(args, d)
	}
	for _, p := range pages {
		args = append(args, p.Kind, p.Subject)
	}
	n, err := recordScript.Run(ctx, s.c, []string{schedPrefix(tenant) + "upd:" + tr.Key, staleKey(tenant)}, args...).Int()
	if err != nil {
		return 0, fmt.Errorf("record trigger on %d pages: %w", len(pages), err)
	}
	if err := s.c.SAdd(ctx, tenantsKey, tenant).Err(); err != nil {
		return 0, fmt.Errorf("record trigger: list tenant: %w", err)
	}
	return max(n, 0), nil
}

// Claimed is a regeneration an emitter claimed: the page, the trigger it
// answers, and the id its request is published under.
type Claimed struct {
	Page      PageRef
	RequestID string
	// Generation counts the page's claimed triggers; RequestID is derived
	// from it and the page key.
	Generation int64
	Reason     string
	DocIDs     []string
	// First is when the trigger's first change was recorded.
	First time.Time
}

// Request is the regeneration request of the claim.
func (c Claimed) Request() schemas.Request {
	return schemas.Request{RequestID: c.RequestID, Kind: c.Page.Kind, Subject: c.Page.Subject,
		Reason: schemas.RequestRegeneration, Priority: schemas.ReasonRank(c.Reason),
		Trigger: &schemas.Trigger{Reason: c.Reason, DocIDs: c.DocIDs}}
}

// claimScript claims up to n due pages: first the claims whose lease
// expired (an emitter died holding them; they keep their request id),
// then pending triggers that are due, retracted before superseded before
// new evidence, the earliest due first. A page whose previous claim is
// still leased is passed over until its lease ends. A fresh claim names
// its request, and the page's stale mark names it from then on.
// KEYS: stale pages
// ARGV: prefix, now, lease, n
// Returns flat tuples: pk, kind, subject, reason, docs JSON, first, gen, rid.
var claimScript = goredis.NewScript(`
local P = ARGV[1]
local now, lease, n = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local F = P .. 'flight'
local out, got = {}, 0
local function emit(pk, v)
  for _, x in ipairs({pk, v[1], v[2], v[3], v[4], v[5], v[6], v[7]}) do
    out[#out + 1] = x
  end
  got = got + 1
end
for _, pk in ipairs(redis.call('ZRANGEBYSCORE', F, '-inf', now, 'LIMIT', 0, n)) do
  local v = redis.call('HMGET', F .. ':' .. pk, 'kind', 'subject', 'reason', 'docs', 'first', 'gen', 'rid')
  if v[7] then
    redis.call('ZADD', F, now + lease, pk)
    emit(pk, v)
  else
    redis.call('ZREM', F, pk)
  end
end
for rank = 3, 1, -1 do
  if got >= n then
    break
  end
  local D = P .. 'due:' .. rank
  for _, pk in ipairs(redis.call('ZRANGEBYSCORE', D, '-inf', now, 'LIMIT', 0, n - got)) do
    local held = redis.call('ZSCORE', F, pk)
    local h = P .. 'trig:' .. pk
    local v = redis.call('HMGET', h, 'kind', 'subject', 'reason', 'first')
    if held then
      redis.call('ZADD', D, held, pk)
    elseif not v[2] then
      redis.call('ZREM', D, pk)
    else
      local docs = redis.call('SMEMBERS', P .. 'docs:' .. pk)
      table.sort(docs)
      local dj = '[]'
      if #docs > 0 then
        dj = cjson.encode(docs)
      end
      local gen = redis.call('HINCRBY', P .. 'gen', pk, 1)
      local rid = 'regen-' .. string.sub(redis.sha1hex(P .. pk), 1, 16) .. '-' .. gen
      redis.call('HSET', F .. ':' .. pk, 'kind', v[1], 'subject', v[2], 'reason', v[3], 'docs', dj,
        'first', v[4], 'gen', gen, 'rid', rid)
      redis.call('ZADD', F, now + lease, pk)
      redis.call('DEL', h, P .. 'docs:' .. pk)
      redis.call('ZREM', D, pk)
      redis.call('HSET', KEYS[1], pk, rid)
      emit(pk, {v[1], v[2], v[3], dj, v[4], tostring(gen), rid})
    end
  end
end
return out
`)

// Claim claims up to n regenerations of the tenant that are due at now,
// each leased for lease: unacknowledged by then, it is claimed again.
// Concurrent claimers never get the same page while its lease runs.
func (s *Schedule) Claim(ctx context.Context, tenant string, now time.Time, lease time.Duration, n int) ([]Claimed, error) {
	if n <= 0 {
		return nil, nil
	}
	res, err := claimScript.Run(ctx, s.c, []string{staleKey(tenant)}, schedPrefix(tenant), now.UnixMilli(),
		lease.Milliseconds(), n).StringSlice()
	if err != nil {
		return nil, fmt.Errorf("claim regenerations: %w", err)
	}
	out := make([]Claimed, 0, len(res)/8)
	for i := 0; i+8 <= len(res); i += 8 {
		c := Claimed{Page: PageRef{Kind: res[i+1], Subject: res[i+2]}, Reason: res[i+3], RequestID: res[i+7]}
		if c.Page.Kind == "" {
			c.Page.Kind = schemas.KindBiography
		}
		if err := json.Unmarshal([]byte(res[i+4]), &c.DocIDs); err != nil {
			return nil, fmt.Errorf("claim regenerations: documents of %s: %w", res[i], err)
		}
		if len(c.DocIDs) == 0 {
			c.DocIDs = nil
		}
		first, _ := strconv.ParseFloat(res[i+5], 64)
		c.First = time.UnixMilli(int64(first))
		c.Generation, _ = strconv.ParseInt(res[i+6], 10, 64)
		out = append(out, c)
	}
	return out, nil
}

// ackScript ends a claim once its request is published: the in-flight
// record goes, and a trigger recorded meanwhile becomes claimable at its
// own due time.
// ARGV: prefix, pk, rid
var ackScript = goredis.NewScript(`
local P, pk = ARGV[1], ARGV[2]
local f = P .. 'flight:' .. pk
if redis.call('HGET', f, 'rid') ~= ARGV[3] then
  return 0
end
redis.call('DEL', f)
redis.call('ZREM', P .. 'flight', pk)
local v = redis.call('HMGET', P .. 'trig:' .. pk, 'rank', 'due', 'first')
if v[1] then
  redis.call('ZADD', P .. 'due:' .. v[1], v[2], pk)
  redis.call('ZADD', P .. 'age', v[3], pk)
else
  redis.call('ZREM', P .. 'age', pk)
end
return 1
`)

// Ack ends the claim c after its request was published. It reports false
// when the claim was not held any more (its lease ran out and another
// emitter claimed it again: that one acknowledges it).
func (s *Schedule) Ack(ctx context.Context, tenant string, c Claimed) (bool, error) {
	n, err := ackScript.Run(ctx, s.c, nil, schedPrefix(tenant), c.Page.Key(), c.RequestID).Int()
	if err != nil {
		return false, fmt.Errorf("acknowledge the regeneration of %s: %w", c.Page.Key(), err)
	}
	return n == 1, nil
}

// Release gives a claim back at once (its request could not be
// published): its lease ends now, so the next claim takes it again with
// the same request id.
func (s *Schedule) Release(ctx context.Context, tenant string, c Claimed, now time.Time) error {
	err := s.c.ZAddXX(ctx, schedPrefix(tenant)+"flight", goredis.Z{Score: float64(now.UnixMilli()), Member: c.Page.Key()}).Err()
	if err != nil {
		return fmt.Errorf("release the regeneration of %s: %w", c.Page.Key(), err)
	}
	return nil
}

// Tenants lists the tenants that may have pending regenerations.
func (s *Schedule) Tenants(ctx context.Context) ([]string, error) {
	ts, err := s.c.SMembers(ctx, tenantsKey).Result()
	if err != nil {
		return nil, fmt.Errorf("list scheduled tenants: %w", err)
	}
	return ts, nil
}

// Forget takes a tenant off the list when nothing of it is pending and
// none of its pages is stale (a regeneration published and not yet
// made): the list is also what the metrics read. It removes first and
// looks again after: Record lists the tenant after recording, so
// whichever order the two take, a tenant with pending work stays listed.
func (s *Schedule) Forget(ctx context.Context, tenant string) error {
	busy, err := s.busy(ctx, tenant)
	if err != nil || busy {
		return err
	}
	if err := s.c.SRem(ctx, tenantsKey, tenant).Err(); err != nil {
		return fmt.Errorf("forget scheduled tenant: %w", err)
	}
	if busy, err = s.busy(ctx, tenant); err != nil || !busy {
		return err
	}
	if err := s.c.SAdd(ctx, tenantsKey, tenant).Err(); err != nil {
		return fmt.Errorf("forget scheduled tenant: %w", err)
	}
	return nil
}

// busy reports whether the tenant has pending regenerations or stale
// pages.
func (s *Schedule) busy(ctx context.Context, tenant string) (bool, error) {
	p := s.c.Pipeline()
	pending := p.ZCard(ctx, schedPrefix(tenant)+"age")
	stale := p.HLen(ctx, staleKey(tenant))
	if _, err := p.Exec(ctx); err != nil {
		return false, fmt.Errorf("pending regenerations: %w", err)
	}
	return pending.Val()+stale.Val() > 0, nil
}

// ScheduleStats are the tenant's pending regenerations: how many pages
// wait (pending or being published), when the oldest change among them
// was recorded (zero when none waits), and how many pages are stale.
type ScheduleStats struct {
	Pending int64
	Oldest  time.Time
	Stale   int64
}

// Stats reads the tenant's pending regenerations.
func (s *Schedule) Stats(ctx context.Context, tenant string) (ScheduleStats, error) {
	k := schedPrefix(tenant) + "age"
	p := s.c.Pipeline()
	n := p.ZCard(ctx, k)
	oldest := p.ZRangeWithScores(ctx, k, 0, 0)
	stale := p.HLen(ctx, staleKey(tenant))
	if _, err := p.Exec(ctx); err != nil {
		return ScheduleStats{}, fmt.Errorf("pending regenerations: %w", err)
	}
	st := ScheduleStats{Pending: n.Val(), Stale: stale.Val()}
	if zs := oldest.Val(); len(zs) > 0 {
		st.Oldest = time.UnixMilli(int64(zs[0].Score))
	}
	return st, nil
}
