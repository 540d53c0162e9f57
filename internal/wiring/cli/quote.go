package cli

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/annalist-dev/annalist/internal/lang/quotes"
	"github.com/annalist-dev/annalist/internal/ports/graph"
	"github.com/annalist-dev/annalist/internal/ports/vectors"
	"github.com/annalist-dev/annalist/internal/wiring/app"
	"github.com/annalist-dev/annalist/schemas"
)

// QuoteOutput is one quotation of `annalist quote TOPIC_OR_TEXT --json`:
// its text byte for byte as the collection holds it, its author as the
// collection names them, the ranking's score, the chunk that holds it
// (the citation) and its tags.
type QuoteOutput struct {
	Text    string   `json:"text"`
	Author  string   `json:"author"`
	Score   float64  `json:"score"`
	ChunkID string   `json:"chunk_id"`
	Tags    []string `json:"tags"`
}

// quoteVectorK is how many nearest quotations by embedding join the
// candidates a topic's tags give.
const quoteVectorK = 50

// cmdQuote is `annalist quote TOPIC_OR_TEXT [--n N]`: the quotations of
// the ingested collection that fit a topic or a text, best first.
func cmdQuote(ctx context.Context, io IO, args []string) error {
	fs := newFlagSet("quote", io.Stderr)
	var s service
	s.register(fs)
	n := fs.Int("n", 5, "quotations to return")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || strings.TrimSpace(pos[0]) == "" {
		return fmt.Errorf("%w: want `quote TOPIC_OR_TEXT`", errUsage)
	}
	if *n <= 0 {
		return fmt.Errorf("%w: --n must be positive", errUsage)
	}
	a, log, err := s.open(ctx, io, app.Needs{Redis: true, Vectors: true})
	if err != nil {
		first := err
		if a, log, err = s.open(ctx, io, app.Needs{Redis: true}); err != nil {
			return errors.Join(first, err)
		}
		log.Warn().Err(first).Msg("vector store unavailable: quotations are found by their tags alone")
	}
	defer a.Close()
	f, err := newQuoteFinder(a)
	if err != nil {
		return err
	}
	ranked, err := f.Find(ctx, s.tenant, pos[0], *n, nil)
	if err != nil {
		return err
	}
	out := quoteOutputs(ranked)
	if s.json {
		return writeJSON(io.Stdout, out)
	}
	if len(out) == 0 {
		fmt.Fprintf(io.Stdout, "no quotation fits %q\n", pos[0])
	}
	for _, q := range out {
		fmt.Fprintf(io.Stdout, "%.3f  “%s” — %s  [%s]\n", q.Score, q.Text, q.Author, q.ChunkID)
	}
	return nil
}

func quoteOutputs(ranked []quotes.Ranked) []QuoteOutput {
	out := make([]QuoteOutput, len(ranked))
	for i, r := range ranked {
		tags := r.Tags
		if tags == nil {
			tags = []string{}
		}
		out[i] = QuoteOutput{Text: r.Text, Author: r.Author, Score: math.Round(r.Score*1e4) / 1e4, ChunkID: r.ChunkID, Tags: tags}
	}
	return out
}

// quoteKG is the part of the knowledge graph the quotation finder reads.
type quoteKG interface {
	graph.Reader
	Nodes(ctx context.Context, tenant, typ string) ([]string, error)
	Entities(ctx context.Context, tenant string, ids []string) ([]graph.Entity, []error, error)
}

// quoteChunkStore is where the finder reads the quotations' chunks.
type quoteChunkStore interface {
	Get(ctx context.Context, tenant string, ids []string) ([]schemas.Chunk, error)
}

// quoteFinder finds the quotations that fit a query: candidates from the
// knowledge graph (the quotations of the topics whose tags the query
// names) and from the vector index (the nearest quotations), features
// from the chunks, the embedder and the authors' records in the graph,
// then the ranking model (quotes.Model.Rank). Only chunks of the quotes
// profile are ever returned, and their text and author are the chunk's
// own, so a quotation is verbatim and attributed by construction.
type quoteFinder struct {
	kg       quoteKG
	chunks   quoteChunkStore
	embedder vectors.Embedder
	vectors  vectors.Store
	model    quotes.Model
	vectorK  int
}

func newQuoteFinder(a *app.App) (*quoteFinder, error) {
	m, err := quotes.DefaultModel()
	if err != nil {
		return nil, err
	}
	f := &quoteFinder{kg: a.KG, chunks: a.Chunks, model: m, vectorK: quoteVectorK}
	if a.Vectors != nil && a.Embedder != nil {
		f.embedder, f.vectors = a.Embedder, a.Vectors
	}
	return f, nil
}

// Find returns at most n quotations for query, best first. keep, when
// not nil, says which quotation chunks may be returned (an evaluation's
// split).
func (f *quoteFinder) Find(ctx context.Context, tenant, query string, n int, keep func(schemas.Chunk) bool) ([]quotes.Ranked, error) {
	q := quotes.NewQuery(query)
	topicChunks := map[string]bool{}
	topics, err := f.kg.Nodes(ctx, tenant, quotes.HeadType)
	if err != nil {
		return nil, err
	}
	var matched []string
	for _, id := range topics {
		if q.TagMatch(strings.TrimPrefix(id, quotes.HeadType+":")) > 0 {
			matched = append(matched, id)
		}
	}
	ids := []string{}
	if len(matched) > 0 {
		es, _, err := f.kg.Entities(ctx, tenant, matched)
		if err != nil {
			return nil, err
		}
		for _, e := range es {
			for _, c := range e.Chunks {
				if !topicChunks[c] {
					topicChunks[c] = true
					ids = append(ids, c)
				}
			}
		}
	}
	var qvec []float32
	if f.embedder != nil {
		vs, err := f.embedder.Embed(ctx, []string{query})
		if err != nil {
			return nil, fmt.Errorf("embed the query: %w", err)
		}
		qvec = vs[0]
		hits, err := f.vectors.Search(ctx, tenant, qvec, f.vectorK)
		if err != nil {
			return nil, err
		}
		for _, h := range hits {
			if !topicChunks[h.ChunkID] && !slices.Contains(ids, h.ChunkID) {
				ids = append(ids, h.ChunkID)
			}
		}
	}
	chunks, err := f.chunks.Get(ctx, tenant, ids)
	if err != nil {
		return nil, err
	}
	var cands []quotes.Candidate
	for _, c := range chunks {
		if c.Profile != quotes.Profile || c.Subject == "" || keep != nil && !keep(c) {
			continue
		}
		cands = append(cands, quotes.Candidate{ChunkID: c.ChunkID, Text: c.Text, Author: c.Subject, Tags: quotes.TagsOf(c.Subject, c.Title)})
	}
	if err := f.authors(ctx, tenant, cands, topicChunks); err != nil {
		return nil, err
	}
	if qvec != nil && len(cands) > 0 {
		texts := make([]string, len(cands))
		for i, c := range cands {
			texts[i] = c.Text
		}
		vs, err := f.embedder.Embed(ctx, texts)
		if err != nil {
			return nil, fmt.Errorf("embed the candidates: %w", err)
		}
		for i := range cands {
			cands[i].Vector = cosine(qvec, vs[i])
		}
	}
	return f.model.Rank(q, cands, n), nil
}

// authors fills each candidate's author record from the knowledge graph:
// how many quotations the author said, and how many of them are among the
// quotations of the topics the query names (topicChunks).
func (f *quoteFinder) authors(ctx context.Context, tenant string, cands []quotes.Candidate, topicChunks map[string]bool) error {
	type record struct{ quotes, topic int }
	byAuthor := map[string]*record{}
	var ids []string
	var names []string
	for _, c := range cands {
		if byAuthor[c.Author] != nil {
			continue
		}
		byAuthor[c.Author] = &record{}
		ids = append(ids, "person:"+c.Author)
		names = append(names, c.Author)
	}
	if len(ids) == 0 {
		return nil
	}
	es, errs, err := f.kg.Entities(ctx, tenant, ids)
	if err != nil {
		return err
	}
	for i, e := range es {
		if errs != nil && errs[i] != nil {
			continue
		}
		r := byAuthor[names[i]]
		for _, edge := range e.Edges {
			if edge.Relation != quotes.RelSaid {
				continue
			}
			r.quotes++
			if topicChunks[edge.ChunkID] {
				r.topic++
			}
		}
	}
	for i := range cands {
		r := byAuthor[cands[i].Author]
		cands[i].AuthorQuotes, cands[i].AuthorTopic = r.quotes, r.topic
	}
	return nil
}

func cosine(a, b []float32) float64 {
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
