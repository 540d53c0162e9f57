package quotes

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"sync"

	"github.com/annalist-dev/annalist/internal/lang/text"
	"github.com/annalist-dev/annalist/internal/ports/graph"
	"github.com/annalist-dev/annalist/internal/ports/kind"
	"github.com/annalist-dev/annalist/internal/ports/vectors"
	"github.com/annalist-dev/annalist/schemas"
)

// KG is the part of the knowledge graph the finder reads: the tag topics
// and the authors (persons) of a tenant, and their entities with the
// chunks that carry a tag and the edges an author said.
type KG interface {
	Nodes(ctx context.Context, tenant, typ string) ([]string, error)
	Entities(ctx context.Context, tenant string, ids []string) ([]graph.Entity, []error, error)
}

// Chunks is where the finder reads the quotations' chunks.
type Chunks interface {
	Get(ctx context.Context, tenant string, ids []string) ([]schemas.Chunk, error)
}

// Config is what a Finder is built on. KG and Chunks are required;
// Embedder and Vectors, both or neither, add the nearest quotations by
// embedding to the candidates and the embedding's cosine to the features.
type Config struct {
	KG       KG
	Chunks   Chunks
	Embedder vectors.Embedder
	Vectors  vectors.Store
	// Model ranks the candidates (DefaultModel when its Weights are nil).
	Model Model
	// VectorK is how many nearest quotations by embedding join the
	// candidates (DefaultVectorK when 0).
	VectorK int
	// WordK is how many quotations the word search adds: the best by the
	// query's words and the best by the topic's words (DefaultWordK when
	// 0).
	WordK int
	// Stamp, when set, says whether a tenant's collection changed: the
	// word index of a tenant is rebuilt only when its stamp differs from
	// the stamp it was built at. Without it the index is rebuilt for
	// every query.
	Stamp func(ctx context.Context, tenant string) (string, error)
}

// Defaults of Config.
const (
	DefaultVectorK = 50
	DefaultWordK   = 100
)

// Finder finds the quotations that fit a query. Candidates are the
// quotations of the tag topics the query names, the nearest quotations
// by embedding, and the best of a word index over the tenant's
// quotations: by the query's own words (BM25), and by the words the
// named topics' tagged quotations use more often than the collection
// does (TopicWords), which finds the quotations the collection does not
// tag. Their features (Query.Features) are ranked by the model; only
// chunks of the quotes profile are ever returned, with the chunk's own
// text and author, so a quotation is verbatim and attributed by
// construction. It implements kind.Quotes, returning only the quotations
// that pass the model's cut. Safe for concurrent use.
type Finder struct {
	cfg Config
	mu  sync.Mutex
	idx map[string]*Index
}

var _ kind.Quotes = (*Finder)(nil)

// NewFinder builds a finder on cfg.
func NewFinder(cfg Config) (*Finder, error) {
	if cfg.KG == nil || cfg.Chunks == nil {
		return nil, errors.New("the quotation finder needs the knowledge graph and the chunk store")
	}
	if (cfg.Embedder == nil) != (cfg.Vectors == nil) {
		cfg.Embedder, cfg.Vectors = nil, nil
	}
	if cfg.Model.Weights == nil {
		m, err := DefaultModel()
		if err != nil {
			return nil, err
		}
		cfg.Model = m
	}
	if cfg.VectorK <= 0 {
		cfg.VectorK = DefaultVectorK
	}
	if cfg.WordK <= 0 {
		cfg.WordK = DefaultWordK
	}
	return &Finder{cfg: cfg, idx: map[string]*Index{}}, nil
}

// Quotes returns at most n quotations fitting query, best first: those
// whose score passes the model's cut (Model.Cut), none when none does.
func (f *Finder) Quotes(ctx context.Context, tenant, query string, n int) ([]kind.Quotation, error) {
	ranked, err := f.Find(ctx, tenant, query, n, nil)
	if err != nil {
		return nil, err
	}
	var out []kind.Quotation
	for _, r := range ranked {
		if r.Fits {
			out = append(out, kind.Quotation{ChunkID: r.ChunkID, Text: r.Text, Author: r.Author})
		}
	}
	return out, nil
}

// Find returns at most n quotations for query, best first, whether or
// not they pass the cut (Ranked.Fits says). keep, when not nil, says
// which quotation chunks may be returned (an evaluation's split).
func (f *Finder) Find(ctx context.Context, tenant, query string, n int, keep func(schemas.Chunk) bool) ([]Ranked, error) {
	if n <= 0 {
		return nil, nil
	}
	ix, err := f.index(ctx, tenant)
	if err != nil {
		return nil, err
	}
	q := NewQuery(query)
	var tagged []int
	seen := map[int]bool{}
	for tag, docs := range ix.byTag {
		if q.TagMatch(tag) == 0 {
			continue
		}
		for _, d := range docs {
			if !seen[d] {
				seen[d] = true
				tagged = append(tagged, d)
			}
		}
	}
	sort.Ints(tagged)
	topicDocs := make([]map[string]bool, len(tagged))
	for i, d := range tagged {
		topicDocs[i] = ix.docs[d].words
	}
	counts := CountWords(topicDocs)
	tw := TopicWords(counts, len(tagged), ix.df, len(ix.docs), nil)
	cand := map[int]bool{}
	for _, d := range tagged {
		cand[d] = true
	}
	kept := func(d int) bool { return keep == nil || keep(ix.docs[d].chunk) }
	for _, d := range ix.best(q.words, nil, f.cfg.WordK, kept) {
		cand[d] = true
	}
	if len(tw) > 0 {
		for _, d := range ix.best(nil, tw, f.cfg.WordK, kept) {
			cand[d] = true
		}
	}
	var qvec []float32
	if f.cfg.Embedder != nil {
		vs, err := f.cfg.Embedder.Embed(ctx, []string{query})
		if err != nil {
			return nil, fmt.Errorf("embed the query: %w", err)
		}
		qvec = vs[0]
		hits, err := f.cfg.Vectors.Search(ctx, tenant, qvec, f.cfg.VectorK)
		if err != nil {
			return nil, err
		}
		for _, h := range hits {
			if d, ok := ix.byChunk[h.ChunkID]; ok {
				cand[d] = true
			}
		}
	}
	var docs []int
	for d := range cand {
		if kept(d) {
			docs = append(docs, d)
		}
	}
	sort.Ints(docs)
	topicAuthor := map[string]int{}
	for _, d := range tagged {
		topicAuthor[ix.docs[d].chunk.Subject]++
	}
	cands := make([]Candidate, len(docs))
	for i, d := range docs {
		doc := ix.docs[d]
		c := Candidate{ChunkID: doc.chunk.ChunkID, Text: doc.chunk.Text, Author: doc.chunk.Subject, Tags: doc.tags,
			AuthorQuotes: len(ix.byAuthor[doc.chunk.Subject]), AuthorTopic: topicAuthor[doc.chunk.Subject]}
		// The topic's words, as the fit reads them: of the other tagged
		// quotations when this one is among them.
		if seen[d] {
			c.Expansion = Expansion(doc.words, TopicWords(counts, len(tagged), ix.df, len(ix.docs), doc.words))
		} else {
			c.Expansion = Expansion(doc.words, tw)
		}
		cands[i] = c
	}
	if qvec != nil && len(cands) > 0 {
		vs, err := ix.vectors(ctx, f.cfg.Embedder, docs)
		if err != nil {
			return nil, err
		}
		for i := range cands {
			cands[i].Vector = Cosine(qvec, vs[i])
		}
	}
	return f.cfg.Model.Rank(q, cands, n), nil
}

// index is the tenant's word index, rebuilt when the tenant's stamp has
// changed since it was built.
func (f *Finder) index(ctx context.Context, tenant string) (*Index, error) {
	stamp := ""
	if f.cfg.Stamp != nil {
		s, err := f.cfg.Stamp(ctx, tenant)
		if err != nil {
			return nil, err
		}
		stamp = s
		f.mu.Lock()
		ix := f.idx[tenant]
		f.mu.Unlock()
		if ix != nil && ix.stamp == stamp {
			return ix, nil
		}
	}
	ix, err := BuildIndex(ctx, f.cfg.KG, f.cfg.Chunks, tenant)
	if err != nil {
		return nil, err
	}
	ix.stamp = stamp
	if f.cfg.Stamp != nil {
		f.mu.Lock()
		f.idx[tenant] = ix
		f.mu.Unlock()
	}
	return ix, nil
}

// Cosine is the cosine of two vectors, 0 when either is zero.
func Cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

// getBatch is how many chunks one read of the chunk store asks for.
const getBatch = 500

// BuildIndex reads a tenant's quotations into a word index: every chunk
// of the quotes profile an author said (the RelSaid edges of the
// persons), with its tags.
func BuildIndex(ctx context.Context, kg KG, chunks Chunks, tenant string) (*Index, error) {
	persons, err := kg.Nodes(ctx, tenant, "person")
	if err != nil {
		return nil, err
	}
	var ids []string
	seen := map[string]bool{}
	for start := 0; start < len(persons); start += getBatch {
		es, errs, err := kg.Entities(ctx, tenant, persons[start:min(start+getBatch, len(persons))])
		if err != nil {
			return nil, err
		}
		for i, e := range es {
			if errs != nil && errs[i] != nil {
				continue
			}
			for _, edge := range e.Edges {
				if edge.Relation == RelSaid && edge.ChunkID != "" && !seen[edge.ChunkID] {
					seen[edge.ChunkID] = true
					ids = append(ids, edge.ChunkID)
				}
			}
		}
	}
	sort.Strings(ids)
	ix := &Index{byChunk: map[string]int{}, byTag: map[string][]int{}, byAuthor: map[string][]int{}, df: map[string]int{}}
	for start := 0; start < len(ids); start += getBatch {
		cs, err := chunks.Get(ctx, tenant, ids[start:min(start+getBatch, len(ids))])
		if err != nil {
			return nil, err
		}
		for _, c := range cs {
			if c.Profile != Profile || c.Subject == "" {
				continue
			}
			if _, dup := ix.byChunk[c.ChunkID]; dup {
				continue
			}
			d := len(ix.docs)
			doc := indexed{chunk: c, tags: TagsOf(c.Subject, c.Title), words: ContentWords(c.Text)}
			ix.docs = append(ix.docs, doc)
			ix.byChunk[c.ChunkID] = d
			ix.byAuthor[c.Subject] = append(ix.byAuthor[c.Subject], d)
			for _, t := range doc.tags {
				ix.byTag[t] = append(ix.byTag[t], d)
			}
			for w := range doc.words {
				ix.df[w]++
			}
			ix.length += len(doc.words)
		}
	}
	return ix, nil
}

// Index is a word index over a tenant's quotations: their content words,
// the document frequency of each word, and the quotations of each tag and
// author.
type Index struct {
	docs     []indexed
	byChunk  map[string]int
	byTag    map[string][]int
	byAuthor map[string][]int
	df       map[string]int
	length   int
	stamp    string

	mu   sync.Mutex
	vecs map[int][]float32
}

type indexed struct {
	chunk schemas.Chunk
	tags  []string
	words map[string]bool
}

// Len is how many quotations the index holds.
func (ix *Index) Len() int { return len(ix.docs) }

// best returns the k documents kept with the highest score: BM25 of the
// query words qw (each word of a quotation counted once), or, with
// weights tw, the sum of the weights of the quotation's words
// (Expansion). A document scoring nothing is not returned.
func (ix *Index) best(qw map[string]bool, tw map[string]float64, k int, kept func(int) bool) []int {
	if len(ix.docs) == 0 || len(qw) == 0 && len(tw) == 0 {
		return nil
	}
	avg := float64(ix.length) / float64(len(ix.docs))
	type scored struct {
		d int
		s float64
	}
	var all []scored
	for d, doc := range ix.docs {
		s := 0.0
		if tw != nil {
			s = Expansion(doc.words, tw)
		} else {
			for w := range qw {
				if !doc.words[w] {
					continue
				}
				s += text.BM25Term(1, float64(ix.df[w]), float64(len(ix.docs)), float64(len(doc.words)), avg)
			}
		}
		if s > 0 && kept(d) {
			all = append(all, scored{d, s})
		}
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].s != all[j].s {
			return all[i].s > all[j].s
		}
		return all[i].d < all[j].d
	})
	out := make([]int, 0, min(k, len(all)))
	for _, s := range all[:min(k, len(all))] {
		out = append(out, s.d)
	}
	return out
}

// vectors are the embeddings of documents, embedded once per index.
func (ix *Index) vectors(ctx context.Context, e vectors.Embedder, docs []int) ([][]float32, error) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.vecs == nil {
		ix.vecs = map[int][]float32{}
	}
	var missing []int
	var texts []string
	for _, d := range docs {
		if ix.vecs[d] == nil {
			missing = append(missing, d)
			texts = append(texts, ix.docs[d].chunk.Text)
		}
	}
	if len(texts) > 0 {
		vs, err := e.Embed(ctx, texts)
		if err != nil {
			return nil, fmt.Errorf("embed the candidates: %w", err)
		}
		for i, d := range missing {
			ix.vecs[d] = vs[i]
		}
	}
	out := make([][]float32, len(docs))
	for i, d := range docs {
		out[i] = ix.vecs[d]
	}
	return out, nil
}
