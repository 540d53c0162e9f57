package redis

import (
	"context"
	"fmt"
	"strconv"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/annalist-dev/annalist/schemas"
)

// Chunks stores documents and chunks: doc:{t}:ID and chunk:{t}:ID hashes,
// plus the sets idx:{t}:docs and idx:{t}:chunks that count and list them.
// Every write is an upsert, so storing the same document twice changes
// nothing.
type Chunks struct{ c Client }

// NewChunks returns a store on c.
func NewChunks(c Client) *Chunks { return &Chunks{c: c} }

func docKey(t, id string) string   { return "doc:{" + t + "}:" + id }
func chunkKey(t, id string) string { return "chunk:{" + t + "}:" + id }
func docsIdx(t string) string      { return "idx:{" + t + "}:docs" }
func chunksIdx(t string) string    { return "idx:{" + t + "}:chunks" }

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
}

// PutDocument stores a document's metadata and all its chunks in one
// pipeline and marks the document as chunked.
func (s *Chunks) PutDocument(ctx context.Context, tenant string, doc schemas.Document, chunks []schemas.Chunk) error {
	p := s.c.Pipeline()
	chars := 0
	if n := len(chunks); n > 0 {
		chars = chunks[n-1].End
	}
	profile := doc.Profile
	if len(chunks) > 0 {
		profile = chunks[0].Profile
	}
	p.HSet(ctx, docKey(tenant, doc.DocID),
		"source", doc.Source, "title", doc.Title, "collection", doc.Collection,
		"profile", profile, "chars", chars, "chunks", len(chunks), "text_hash", schemas.TextHash(doc.Text),
		"stage:chunker", time.Now().UTC().Format(time.RFC3339))
	p.SAdd(ctx, docsIdx(tenant), doc.DocID)
	ids := make([]any, 0, len(chunks))
	for _, c := range chunks {
		p.HSet(ctx, chunkKey(tenant, c.ChunkID),
			"doc_id", c.DocID, "seq", c.Seq, "total", c.Total, "profile", c.Profile,
			"method", c.Method, "subject", c.Subject, "entry", c.Entry, "entry_chunk", c.EntryChunk,
			"start", c.Start, "end", c.End, "text", c.Text, "collection", c.Collection,
			"lang", c.Lang, "title", c.Title)
		ids = append(ids, c.ChunkID)
	}
	if len(ids) > 0 {
		p.SAdd(ctx, chunksIdx(tenant), ids...)
	}
	if _, err := p.Exec(ctx); err != nil {
		return fmt.Errorf("store document %s: %w", doc.DocID, err)
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
	}
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
