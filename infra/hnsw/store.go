package hnsw

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/annalist-dev/annalist/internal/ports/vectors"

	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
)

// DefaultSnapshotEvery is the least number of log records after which a
// snapshot is written when Config.SnapshotEvery is zero (see maybeSnapshot).
// Replaying a record costs one insertion.
const DefaultSnapshotEvery = 4096

const (
	snapFile = "index.snap"
	logFile  = "index.log"
	lockFile = "LOCK"
)

// ErrClosed is returned by a Store used after Close.
var ErrClosed = errors.New("vector store is closed")

// Config configures a Store. The zero value is an in-memory store with the
// default index parameters.
type Config struct {
	// Dir holds one sub-directory per tenant. Empty means nothing is
	// persisted.
	Dir string
	// Params tunes the HNSW graph of every tenant.
	Params Params
	// SnapshotEvery is the least number of log records that triggers a
	// snapshot (a quarter of the live vectors when that is more); 0 means
	// DefaultSnapshotEvery.
	SnapshotEvery int
	// NoSync skips the fsync of the log after each write: faster, but a
	// machine crash (not a process crash) may lose acknowledged writes.
	// For tests and benchmarks.
	NoSync bool
}

// RegisterFlags registers the index flags on fs, with c's current values
// as defaults. Dir is left to the caller, which derives it from its data
// directory.
func (c *Config) RegisterFlags(fs *flag.FlagSet) {
	fs.IntVar(&c.Params.M, "vector-m", c.Params.M, "HNSW links per node (0 = 32)")
	fs.IntVar(&c.Params.EfConstruction, "vector-ef-construction", c.Params.EfConstruction, "HNSW candidate list while inserting (0 = 100)")
	fs.IntVar(&c.Params.EfSearch, "vector-ef-search", c.Params.EfSearch, "HNSW candidate list of a query (0 = 640)")
	fs.IntVar(&c.Params.ExactBelow, "vector-exact-below", c.Params.ExactBelow, "search exactly, without a graph, below this many vectors (0 = 20000, -1 = never)")
	fs.IntVar(&c.SnapshotEvery, "vector-snapshot-every", c.SnapshotEvery, "log records between snapshots, at least (0 = 4096)")
}

// Validate reports a configuration the store cannot run with.
func (c Config) Validate() error {
	if c.SnapshotEvery < 0 {
		return fmt.Errorf("vector store config: snapshot_every %d is negative", c.SnapshotEvery)
	}
	return c.Params.Validate()
}

// Store is an vectors.Store of one Index per tenant. A tenant's index is
// loaded from disk on first use. Safe for concurrent use.
type Store struct {
	cfg  Config
	lock *os.File

	mu      sync.Mutex
	tenants map[string]*tenant
	closed  bool
}

var _ vectors.Store = (*Store)(nil)

// tenant is one tenant's index and its files.
type tenant struct {
	dir string // "" for a memory-only store
	ix  atomic.Pointer[Index]

	// wmu orders writers: log records are appended in the order their
	// changes are applied, and a snapshot sees no write in progress.
	wmu     sync.Mutex
	log     *os.File
	logSize int64
	lsn     uint64 // last sequence number written
	pending int    // records in the log
	buf     []byte
	// broken is set when a failed append could not be undone; the tenant
	// refuses writes until it is reopened from disk.
	broken error
}

// Open returns a store; with a Dir it creates the directory and takes its
// lock. The caller closes the store.
func Open(cfg Config) (*Store, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.SnapshotEvery == 0 {
		cfg.SnapshotEvery = DefaultSnapshotEvery
	}
	s := &Store{cfg: cfg, tenants: make(map[string]*tenant)}
	if cfg.Dir != "" {
		if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
			return nil, fmt.Errorf("open vector store %s: %w", cfg.Dir, err)
		}
		lock, err := lockDir(filepath.Join(cfg.Dir, lockFile))
		if err != nil {
			return nil, fmt.Errorf("open vector store %s: %w", cfg.Dir, err)
		}
		s.lock = lock
	}
	return s, nil
}

// Upsert stores items under their chunk ids; see the package comment for
// when they are durable. Invalid vectors (wrong dimension, NaN) fail the
// whole call with a permanent error and change nothing.
func (s *Store) Upsert(ctx context.Context, tenantName string, items []vectors.Item) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(items) == 0 {
		return nil
	}
	t, err := s.tenant(tenantName, true)
	if err != nil {
		return err
	}
	t.wmu.Lock()
	defer t.wmu.Unlock()
	ix := t.ix.Load()
	if err := ix.Check(items); err != nil {
		return pipeline.Permanent(fmt.Errorf("upsert into tenant %s: %w", tenantName, err))
	}
	if t.dir != "" {
		t.buf = t.buf[:0]
		for _, it := range items {
			t.lsn++
			t.buf = appendRecord(t.buf, record{op: opUpsert, lsn: t.lsn, id: it.ChunkID, doc: it.DocID, vec: it.Vector})
		}
		if err := s.appendLog(t); err != nil {
			t.lsn -= uint64(len(items))
			return fmt.Errorf("upsert into tenant %s: %w", tenantName, err)
		}
		t.pending += len(items)
	}
	if err := ix.Add(items); err != nil {
		return fmt.Errorf("upsert into tenant %s: %w", tenantName, err)
	}
	return s.maybeSnapshot(t)
}

// Delete removes ids from a tenant; ids not present are ignored.
func (s *Store) Delete(ctx context.Context, tenantName string, ids []string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(ids) == 0 {
		return nil
	}
	t, err := s.tenant(tenantName, false)
	if err != nil || t == nil {
		return err
	}
	t.wmu.Lock()
	defer t.wmu.Unlock()
	if t.dir != "" {
		t.buf = t.buf[:0]
		for _, id := range ids {
			t.lsn++
			t.buf = appendRecord(t.buf, record{op: opDelete, lsn: t.lsn, id: id})
		}
		if err := s.appendLog(t); err != nil {
			t.lsn -= uint64(len(ids))
			return fmt.Errorf("delete from tenant %s: %w", tenantName, err)
		}
		t.pending += len(ids)
	}
	ix := t.ix.Load()
	for _, id := range ids {
		ix.Delete(id)
	}
	return s.maybeSnapshot(t)
}

// Search returns the k chunks closest to vec in the tenant, best first,
// scored by cosine similarity.
func (s *Store) Search(ctx context.Context, tenantName string, vec []float32, k int) ([]vectors.Hit, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	t, err := s.tenant(tenantName, false)
	if err != nil || t == nil {
		return nil, err
	}
	hits, err := t.ix.Load().Search(vec, k)
	if err != nil {
		return nil, pipeline.Permanent(fmt.Errorf("search tenant %s: %w", tenantName, err))
	}
	return hits, nil
}

// Count is the number of chunks stored for the tenant.
func (s *Store) Count(ctx context.Context, tenantName string) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	t, err := s.tenant(tenantName, false)
	if err != nil || t == nil {
		return 0, err
	}
	return t.ix.Load().Len(), nil
}

// Index returns the tenant's index (loading it when needed), or nil when the
// tenant has none. For measurements and inspection; writes must go through
// the Store to be persisted.
func (s *Store) Index(tenantName string) (*Index, error) {
	t, err := s.tenant(tenantName, false)
	if err != nil || t == nil {
		return nil, err
	}
	return t.ix.Load(), nil
}

// Tenants lists the tenants the store holds, loaded or on disk, sorted.
func (s *Store) Tenants() ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	seen := make(map[string]bool)
	for name := range s.tenants {
		seen[name] = true
	}
	if s.cfg.Dir != "" {
		entries, err := os.ReadDir(s.cfg.Dir)
		if err != nil {
			return nil, fmt.Errorf("list tenants in %s: %w", s.cfg.Dir, err)
		}
		for _, e := range entries {
			if name, ok := decodeTenant(e.Name()); ok && e.IsDir() {
				seen[name] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for name := range seen {
		out = append(out, name)
	}
	sort.Strings(out)
	return out, nil
}

// Snapshot writes a snapshot of every loaded tenant with unsnapshotted
// changes and empties their logs. An index whose tombstones outnumber its
// live vectors (and number at least 1,024) is rebuilt without them first.
func (s *Store) Snapshot() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return ErrClosed
	}
	ts := make([]*tenant, 0, len(s.tenants))
	for _, t := range s.tenants {
		ts = append(ts, t)
	}
	s.mu.Unlock()
	var errs []error
	for _, t := range ts {
		t.wmu.Lock()
		if t.log != nil && t.pending > 0 && t.broken == nil {
			errs = append(errs, t.snapshot())
		}
		t.wmu.Unlock()
	}
	return errors.Join(errs...)
}

// Close snapshots every tenant with pending changes, closes the files and
// releases the directory lock. The store is unusable afterwards; closing it
// again does nothing. A failed snapshot is reported, and its changes are
// still in the log for the next Open.
func (s *Store) Close() error {
	err := s.Snapshot()
	if errors.Is(err, ErrClosed) {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	errs := []error{err}
	for _, t := range s.tenants {
		t.wmu.Lock()
		if t.log != nil {
			errs = append(errs, t.log.Close())
			t.log = nil
		}
		t.wmu.Unlock()
	}
	if s.lock != nil {
		errs = append(errs, unlockDir(s.lock))
	}
	return errors.Join(errs...)
}

// tenant returns the named tenant, loading it from disk on first use. With
// create false it returns nil for a tenant that has nothing stored.
func (s *Store) tenant(name string, create bool) (*tenant, error) {
	if name == "" {
		name = schemas.DefaultTenant
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	if t, ok := s.tenants[name]; ok {
		return t, nil
	}
	t := &tenant{}
	if s.cfg.Dir != "" {
		t.dir = filepath.Join(s.cfg.Dir, encodeTenant(name))
		if _, err := os.Stat(t.dir); errors.Is(err, os.ErrNotExist) && !create {
			return nil, nil
		}
		if err := s.load(t); err != nil {
			return nil, fmt.Errorf("load vectors of tenant %s: %w", name, err)
		}
	} else {
		if !create {
			return nil, nil
		}
		ix, err := NewIndex(0, s.cfg.Params)
		if err != nil {
			return nil, err
		}
		t.ix.Store(ix)
	}
	s.tenants[name] = t
	return t, nil
}

// load reads a tenant's snapshot and replays its log.
func (s *Store) load(t *tenant) error {
	if err := os.MkdirAll(t.dir, 0o755); err != nil {
		return err
	}
	var ix *Index
	var snapLSN uint64
	f, err := os.Open(filepath.Join(t.dir, snapFile))
	switch {
	case err == nil:
		st, err := f.Stat()
		if err != nil {
			f.Close()
			return err
		}
		ix, snapLSN, err = readSnapshot(f, st.Size(), s.cfg.Params)
		f.Close()
		if err != nil {
			return fmt.Errorf("read %s: %w", f.Name(), err)
		}
	case errors.Is(err, os.ErrNotExist):
		if ix, err = NewIndex(0, s.cfg.Params); err != nil {
			return err
		}
	default:
		return err
	}

	logf, err := os.OpenFile(filepath.Join(t.dir, logFile), os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	recs, good, err := readLog(logf)
	if err != nil {
		logf.Close()
		return fmt.Errorf("read %s: %w", logf.Name(), err)
	}
	if st, err := logf.Stat(); err == nil && st.Size() > good {
		// A torn tail: the write that made it never returned.
		if err := logf.Truncate(good); err != nil {
			logf.Close()
			return fmt.Errorf("truncate torn tail of %s: %w", logf.Name(), err)
		}
		if err := logf.Sync(); err != nil {
			logf.Close()
			return err
		}
	}
	t.lsn = snapLSN
	for _, r := range recs {
		if r.lsn <= snapLSN {
			continue
		}
		switch r.op {
		case opUpsert:
			if err := ix.Upsert(r.id, r.doc, r.vec); err != nil {
				logf.Close()
				return fmt.Errorf("replay %s record %d: %w", logf.Name(), r.lsn, err)
			}
		case opDelete:
			ix.Delete(r.id)
		}
		t.lsn = max(t.lsn, r.lsn)
		t.pending++
	}
	t.log, t.logSize = logf, good
	t.ix.Store(ix)
	return nil
}

// appendLog writes t.buf to the log and syncs it. On failure it cuts the
// log back to its previous size so no unacknowledged record stays.
func (s *Store) appendLog(t *tenant) error {
	if t.broken != nil {
		return t.broken
	}
	if t.log == nil {
		return ErrClosed
	}
	_, err := t.log.Write(t.buf)
	if err == nil && !s.cfg.NoSync {
		err = t.log.Sync()
	}
	if err != nil {
		if terr := t.log.Truncate(t.logSize); terr != nil {
			t.broken = fmt.Errorf("vector log %s is unusable after a failed write: %w", t.log.Name(), errors.Join(err, terr))
		}
		return fmt.Errorf("append to %s: %w", t.log.Name(), err)
	}
	t.logSize += int64(len(t.buf))
	return nil
}

// maybeSnapshot folds the log into a snapshot once it holds SnapshotEvery
// records or a quarter of the live vectors, whichever is more: a fixed
// threshold alone would rewrite a large index every few thousand inserts,
// the proportional one keeps the bytes written per insert bounded (about
// five times the index size in total) while replay after a crash costs at
// most a quarter of a rebuild.
func (s *Store) maybeSnapshot(t *tenant) error {
	if t.dir == "" || t.pending < max(s.cfg.SnapshotEvery, t.ix.Load().Len()/4) {
		return nil
	}
	// The write is durable in the log already: a failed snapshot is
	// retried at the next write or at Close, it does not fail this one.
	_ = t.snapshot()
	return nil
}

// snapshot writes the index and empties the log. The caller holds t.wmu.
func (t *tenant) snapshot() error {
	ix := t.ix.Load()
	if ix.needsCompaction() {
		rebuilt, err := ix.compacted()
		if err != nil {
			return err
		}
		t.ix.Store(rebuilt)
		ix = rebuilt
	}
	path := filepath.Join(t.dir, snapFile)
	err := writeFileAtomic(path, func(w io.Writer) error {
		ix.mu.RLock()
		defer ix.mu.RUnlock()
		return ix.writeSnapshot(w, t.lsn)
	})
	if err != nil {
		return fmt.Errorf("snapshot %s: %w", path, err)
	}
	// Records up to t.lsn are in the snapshot; a crash before the
	// truncation below replays them as no-ops.
	if err := t.log.Truncate(0); err != nil {
		return fmt.Errorf("empty %s: %w", t.log.Name(), err)
	}
	if err := t.log.Sync(); err != nil {
		return fmt.Errorf("empty %s: %w", t.log.Name(), err)
	}
	t.logSize, t.pending = 0, 0
	return nil
}

// needsCompaction reports whether tombstones outnumber live nodes by enough
// to make a rebuild worth its cost.
func (ix *Index) needsCompaction() bool {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	deadN := len(ix.ids) - ix.live
	return deadN >= 1024 && deadN > ix.live
}

// compacted rebuilds the graph from the live nodes, in insertion order.
func (ix *Index) compacted() (*Index, error) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	out, err := NewIndex(ix.dim, ix.p)
	if err != nil {
		return nil, err
	}
	for n := range uint32(len(ix.ids)) {
		if !ix.dead[n] {
			out.upsertLocked(ix.ids[n], ix.docs[n], ix.vector(n))
		}
	}
	return out, nil
}

// encodeTenant maps a tenant name to a directory name that is safe on any
// file system and reversible: letters, digits, '-' and '_' stay, every
// other byte becomes %XX. Very long names are cut and suffixed with a hash.
func encodeTenant(name string) string {
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	out := "t." + b.String()
	if len(out) > 200 {
		sum := sha256.Sum256([]byte(name))
		out = out[:160] + "~" + hex.EncodeToString(sum[:8])
	}
	return out
}

// decodeTenant inverts encodeTenant; it reports false for names it did not
// make (including cut long names, which are loaded by name only).
func decodeTenant(dir string) (string, bool) {
	rest, ok := strings.CutPrefix(dir, "t.")
	if !ok || strings.Contains(rest, "~") {
		return "", false
	}
	var b strings.Builder
	for i := 0; i < len(rest); i++ {
		if rest[i] != '%' {
			b.WriteByte(rest[i])
			continue
		}
		if i+2 >= len(rest) {
			return "", false
		}
		v, err := hex.DecodeString(rest[i+1 : i+3])
		if err != nil {
			return "", false
		}
		b.Write(v)
		i += 2
	}
	return b.String(), true
}
