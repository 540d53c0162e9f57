// Package pages is the Redis store of what the generation loop publishes
// and what people act on: page versions with their chunk dependency index,
// request status, and the review queue of reference conflicts.
//
// Pages are keyed by kind and subject (schemas.PageKey), so a page of
// another kind about a subject never becomes a version of its biography.
// A biography keeps the keys it had before there were other kinds; a page
// of kind k uses the same keys with "k:" before the subject.
//
// Keys (the tenant between braces is the Redis Cluster hash tag):
//
//	page:{t}:<subject>          string: the current biography (JSON)
//	page:{t}:<subject>:v        hash: version → page (JSON)
//	page:{t}:<subject>:req      hash: request id → version (publishing is idempotent per request)
//	page:{t}:subjects           set: subjects with a biography
//	deps:{t}:chunk:<chunk id>   set: subjects whose current or past biography cites the chunk
//	page:{t}:<kind>:<subject>   the page of another kind, with :v and :req as above
//	page:{t}:<kind>:subjects    set: subjects with a page of that kind
//	deps:{t}:<kind>:chunk:<id>  set: subjects whose page of that kind cites the chunk
//	deps:{t}:entity:<id>        set: subjects whose biography is about the entity
//	deps:{t}:<kind>:entity:<id> set: subjects whose page of that kind is about the entity
//	page:{t}:kinds              set: kinds other than biography with a page (Dependents reads them)
//	page:{t}:stale              hash: page key → "pending" or the regenerating request id
//	req:{t}:<request id>        hash: request status (expires after RequestTTL)
//	review:{t}:<review id>      string: the review (JSON)
//	reviews:{t}                 sorted set: review ids by opening time
//	reviews:{t}:subject:<s>     set: review ids of a subject
//
// Request completion is also announced on the channel req:{t}:done (the
// message is the request id), so waiting clients need not poll.
//
// Stale pages: the scheduler (Schedule) sets a page's field of
// page:{t}:stale to "pending" when something the page rests on changed,
// and to its regeneration's request id when it publishes the request. The
// field is removed when that request ends, published or failed (Publish,
// and every final status, SetRequest), and only when it still names that
// request: a change that arrived while the page was being regenerated
// keeps the page stale until the next regeneration. A final status of any
// request reads its page key from the status (kind and subject, or the
// page it published), so a regeneration that fails at its deadline frees
// the page too.
package pages

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/annalist-dev/annalist/infra/redisdb"
	"github.com/annalist-dev/annalist/schemas"
)

// ErrNotFound reports a page, version, request or review the store does
// not hold. Branch on it with errors.Is.
var ErrNotFound = errors.New("not found")

// ErrInvalidDecision reports a review decision that is not one of the
// review's options.
var ErrInvalidDecision = errors.New("invalid decision")

// RequestTTL is how long a request's status is kept.
const RequestTTL = 7 * 24 * time.Hour

// Store is the page, request and review store. It is safe for concurrent
// use.
type Store struct{ c redisdb.Client }

// New returns the store on c.
func New(c redisdb.Client) *Store { return &Store{c: c} }

// pageKey is the key of the current page of kind about subject; an empty
// kind is a biography.
func pageKey(t, kind, subject string) string {
	return "page:{" + t + "}:" + schemas.PageKey(kind, subject)
}

// subjectsKey is the set of subjects with a page of kind.
func subjectsKey(t, kind string) string {
	return "page:{" + t + "}:" + schemas.PageKey(kind, "subjects")
}

// depsPrefix prefixes a chunk id to name the set of subjects whose page of
// kind cites it. Each kind has its own sets, so that whoever regenerates
// the biographies a chunk change affects reads subjects to request
// biographies of, not pages of other kinds.
func depsPrefix(t, kind string) string { return "deps:{" + t + "}:" + schemas.PageKey(kind, "chunk:") }

// entityDepsPrefix prefixes an entity id to name the set of subjects whose
// page of kind is about it (the subject's entity), laid out as the chunk
// index.
func entityDepsPrefix(t, kind string) string {
	return "deps:{" + t + "}:" + schemas.PageKey(kind, "entity:")
}

// kindsKey is the set of kinds other than the biography that have pages.
func kindsKey(t string) string { return "page:{" + t + "}:kinds" }

// staleKey is the hash of stale pages: page key → "pending" or the id of
// the request regenerating it.
func staleKey(t string) string { return "page:{" + t + "}:stale" }

func reqKey(t, id string) string    { return "req:{" + t + "}:" + id }
func doneChannel(t string) string   { return "req:{" + t + "}:done" }
func reviewKey(t, id string) string { return "review:{" + t + "}:" + id }
func reviewsKey(t string) string    { return "reviews:{" + t + "}" }

// publishScript assigns the next version to a request's page, once,
// indexes it by the chunks it cites and the entities it is about, and
// clears the page's stale mark when the mark names this request.
// KEYS: current, versions, requests, subjects, kinds, stale
// ARGV: request id, subject, page JSON with "version":0, chunk deps
// prefix, entity deps prefix, kind ("" for a biography), page key, number
// of chunk ids, chunk ids…, entity ids…
var publishScript = goredis.NewScript(`
local cur, vers, reqs, subjects = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local n = redis.call('HGET', reqs, ARGV[1])
if n then
  return {0, redis.call('HGET', vers, n)}
end
n = redis.call('HLEN', vers) + 1
local page = string.gsub(ARGV[3], '"version":0', '"version":' .. n, 1)
redis.call('HSET', vers, n, page)
redis.call('HSET', reqs, ARGV[1], n)
redis.call('SET', cur, page)
redis.call('SADD', subjects, ARGV[2])
if ARGV[6] ~= '' then
  redis.call('SADD', KEYS[5], ARGV[6])
end
if redis.call('HGET', KEYS[6], ARGV[7]) == ARGV[1] then
  redis.call('HDEL', KEYS[6], ARGV[7])
end
local nc = tonumber(ARGV[8])
for i = 9, 8 + nc do
  redis.call('SADD', ARGV[4] .. ARGV[i], ARGV[2])
end
for i = 9 + nc, #ARGV do
  redis.call('SADD', ARGV[5] .. ARGV[i], ARGV[2])
end
return {1, page}
`)

// Publish stores p as the next version of the page of its kind about its
// subject and indexes the chunks it cites and the entities it is about
// (the subject's entity, from the reference set), the dependency index
// the scheduler reads (Dependents). Idempotent per request: publishing a
// request's page again returns the version stored the first time, with
// created=false. Publishing the page of the request the page's stale mark
// names clears the mark.
func (s *Store) Publish(ctx context.Context, tenant string, p schemas.Page, entities ...string) (schemas.Page, bool, error) {
	if p.Subject == "" || p.RequestID == "" {
		return schemas.Page{}, false, errors.New("publish page: subject and request id are required")
	}
	if p.Kind != "" {
		if err := schemas.ValidKind(p.Kind); err != nil {
			return schemas.Page{}, false, fmt.Errorf("publish page of %s: %w", p.Subject, err)
		}
	}
	p.Version = 0
	b, err := json.Marshal(p)
	if err != nil {
		return schemas.Page{}, false, fmt.Errorf("publish page of %s: %w", p.Subject, err)
	}
	base := pageKey(tenant, p.Kind, p.Subject)
	kind := p.Kind
	if kind == schemas.KindBiography {
		kind = ""
	}
	var chunks []any
	seen := map[string]bool{}
	for _, st := range p.Sentences {
		for _, c := range st.Citations {
			if c.ChunkID != "" && !seen[c.ChunkID] {
				seen[c.ChunkID] = true
				chunks = append(chunks, c.ChunkID)
			}
		}
	}
	args := []any{p.RequestID, p.Subject, string(b), depsPrefix(tenant, p.Kind), entityDepsPrefix(tenant, p.Kind),
		kind, schemas.PageKey(p.Kind, p.Subject), len(chunks)}
	args = append(args, chunks...)
	ents := map[string]bool{}
	for _, e := range entities {
		if e != "" && !ents[e] {
			ents[e] = true
			args = append(args, e)
		}
	}
	res, err := publishScript.Run(ctx, s.c, []string{base, base + ":v", base + ":req",
		subjectsKey(tenant, p.Kind), kindsKey(tenant), staleKey(tenant)}, args...).Slice()
	if err != nil {
		return schemas.Page{}, false, fmt.Errorf("publish page of %s: %w", p.Subject, err)
	}
	var out schemas.Page
	if err := json.Unmarshal([]byte(res[1].(string)), &out); err != nil {
		return schemas.Page{}, false, fmt.Errorf("publish page of %s: decode stored page: %w", p.Subject, err)
	}
	return out, res[0] == int64(1), nil
}

// Current returns the subject's current biography. The biography is the
// kind most readers want (the web UI, the diff, the crash tests), so its
// readers need not name it; CurrentOf reads any kind.
func (s *Store) Current(ctx context.Context, tenant, subject string) (schemas.Page, error) {
	return s.CurrentOf(ctx, tenant, schemas.KindBiography, subject)
}

// CurrentOf returns the current page of kind about subject.
func (s *Store) CurrentOf(ctx context.Context, tenant, kind, subject string) (schemas.Page, error) {
	b, err := s.c.Get(ctx, pageKey(tenant, kind, subject)).Bytes()
	if errors.Is(err, goredis.Nil) {
		return schemas.Page{}, fmt.Errorf("%s of %q: %w", kindName(kind), subject, ErrNotFound)
	}
	if err != nil {
		return schemas.Page{}, fmt.Errorf("%s of %q: %w", kindName(kind), subject, err)
	}
	return decodePage(b)
}

// Version returns one version of the subject's biography.
func (s *Store) Version(ctx context.Context, tenant, subject string, n int) (schemas.Page, error) {
	return s.VersionOf(ctx, tenant, schemas.KindBiography, subject, n)
}

// VersionOf returns one version of the page of kind about subject.
func (s *Store) VersionOf(ctx context.Context, tenant, kind, subject string, n int) (schemas.Page, error) {
	b, err := s.c.HGet(ctx, pageKey(tenant, kind, subject)+":v", strconv.Itoa(n)).Bytes()
	if errors.Is(err, goredis.Nil) {
		return schemas.Page{}, fmt.Errorf("%s of %q version %d: %w", kindName(kind), subject, n, ErrNotFound)
	}
	if err != nil {
		return schemas.Page{}, fmt.Errorf("%s of %q version %d: %w", kindName(kind), subject, n, err)
	}
	return decodePage(b)
}

// Published returns the page a published request made: the version its
// status names, of the request's kind (a status without a kind, written
// before there were other kinds, is a biography's).
func (s *Store) Published(ctx context.Context, tenant string, st RequestStatus) (schemas.Page, error) {
	if st.State != RequestPublished || st.Page == "" || st.Version <= 0 {
		return schemas.Page{}, fmt.Errorf("page of request %s (%s): %w", st.RequestID, st.State, ErrNotFound)
	}
	return s.VersionOf(ctx, tenant, st.Kind, st.Page, st.Version)
}

// kindName names a kind in error messages; an empty kind is a biography.
func kindName(kind string) string {
	if kind == "" {
		return schemas.KindBiography
	}
	return kind
}

// VersionInfo summarises one page version.
type VersionInfo struct {
	Version     int    `json:"version"`
	RequestID   string `json:"request_id"`
	GeneratedAt string `json:"generated_at,omitempty"`
	Sentences   int    `json:"sentences"`
}

// Versions lists the versions of the subject's biography, oldest first.
func (s *Store) Versions(ctx context.Context, tenant, subject string) ([]VersionInfo, error) {
	return s.VersionsOf(ctx, tenant, schemas.KindBiography, subject)
}

// VersionsOf lists the versions of the page of kind about subject, oldest
// first.
func (s *Store) VersionsOf(ctx context.Context, tenant, kind, subject string) ([]VersionInfo, error) {
	h, err := s.c.HGetAll(ctx, pageKey(tenant, kind, subject)+":v").Result()
	if err != nil {
		return nil, fmt.Errorf("versions of the %s of %q: %w", kindName(kind), subject, err)
	}
	out := make([]VersionInfo, 0, len(h))
	for _, v := range h {
		p, err := decodePage([]byte(v))
		if err != nil {
			return nil, err
		}
		out = append(out, VersionInfo{Version: p.Version, RequestID: p.RequestID,
			GeneratedAt: p.GeneratedAt, Sentences: len(p.Sentences)})
	}
	slices.SortFunc(out, func(a, b VersionInfo) int { return a.Version - b.Version })
	return out, nil
}

// VersionCounts returns how many versions the page of kind about each
// subject has (its latest version's number; 0 for none), in one round
// trip, without reading a page: a cheap poll for a new version.
func (s *Store) VersionCounts(ctx context.Context, tenant, kind string, subjects []string) ([]int, error) {
	if len(subjects) == 0 {
		return nil, nil
	}
	p := s.c.Pipeline()
	cmds := make([]*goredis.IntCmd, len(subjects))
	for i, sub := range subjects {
		cmds[i] = p.HLen(ctx, pageKey(tenant, kind, sub)+":v")
	}
	if _, err := p.Exec(ctx); err != nil {
		return nil, fmt.Errorf("count the versions of %d pages: %w", len(subjects), err)
	}
	out := make([]int, len(subjects))
	for i, c := range cmds {
		out[i] = int(c.Val())
	}
	return out, nil
}

// Subjects lists the subjects that have a biography, sorted.
func (s *Store) Subjects(ctx context.Context, tenant string) ([]string, error) {
	return s.SubjectsOf(ctx, tenant, schemas.KindBiography)
}

// SubjectsOf lists the subjects that have a page of kind, sorted.
func (s *Store) SubjectsOf(ctx context.Context, tenant, kind string) ([]string, error) {
	out, err := s.c.SMembers(ctx, subjectsKey(tenant, kind)).Result()
	if err != nil {
		return nil, fmt.Errorf("list %s pages: %w", kindName(kind), err)
	}
	slices.Sort(out)
	return out, nil
}

// PageRef names a page: its kind and subject.
type PageRef struct {
	Kind    string `json:"kind"`
	Subject string `json:"subject"`
}

// Key is the page's key among the tenant's pages (schemas.PageKey).
func (r PageRef) Key() string { return schemas.PageKey(r.Kind, r.Subject) }

// Dependents lists the pages, of every kind, that are about one of the
// entities or cite one of the chunks: the pages to regenerate when they
// change. Sorted by kind, then subject; each page once.
func (s *Store) Dependents(ctx context.Context, tenant string, entities, chunks []string) ([]PageRef, error) {
	out, err := s.DependentsMany(ctx, tenant, []DependentsQuery{{Entities: entities, Chunks: chunks}})
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// DependentsQuery is one question of DependentsMany: the entities and
// chunks whose pages are wanted.
type DependentsQuery struct {
	Entities, Chunks []string
}

// DependentsMany answers several Dependents questions in two round trips
// for all of them: the pages, sorted by kind then subject, that are about
// one of a query's entities or cite one of its chunks.
func (s *Store) DependentsMany(ctx context.Context, tenant string, qs []DependentsQuery) ([][]PageRef, error) {
	out := make([][]PageRef, len(qs))
	asked := false
	for _, q := range qs {
		asked = asked || len(q.Entities)+len(q.Chunks) > 0
	}
	if !asked {
		return out, nil
	}
	kinds, err := s.c.SMembers(ctx, kindsKey(tenant)).Result()
	if err != nil {
		return nil, fmt.Errorf("pages depending on %d sets of entities and chunks: %w", len(qs), err)
	}
	kinds = append(kinds, schemas.KindBiography)
	slices.Sort(kinds)
	kinds = slices.Compact(kinds)
	p := s.c.Pipeline()
	unions := make([][]*goredis.StringSliceCmd, len(qs))
	for i, q := range qs {
		if len(q.Entities)+len(q.Chunks) == 0 {
			continue
		}
		for _, kind := range kinds {
			keys := make([]string, 0, len(q.Entities)+len(q.Chunks))
			for _, e := range q.Entities {
				keys = append(keys, entityDepsPrefix(tenant, kind)+e)
			}
			for _, c := range q.Chunks {
				keys = append(keys, depsPrefix(tenant, kind)+c)
			}
			unions[i] = append(unions[i], p.SUnion(ctx, keys...))
		}
	}
	if _, err := p.Exec(ctx); err != nil {
		return nil, fmt.Errorf("pages depending on %d sets of entities and chunks: %w", len(qs), err)
	}
	for i := range qs {
		for k, u := range unions[i] {
			subjects := u.Val()
			slices.Sort(subjects)
			for _, sub := range subjects {
				out[i] = append(out[i], PageRef{Kind: kinds[k], Subject: sub})
			}
		}
	}
	return out, nil
}

// Stale reports whether the page of kind about subject waits for a
// regeneration: something it rests on changed and no page made since
// took it in.
func (s *Store) Stale(ctx context.Context, tenant, kind, subject string) (bool, error) {
	ok, err := s.c.HExists(ctx, staleKey(tenant), schemas.PageKey(kind, subject)).Result()
	if err != nil {
		return false, fmt.Errorf("is the %s of %q stale: %w", kindName(kind), subject, err)
	}
	return ok, nil
}

// StaleCount is the number of the tenant's stale pages.
func (s *Store) StaleCount(ctx context.Context, tenant string) (int64, error) {
	n, err := s.c.HLen(ctx, staleKey(tenant)).Result()
	if err != nil {
		return 0, fmt.Errorf("count stale pages: %w", err)
	}
	return n, nil
}

// DependentsOf lists the subjects whose pages of kind cite a chunk,
// sorted.
func (s *Store) DependentsOf(ctx context.Context, tenant, kind, chunkID string) ([]string, error) {
	out, err := s.c.SMembers(ctx, depsPrefix(tenant, kind)+chunkID).Result()
	if err != nil {
		return nil, fmt.Errorf("%s pages citing %s: %w", kindName(kind), chunkID, err)
	}
	slices.Sort(out)
	return out, nil
}

func decodePage(b []byte) (schemas.Page, error) {
	var p schemas.Page
	if err := json.Unmarshal(b, &p); err != nil {
		return schemas.Page{}, fmt.Errorf("decode stored page: %w", err)
	}
	return p, nil
}

// Request states.
const (
	RequestQueued    = "queued"
	RequestPublished = "published"
	RequestFailed    = "failed"
)

// RequestStatus is where a request is, as clients see it.
type RequestStatus struct {
	RequestID string `json:"request_id"`
	Kind      string `json:"kind,omitempty"`
	Subject   string `json:"subject"`
	State     string `json:"state"`
	// Page is the subject of the published page (the canonical name), and
	// Version its version; the page is of kind Kind (Published reads it).
	Page    string `json:"page,omitempty"`
	Version int    `json:"version,omitempty"`
	Error   string `json:"error,omitempty"`
	// RequestedAt and FinishedAt are RFC 3339 times.
	RequestedAt string `json:"requested_at,omitempty"`
	FinishedAt  string `json:"finished_at,omitempty"`
	// Deadline (RFC 3339), recorded when the request is accepted, is when
	// a request still queued fails with "deadline exceeded" (Request).
	Deadline string `json:"deadline,omitempty"`
}

// Finished reports whether the request reached a final state.
func (r RequestStatus) Finished() bool {
	return r.State == RequestPublished || r.State == RequestFailed
}

// finishScript records a final state unless the request has one already:
// the first final state wins, so every reader sees one outcome. The page
// the request was for (the published page's subject, else the requested
// subject, of the request's kind) loses its stale mark when the mark names
// the request.
// KEYS: status, done channel, stale pages
// ARGV: ttl seconds, request id, field, value, …
var finishScript = goredis.NewScript(`
local st = redis.call('HGET', KEYS[1], 'state')
if st == 'published' or st == 'failed' then
  return 0
end
redis.call('HSET', KEYS[1], unpack(ARGV, 3))
redis.call('EXPIRE', KEYS[1], ARGV[1])
local r = redis.call('HMGET', KEYS[1], 'kind', 'subject', 'page')
local kind, subject = r[1] or '', r[3] or r[2] or ''
if subject ~= '' then
  local key = subject
  if kind ~= '' and kind ~= 'biography' then
    key = kind .. ':' .. subject
  end
  if redis.call('HGET', KEYS[3], key) == ARGV[2] then
    redis.call('HDEL', KEYS[3], key)
  end
end
redis.call('PUBLISH', KEYS[2], ARGV[2])
return 1
`)

// SetRequest records a request's status. A queued status never
// overwrites another; a final state (published, failed) is recorded only
// while the request has none, and is announced on the done channel: a
// request's outcome, once set, never changes. In particular a request
// that failed at its deadline stays failed when its page is published
// later (the page is still stored as a version of its subject's page).
// Empty fields leave what is recorded (the deadline survives the final
// state).
func (s *Store) SetRequest(ctx context.Context, tenant string, r RequestStatus) error {
	if r.RequestID == "" {
		return errors.New("set request status: request id is required")
	}
	k := reqKey(tenant, r.RequestID)
	var fields []any
	for _, f := range [][2]string{{"request_id", r.RequestID}, {"kind", r.Kind}, {"subject", r.Subject},
		{"state", r.State}, {"page", r.Page}, {"version", versionField(r.Version)}, {"error", r.Error},
		{"requested_at", r.RequestedAt}, {"finished_at", r.FinishedAt}, {"deadline", r.Deadline}} {
		if f[1] != "" {
			fields = append(fields, f[0], f[1])
		}
	}
	if r.Finished() {
		args := append([]any{int64(RequestTTL / time.Second), r.RequestID}, fields...)
		if err := finishScript.Run(ctx, s.c, []string{k, doneChannel(tenant), staleKey(tenant)}, args...).Err(); err != nil {
			return fmt.Errorf("set request %s: %w", r.RequestID, err)
		}
		return nil
	}
	if r.State == RequestQueued {
		ok, err := s.c.HSetNX(ctx, k, "state", r.State).Result()
		if err != nil {
			return fmt.Errorf("set request %s: %w", r.RequestID, err)
		}
		if !ok {
			return nil
		}
	}
	p := s.c.TxPipeline()
	p.HSet(ctx, k, fields...)
	p.Expire(ctx, k, RequestTTL)
	if _, err := p.Exec(ctx); err != nil {
		return fmt.Errorf("set request %s: %w", r.RequestID, err)
	}
	return nil
}

func versionField(v int) string {
	if v == 0 {
		return ""
	}
	return strconv.Itoa(v)
}

// Request returns a request's status. A request still queued after its
// deadline is failed here, once for every reader ("deadline exceeded
// after …"), so the API, the event stream and waiting commands see the
// same terminal state without a process that watches the clock.
func (s *Store) Request(ctx context.Context, tenant, id string) (RequestStatus, error) {
	r, err := s.request(ctx, tenant, id)
	if err != nil || r.State != RequestQueued || r.Deadline == "" {
		return r, err
	}
	dl, perr := time.Parse(time.RFC3339Nano, r.Deadline)
	now := time.Now()
	if perr != nil || now.Before(dl) {
		return r, nil
	}
	reason := "deadline exceeded at " + r.Deadline + " without a page"
	if at, err := time.Parse(time.RFC3339Nano, r.RequestedAt); err == nil && dl.After(at) {
		reason = fmt.Sprintf("deadline exceeded after %s without a page", dl.Sub(at).Round(time.Millisecond))
	}
	if err := s.SetRequest(ctx, tenant, RequestStatus{RequestID: id, State: RequestFailed, Error: reason,
		FinishedAt: now.UTC().Format(time.RFC3339Nano)}); err != nil {
		return RequestStatus{}, err
	}
	return s.request(ctx, tenant, id)
}

func (s *Store) request(ctx context.Context, tenant, id string) (RequestStatus, error) {
	h, err := s.c.HGetAll(ctx, reqKey(tenant, id)).Result()
	if err != nil {
		return RequestStatus{}, fmt.Errorf("request %s: %w", id, err)
	}
	if len(h) == 0 {
		return RequestStatus{}, fmt.Errorf("request %s: %w", id, ErrNotFound)
	}
	v, _ := strconv.Atoi(h["version"])
	return RequestStatus{RequestID: id, Kind: h["kind"], Subject: h["subject"], State: h["state"],
		Page: h["page"], Version: v, Error: h["error"], RequestedAt: h["requested_at"],
		FinishedAt: h["finished_at"], Deadline: h["deadline"]}, nil
}

// Wait blocks until the requests are finished or ctx ends, and returns
// their statuses in order. It listens on the done channel and reads each
// status once at the start and on every announcement, so an announcement
// made before it subscribed is not missed.
func (s *Store) Wait(ctx context.Context, tenant string, ids ...string) ([]RequestStatus, error) {
	sub := s.c.Subscribe(ctx, doneChannel(tenant))
	defer sub.Close()
	if _, err := sub.Receive(ctx); err != nil {
		return nil, fmt.Errorf("wait for requests: subscribe: %w", err)
	}
	out := make([]RequestStatus, len(ids))
	pending := map[string]int{}
	for i, id := range ids {
		pending[id] = i
	}
	// next is the earliest deadline of a pending request: the status is
	// read again then, which fails the request (Request).
	var next time.Time
	check := func(id string) error {
		i, ok := pending[id]
		if !ok {
			return nil
		}
		r, err := s.Request(ctx, tenant, id)
		if errors.Is(err, ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		if r.Finished() {
			out[i] = r
			delete(pending, id)
			return nil
		}
		if dl, err := time.Parse(time.RFC3339Nano, r.Deadline); err == nil && (next.IsZero() || dl.Before(next)) {
			next = dl
		}
		return nil
	}
	checkAll := func() error {
		next = time.Time{}
		for _, id := range ids {
			if err := check(id); err != nil {
				return err
			}
		}
		return nil
	}
	if err := checkAll(); err != nil {
		return nil, err
	}
	ch := sub.Channel()
	// A slow safety net: a status written while the subscription was
	// reconnecting is read within a second.
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	deadline := time.NewTimer(time.Hour)
	defer deadline.Stop()
	for len(pending) > 0 {
		deadline.Reset(time.Hour)
		if !next.IsZero() {
			deadline.Reset(max(time.Until(next), 0) + time.Millisecond)
		}
		select {
		case <-ctx.Done():
			return out, fmt.Errorf("wait for %d requests: %w", len(pending), ctx.Err())
		case m, ok := <-ch:
			if !ok {
				return out, errors.New("wait for requests: subscription closed")
			}
			if err := check(m.Payload); err != nil {
				return nil, err
			}
		case <-tick.C:
			if err := checkAll(); err != nil {
				return nil, err
			}
		case <-deadline.C:
			if err := checkAll(); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// Review states.
const (
	ReviewOpen    = "open"
	ReviewDecided = "decided"
)

// OpenReview stores a review unless one with its id exists (idempotent: a
// decided review stays decided).
func (s *Store) OpenReview(ctx context.Context, tenant string, r schemas.Review) error {
	if r.Status == "" {
		r.Status = ReviewOpen
	}
	if err := r.Validate(); err != nil {
		return fmt.Errorf("open review: %w", err)
	}
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("open review %s: %w", r.ReviewID, err)
	}
	ok, err := s.c.SetNX(ctx, reviewKey(tenant, r.ReviewID), b, 0).Result()
	if err != nil {
		return fmt.Errorf("open review %s: %w", r.ReviewID, err)
	}
	if !ok {
		return nil
	}
	p := s.c.TxPipeline()
	p.ZAddNX(ctx, reviewsKey(tenant), goredis.Z{Score: float64(time.Now().UnixMilli()), Member: r.ReviewID})
	p.SAdd(ctx, reviewsKey(tenant)+":subject:"+r.Subject, r.ReviewID)
	if _, err := p.Exec(ctx); err != nil {
		return fmt.Errorf("index review %s: %w", r.ReviewID, err)
	}
	return nil
}

// Review returns one review.
func (s *Store) Review(ctx context.Context, tenant, id string) (schemas.Review, error) {
	b, err := s.c.Get(ctx, reviewKey(tenant, id)).Bytes()
	if errors.Is(err, goredis.Nil) {
		return schemas.Review{}, fmt.Errorf("review %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return schemas.Review{}, fmt.Errorf("review %s: %w", id, err)
	}
	var r schemas.Review
	if err := json.Unmarshal(b, &r); err != nil {
		return schemas.Review{}, fmt.Errorf("review %s: decode: %w", id, err)
	}
	return r, nil
}

// Reviews lists reviews in opening order; status "" lists all.
func (s *Store) Reviews(ctx context.Context, tenant, status string) ([]schemas.Review, error) {
	ids, err := s.c.ZRange(ctx, reviewsKey(tenant), 0, -1).Result()
	if err != nil {
		return nil, fmt.Errorf("list reviews: %w", err)
	}
	return s.load(ctx, tenant, ids, status)
}

func (s *Store) load(ctx context.Context, tenant string, ids []string, status string) ([]schemas.Review, error) {
	out := []schemas.Review{}
	for _, id := range ids {
		r, err := s.Review(ctx, tenant, id)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if status == "" || r.Status == status {
			out = append(out, r)
		}
	}
	return out, nil
}

// ReviewDecisions returns the decision of each review, "" for one that is
// open or unknown, in one round trip.
func (s *Store) ReviewDecisions(ctx context.Context, tenant string, ids []string) ([]string, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	keys := make([]string, len(ids))
	for i, id := range ids {
		keys[i] = reviewKey(tenant, id)
	}
	vals, err := s.c.MGet(ctx, keys...).Result()
	if err != nil {
		return nil, fmt.Errorf("read the decisions of %d reviews: %w", len(ids), err)
	}
	out := make([]string, len(ids))
	for i, v := range vals {
		b, ok := v.(string)
		if !ok {
			continue
		}
		var r schemas.Review
		if err := json.Unmarshal([]byte(b), &r); err != nil {
			return nil, fmt.Errorf("review %s: decode: %w", ids[i], err)
		}
		if r.Status == ReviewDecided {
			out[i] = r.Decision
		}
	}
	return out, nil
}

// Decide records an expert's choice: value must be one of the review's
// option values. Deciding again replaces the decision.
func (s *Store) Decide(ctx context.Context, tenant, id, value string) (schemas.Review, error) {
	r, err := s.Review(ctx, tenant, id)
	if err != nil {
		return schemas.Review{}, err
	}
	ok := false
	for _, o := range r.Options {
		ok = ok || o.Value == value
	}
	if !ok {
		return schemas.Review{}, fmt.Errorf("review %s: %w: %q is not one of its options", id, ErrInvalidDecision, value)
	}
	r.Status, r.Decision = ReviewDecided, value
	b, err := json.Marshal(r)
	if err != nil {
		return schemas.Review{}, fmt.Errorf("decide review %s: %w", id, err)
	}
	if err := s.c.Set(ctx, reviewKey(tenant, id), b, 0).Err(); err != nil {
		return schemas.Review{}, fmt.Errorf("decide review %s: %w", id, err)
	}
	return r, nil
}

// Decisions returns the decided reviews of a subject as decisions the
// writer applies on the next generation.
func (s *Store) Decisions(ctx context.Context, tenant, subject string) ([]schemas.Decision, error) {
	ids, err := s.c.SMembers(ctx, reviewsKey(tenant)+":subject:"+subject).Result()
	if err != nil {
		return nil, fmt.Errorf("decisions of %q: %w", subject, err)
	}
	slices.Sort(ids)
	rs, err := s.load(ctx, tenant, ids, ReviewDecided)
	if err != nil {
		return nil, err
	}
	out := make([]schemas.Decision, 0, len(rs))
	for _, r := range rs {
		d := schemas.Decision{ReviewID: r.ReviewID, Relation: r.Relation, Value: r.Decision}
		for _, o := range r.Options {
			if o.Value == r.Decision {
				d.ChunkID = o.ChunkID
			} else {
				d.Rejected = append(d.Rejected, o.Value)
			}
		}
		out = append(out, d)
	}
	return out, nil
}

// Finish records a request's outcome (assembler.Pages): published with the
// page's subject and version, or failed with the reason when page is nil.
func (s *Store) Finish(ctx context.Context, tenant string, r schemas.Request, page *schemas.Page, failure string) error {
	st := RequestStatus{RequestID: r.RequestID, Kind: r.Kind, Subject: r.Subject,
		RequestedAt: r.RequestedAt, FinishedAt: time.Now().UTC().Format(time.RFC3339Nano)}
	if page != nil {
		st.State, st.Page, st.Version = RequestPublished, page.Subject, page.Version
	} else {
		st.State, st.Error = RequestFailed, failure
	}
	return s.SetRequest(ctx, tenant, st)
}
