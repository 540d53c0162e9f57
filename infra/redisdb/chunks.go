package redisdb

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
)

// Chunks stores documents and chunks: doc:{t}:ID and chunk:{t}:ID hashes,
// plus the sets idx:{t}:docs and idx:{t}:chunks that count and list them.
// Every write is an upsert, so storing the same document twice changes
// nothing.
type Chunks struct{ c Client }

// NewChunks returns a store on c.
func NewChunks(c Client) *Chunks { return &Chunks{c: c} }

func docKey(t, id string) string     { return "doc:{" + t + "}:" + id }
func chunkKey(t, id string) string   { return "chunk:{" + t + "}:" + id }
func docsIdx(t string) string        { return "idx:{" + t + "}:docs" }
func chunksIdx(t string) string      { return "idx:{" + t + "}:chunks" }
func srcKey(t, source string) string { return "src:{" + t + "}:" + source }

// DocInfo is what the store keeps of a document.
type DocInfo struct {
	DocID      string            `json:"doc_id"`
	Source     string            `json:"source"`
	Title      string            `json:"title,omitempty"`
	Collection string            `json:"collection,omitempty"`
	Profile    string            `json:"profile,omitempty"`
	Chars      int               `json:"chars"`
	Chunks     int               `json:"chunks"`
	Stages     map[string]string `json:"stages,omitempty"`
	// Supersedes is the version of the same source this one replaced.
	Supersedes string `json:"supersedes,omitempty"`
	// Retracted is when the document was retracted (RFC 3339), empty
	// while it is not; RetractReason and SupersededBy say why.
	Retracted     string `json:"retracted,omitempty"`
	RetractReason string `json:"retract_reason,omitempty"`
	SupersededBy  string `json:"superseded_by,omitempty"`
}

// ErrRetracted is returned by PutDocument for a document marked retracted:
// its chunks are not stored. It is permanent, since no retry revives the
// document, and it answers Retracted() true, so that a stage, which may
// not import this package, can recognise the race it expects (a
// retraction overtaking its document) with errors.As on a one-method
// interface and skip the document instead of dead-lettering it.
var ErrRetracted = pipeline.Permanent(retractedError{})

type retractedError struct{}

func (retractedError) Error() string   { return "document is retracted" }
func (retractedError) Retracted() bool { return true }

// putScript stores a document's metadata and chunks unless the document
// is marked retracted, checking the mark and writing in one step: a
// retraction that lands between a check and a write would otherwise leave
// chunks that nothing removes.
//
// KEYS[1] doc:{t}:<id>, KEYS[2] idx:{t}:docs, KEYS[3] idx:{t}:chunks.
// ARGV[1] doc id, ARGV[2] n, ARGV[3..2+n] the document's field-value
// pairs, then the chunk key prefix, NF (values per chunk: the id and its
// field-value pairs), and NF values per chunk. Returns 0 when refused.
var putScript = goredis.NewScript(`
if redis.call('HEXISTS', KEYS[1], 'retracted') == 1 then return 0 end
local n = tonumber(ARGV[2])
redis.call('HSET', KEYS[1], unpack(ARGV, 3, 2 + n))
redis.call('SADD', KEYS[2], ARGV[1])
local cp = ARGV[3 + n]
local nf = tonumber(ARGV[4 + n])
local ids = {}
for i = 5 + n, #ARGV, nf do
  redis.call('HSET', cp .. ARGV[i], unpack(ARGV, i + 1, i + nf - 1))
  ids[#ids + 1] = ARGV[i]
  if #ids == 1000 then
    redis.call('SADD', KEYS[3], unpack(ids))
    ids = {}
  end
end
if #ids > 0 then redis.call('SADD', KEYS[3], unpack(ids)) end
return 1
`)

// chunkFields is NF of putScript: the id and 18 field-value pairs.
const chunkFields = 1 + 2*18

// PutDocument stores a document's metadata and all its chunks in one
// script and marks the document as chunked. A document marked retracted
// is refused with ErrRetracted and nothing is written.
func (s *Chunks) PutDocument(ctx context.Context, tenant string, doc schemas.Document, chunks []schemas.Chunk) error {
	chars := 0
	if n := len(chunks); n > 0 {
		chars = chunks[n-1].End
	}
	profile := doc.Profile
	if len(chunks) > 0 {
		profile = chunks[0].Profile
	}
	fields := []any{"source", doc.Source, "title", doc.Title, "collection", doc.Collection,
		"profile", profile, "chars", chars, "chunks", len(chunks), "text_hash", schemas.TextHash(doc.Text),
		"stage:chunker", time.Now().UTC().Format(time.RFC3339)}
	if doc.Supersedes != "" {
		fields = append(fields, "supersedes", doc.Supersedes)
	}
	args := make([]any, 0, 4+len(fields)+chunkFields*len(chunks))
	args = append(args, doc.DocID, len(fields))
	args = append(args, fields...)
	args = append(args, chunkKey(tenant, ""), chunkFields)
	for _, c := range chunks {
		args = append(args, c.ChunkID,
			"doc_id", c.DocID, "seq", c.Seq, "total", c.Total, "profile", c.Profile,
			"method", c.Method, "subject", c.Subject, "entry", c.Entry, "entry_chunk", c.EntryChunk,
			"start", c.Start, "end", c.End, "text", c.Text, "collection", c.Collection,
			"lang", c.Lang, "title", c.Title,
			"sub_entry", c.SubEntry, "attached", boolField(c.Attached), "main", c.Main,
			"listed", strings.Join(c.Listed, listedSep))
	}
	n, err := putScript.Run(ctx, s.c, []string{docKey(tenant, doc.DocID), docsIdx(tenant), chunksIdx(tenant)}, args...).Int()
	if err != nil {
		return fmt.Errorf("store document %s: %w", doc.DocID, err)
	}
	if n == 0 {
		return fmt.Errorf("store document %s: %w", doc.DocID, ErrRetracted)
	}
	return nil
}

// claimScript records ARGV[1] as the text hash of document KEYS[1] unless
// one is recorded, and returns the recorded hash and whether it was set
// now.
var claimScript = goredis.NewScript(`
local h = redis.call('HGET', KEYS[1], 'text_hash')
if h then return {h, 0} end
redis.call('HSET', KEYS[1], 'text_hash', ARGV[1])
return {ARGV[1], 1}
`)

// releaseScript removes a claim that is all the record holds, so a
// document whose publishing failed leaves nothing behind.
var releaseScript = goredis.NewScript(`
if redis.call('HLEN', KEYS[1]) == 1 and redis.call('HGET', KEYS[1], 'text_hash') == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
`)

// ClaimDocument binds a document id to the hash of its text
// (schemas.TextHash) before the document is published: it returns the
// hash the id is bound to (textHash when the id was free) and whether this
// call bound it. A document stored before text hashes were recorded is
// bound by the first claim. The check and the binding are one script, so
// of two concurrent claims of a free id with different texts one sees the
// other's hash.
func (s *Chunks) ClaimDocument(ctx context.Context, tenant, docID, textHash string) (bound string, created bool, err error) {
	v, err := claimScript.Run(ctx, s.c, []string{docKey(tenant, docID)}, textHash).Slice()
	if err != nil {
		return "", false, fmt.Errorf("claim document %s: %w", docID, err)
	}
	if len(v) != 2 {
		return "", false, fmt.Errorf("claim document %s: unexpected answer %v", docID, v)
	}
	h, _ := v[0].(string)
	n, _ := v[1].(int64)
	return h, n == 1, nil
}

// ReleaseDocument undoes a claim that ClaimDocument created when nothing
// was stored under the id since (the document was never published).
func (s *Chunks) ReleaseDocument(ctx context.Context, tenant, docID, textHash string) error {
	if err := releaseScript.Run(ctx, s.c, []string{docKey(tenant, docID)}, textHash).Err(); err != nil {
		return fmt.Errorf("release document %s: %w", docID, err)
	}
	return nil
}

// MarkStage records that a stage finished its work on a document.
func (s *Chunks) MarkStage(ctx context.Context, tenant, docID, stage string) error {
	err := s.c.HSet(ctx, docKey(tenant, docID), "stage:"+stage, time.Now().UTC().Format(time.RFC3339)).Err()
	if err != nil {
		return fmt.Errorf("mark document %s %s: %w", docID, stage, err)
	}
	return nil
}

// Get returns the chunks with the given ids that exist, in the given order.
func (s *Chunks) Get(ctx context.Context, tenant string, ids []string) ([]schemas.Chunk, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	p := s.c.Pipeline()
	cmds := make([]*goredis.MapStringStringCmd, len(ids))
	for i, id := range ids {
		cmds[i] = p.HGetAll(ctx, chunkKey(tenant, id))
	}
	if _, err := p.Exec(ctx); err != nil {
		return nil, fmt.Errorf("read %d chunks: %w", len(ids), err)
	}
	out := make([]schemas.Chunk, 0, len(ids))
	for i, c := range cmds {
		h := c.Val()
		if len(h) == 0 {
			continue
		}
		out = append(out, chunkFromHash(ids[i], h))
	}
	return out, nil
}

func chunkFromHash(id string, h map[string]string) schemas.Chunk {
	atoi := func(k string) int { n, _ := strconv.Atoi(h[k]); return n }
	return schemas.Chunk{
		ChunkID: id, DocID: h["doc_id"], Seq: atoi("seq"), Total: atoi("total"),
		Profile: h["profile"], Method: h["method"], Subject: h["subject"], Entry: h["entry"],
		EntryChunk: h["entry_chunk"], Start: atoi("start"), End: atoi("end"), Text: h["text"],
		Collection: h["collection"], Lang: h["lang"], Title: h["title"],
		SubEntry: h["sub_entry"], Attached: h["attached"] == "1", Main: h["main"],
		Listed: splitListed(h["listed"]),
	}
}

// listedSep joins a chunk's listing groups in its hash: a separator no
// name contains.
const listedSep = "|"

func splitListed(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, listedSep)
}

// boolField is how a stored chunk writes a flag: "1" or "0".
func boolField(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// Document returns a document's stored metadata; ok is false when unknown.
func (s *Chunks) Document(ctx context.Context, tenant, docID string) (DocInfo, bool, error) {
	h, err := s.c.HGetAll(ctx, docKey(tenant, docID)).Result()
	if err != nil {
		return DocInfo{}, false, fmt.Errorf("read document %s: %w", docID, err)
	}
	if len(h) == 0 {
		return DocInfo{}, false, nil
	}
	d := DocInfo{DocID: docID, Source: h["source"], Title: h["title"], Collection: h["collection"],
		Profile: h["profile"], Stages: map[string]string{}}
	d.Supersedes, d.Retracted = h["supersedes"], h["retracted"]
	d.RetractReason, d.SupersededBy = h["retract_reason"], h["superseded_by"]
	d.Chars, _ = strconv.Atoi(h["chars"])
	d.Chunks, _ = strconv.Atoi(h["chunks"])
	for k, v := range h {
		if len(k) > 6 && k[:6] == "stage:" {
			d.Stages[k[6:]] = v
		}
	}
	return d, true, nil
}

// Counts returns how many documents and chunks the tenant has.
func (s *Chunks) Counts(ctx context.Context, tenant string) (docs, chunks int64, err error) {
	p := s.c.Pipeline()
	d := p.SCard(ctx, docsIdx(tenant))
	c := p.SCard(ctx, chunksIdx(tenant))
	if _, err := p.Exec(ctx); err != nil {
		return 0, 0, fmt.Errorf("count documents: %w", err)
	}
	return d.Val(), c.Val(), nil
}

// claimVersionScript decides what a document is, in one step (see
// ClaimVersion). KEYS[1] doc:{t}:<id>, KEYS[2] src:{t}:<key>; ARGV[1] the
// doc id, ARGV[2] its text hash, ARGV[3] its version key, ARGV[4] the
// document key prefix doc:{t}:.
var claimVersionScript = goredis.NewScript(`
local d = KEYS[1]
if redis.call('HEXISTS', d, 'retracted') == 1 then return {'retracted', ''} end
local function live(id)
  return redis.call('EXISTS', ARGV[4] .. id) == 1 and redis.call('HEXISTS', ARGV[4] .. id, 'retracted') == 0
end
local h = redis.call('HGET', d, 'text_hash')
local cur = redis.call('GET', KEYS[2])
if h then
  if h ~= ARGV[2] then return {'conflict', h} end
  if not cur then redis.call('SET', KEYS[2], ARGV[1]) end
  local old = redis.call('HGET', d, 'supersedes')
  if old and old ~= '' and live(old) then return {'same', old} end
  return {'same', ''}
end
local f = {'text_hash', ARGV[2], 'source_key', ARGV[3]}
local sup = ''
if cur and cur ~= ARGV[1] then
  f[#f + 1] = 'prev'
  f[#f + 1] = cur
  if live(cur) then
    sup = cur
    f[#f + 1] = 'supersedes'
    f[#f + 1] = cur
  end
end
redis.call('HSET', d, unpack(f))
redis.call('SET', KEYS[2], ARGV[1])
return {'new', sup}
`)

// ClaimVersion decides what a document about to be published is, and
// records it when it is new (producers.VersionStore):
//   - "retracted": the id is marked retracted (it stays so);
//   - "conflict", with the hash the id is bound to: other text;
//   - "same": the id holds this text; other is a version it superseded
//     whose retraction is not marked yet, if any (the run that published
//     it stopped before retracting);
//   - "new": the id is now bound to the text and is the current version
//     of key (src:{t}:<key>); other is the live version it supersedes, if
//     any. A key whose current version is retracted is superseded by
//     nothing: the new text simply becomes current.
//
// Deciding and recording are one script, so of two concurrent versions of
// one key each supersedes exactly what was current before it.
func (s *Chunks) ClaimVersion(ctx context.Context, tenant, docID, key, textHash string) (status, other string, err error) {
	v, err := claimVersionScript.Run(ctx, s.c, []string{docKey(tenant, docID), srcKey(tenant, key)},
		docID, textHash, key, docKey(tenant, "")).StringSlice()
	if err != nil {
		return "", "", fmt.Errorf("claim document %s: %w", docID, err)
	}
	if len(v) != 2 {
		return "", "", fmt.Errorf("claim document %s: unexpected answer %v", docID, v)
	}
	return v[0], v[1], nil
}

// releaseVersionScript removes a claim that is all the record holds and
// gives the key back to the version it had. KEYS[1] doc:{t}:<id>; ARGV[1]
// the text hash, ARGV[2] the source key prefix src:{t}:, ARGV[3] the id.
var releaseVersionScript = goredis.NewScript(`
if redis.call('HGET', KEYS[1], 'text_hash') ~= ARGV[1] then return 0 end
local h = redis.call('HGETALL', KEYS[1])
local v = {}
for i = 1, #h, 2 do
  local k = h[i]
  if k ~= 'text_hash' and k ~= 'source_key' and k ~= 'prev' and k ~= 'supersedes' then return 0 end
  v[k] = h[i + 1]
end
if v.source_key then
  local sk = ARGV[2] .. v.source_key
  if redis.call('GET', sk) == ARGV[3] then
    if v.prev then redis.call('SET', sk, v.prev) else redis.call('DEL', sk) end
  end
end
return redis.call('DEL', KEYS[1])
`)

// ReleaseVersion undoes a "new" ClaimVersion of a document that was never
// published: the claim is removed when nothing was stored under the id
// since, and the key points again at the version it pointed at.
func (s *Chunks) ReleaseVersion(ctx context.Context, tenant, docID, textHash string) error {
	err := releaseVersionScript.Run(ctx, s.c, []string{docKey(tenant, docID)}, textHash, srcKey(tenant, ""), docID).Err()
	if err != nil {
		return fmt.Errorf("release document %s: %w", docID, err)
	}
	return nil
}

// CurrentVersion returns the current document id of a version key (a
// source), "" when the key is unknown.
func (s *Chunks) CurrentVersion(ctx context.Context, tenant, key string) (string, error) {
	id, err := s.c.Get(ctx, srcKey(tenant, key)).Result()
	if errors.Is(err, goredis.Nil) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read the current version of %s: %w", key, err)
	}
	return id, nil
}

// markScript sets the retraction mark of a document unless it has one.
// KEYS[1] doc:{t}:<id>; ARGV[1] time, ARGV[2] reason, ARGV[3] superseded
// by. Returns nil for an unknown document, else the mark it holds and the
// document's source and version key.
var markScript = goredis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local m = redis.call('HMGET', KEYS[1], 'retracted', 'retract_reason', 'superseded_by', 'source', 'source_key')
if not m[1] then
  m[1], m[2], m[3] = ARGV[1], ARGV[2], ARGV[3]
  local f = {'retracted', ARGV[1], 'retract_reason', ARGV[2]}
  if ARGV[3] ~= '' then
    f[#f + 1] = 'superseded_by'
    f[#f + 1] = ARGV[3]
  end
  redis.call('HSET', KEYS[1], unpack(f))
end
return {m[1], m[2] or '', m[3] or '', m[4] or '', m[5] or ''}
`)

// MarkRetracted sets the retraction mark (fields retracted, the time
// r.At; retract_reason; superseded_by) of document r.DocID unless it has
// one, and returns the mark the document holds: r's, or the first one
// when it was retracted before (a retraction is never re-dated or
// re-reasoned). found is false for an unknown document, which is left
// without a record. The mark is what every write of the document's
// derived state checks (PutDocument here, the knowledge graph's scripts,
// the embedder after its upserts).
func (s *Chunks) MarkRetracted(ctx context.Context, tenant string, r schemas.Retraction) (schemas.Retraction, bool, error) {
	v, err := markScript.Run(ctx, s.c, []string{docKey(tenant, r.DocID)}, r.At, r.Reason, r.SupersededBy).StringSlice()
	if errors.Is(err, goredis.Nil) {
		return schemas.Retraction{}, false, nil
	}
	if err != nil {
		return schemas.Retraction{}, false, fmt.Errorf("mark document %s retracted: %w", r.DocID, err)
	}
	if len(v) != 5 {
		return schemas.Retraction{}, false, fmt.Errorf("mark document %s retracted: unexpected answer %v", r.DocID, v)
	}
	out := schemas.Retraction{DocID: r.DocID, At: v[0], Reason: v[1], SupersededBy: v[2], Source: v[3]}
	if out.Source == "" && v[4] != r.DocID {
		out.Source = v[4]
	}
	if out.Source == "" {
		out.Source = r.Source
	}
	return out, true, nil
}

// RetractedDocs reports which of docIDs are marked retracted.
func (s *Chunks) RetractedDocs(ctx context.Context, tenant string, docIDs []string) (map[string]bool, error) {
	if len(docIDs) == 0 {
		return nil, nil
	}
	p := s.c.Pipeline()
	cmds := make([]*goredis.BoolCmd, len(docIDs))
	for i, id := range docIDs {
		cmds[i] = p.HExists(ctx, docKey(tenant, id), "retracted")
	}
	if _, err := p.Exec(ctx); err != nil {
		return nil, fmt.Errorf("read the retraction marks of %d documents: %w", len(docIDs), err)
	}
	out := make(map[string]bool, len(docIDs))
	for i, c := range cmds {
		if c.Val() {
			out[docIDs[i]] = true
		}
	}
	return out, nil
}
