// Package milvus is the Milvus adapter of the vector store
// (vectors.Store), on the current Go client
// github.com/milvus-io/milvus/client/v2 (milvusclient). The older
// github.com/milvus-io/milvus-sdk-go/v2 is archived upstream and must not be
// used beside it.
//
// Each tenant gets its own collection, named CollectionPrefix plus the
// tenant name made safe for Milvus. The schema is chunk_id (VarChar primary
// key), doc_id (VarChar) and vector (FloatVector of the embedder's
// dimension), with an HNSW index over the configured metric (COSINE by
// default). A missing collection is created, indexed and loaded on the
// first upsert; an existing one is checked for the dimension and loaded if
// it is not. Writes are upserts by chunk id, so redelivered chunks replace
// their vectors. Reads use Strong consistency by default: a count or a
// search right after an upsert sees it.
package milvus

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/status"

	"github.com/annalist-dev/annalist/internal/ports/vectors"

	"github.com/milvus-io/milvus/client/v2/entity"
	"github.com/milvus-io/milvus/client/v2/index"
	"github.com/milvus-io/milvus/client/v2/milvusclient"

	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
)

// Field names of every collection.
const (
	FieldChunkID = "chunk_id"
	FieldDocID   = "doc_id"
	FieldVector  = "vector"
)

// Defaults of Config.
const (
	DefaultAddress          = "localhost:19530"
	DefaultCollectionPrefix = "annalist_"
	DefaultMetric           = "COSINE"
	DefaultM                = 16
	DefaultEfConstruction   = 200
	DefaultEfSearch         = 128
	DefaultTimeout          = 30 * time.Second
	DefaultChunkIDMaxLength = 256
	DefaultDocIDMaxLength   = 512
)

// EnvAddress is the environment variable ApplyEnv reads the address from.
const EnvAddress = "MILVUS_ADDR"

// Config configures the adapter. Zero fields take the defaults above.
type Config struct {
	// Address is host:port of Milvus (or an http(s):// URL).
	Address  string
	Username string
	Password string
	APIKey   string
	// DBName is the Milvus database; empty is Milvus's default database.
	DBName string
	// CollectionPrefix starts every collection name; it must start with a
	// letter or an underscore.
	CollectionPrefix string
	// Dim is the vector dimension of new collections; 0 means the length
	// of the first vector upserted.
	Dim int
	// Metric is COSINE or IP; with normalised vectors they rank alike.
	Metric string
	// M and EfConstruction build the HNSW index, EfSearch is used by
	// queries (raised to k when k is larger).
	M, EfConstruction, EfSearch int
	// Timeout bounds every call to Milvus, collection set-up included.
	Timeout time.Duration
	// Consistency of reads; the zero value is Strong.
	Consistency entity.ConsistencyLevel
}

// RegisterFlags registers the adapter's flags on fs.
func (c *Config) RegisterFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.Address, "milvus-addr", c.Address, "Milvus address host:port (env "+EnvAddress+")")
	fs.StringVar(&c.DBName, "milvus-db", c.DBName, "Milvus database")
	fs.StringVar(&c.CollectionPrefix, "milvus-collection-prefix", c.CollectionPrefix, "prefix of the per-tenant collections (default "+DefaultCollectionPrefix+")")
	fs.StringVar(&c.Metric, "milvus-metric", c.Metric, "COSINE or IP (default COSINE)")
	fs.DurationVar(&c.Timeout, "milvus-timeout", c.Timeout, "timeout of one Milvus call (default 30s)")
}

// ApplyEnv overrides the address with MILVUS_ADDR when it is set.
func (c *Config) ApplyEnv(getenv func(string) string) {
	if v := getenv(EnvAddress); v != "" {
		c.Address = v
	}
}

func (c Config) withDefaults() Config {
	if c.Address == "" {
		c.Address = DefaultAddress
	}
	if c.CollectionPrefix == "" {
		c.CollectionPrefix = DefaultCollectionPrefix
	}
	if c.Metric == "" {
		c.Metric = DefaultMetric
	}
	c.Metric = strings.ToUpper(c.Metric)
	if c.M == 0 {
		c.M = DefaultM
	}
	if c.EfConstruction == 0 {
		c.EfConstruction = DefaultEfConstruction
	}
	if c.EfSearch == 0 {
		c.EfSearch = DefaultEfSearch
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	return c
}

// Validate reports a configuration the adapter cannot run with.
func (c Config) Validate() error {
	c = c.withDefaults()
	switch {
	case c.Metric != string(entity.COSINE) && c.Metric != string(entity.IP):
		return fmt.Errorf("milvus config: metric %q (want COSINE or IP: scores must grow with similarity)", c.Metric)
	case !validName(c.CollectionPrefix) || len(c.CollectionPrefix) > 64:
		return fmt.Errorf("milvus config: collection prefix %q must start with a letter or '_' and hold only letters, digits and '_'", c.CollectionPrefix)
	case c.Dim < 0 || c.M < 0 || c.EfConstruction < 0 || c.EfSearch < 0 || c.Timeout < 0:
		return errors.New("milvus config: dimension, index parameters and timeout must not be negative")
	}
	return nil
}

// Store is an vectors.Store on Milvus. Safe for concurrent use.
type Store struct {
	cli *milvusclient.Client
	cfg Config

	mu    sync.Mutex
	ready map[string]int // collection → dimension, for collections set up
}

var _ vectors.Store = (*Store)(nil)

// clientKeepalive replaces the client's default keepalive, which pings
// every 5 s even with no call in flight. gRPC servers allow that only when
// configured to: Milvus Lite (a Python gRPC server, default policy: no
// ping without data more often than every 5 minutes) answers an idle
// connection's third ping with GOAWAY "too_many_pings" and the client
// reconnects. Pinging only while a call is in flight, every 30 s, still
// finds a dead connection under a slow call, and calls have their own
// deadline (Config.Timeout).
var clientKeepalive = keepalive.ClientParameters{Time: 30 * time.Second, Timeout: 10 * time.Second, PermitWithoutStream: false}

// New connects to Milvus. The caller closes the store.
func New(ctx context.Context, cfg Config) (*Store, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	cctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	cli, err := milvusclient.New(cctx, &milvusclient.ClientConfig{
		Address: cfg.Address, Username: cfg.Username, Password: cfg.Password,
		APIKey: cfg.APIKey, DBName: cfg.DBName,
		DialOptions: []grpc.DialOption{grpc.WithKeepaliveParams(clientKeepalive)},
	})
	if err != nil {
		return nil, fmt.Errorf("connect to milvus at %s: %w", cfg.Address, err)
	}
	return &Store{cli: cli, cfg: cfg, ready: make(map[string]int)}, nil
}

// Close closes the connection.
func (s *Store) Close(ctx context.Context) error { return s.cli.Close(ctx) }

// Collection is the collection name of a tenant: the prefix, then the
// tenant with every character Milvus does not allow replaced by '_'. When
// anything was replaced (or the name is long) a hash of the tenant is
// appended, so "a-b" and "a_b" stay apart.
func (s *Store) Collection(tenant string) string {
	if tenant == "" {
		tenant = schemas.DefaultTenant
	}
	var b strings.Builder
	changed := false
	for _, r := range tenant {
		if r < 128 && (r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
			changed = true
		}
	}
	name := b.String()
	if len(name) > 120 {
		name, changed = name[:120], true
	}
	if changed {
		sum := sha256.Sum256([]byte(tenant))
		name += "_" + hex.EncodeToString(sum[:6])
	}
	return s.cfg.CollectionPrefix + name
}

func validName(n string) bool {
	if n == "" {
		return false
	}
	for i, r := range n {
		letter := r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
		if !letter && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return true
}

// Upsert stores items by chunk id. Within one call the last item of an id
// wins (Milvus rejects duplicate keys in one request). Vectors of the
// wrong dimension or with a NaN or infinite component, and empty or too
// long ids, fail the whole call with a permanent error. Items are checked
// before any call to Milvus, so a rejected first upsert into a tenant does
// not create its collection with the dimension of a vector it refused.
func (s *Store) Upsert(ctx context.Context, tenant string, items []vectors.Item) (err error) {
	coll := s.Collection(tenant)
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("milvus upsert into %s: %w", coll, err)
	}
	if len(items) == 0 {
		return nil
	}
	items = lastPerID(items)
	dim := s.cfg.Dim
	if dim == 0 {
		dim = len(items[0].Vector)
	}
	ids := make([]string, len(items))
	docs := make([]string, len(items))
	vecs := make([][]float32, len(items))
	for i, it := range items {
		if len(it.Vector) != dim {
			return pipeline.Permanent(fmt.Errorf("milvus upsert %s into %s: %w: got %d, want %d",
				it.ChunkID, coll, vectors.ErrDimension, len(it.Vector), dim))
		}
		if it.ChunkID == "" || len(it.ChunkID) > DefaultChunkIDMaxLength || len(it.DocID) > DefaultDocIDMaxLength {
			return pipeline.Permanent(fmt.Errorf("milvus upsert into %s: chunk id %q or its doc id is empty or too long", coll, it.ChunkID))
		}
		if !finite(it.Vector) {
			return pipeline.Permanent(fmt.Errorf("milvus upsert %s into %s: NaN or infinite component", it.ChunkID, coll))
		}
		ids[i], docs[i], vecs[i] = it.ChunkID, it.DocID, it.Vector
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	defer func() { err = contextError(ctx, err) }()
	got, err := s.ensure(ctx, coll, dim, true)
	if err != nil {
		return err
	}
	if got != dim {
		return pipeline.Permanent(fmt.Errorf("milvus upsert into %s: %w: got %d, collection holds %d",
			coll, vectors.ErrDimension, dim, got))
	}
	opt := milvusclient.NewColumnBasedInsertOption(coll).
		WithVarcharColumn(FieldChunkID, ids).
		WithVarcharColumn(FieldDocID, docs).
		WithFloatVectorColumn(FieldVector, dim, vecs)
	res, err := s.cli.Upsert(ctx, opt)
	if err != nil {
		return fmt.Errorf("milvus upsert %d vectors into %s: %w", len(items), coll, err)
	}
	if int(res.UpsertCount) != len(items) {
		return fmt.Errorf("milvus upsert %d vectors into %s: %d upserted", len(items), coll, res.UpsertCount)
	}
	return nil
}

// Search returns the k nearest chunks, best first. A tenant without a
// collection has no hits.
func (s *Store) Search(ctx context.Context, tenant string, vec []float32, k int) (_ []vectors.Hit, err error) {
	coll := s.Collection(tenant)
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("milvus search %s: %w", coll, err)
	}
	if k <= 0 {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	defer func() { err = contextError(ctx, err) }()
	dim, err := s.ensure(ctx, coll, 0, false)
	if err != nil || dim == 0 {
		return nil, err
	}
	if len(vec) != dim {
		return nil, pipeline.Permanent(fmt.Errorf("milvus search %s: %w: query has %d, collection %d", coll, vectors.ErrDimension, len(vec), dim))
	}
	if !finite(vec) {
		return nil, pipeline.Permanent(fmt.Errorf("milvus search %s: NaN or infinite component in the query", coll))
	}
	opt := milvusclient.NewSearchOption(coll, k, []entity.Vector{entity.FloatVector(vec)}).
		WithANNSField(FieldVector).
		WithAnnParam(index.NewHNSWAnnParam(max(s.cfg.EfSearch, k))).
		WithConsistencyLevel(s.cfg.Consistency)
	rs, err := s.cli.Search(ctx, opt)
	if err != nil {
		return nil, fmt.Errorf("milvus search %s: %w", coll, err)
	}
	if len(rs) != 1 {
		return nil, fmt.Errorf("milvus search %s: %d result sets for one query", coll, len(rs))
	}
	r := rs[0]
	if r.Err != nil {
		return nil, fmt.Errorf("milvus search %s: %w", coll, r.Err)
	}
	if r.IDs == nil || r.IDs.Len() != r.ResultCount || len(r.Scores) != r.ResultCount {
		return nil, fmt.Errorf("milvus search %s: malformed result (%d results)", coll, r.ResultCount)
	}
	hits := make([]vectors.Hit, r.ResultCount)
	for i := range hits {
		id, err := r.IDs.GetAsString(i)
		if err != nil {
			return nil, fmt.Errorf("milvus search %s: result %d: %w", coll, i, err)
		}
		hits[i] = vectors.Hit{ChunkID: id, Score: r.Scores[i]}
	}
	return hits, nil
}

// Count is the number of chunks in the tenant's collection (count(*)).
func (s *Store) Count(ctx context.Context, tenant string) (_ int, err error) {
	coll := s.Collection(tenant)
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("milvus count %s: %w", coll, err)
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	defer func() { err = contextError(ctx, err) }()
	dim, err := s.ensure(ctx, coll, 0, false)
	if err != nil || dim == 0 {
		return 0, err
	}
	rs, err := s.cli.Query(ctx, milvusclient.NewQueryOption(coll).
		WithOutputFields("count(*)").WithConsistencyLevel(s.cfg.Consistency))
	if err != nil {
		return 0, fmt.Errorf("milvus count %s: %w", coll, err)
	}
	col := rs.GetColumn("count(*)")
	if col == nil || col.Len() != 1 {
		return 0, fmt.Errorf("milvus count %s: no count(*) in the answer", coll)
	}
	n, err := col.GetAsInt64(0)
	if err != nil {
		return 0, fmt.Errorf("milvus count %s: %w", coll, err)
	}
	return int(n), nil
}

// Delete removes the vectors of chunkIDs from the tenant's collection by
// primary key (an expression "chunk_id in [...]"). A tenant without a
// collection holds nothing to delete, and Milvus deletes by expression, so
// ids it does not hold are no error.
func (s *Store) Delete(ctx context.Context, tenant string, chunkIDs []string) (err error) {
	coll := s.Collection(tenant)
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("milvus delete from %s: %w", coll, err)
	}
	if len(chunkIDs) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	defer func() { err = contextError(ctx, err) }()
	dim, err := s.ensure(ctx, coll, 0, false)
	if err != nil || dim == 0 {
		return err
	}
	if _, err := s.cli.Delete(ctx, milvusclient.NewDeleteOption(coll).WithExpr(inExpr(FieldChunkID, chunkIDs))); err != nil {
		return fmt.Errorf("milvus delete %d vectors from %s: %w", len(chunkIDs), coll, err)
	}
	return nil
}

// inExpr is the boolean expression "field in [ids]" with every id a
// double-quoted string literal. The client's own WithStringIDs quotes
// without escaping, which an id holding a quote or a backslash would break.
func inExpr(field string, ids []string) string {
	var b strings.Builder
	b.WriteString(field)
	b.WriteString(" in [")
	for i, id := range ids {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('"')
		for _, r := range id {
			if r == '"' || r == '\\' {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		}
		b.WriteByte('"')
	}
	b.WriteByte(']')
	return b.String()
}

// DropTenant drops the tenant's collection and everything in it.
func (s *Store) DropTenant(ctx context.Context, tenant string) (err error) {
	coll := s.Collection(tenant)
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	defer func() { err = contextError(ctx, err) }()
	s.mu.Lock()
	delete(s.ready, coll)
	s.mu.Unlock()
	if err := s.cli.DropCollection(ctx, milvusclient.NewDropCollectionOption(coll)); err != nil {
		return fmt.Errorf("milvus drop %s: %w", coll, err)
	}
	return nil
}

// ensure makes coll ready and returns its dimension: created (with dim),
// indexed and loaded when missing and create is set; checked and loaded
// when it exists. It returns 0 for a missing collection when create is not
// set. Collections found ready are remembered, so the round trips happen
// once per collection and process.
func (s *Store) ensure(ctx context.Context, coll string, dim int, create bool) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d, ok := s.ready[coll]; ok {
		return d, nil
	}
	has, err := s.cli.HasCollection(ctx, milvusclient.NewHasCollectionOption(coll))
	if err != nil {
		return 0, fmt.Errorf("milvus find collection %s: %w", coll, err)
	}
	if !has {
		if !create {
			return 0, nil
		}
		if err := s.create(ctx, coll, dim); err != nil {
			// Another replica may have created it meanwhile; if so, use it.
			if again, herr := s.cli.HasCollection(ctx, milvusclient.NewHasCollectionOption(coll)); herr != nil || !again {
				return 0, err
			}
		}
	}
	desc, err := s.cli.DescribeCollection(ctx, milvusclient.NewDescribeCollectionOption(coll))
	if err != nil {
		return 0, fmt.Errorf("milvus describe %s: %w", coll, err)
	}
	got, err := vectorDim(desc)
	if err != nil {
		return 0, fmt.Errorf("milvus collection %s: %w", coll, err)
	}
	if create && dim != got {
		return 0, pipeline.Permanent(fmt.Errorf("milvus collection %s: %w: it holds %d, the embedder makes %d",
			coll, vectors.ErrDimension, got, dim))
	}
	state, err := s.cli.GetLoadState(ctx, milvusclient.NewGetLoadStateOption(coll))
	if err != nil {
		return 0, fmt.Errorf("milvus load state of %s: %w", coll, err)
	}
	if state.State != entity.LoadStateLoaded {
		task, err := s.cli.LoadCollection(ctx, milvusclient.NewLoadCollectionOption(coll))
		if err != nil {
			return 0, fmt.Errorf("milvus load %s: %w", coll, err)
		}
		if err := task.Await(ctx); err != nil {
			return 0, fmt.Errorf("milvus load %s: %w", coll, err)
		}
	}
	s.ready[coll] = got
	return got, nil
}

// create makes the collection and its index. Loading is left to ensure.
func (s *Store) create(ctx context.Context, coll string, dim int) error {
	if dim <= 0 {
		return pipeline.Permanent(fmt.Errorf("milvus create %s: dimension %d", coll, dim))
	}
	schema := entity.NewSchema().WithName(coll).
		WithDescription("annalist chunk vectors").
		WithField(entity.NewField().WithName(FieldChunkID).WithDataType(entity.FieldTypeVarChar).
			WithMaxLength(DefaultChunkIDMaxLength).WithIsPrimaryKey(true)).
		WithField(entity.NewField().WithName(FieldDocID).WithDataType(entity.FieldTypeVarChar).
			WithMaxLength(DefaultDocIDMaxLength)).
		WithField(entity.NewField().WithName(FieldVector).WithDataType(entity.FieldTypeFloatVector).
			WithDim(int64(dim)))
	if err := s.cli.CreateCollection(ctx, milvusclient.NewCreateCollectionOption(coll, schema)); err != nil {
		return fmt.Errorf("milvus create %s: %w", coll, err)
	}
	idx := index.NewHNSWIndex(entity.MetricType(s.cfg.Metric), s.cfg.M, s.cfg.EfConstruction)
	task, err := s.cli.CreateIndex(ctx, milvusclient.NewCreateIndexOption(coll, FieldVector, idx))
	if err != nil {
		return fmt.Errorf("milvus index %s: %w", coll, err)
	}
	if err := task.Await(ctx); err != nil {
		return fmt.Errorf("milvus index %s: %w", coll, err)
	}
	return nil
}

func vectorDim(c *entity.Collection) (int, error) {
	if c == nil || c.Schema == nil {
		return 0, errors.New("no schema")
	}
	for _, f := range c.Schema.Fields {
		if f.Name == FieldVector {
			if f.DataType != entity.FieldTypeFloatVector {
				return 0, fmt.Errorf("field %s is %v, not a float vector", FieldVector, f.DataType)
			}
			d, err := f.GetDim()
			if err != nil {
				return 0, err
			}
			return int(d), nil
		}
	}
	return 0, fmt.Errorf("no %s field", FieldVector)
}

// contextError makes err match ctx's error under errors.Is when ctx ended
// before the call returned. The client reports a cancelled or timed-out
// RPC as a gRPC status, which does not match context.Canceled or
// context.DeadlineExceeded, and a caller must be able to tell its own
// cancellation from a failure of Milvus.
//
// The server may give up first: the deadline travels with the call, and
// the server's copy can expire a moment before the caller's timer fires,
// so a DeadlineExceeded (or Canceled) status counts as the context's end
// even while ctx.Err() is still nil.
func contextError(ctx context.Context, err error) error {
	cerr := ctx.Err()
	if cerr == nil {
		switch status.Code(err) {
		case codes.DeadlineExceeded:
			cerr = context.DeadlineExceeded
		case codes.Canceled:
			cerr = context.Canceled
		}
	}
	if err == nil || cerr == nil || errors.Is(err, cerr) {
		return err
	}
	return fmt.Errorf("%w: %w", cerr, err)
}

// finite reports whether v has no NaN or infinite component. Milvus
// rejects such vectors itself, but with a server error the runtime would
// retry; checked here, the rejection is permanent.
func finite(v []float32) bool {
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return false
		}
	}
	return true
}

// lastPerID keeps, for every chunk id, its last item, in first-seen order.
func lastPerID(items []vectors.Item) []vectors.Item {
	pos := make(map[string]int, len(items))
	out := make([]vectors.Item, 0, len(items))
	for _, it := range items {
		if i, ok := pos[it.ChunkID]; ok {
			out[i] = it
			continue
		}
		pos[it.ChunkID] = len(out)
		out = append(out, it)
	}
	return out
}
