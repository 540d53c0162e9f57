package vectortest

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/annalist-dev/annalist/internal/ports/vectors"
	"github.com/annalist-dev/annalist/pipeline"
)

// refStore is the smallest store that keeps the contract: brute force over
// a map per tenant. With bug set it breaks one promise, to show that the
// suite notices.
type refStore struct {
	bug string

	mu      sync.Mutex
	tenants map[string]map[string][]float32
	writes  map[string]int
}

func newRefStore(bug string) *refStore {
	return &refStore{bug: bug, tenants: map[string]map[string][]float32{}, writes: map[string]int{}}
}

func (r *refStore) tenant(name string) string {
	if r.bug == "tenants share vectors" {
		return ""
	}
	return name
}

func (r *refStore) checkVec(v []float32, dim int) error {
	if dim != 0 && len(v) != dim || len(v) == 0 {
		return pipeline.Permanent(fmt.Errorf("%w: %d, want %d", vectors.ErrDimension, len(v), dim))
	}
	if r.bug == "accepts non-finite components" {
		return nil
	}
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return pipeline.Permanentf("non-finite component")
		}
	}
	return nil
}

func dimOf(m map[string][]float32) int {
	for _, v := range m {
		return len(v)
	}
	return 0
}

func (r *refStore) Upsert(ctx context.Context, tenant string, items []vectors.Item) error {
	if err := ctx.Err(); err != nil && r.bug != "ignores the context" {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	tenant = r.tenant(tenant)
	m := r.tenants[tenant]
	dim := dimOf(m)
	for _, it := range items {
		if it.ChunkID == "" {
			return pipeline.Permanentf("empty chunk id")
		}
		if err := r.checkVec(it.Vector, dim); err != nil {
			if r.bug == "dimension errors are transient" {
				return fmt.Errorf("%w", vectors.ErrDimension)
			}
			return err
		}
		dim = len(it.Vector)
	}
	if m == nil {
		m = map[string][]float32{}
		r.tenants[tenant] = m
	}
	for _, it := range items {
		if _, dup := m[it.ChunkID]; dup && r.bug == "first item of an id wins" {
			continue
		}
		m[it.ChunkID] = slices.Clone(it.Vector)
		r.writes[tenant]++
	}
	return nil
}

func (r *refStore) Search(ctx context.Context, tenant string, q []float32, k int) ([]vectors.Hit, error) {
	if err := ctx.Err(); err != nil && r.bug != "ignores the context" {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	m := r.tenants[r.tenant(tenant)]
	if len(m) == 0 || k <= 0 {
		return nil, nil
	}
	if err := r.checkVec(q, dimOf(m)); err != nil {
		return nil, err
	}
	var hits []vectors.Hit
	for id, v := range m {
		hits = append(hits, vectors.Hit{ChunkID: id, Score: float32(cosine(q, v))})
	}
	sort.Slice(hits, func(i, j int) bool { return hits[i].Score > hits[j].Score })
	if r.bug != "returns more than k" {
		hits = hits[:min(k, len(hits))]
	}
	if r.bug == "worst first" {
		slices.Reverse(hits)
	}
	return hits, nil
}

func (r *refStore) Count(ctx context.Context, tenant string) (int, error) {
	if err := ctx.Err(); err != nil && r.bug != "ignores the context" {
		return 0, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.bug == "counts writes" {
		return r.writes[r.tenant(tenant)], nil
	}
	return len(r.tenants[r.tenant(tenant)]), nil
}

func (r *refStore) Delete(ctx context.Context, tenant string, ids []string) error {
	if err := ctx.Err(); err != nil && r.bug != "ignores the context" {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.bug == "delete is ignored" {
		return nil
	}
	m := r.tenants[r.tenant(tenant)]
	for _, id := range ids {
		if _, ok := m[id]; !ok && r.bug == "deleting an absent id fails" {
			return fmt.Errorf("no vector %q", id)
		}
		delete(m, id)
	}
	return nil
}

// TestReferenceStorePasses: a store that keeps every promise passes.
func TestReferenceStorePasses(t *testing.T) {
	Run(t, func(testing.TB) vectors.Store { return newRefStore("") })
}

// recorder is a testing.TB that records failures instead of reporting
// them, so a case can be run against a store expected to fail it.
type recorder struct {
	testing.TB
	mu     sync.Mutex
	failed []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed = append(r.failed, fmt.Sprintf(format, args...))
}

func (r *recorder) Error(args ...any) { r.Errorf("%s", fmt.Sprint(args...)) }

func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	runtime.Goexit()
}

func (r *recorder) Fatal(args ...any) {
	r.Error(args...)
	runtime.Goexit()
}

func (r *recorder) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.failed) > 0
}

// TestSuiteCatchesBrokenStores: every broken promise fails at least one
// case, the one named.
func TestSuiteCatchesBrokenStores(t *testing.T) {
	for bug, want := range map[string]string{
		"tenants share vectors":          "TenantsAreIsolated",
		"ignores the context":            "CancelledContext",
		"dimension errors are transient": "WrongDimension",
		"first item of an id wins":       "LastItemOfAnIDInOneCallWins",
		"returns more than k":            "SearchAtMostKBestFirst",
		"worst first":                    "SearchAtMostKBestFirst",
		"counts writes":                  "UpsertReplacesByChunkID",
		"accepts non-finite components":  "InvalidItems",
		"delete is ignored":              "DeleteRemovesByChunkID",
		"deleting an absent id fails":    "DeleteAbsentIsNoError",
	} {
		t.Run(bug, func(t *testing.T) {
			var failed []string
			for _, c := range cases {
				r := &recorder{TB: t}
				done := make(chan struct{})
				go func() {
					defer close(done)
					c.run(r, newRefStore(bug))
				}()
				<-done
				if r.Failed() {
					failed = append(failed, c.name)
				}
			}
			if !slices.Contains(failed, want) {
				t.Fatalf("a store whose bug is %q fails %s, want %s among them", bug, strings.Join(failed, ", "), want)
			}
		})
	}
}
