package hnsw

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/annalist-dev/annalist/internal/ports/vectors"
)

// Defaults of Params. They are the values the recall tests assert recall@10
// ≥ 0.98 with, on 20,000 random and clustered 256-dimensional vectors.
// Structureless random vectors set them: clustered ones reach 0.999 at
// EfSearch 64, but Gaussian noise needs M 32 and EfSearch ≈ 600 (at M 16,
// even EfSearch 800 stays below 0.95). EfConstruction above 100 bought no
// measurable recall at this M. Lower EfSearch with SetEfSearch or Params
// when the data is known to be clustered and speed matters more.
//
// DefaultExactBelow is where the graph starts to pay: at 20,000 vectors of
// dimension 256 a graph query with EfSearch 640 and a brute-force scan
// (memory-bound, vectorised) both take about 2 ms; below that the scan is
// faster and exact.
const (
	DefaultM              = 32
	DefaultEfConstruction = 100
	DefaultEfSearch       = 640
	DefaultExactBelow     = 20000
)

// maxLevels caps the layer count. With M=32 a node reaches layer 16 with
// probability 32^-16: the cap never binds in practice and keeps the level in
// a byte.
const maxLevels = 16

// Params tunes the HNSW graph. The zero value of every field means its
// default.
type Params struct {
	// M is the number of links a node keeps on the upper layers; layer 0
	// keeps 2M. More links cost memory and insert time and buy recall.
	// Default DefaultM. An index reloaded from disk keeps the M it was
	// built with.
	M int
	// EfConstruction is the candidate list size while inserting. Default
	// DefaultEfConstruction.
	EfConstruction int
	// EfSearch is the candidate list size of a query (raised to k when k is
	// larger). Default DefaultEfSearch.
	EfSearch int
	// ExactBelow: while a collection holds fewer live vectors than this it
	// is searched exactly (brute force), which at that size is as fast as
	// the graph and has recall 1, and no graph is built for it, which
	// makes its inserts cheap. The graph is built when the collection
	// reaches this size. Default DefaultExactBelow; negative means always
	// use the graph.
	ExactBelow int
	// Seed seeds the level generator, so building the same sequence of
	// upserts gives the same graph. Default 1.
	Seed uint64
}

func (p Params) withDefaults() Params {
	if p.M == 0 {
		p.M = DefaultM
	}
	if p.EfConstruction == 0 {
		p.EfConstruction = DefaultEfConstruction
	}
	if p.EfSearch == 0 {
		p.EfSearch = DefaultEfSearch
	}
	if p.ExactBelow == 0 {
		p.ExactBelow = DefaultExactBelow
	}
	if p.Seed == 0 {
		p.Seed = 1
	}
	return p
}

// Validate reports parameters the index cannot work with.
func (p Params) Validate() error {
	switch {
	case p.M < 0 || p.M == 1 || p.M > 255:
		return fmt.Errorf("hnsw params: M %d outside 2..255", p.M)
	case p.EfConstruction < 0:
		return fmt.Errorf("hnsw params: ef_construction %d is negative", p.EfConstruction)
	case p.EfSearch < 0:
		return fmt.Errorf("hnsw params: ef_search %d is negative", p.EfSearch)
	}
	return nil
}

// ErrInvalidVector reports a vector that cannot be indexed: empty, with NaN
// or infinite components, or of the wrong dimension.
var ErrInvalidVector = errors.New("invalid vector")

// Index is an HNSW graph (Malkov & Yashunin, 2018) over cosine similarity,
// held in memory. Vectors are L2-normalised on the way in, so the inner
// product of two stored vectors is their cosine, and a hit's score is the
// cosine between the query and the stored vector.
//
// Upserting an id again with a different vector tombstones the old node and
// inserts a new one: the tombstone keeps routing searches through the graph
// but is never returned. Re-upserting an identical vector changes nothing.
// Tombstones are dropped when a Store compacts the index (see
// Store.Snapshot).
//
// Index is safe for concurrent use: searches share a read lock, writes take
// the write lock.
type Index struct {
	mu sync.RWMutex
	p  Params

	dim int
	m0  int     // links per node on layer 0
	ml  float64 // level normalisation 1/ln(M)
	pcg *rand.PCG
	rnd *rand.Rand

	// Per node, indexed by the node's position.
	vecs   []float32 // dim components per node, normalised
	ids    []string
	docs   []string
	levels []uint8
	dead   []bool
	// links0 holds m0+1 words per node: a count, then the neighbours on
	// layer 0. upper[n] holds M+1 words per layer above 0 in the same form.
	links0 []uint32
	upper  [][]uint32

	byID map[string]uint32 // live nodes only
	// graphOn is set once the collection has reached ExactBelow: from
	// then on every node is linked into the graph as it is inserted.
	graphOn bool
	entry   int32 // entry node, -1 while the graph is empty
	top     int   // layer of the entry node
	live    int

	searchers sync.Pool
}

// NewIndex returns an empty index. dim 0 means the dimension of the first
// vector upserted.
func NewIndex(dim int, p Params) (*Index, error) {
	if dim < 0 {
		return nil, fmt.Errorf("new index: dimension %d is negative", dim)
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	p = p.withDefaults()
	pcg := rand.NewPCG(p.Seed, p.Seed^0x9e3779b97f4a7c15)
	return &Index{
		p: p, dim: dim, m0: 2 * p.M, ml: 1 / math.Log(float64(p.M)),
		pcg: pcg, rnd: rand.New(pcg),
		byID: make(map[string]uint32), entry: -1,
	}, nil
}

// Dim is the dimension of the index, 0 while it is empty and was created
// without one.
func (ix *Index) Dim() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.dim
}

// Len is the number of live vectors.
func (ix *Index) Len() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.live
}

// IndexStats describes an index.
type IndexStats struct {
	Live   int `json:"live"`   // vectors returned by searches
	Dead   int `json:"dead"`   // tombstones still routing searches
	Dim    int `json:"dim"`    // vector dimension
	Layers int `json:"layers"` // layers of the graph
}

// Stats returns the index's counts.
func (ix *Index) Stats() IndexStats {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	st := IndexStats{Live: ix.live, Dead: len(ix.ids) - ix.live, Dim: ix.dim}
	if ix.entry >= 0 {
		st.Layers = ix.top + 1
	}
	return st
}

// Params returns the parameters in force, defaults filled in.
func (ix *Index) Params() Params { return ix.p }

// SetEfSearch changes the query candidate list size (0 means the default).
func (ix *Index) SetEfSearch(ef int) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ef <= 0 {
		ef = DefaultEfSearch
	}
	ix.p.EfSearch = ef
}

// Upsert stores the vector under id; see the type's comment for the
// semantics of re-upserting. The vector is copied.
func (ix *Index) Upsert(id, doc string, vec []float32) error {
	return ix.Add([]vectors.Item{{ChunkID: id, DocID: doc, Vector: vec}})
}

// Add upserts items in order. It checks every item first and changes
// nothing when one is invalid.
func (ix *Index) Add(items []vectors.Item) error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if err := ix.checkLocked(items); err != nil {
		return err
	}
	for _, it := range items {
		ix.upsertLocked(it.ChunkID, it.DocID, it.Vector)
	}
	return nil
}

// Check reports whether Add would accept items, without adding them.
func (ix *Index) Check(items []vectors.Item) error {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.checkLocked(items)
}

func (ix *Index) checkLocked(items []vectors.Item) error {
	dim := ix.dim
	for _, it := range items {
		if it.ChunkID == "" {
			return fmt.Errorf("%w: empty id", ErrInvalidVector)
		}
		if err := checkVector(it.Vector, dim); err != nil {
			return fmt.Errorf("vector of %s: %w", it.ChunkID, err)
		}
		if dim == 0 {
			dim = len(it.Vector)
		}
	}
	return nil
}

// checkVector reports a vector the index cannot hold or answer. The
// dimension is checked first, so an empty vector against an index that has
// a dimension is an ErrDimension like any other wrong length, as the port
// promises.
func checkVector(v []float32, dim int) error {
	if dim != 0 && len(v) != dim {
		return fmt.Errorf("%w: %w: dimension %d, index has %d", ErrInvalidVector, vectors.ErrDimension, len(v), dim)
	}
	if len(v) == 0 {
		return fmt.Errorf("%w: empty", ErrInvalidVector)
	}
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("%w: NaN or infinite component", ErrInvalidVector)
		}
	}
	return nil
}

// Delete removes id; it reports whether id was present.
func (ix *Index) Delete(id string) bool {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return ix.deleteLocked(id)
}

func (ix *Index) deleteLocked(id string) bool {
	n, ok := ix.byID[id]
	if !ok {
		return false
	}
	ix.dead[n] = true
	delete(ix.byID, id)
	ix.live--
	return true
}

func (ix *Index) upsertLocked(id, doc string, vec []float32) {
	if ix.dim == 0 {
		ix.dim = len(vec)
	}
	v := normalised(vec)
	if old, ok := ix.byID[id]; ok {
		if slices.Equal(ix.vector(old), v) {
			ix.docs[old] = doc
			return
		}
		ix.deleteLocked(id)
	}
	// The level is drawn whether or not the graph is on yet, so the graph
	// depends only on the sequence of upserts.
	n := ix.appendNode(id, doc, v, ix.randomLevel())
	ix.byID[id] = n
	ix.live++
	switch {
	case ix.graphOn:
		ix.linkLocked(n)
	case ix.p.ExactBelow <= 0 || ix.live >= ix.p.ExactBelow:
		ix.startGraphLocked()
	}
}

// startGraphLocked links every live node into the graph, in insertion
// order, and keeps the graph on from then on. Until a collection reaches
// ExactBelow it is searched exactly, so building links for it earlier
// would only slow its inserts down.
func (ix *Index) startGraphLocked() {
	ix.graphOn = true
	for n := range uint32(len(ix.ids)) {
		if !ix.dead[n] {
			ix.linkLocked(n)
		}
	}
}

// ensureGraph turns the graph on for a collection still below ExactBelow.
func (ix *Index) ensureGraph() {
	ix.mu.RLock()
	on := ix.graphOn
	ix.mu.RUnlock()
	if on {
		return
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if !ix.graphOn {
		ix.startGraphLocked()
	}
}

func (ix *Index) randomLevel() int {
	l := int(-math.Log(1-ix.rnd.Float64()) * ix.ml)
	return min(l, maxLevels-1)
}

func normalised(v []float32) []float32 {
	out := make([]float32, len(v))
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if s == 0 {
		return out
	}
	inv := 1 / math.Sqrt(s)
	for i, x := range v {
		out[i] = float32(float64(x) * inv)
	}
	return out
}

func (ix *Index) vector(n uint32) []float32 {
	off := int(n) * ix.dim
	return ix.vecs[off : off+ix.dim : off+ix.dim]
}

// dist is the cosine distance 1 - q·v of a normalised query to node n.
func (ix *Index) dist(q []float32, n uint32) float32 { return 1 - dot(q, ix.vector(n)) }

// links returns node n's link block on layer lc: word 0 is the count.
func (ix *Index) links(n uint32, lc int) []uint32 {
	if lc == 0 {
		off := int(n) * (ix.m0 + 1)
		return ix.links0[off : off+ix.m0+1 : off+ix.m0+1]
	}
	seg := ix.p.M + 1
	return ix.upper[n][(lc-1)*seg : lc*seg : lc*seg]
}

func neighbours(block []uint32) []uint32 { return block[1 : 1+block[0]] }

func (ix *Index) maxLinks(lc int) int {
	if lc == 0 {
		return ix.m0
	}
	return ix.p.M
}

// appendNode grows the per-node arrays by one node and returns its position.
func (ix *Index) appendNode(id, doc string, v []float32, level int) uint32 {
	n := uint32(len(ix.ids))
	ix.vecs = append(ix.vecs, v...)
	ix.ids = append(ix.ids, id)
	ix.docs = append(ix.docs, doc)
	ix.levels = append(ix.levels, uint8(level))
	ix.dead = append(ix.dead, false)
	ix.links0 = append(ix.links0, make([]uint32, ix.m0+1)...)
	var up []uint32
	if level > 0 {
		up = make([]uint32, level*(ix.p.M+1))
	}
	ix.upper = append(ix.upper, up)
	return n
}

// linkLocked inserts node n, already appended, into the graph (algorithm 1
// of the paper).
func (ix *Index) linkLocked(n uint32) {
	v, level := ix.vector(n), int(ix.levels[n])
	if ix.entry < 0 {
		ix.entry, ix.top = int32(n), level
		return
	}
	s := ix.searcher()
	defer ix.searchers.Put(s)

	ep := cand{ix.dist(v, uint32(ix.entry)), uint32(ix.entry)}
	for lc := ix.top; lc > level; lc-- {
		ep = ix.greedy(v, ep, lc)
	}
	s.eps = append(s.eps[:0], ep)
	for lc := min(level, ix.top); lc >= 0; lc-- {
		ix.searchLayer(s, v, ix.p.EfConstruction, lc, false)
		found := s.sortedResults()
		// connect reuses s.sel, so keep this layer's choice apart.
		s.chosen = append(s.chosen[:0], ix.selectNeighbours(found, ix.p.M, &s.sel)...)
		chosen := s.chosen
		block := ix.links(n, lc)
		block[0] = uint32(len(chosen))
		for i, c := range chosen {
			block[1+i] = c.id
		}
		for _, c := range chosen {
			ix.connect(c.id, n, c.d, lc, s)
		}
		s.eps = append(s.eps[:0], found...)
	}
	if level > ix.top {
		ix.entry, ix.top = int32(n), level
	}
}

// connect adds a link from node e to node n on layer lc; when e's list is
// full it is re-selected with the heuristic among its links and n.
func (ix *Index) connect(e, n uint32, d float32, lc int, s *searcher) {
	block := ix.links(e, lc)
	limit := ix.maxLinks(lc)
	if cnt := int(block[0]); cnt < limit {
		block[1+cnt] = n
		block[0]++
		return
	}
	ev := ix.vector(e)
	pool := append(s.pool[:0], cand{d, n})
	for _, nb := range neighbours(block) {
		pool = append(pool, cand{ix.dist(ev, nb), nb})
	}
	slices.SortFunc(pool, cmpCand)
	chosen := ix.selectNeighbours(pool, limit, &s.sel)
	block[0] = uint32(len(chosen))
	for i, c := range chosen {
		block[1+i] = c.id
	}
	s.pool = pool
}

// selectNeighbours is the HNSW heuristic (algorithm 4 of the paper, without
// keeping pruned links): walking candidates from the closest, keep one only
// if it is closer to the base than to every one kept so far. It spreads
// links over directions instead of spending them all inside one cluster,
// which is what keeps clustered data navigable. sorted is ascending by
// distance; the result aliases *buf.
func (ix *Index) selectNeighbours(sorted []cand, m int, buf *[]cand) []cand {
	if len(sorted) <= m {
		return sorted
	}
	out := (*buf)[:0]
	for _, c := range sorted {
		if len(out) >= m {
			break
		}
		cv := ix.vector(c.id)
		good := true
		for _, r := range out {
			if ix.dist(cv, r.id) < c.d {
				good = false
				break
			}
		}
		if good {
			out = append(out, c)
		}
	}
	*buf = out
	return out
}

// greedy walks layer lc from ep to the closest node it can reach.
func (ix *Index) greedy(q []float32, ep cand, lc int) cand {
	for changed := true; changed; {
		changed = false
		for _, nb := range neighbours(ix.links(ep.id, lc)) {
			if d := ix.dist(q, nb); d < ep.d {
				ep, changed = cand{d, nb}, true
			}
		}
	}
	return ep
}

// searchLayer is the beam search of HNSW on layer lc from s.eps, leaving
// the ef best nodes in s.res. With skipDead, tombstones are traversed but
// never enter the results (as in hnswlib), so a query still reaches live
// nodes behind them.
func (ix *Index) searchLayer(s *searcher, q []float32, ef, lc int, skipDead bool) {
	s.visit.next(len(ix.ids))
	s.cands = s.cands[:0]
	s.res = s.res[:0]
	lower := float32(math.Inf(1))
	for _, e := range s.eps {
		if s.visit.seen(e.id) {
			continue
		}
		s.visit.mark(e.id)
		s.cands.push(e)
		if !(skipDead && ix.dead[e.id]) {
			s.res.push(e)
			if len(s.res) > ef {
				s.res.pop()
			}
		}
	}
	if len(s.res) > 0 {
		lower = s.res[0].d
	}
	for len(s.cands) > 0 {
		c := s.cands.pop()
		if c.d > lower && (len(s.res) >= ef || !skipDead) {
			break
		}
		for _, nb := range neighbours(ix.links(c.id, lc)) {
			if s.visit.seen(nb) {
				continue
			}
			s.visit.mark(nb)
			d := ix.dist(q, nb)
			if len(s.res) < ef || d < lower {
				s.cands.push(cand{d, nb})
				if !(skipDead && ix.dead[nb]) {
					s.res.push(cand{d, nb})
					if len(s.res) > ef {
						s.res.pop()
					}
				}
				if len(s.res) > 0 {
					lower = s.res[0].d
				}
			}
		}
	}
}

// Search returns the k live vectors closest to vec by cosine, best first:
// exactly while the index holds fewer than ExactBelow live vectors, through
// the graph with EfSearch otherwise.
func (ix *Index) Search(vec []float32, k int) ([]vectors.Hit, error) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if !ix.graphOn || ix.live < ix.p.ExactBelow {
		return ix.exactLocked(vec, k)
	}
	return ix.graphLocked(vec, k, ix.p.EfSearch)
}

// SearchGraph searches through the graph with candidate list size ef (0
// means EfSearch), whatever the collection's size: the approximate search
// the recall measurements exercise. It builds the graph first if the
// collection has not reached ExactBelow yet.
func (ix *Index) SearchGraph(vec []float32, k, ef int) ([]vectors.Hit, error) {
	ix.ensureGraph()
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ef <= 0 {
		ef = ix.p.EfSearch
	}
	return ix.graphLocked(vec, k, ef)
}

// Exact returns the k live vectors closest to vec by brute force: the
// baseline recall is measured against.
func (ix *Index) Exact(vec []float32, k int) ([]vectors.Hit, error) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.exactLocked(vec, k)
}

func (ix *Index) query(vec []float32) ([]float32, error) {
	if err := checkVector(vec, ix.dim); err != nil {
		return nil, fmt.Errorf("query: %w", err)
	}
	return normalised(vec), nil
}

func (ix *Index) graphLocked(vec []float32, k, ef int) ([]vectors.Hit, error) {
	if k <= 0 || ix.live == 0 {
		return nil, nil
	}
	q, err := ix.query(vec)
	if err != nil {
		return nil, err
	}
	s := ix.searcher()
	defer ix.searchers.Put(s)
	ep := cand{ix.dist(q, uint32(ix.entry)), uint32(ix.entry)}
	for lc := ix.top; lc > 0; lc-- {
		ep = ix.greedy(q, ep, lc)
	}
	s.eps = append(s.eps[:0], ep)
	ix.searchLayer(s, q, max(ef, k), 0, true)
	found := s.sortedResults()
	return ix.hits(found[:min(k, len(found))]), nil
}

func (ix *Index) exactLocked(vec []float32, k int) ([]vectors.Hit, error) {
	if k <= 0 || ix.live == 0 {
		return nil, nil
	}
	q, err := ix.query(vec)
	if err != nil {
		return nil, err
	}
	s := ix.searcher()
	defer ix.searchers.Put(s)
	s.res = s.res[:0]
	for n := range uint32(len(ix.ids)) {
		if ix.dead[n] {
			continue
		}
		d := ix.dist(q, n)
		if len(s.res) < k {
			s.res.push(cand{d, n})
		} else if d < s.res[0].d {
			s.res[0] = cand{d, n}
			s.res.down(0)
		}
	}
	return ix.hits(s.sortedResults()), nil
}

func (ix *Index) hits(cs []cand) []vectors.Hit {
	out := make([]vectors.Hit, len(cs))
	for i, c := range cs {
		out[i] = vectors.Hit{ChunkID: ix.ids[c.id], Score: 1 - c.d}
	}
	return out
}

// dotGeneric is the inner product in portable Go, unrolled so the compiler
// drops bounds checks and keeps four independent sums in flight.
func dotGeneric(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+8 <= len(a); i += 8 {
		x := a[i : i+8 : i+8]
		y := b[i : i+8 : i+8]
		s0 += x[0]*y[0] + x[4]*y[4]
		s1 += x[1]*y[1] + x[5]*y[5]
		s2 += x[2]*y[2] + x[6]*y[6]
		s3 += x[3]*y[3] + x[7]*y[7]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return s0 + s1 + s2 + s3
}

// cand is a node and its distance to the current query.
type cand struct {
	d  float32
	id uint32
}

func cmpCand(a, b cand) int {
	switch {
	case a.d < b.d:
		return -1
	case a.d > b.d:
		return 1
	}
	return int(a.id) - int(b.id)
}

// minHeap pops the closest candidate first.
type minHeap []cand

func (h *minHeap) push(c cand) {
	*h = append(*h, c)
	a := *h
	i := len(a) - 1
	for i > 0 {
		p := (i - 1) / 2
		if a[p].d <= a[i].d {
			break
		}
		a[p], a[i] = a[i], a[p]
		i = p
	}
}

func (h *minHeap) pop() cand {
	a := *h
	top := a[0]
	last := len(a) - 1
	a[0] = a[last]
	a = a[:last]
	i := 0
	for {
		l := 2*i + 1
		if l >= len(a) {
			break
		}
		if r := l + 1; r < len(a) && a[r].d < a[l].d {
			l = r
		}
		if a[i].d <= a[l].d {
			break
		}
		a[i], a[l] = a[l], a[i]
		i = l
	}
	*h = a
	return top
}

// maxHeap keeps the farthest of the results on top, to be evicted first.
type maxHeap []cand

func (h *maxHeap) push(c cand) {
	*h = append(*h, c)
	a := *h
	i := len(a) - 1
	for i > 0 {
		p := (i - 1) / 2
		if a[p].d >= a[i].d {
			break
		}
		a[p], a[i] = a[i], a[p]
		i = p
	}
}

func (h *maxHeap) pop() cand {
	a := *h
	top := a[0]
	last := len(a) - 1
	a[0] = a[last]
	*h = a[:last]
	h.down(0)
	return top
}

func (h maxHeap) down(i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		if r := l + 1; r < len(h) && h[r].d > h[l].d {
			l = r
		}
		if h[i].d >= h[l].d {
			return
		}
		h[i], h[l] = h[l], h[i]
		i = l
	}
}

// visitSet marks visited nodes with an epoch, so clearing it between
// searches is O(1).
type visitSet struct {
	marks []uint16
	epoch uint16
}

func (v *visitSet) next(n int) {
	if len(v.marks) < n {
		v.marks = make([]uint16, n+n/4+64)
		v.epoch = 0
	}
	v.epoch++
	if v.epoch == 0 {
		clear(v.marks)
		v.epoch = 1
	}
}

func (v *visitSet) seen(n uint32) bool { return v.marks[n] == v.epoch }
func (v *visitSet) mark(n uint32)      { v.marks[n] = v.epoch }

// searcher is the scratch space of one search or insertion, pooled so a
// query allocates only its result.
type searcher struct {
	visit  visitSet
	cands  minHeap
	res    maxHeap
	eps    []cand
	out    []cand
	pool   []cand
	sel    []cand
	chosen []cand
}

func (ix *Index) searcher() *searcher {
	if s, ok := ix.searchers.Get().(*searcher); ok {
		return s
	}
	return &searcher{}
}

// sortedResults returns s.res ascending by distance, in s.out.
func (s *searcher) sortedResults() []cand {
	s.out = append(s.out[:0], s.res...)
	slices.SortFunc(s.out, cmpCand)
	return s.out
}
