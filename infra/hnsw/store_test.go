package hnsw_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/internal/ports/vectors"

	"github.com/annalist-dev/annalist/infra/hnsw"
)

func openStore(t testing.TB, cfg hnsw.Config) *hnsw.Store {
	t.Helper()
	s, err := hnsw.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func items(from, to, dim int, seed uint64) []vectors.Item {
	vecs := randomVectors(to-from, dim, seed)
	out := make([]vectors.Item, len(vecs))
	for i, v := range vecs {
		out[i] = vectors.Item{ChunkID: fmt.Sprintf("c%05d", from+i), DocID: fmt.Sprintf("d%d", (from+i)/10), Vector: v}
	}
	return out
}

// answers records what a store answers to a fixed set of queries, to
// compare a store before and after a reopen.
func answers(t testing.TB, s *hnsw.Store, tenant string, queries [][]float32) [][]vectors.Hit {
	t.Helper()
	var out [][]vectors.Hit
	for _, q := range queries {
		h, err := s.Search(context.Background(), tenant, q, 5)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, h)
	}
	return out
}

// graphAnswers is answers through the graph with a small candidate list,
// where any difference in the graph shows.
func graphAnswers(t testing.TB, s *hnsw.Store, tenant string, queries [][]float32) [][]vectors.Hit {
	t.Helper()
	ix, err := s.Index(tenant)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]vectors.Hit
	for _, q := range queries {
		h, err := ix.SearchGraph(q, 5, 8)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, h)
	}
	return out
}

func sameAnswers(t testing.TB, a, b [][]vectors.Hit) {
	t.Helper()
	for i := range a {
		if !slices.Equal(a[i], b[i]) {
			t.Fatalf("query %d: %+v before, %+v after", i, a[i], b[i])
		}
	}
}

// copyDir copies a store directory as it is on disk at this moment: what a
// crash (kill -9, power loss after fsync) would leave behind.
func copyDir(t testing.TB, from, to string) {
	t.Helper()
	err := filepath.Walk(from, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if info.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Delete is the store's own addition to the port: removed ids are no
// longer counted or found, and ids or tenants that hold nothing are
// ignored.
func TestStoreDelete(t *testing.T) {
	for name, dir := range map[string]string{"memory": "", "disk": t.TempDir()} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			s := openStore(t, hnsw.Config{Dir: dir})
			defer s.Close()
			if err := s.Delete(ctx, "nobody", []string{"x"}); err != nil {
				t.Fatalf("delete from a tenant with nothing stored: %v", err)
			}
			its := items(0, 50, 8, 1)
			if err := s.Upsert(ctx, "t", its); err != nil {
				t.Fatal(err)
			}
			if err := s.Delete(ctx, "t", []string{its[7].ChunkID, "missing"}); err != nil {
				t.Fatal(err)
			}
			if n, _ := s.Count(ctx, "t"); n != 49 {
				t.Fatalf("count after delete = %d, want 49", n)
			}
			h, err := s.Search(ctx, "t", its[7].Vector, 3)
			if err != nil {
				t.Fatal(err)
			}
			for _, hit := range h {
				if hit.ChunkID == its[7].ChunkID {
					t.Fatalf("a deleted id is still found: %+v", h)
				}
			}
			cancelled, cancel := context.WithCancel(ctx)
			cancel()
			if err := s.Delete(cancelled, "t", []string{its[8].ChunkID}); !errors.Is(err, context.Canceled) {
				t.Fatalf("delete with a cancelled context: %v", err)
			}
			if n, _ := s.Count(ctx, "t"); n != 49 {
				t.Fatalf("count after a cancelled delete = %d, want 49", n)
			}
		})
	}
}

func TestStoreReopens(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	// The graph starts at 500 vectors, so snapshots and the log carry it.
	params := hnsw.Params{ExactBelow: 500}
	cfg := hnsw.Config{Dir: dir, SnapshotEvery: 700, Params: params}
	s := openStore(t, cfg)
	// 2,000 items in batches of 100: snapshots at 700 and 1400 records, the
	// rest in the log; then a change and a delete.
	all := items(0, 2000, 32, 2)
	for lo := 0; lo < len(all); lo += 100 {
		if err := s.Upsert(ctx, "default", all[lo:lo+100]); err != nil {
			t.Fatal(err)
		}
	}
	changed := items(5000, 5001, 32, 3)[0]
	changed.ChunkID = all[3].ChunkID
	if err := s.Upsert(ctx, "default", []vectors.Item{changed}); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, "default", []string{all[4].ChunkID}); err != nil {
		t.Fatal(err)
	}
	queries := append([][]float32{changed.Vector, all[3].Vector, all[4].Vector}, randomVectors(20, 32, 4)...)
	before := answers(t, s, "default", queries)
	beforeGraph := graphAnswers(t, s, "default", queries)

	// A crash: the directory as it is now, with the log not yet folded
	// into a snapshot.
	crashed := t.TempDir()
	copyDir(t, dir, crashed)
	if st, err := os.Stat(filepath.Join(crashed, "t.default", "index.log")); err != nil || st.Size() == 0 {
		t.Fatalf("the crash copy has no log to replay (%v)", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	for name, d := range map[string]string{"after close": dir, "after crash": crashed} {
		t.Run(name, func(t *testing.T) {
			s := openStore(t, hnsw.Config{Dir: d, Params: params})
			defer s.Close()
			if n, err := s.Count(ctx, "default"); n != 1999 || err != nil {
				t.Fatalf("count = %d, %v; want 1999", n, err)
			}
			sameAnswers(t, before, answers(t, s, "default", queries))
			// The snapshot keeps the graph and the level generator, and the
			// replay inserts in the same order: the same graph comes back.
			sameAnswers(t, beforeGraph, graphAnswers(t, s, "default", queries))
			h, _ := s.Search(ctx, "default", changed.Vector, 1)
			if h[0].ChunkID != all[3].ChunkID {
				t.Fatalf("the replaced vector was not kept: %+v", h)
			}
		})
	}
	if b, err := os.ReadFile(filepath.Join(dir, "t.default", "index.log")); err != nil || len(b) != 0 {
		t.Fatalf("log after Close has %d bytes (%v), want it folded into the snapshot", len(b), err)
	}
}

func TestStoreCutsTornLogTail(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := openStore(t, hnsw.Config{Dir: dir})
	its := items(0, 30, 8, 5)
	if err := s.Upsert(ctx, "t", its[:20]); err != nil {
		t.Fatal(err)
	}
	crashed := t.TempDir()
	copyDir(t, dir, crashed)
	s.Close()

	// The next write was cut short by the crash: half of its bytes.
	logPath := filepath.Join(crashed, "t.t", "index.log")
	good, _ := os.ReadFile(logPath)
	scratch := t.TempDir()
	s2 := openStore(t, hnsw.Config{Dir: scratch})
	s2.Upsert(ctx, "t", its[:20])
	s2.Upsert(ctx, "t", its[20:21])
	full, _ := os.ReadFile(filepath.Join(scratch, "t.t", "index.log"))
	s2.Close()
	if !bytes.HasPrefix(full, good) {
		t.Fatal("logs of the same writes differ")
	}
	torn := full[:len(good)+(len(full)-len(good))/2]
	os.WriteFile(logPath, torn, 0o644)

	s3 := openStore(t, hnsw.Config{Dir: crashed})
	if n, err := s3.Count(ctx, "t"); n != 20 || err != nil {
		t.Fatalf("count = %d, %v; want the 20 acknowledged items", n, err)
	}
	if b, _ := os.ReadFile(logPath); len(b) != len(good) {
		t.Fatalf("log is %d bytes after open, want the torn tail cut to %d", len(b), len(good))
	}
	// The store goes on writing after the cut.
	if err := s3.Upsert(ctx, "t", its[20:]); err != nil {
		t.Fatal(err)
	}
	s3.Close()
	s4 := openStore(t, hnsw.Config{Dir: crashed})
	defer s4.Close()
	if n, _ := s4.Count(ctx, "t"); n != 30 {
		t.Fatalf("count = %d after writing past the cut, want 30", n)
	}
}

func TestStoreReplaysLogOverlappingSnapshot(t *testing.T) {
	// A crash after the snapshot was renamed into place but before the log
	// was emptied: the log's records are all in the snapshot already.
	ctx := context.Background()
	dir := t.TempDir()
	s := openStore(t, hnsw.Config{Dir: dir})
	its := items(0, 40, 8, 6)
	s.Upsert(ctx, "t", its)
	logPath := filepath.Join(dir, "t.t", "index.log")
	stale, _ := os.ReadFile(logPath)
	if err := s.Snapshot(); err != nil {
		t.Fatal(err)
	}
	s.Close()
	os.WriteFile(logPath, stale, 0o644)

	s2 := openStore(t, hnsw.Config{Dir: dir})
	defer s2.Close()
	ix, err := s2.Index("t")
	if err != nil {
		t.Fatal(err)
	}
	if st := ix.Stats(); st.Live != 40 || st.Dead != 0 {
		t.Fatalf("after replaying a stale log: %+v, want 40 live and no tombstones", st)
	}
}

func TestStoreRefusesCorruptSnapshot(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := openStore(t, hnsw.Config{Dir: dir})
	s.Upsert(ctx, "t", items(0, 40, 8, 7))
	s.Close()
	path := filepath.Join(dir, "t.t", "index.snap")
	b, _ := os.ReadFile(path)
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"flipped byte", func() []byte { c := slices.Clone(b); c[len(c)/2] ^= 0x40; return c }()},
		{"truncated", b[:len(b)-9]},
		{"not a snapshot", []byte("hello")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.WriteFile(path, tc.data, 0o644)
			s := openStore(t, hnsw.Config{Dir: dir})
			defer s.Close()
			_, err := s.Count(ctx, "t")
			if !errors.Is(err, hnsw.ErrCorrupt) {
				t.Fatalf("err = %v, want ErrCorrupt", err)
			}
		})
	}
}

func TestStoreLocksItsDirectory(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, hnsw.Config{Dir: dir})
	if _, err := hnsw.Open(hnsw.Config{Dir: dir}); err == nil {
		t.Fatal("a second store opened the same directory")
	}
	s.Close()
	s2, err := hnsw.Open(hnsw.Config{Dir: dir})
	if err != nil {
		t.Fatalf("reopen after close: %v", err)
	}
	s2.Close()
	if err := s2.Upsert(context.Background(), "t", items(0, 1, 4, 1)); !errors.Is(err, hnsw.ErrClosed) {
		t.Fatalf("upsert after close: %v", err)
	}
	if err := s2.Snapshot(); !errors.Is(err, hnsw.ErrClosed) {
		t.Fatalf("snapshot after close: %v", err)
	}
	if err := s2.Close(); err != nil {
		t.Fatalf("second close: %v", err)
	}
}

func TestStoreTenantNames(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := openStore(t, hnsw.Config{Dir: dir})
	names := []string{"default", "../escape", "a/b", "档案馆", ".", "x%41", strings.Repeat("long", 80)}
	for i, n := range names {
		if err := s.Upsert(ctx, n, items(i, i+1+i, 4, uint64(i+1))); err != nil {
			t.Fatalf("tenant %q: %v", n, err)
		}
	}
	s.Close()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), "t.") {
			t.Fatalf("tenant directory %q escapes the naming scheme", e.Name())
		}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "escape")); err == nil {
		t.Fatal("a tenant name escaped the store directory")
	}
	s = openStore(t, hnsw.Config{Dir: dir})
	defer s.Close()
	for i, n := range names {
		if c, err := s.Count(ctx, n); c != i+1 || err != nil {
			t.Fatalf("tenant %q: count %d, %v; want %d", n, c, err, i+1)
		}
	}
	listed, err := s.Tenants()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names[:len(names)-1] { // very long names are found by name only
		if !slices.Contains(listed, n) {
			t.Fatalf("Tenants() = %q, missing %q", listed, n)
		}
	}
}

func TestStoreCompactsTombstones(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := openStore(t, hnsw.Config{Dir: dir, SnapshotEvery: 1 << 20})
	base := items(0, 600, 8, 8)
	s.Upsert(ctx, "t", base)
	// Every vector replaced three times: 1,800 tombstones for 600 live.
	for round := range 3 {
		next := items(0, 600, 8, uint64(100+round))
		s.Upsert(ctx, "t", next)
		base = next
	}
	ix, _ := s.Index("t")
	if st := ix.Stats(); st.Dead != 1800 {
		t.Fatalf("before snapshot: %+v", st)
	}
	if err := s.Snapshot(); err != nil {
		t.Fatal(err)
	}
	ix, _ = s.Index("t")
	if st := ix.Stats(); st.Dead != 0 || st.Live != 600 {
		t.Fatalf("after snapshot: %+v, want the tombstones compacted away", st)
	}
	h, _ := s.Search(ctx, "t", base[10].Vector, 1)
	if h[0].ChunkID != base[10].ChunkID {
		t.Fatalf("after compaction: %+v", h)
	}
	s.Close()
}

func TestConfigFlags(t *testing.T) {
	var c hnsw.Config
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	c.RegisterFlags(fs)
	if err := fs.Parse([]string{"-vector-ef-search", "64", "-vector-m", "12", "-vector-exact-below", "-1"}); err != nil {
		t.Fatal(err)
	}
	if c.Params.EfSearch != 64 || c.Params.M != 12 || c.Params.ExactBelow != -1 {
		t.Fatalf("flags parsed into %+v", c.Params)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := (hnsw.Config{SnapshotEvery: -1}).Validate(); err == nil {
		t.Fatal("negative snapshot interval accepted")
	}
}
