package biography

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/annalist-dev/annalist/internal/lang/text"
	"github.com/annalist-dev/annalist/internal/ports/graph"
	"github.com/annalist-dev/annalist/internal/ports/kind"
	"github.com/annalist-dev/annalist/internal/ports/vectors"
	"github.com/annalist-dev/annalist/schemas"
)

// Graph is the part of the knowledge graph retrieval reads; infra/kg's
// Store implements it.
type Graph interface {
	// Resolve returns the ids of the entities a surface form (or an entity
	// id) may denote; none, without error, for an unknown surface.
	Resolve(ctx context.Context, tenant, surface string) ([]string, error)
	// Entity returns an entity with its aliases, edges, mentions and
	// homonyms; an unknown id fails with an error wrapping
	// graph.ErrNotFound.
	Entity(ctx context.Context, tenant, id string) (graph.Entity, error)
	// Neighbourhood returns the entities within hops edges of id.
	Neighbourhood(ctx context.Context, tenant, id string, hops int) (graph.Subgraph, error)
}

// Linked is the part of the graph that holds the entity linker's
// resolutions (consumers/linker); infra/kg's Store implements it. A Graph
// that implements it adds the chunks of other documents that name the
// subject to the reference set, as mentions.
type Linked interface {
	// Linked returns the chunks the linker resolved to the entity.
	Linked(ctx context.Context, tenant, entity string) ([]string, error)
}

// Chunks reads stored chunks; infra/redisdb's Chunks implements it.
type Chunks interface {
	// Get returns the chunks with the given ids that exist, in order.
	Get(ctx context.Context, tenant string, ids []string) ([]schemas.Chunk, error)
}

// DecisionSource gives the expert decisions on a subject's reference
// conflicts (the review store).
type DecisionSource interface {
	Decisions(ctx context.Context, tenant, subject string) ([]schemas.Decision, error)
}

// DefaultMaxReferences bounds a reference set when no WithMaxReferences
// option is given: every own chunk of the longest liezhuan entries fits
// several times over, and a drafter's prompt stays bounded for a person
// an archive mentions hundreds of times.
const DefaultMaxReferences = 64

// rrfK is the constant of reciprocal rank fusion (Cormack et al., 2009):
// a chunk ranked r in a list scores 1/(rrfK+r). 60 is the value of the
// paper, which made fusion insensitive to it over a wide range.
const rrfK = 60

// RetrieverOption configures a Retriever.
type RetrieverOption func(*Retriever)

// WithVectors fuses vector search into the reference set: the subject's
// names are embedded as one query, the top k chunks are searched, and a
// hit is kept only when its text mentions one of the names, so the vector
// path adds recall (an archive page that names the subject without the
// extractor having linked it) without adding chunks about other people.
// It also enables VectorBaseline. k ≤ 0 means 10.
func WithVectors(emb vectors.Embedder, store vectors.Store, k int) RetrieverOption {
	return func(r *Retriever) {
		if k <= 0 {
			k = 10
		}
		r.emb, r.vectors, r.k = emb, store, k
	}
}

// WithDecisions adds the expert decisions that apply to the subject.
func WithDecisions(d DecisionSource) RetrieverOption {
	return func(r *Retriever) { r.decisions = d }
}

// WithMaxReferences bounds the number of references (default
// DefaultMaxReferences); n ≤ 0 keeps the default.
func WithMaxReferences(n int) RetrieverOption {
	return func(r *Retriever) {
		if n > 0 {
			r.max = n
		}
	}
}

// Retriever builds reference sets from the knowledge graph (Alstorian
// §2.2.2): the node the subject's name denotes, its own chunks, and the
// chunks of its 1-hop neighbours that mention it; optionally fused with
// vector search. It is safe for concurrent use.
type Retriever struct {
	g         Graph
	chunks    Chunks
	emb       vectors.Embedder
	vectors   vectors.Store
	k         int
	decisions DecisionSource
	max       int
}

// NewRetriever returns a retriever over g and c.
func NewRetriever(g Graph, c Chunks, opts ...RetrieverOption) *Retriever {
	r := &Retriever{g: g, chunks: c, max: DefaultMaxReferences}
	for _, o := range opts {
		o(r)
	}
	return r
}

// Retrieve builds the reference set of subject. A subject the graph does
// not know fails with an error wrapping kind.ErrUnknownSubject.
//
// Resolution: the subject is looked up as a name, courtesy name, art name
// or entity id. Of several candidates, persons come before other entities;
// then a person anchored to a biography entry whose canonical name is the
// subject; then the canonical name; then anchored; then the entity with
// the most facts. The others are listed in Homonyms, with the chosen
// entity's own homonyms.
//
// References, best first: the entity's own chunks (its entry's chunks in
// text order, then every other chunk the graph links to it), then the
// entry chunks of its 1-hop person neighbours, kept only when their text
// mentions one of the subject's names. A typed neighbour — a native place,
// an office, an examination year — links hundreds of chunks about other
// people, and which of them name the subject the graph cannot tell without
// reading them all; those are left to the vector path, which reads only
// its top k and keeps the hits that name the subject. With WithVectors,
// Score is the reciprocal rank fusion of the graph's order and the vector
// order; without, the reciprocal rank of the graph's order (1/(60+rank)),
// so the two scales agree.
//
// Cost: four round trips to Redis for a subject whose neighbours are all
// anchored to its own entry (resolve, two for the entity, one for the
// chunk texts); three more when a neighbour was linked from outside it;
// the candidates of an ambiguous name are read concurrently, and one more
// round trip reads their entry chunks to tell the entries' subjects.
func (r *Retriever) Retrieve(ctx context.Context, tenant, subject string) (*schemas.ReferenceSet, error) {
	subject = strings.TrimSpace(subject)
	if subject == "" {
		return nil, fmt.Errorf("retrieve: %w: empty subject", kind.ErrUnknownSubject)
	}
	e, others, err := r.resolve(ctx, tenant, subject)
	if err != nil {
		return nil, err
	}
	rs := &schemas.ReferenceSet{Subject: subject, Name: e.Name, EntityID: e.ID, Aliases: e.Aliases}
	if len(rs.Aliases) == 0 || rs.Aliases[0] != e.Name {
		rs.Aliases = append([]string{e.Name}, slices.DeleteFunc(slices.Clone(rs.Aliases),
			func(a string) bool { return a == e.Name })...)
	}
	rs.Homonyms = mergeSorted(others, e.Homonyms)
	for _, ed := range e.Edges {
		if ed.Relation == schemas.RelMention || ed.HeadID != e.ID {
			continue
		}
		rs.Facts = append(rs.Facts, schemas.KGFact{
			EdgeID: ed.ID, Relation: ed.Relation, Value: ed.Tail, ChunkID: ed.ChunkID, Span: ed.Span,
			Evidence: ed.Evidence, Qualifiers: ed.Qualifiers, Confidence: ed.Confidence,
		})
	}

	own := ownChunks(e)
	var near []string
	via := map[string]string{} // neighbour chunk -> the neighbour
	if outsideNeighbours(e) {
		sg, err := r.g.Neighbourhood(ctx, tenant, e.ID, 1)
		if err != nil {
			return nil, fmt.Errorf("retrieve %q: %w", subject, err)
		}
		near, via = neighbourChunks(sg, e.ID, own)
	}
	ids := append(slices.Clone(own), near...)
	chunks, err := r.chunks.Get(ctx, tenant, ids)
	if err != nil {
		return nil, fmt.Errorf("retrieve %q: %w", subject, err)
	}
	names := mentionNames(rs.Aliases)
	isOwn := make(map[string]bool, len(own))
	for _, id := range own {
		isOwn[id] = true
	}
	var fromKG []schemas.Reference
	firstProfile := "" // the profile of fromKG[0]'s chunk
	ownCs := slices.DeleteFunc(slices.Clone(chunks), func(c schemas.Chunk) bool {
		// The text of a person attached to another's entry is that
		// person's: it is the subject's only where it names the subject.
		return !isOwn[c.ChunkID] || othersAttached(c, e.Name) && !mentionsAny(c.Text, names)
	})
	readingOrder(ownCs, e.EntryChunk)
	nearCs := slices.DeleteFunc(chunks, func(c schemas.Chunk) bool { return isOwn[c.ChunkID] })
	for _, c := range append(ownCs, nearCs...) {
		src, through := schemas.SourceEntity, e.ID
		if !isOwn[c.ChunkID] {
			if !mentionsAny(c.Text, names) {
				continue
			}
			src, through = schemas.SourceNeighbour, via[c.ChunkID]
		}
		fromKG = append(fromKG, schemas.Reference{ChunkID: c.ChunkID, DocID: c.DocID, Text: c.Text,
			Source: src, Entity: through})
		if len(fromKG) == 1 {
			firstProfile = c.Profile
		}
		if rs.Lang == "" && c.ChunkID == e.EntryChunk {
			rs.Lang, rs.Profile = text.Lang(c.Text), c.Profile
		}
	}
	if rs.Lang == "" && len(fromKG) > 0 {
		rs.Lang, rs.Profile = text.Lang(fromKG[0].Text), firstProfile
	}
	if l, ok := r.g.(Linked); ok {
		more, err := r.mentions(ctx, l, tenant, e, fromKG, ownCs)
		if err != nil {
			return nil, fmt.Errorf("retrieve %q: %w", subject, err)
		}
		fromKG = append(fromKG, more...)
	}

	var vec []schemas.Reference
	if r.vectors != nil {
		if vec, err = r.vectorHits(ctx, tenant, rs.Aliases, names, fromKG); err != nil {
			return nil, fmt.Errorf("retrieve %q: %w", subject, err)
		}
	}
	rs.References = fuse(fromKG, vec, r.max)

	if r.decisions != nil {
		if rs.Decisions, err = r.decisionsOf(ctx, tenant, subject, e.Name); err != nil {
			return nil, fmt.Errorf("retrieve %q: %w", subject, err)
		}
	}
	return rs, nil
}

// mentions are the chunks the entity linker resolved to e that lie in
// other documents than e's own chunks: they rank after the entry and the
// graph's chunks, which speak about the subject, where a mention may only
// name him. Among them, a text that names him in more of its sentences
// comes first (an archive note about him before another man's biography
// that names him once), so that it stays in a set the bound cuts; then
// document and text order.
func (r *Retriever) mentions(ctx context.Context, l Linked, tenant string, e graph.Entity,
	fromKG []schemas.Reference, own []schemas.Chunk) ([]schemas.Reference, error) {
	ids, err := l.Linked(ctx, tenant, e.ID)
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	have := make(map[string]bool, len(fromKG))
	for _, f := range fromKG {
		have[f.ChunkID] = true
	}
	ownDocs := map[string]bool{}
	for _, c := range own {
		ownDocs[c.DocID] = true
	}
	ids = slices.DeleteFunc(ids, func(id string) bool { return have[id] })
	cs, err := r.chunks.Get(ctx, tenant, ids)
	if err != nil {
		return nil, err
	}
	cs = slices.DeleteFunc(cs, func(c schemas.Chunk) bool { return ownDocs[c.DocID] })
	names := mentionNames(e.Aliases)
	if !slices.Contains(names, e.Name) && e.Name != "" {
		names = append(names, e.Name)
	}
	share := make(map[string]float64, len(cs))
	for _, c := range cs {
		share[c.ChunkID] = namedShare(c.Text, names)
	}
	slices.SortFunc(cs, func(a, b schemas.Chunk) int {
		return cmp.Or(cmp.Compare(share[b.ChunkID], share[a.ChunkID]), cmp.Compare(a.DocID, b.DocID),
			cmp.Compare(a.Start, b.Start), cmp.Compare(a.ChunkID, b.ChunkID))
	})
	out := make([]schemas.Reference, 0, len(cs))
	for _, c := range cs {
		out = append(out, schemas.Reference{ChunkID: c.ChunkID, DocID: c.DocID, Text: c.Text,
			Source: schemas.SourceMention, Entity: e.ID})
	}
	return out, nil
}

// VectorBaseline is vector search alone: the top k chunks for the subject
// as written, scored by similarity, with no fromKG and no filter — the
// embedding-RAG baseline retrieval is measured against. It needs
// WithVectors.
func (r *Retriever) VectorBaseline(ctx context.Context, tenant, subject string, k int) ([]schemas.Reference, error) {
	if r.vectors == nil {
		return nil, errors.New("vector baseline: no vector store configured")
	}
	subject = strings.TrimSpace(subject)
	if k <= 0 {
		k = r.k
	}
	hits, err := r.search(ctx, tenant, subject, k)
	if err != nil {
		return nil, fmt.Errorf("vector baseline %q: %w", subject, err)
	}
	ids := make([]string, len(hits))
	score := make(map[string]float64, len(hits))
	for i, h := range hits {
		ids[i] = h.ChunkID
		score[h.ChunkID] = float64(h.Score)
	}
	chunks, err := r.chunks.Get(ctx, tenant, ids)
	if err != nil {
		return nil, fmt.Errorf("vector baseline %q: %w", subject, err)
	}
	out := make([]schemas.Reference, 0, len(chunks))
	for _, c := range chunks {
		out = append(out, schemas.Reference{ChunkID: c.ChunkID, DocID: c.DocID, Text: c.Text,
			Score: score[c.ChunkID], Source: schemas.SourceVector})
	}
	return out, nil
}

func (r *Retriever) search(ctx context.Context, tenant, query string, k int) ([]vectors.Hit, error) {
	vecs, err := r.emb.Embed(ctx, []string{query})
	if err != nil {
		return nil, fmt.Errorf("embed query: %w", err)
	}
	if len(vecs) != 1 {
		return nil, fmt.Errorf("embed query: embedder returned %d vectors for 1 text", len(vecs))
	}
	hits, err := r.vectors.Search(ctx, tenant, vecs[0], k)
	if err != nil {
		return nil, fmt.Errorf("vector search: %w", err)
	}
	return hits, nil
}

// vectorHits searches with the subject's names and keeps the hits whose
// text mentions one of them, in vector order. Hits already in fromKG keep
// their place there and only add their vector rank to the fusion.
func (r *Retriever) vectorHits(ctx context.Context, tenant string, aliases, names []string,
	fromKG []schemas.Reference) ([]schemas.Reference, error) {
	hits, err := r.search(ctx, tenant, strings.Join(aliases, " "), r.k)
	if err != nil {
		return nil, err
	}
	have := make(map[string]int, len(fromKG))
	for i, g := range fromKG {
		have[g.ChunkID] = i
	}
	out := make([]schemas.Reference, 0, len(hits))
	var fetch []string
	for _, h := range hits {
		if i, ok := have[h.ChunkID]; ok {
			out = append(out, fromKG[i])
			continue
		}
		fetch = append(fetch, h.ChunkID)
		out = append(out, schemas.Reference{ChunkID: h.ChunkID})
	}
	if len(fetch) > 0 {
		chunks, err := r.chunks.Get(ctx, tenant, fetch)
		if err != nil {
			return nil, err
		}
		byID := make(map[string]schemas.Chunk, len(chunks))
		for _, c := range chunks {
			byID[c.ChunkID] = c
		}
		for i := range out {
			if out[i].Text != "" {
				continue
			}
			c, ok := byID[out[i].ChunkID]
			if ok && mentionsAny(c.Text, names) {
				out[i] = schemas.Reference{ChunkID: c.ChunkID, DocID: c.DocID, Text: c.Text,
					Source: schemas.SourceVector}
			}
		}
	}
	return slices.DeleteFunc(out, func(x schemas.Reference) bool { return x.Text == "" }), nil
}

func (r *Retriever) decisionsOf(ctx context.Context, tenant, subject, name string) ([]schemas.Decision, error) {
	ds, err := r.decisions.Decisions(ctx, tenant, name)
	if err != nil {
		return nil, fmt.Errorf("read decisions: %w", err)
	}
	if subject == name {
		return ds, nil
	}
	more, err := r.decisions.Decisions(ctx, tenant, subject)
	if err != nil {
		return nil, fmt.Errorf("read decisions: %w", err)
	}
	for _, d := range more {
		if !slices.ContainsFunc(ds, func(x schemas.Decision) bool { return x.ReviewID == d.ReviewID }) {
			ds = append(ds, d)
		}
	}
	return ds, nil
}

// resolve picks the entity subject denotes and returns the other
// candidates.
func (r *Retriever) resolve(ctx context.Context, tenant, subject string) (graph.Entity, []string, error) {
	ids, err := r.g.Resolve(ctx, tenant, subject)
	if err != nil {
		return graph.Entity{}, nil, fmt.Errorf("retrieve %q: %w", subject, err)
	}
	if len(ids) == 0 {
		return graph.Entity{}, nil, fmt.Errorf("retrieve %q: %w", subject, kind.ErrUnknownSubject)
	}
	// Rank from the ids first: a person id carries its name and whether it
	// is anchored (graph.Node), so only the best tier needs reading, and a
	// common courtesy name shared by ten people costs one entity read, not
	// ten.
	cands := slices.Clone(ids)
	slices.SortStableFunc(cands, func(a, b string) int { return cmp.Compare(idTier(subject, a), idTier(subject, b)) })
	for lo := 0; lo < len(cands); {
		hi := lo + 1
		for hi < len(cands) && idTier(subject, cands[hi]) == idTier(subject, cands[lo]) {
			hi++
		}
		tier, err := r.entities(ctx, tenant, cands[lo:hi])
		if err != nil {
			return graph.Entity{}, nil, fmt.Errorf("retrieve %q: %w", subject, err)
		}
		if len(tier) > 0 {
			best, err := r.best(ctx, tenant, tier)
			if err != nil {
				return graph.Entity{}, nil, fmt.Errorf("retrieve %q: %w", subject, err)
			}
			others := slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return id == best.ID })
			return best, others, nil
		}
		lo = hi
	}
	return graph.Entity{}, nil, fmt.Errorf("retrieve %q: %w", subject, kind.ErrUnknownSubject)
}

// maxParallelReads bounds the entity reads one Retrieve runs at once.
const maxParallelReads = 8

// entities reads the entities of ids, concurrently when there are several
// (a name shared by two entries costs the latency of one read), and
// returns those that exist, in the order of ids.
func (r *Retriever) entities(ctx context.Context, tenant string, ids []string) ([]graph.Entity, error) {
	es := make([]graph.Entity, len(ids))
	errs := make([]error, len(ids))
	if len(ids) == 1 {
		es[0], errs[0] = r.g.Entity(ctx, tenant, ids[0])
	} else {
		var wg sync.WaitGroup
		sem := make(chan struct{}, maxParallelReads)
		for i, id := range ids {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				es[i], errs[i] = r.g.Entity(ctx, tenant, id)
				<-sem
			}()
		}
		wg.Wait()
	}
	out := es[:0]
	for i, e := range es {
		switch {
		case errors.Is(errs[i], graph.ErrNotFound):
		case errs[i] != nil:
			return nil, errs[i]
		default:
			out = append(out, e)
		}
	}
	return out, nil
}

// best chooses among entities of one tier: the subject of the biography
// entry it is anchored to (a relative introduced in someone else's entry
// bears the same name as the man with an entry of his own more often than
// two entries do), then the most facts, then the most chunks. The entry
// chunks are read only when there is a choice to make.
func (r *Retriever) best(ctx context.Context, tenant string, tier []graph.Entity) (graph.Entity, error) {
	if len(tier) == 1 {
		return tier[0], nil
	}
	subjectOf := map[string]bool{}
	var entries []string
	for _, e := range tier {
		if e.EntryChunk != "" {
			entries = append(entries, e.EntryChunk)
		}
	}
	if len(entries) > 0 {
		cs, err := r.chunks.Get(ctx, tenant, entries)
		if err != nil {
			return graph.Entity{}, err
		}
		for _, c := range cs {
			subjectOf[c.ChunkID+"\x00"+c.Entry] = true
		}
	}
	rank := func(e graph.Entity) int {
		if subjectOf[e.EntryChunk+"\x00"+e.Name] {
			return 0
		}
		return 1
	}
	return slices.MinFunc(tier, func(a, b graph.Entity) int {
		return cmp.Or(cmp.Compare(rank(a), rank(b)), cmp.Compare(len(b.Edges), len(a.Edges)),
			cmp.Compare(len(b.Chunks), len(a.Chunks)), cmp.Compare(a.ID, b.ID))
	}), nil
}

// idTier ranks a candidate id for subject, lower first: the id itself;
// persons anchored to an entry under the subject's name; persons of that
// name; other anchored persons (the subject is their courtesy or art
// name); other persons; other entities.
func idTier(subject, id string) int {
	if id == subject {
		return 0
	}
	rest, person := strings.CutPrefix(id, schemas.EntityPerson+":")
	if !person {
		return 6
	}
	name, hash, anchored := strings.Cut(rest, "@")
	switch {
	case anchored && hash != "" && name == subject:
		return 1
	case name == subject:
		return 2
	case anchored:
		return 3
	}
	return 4
}

// ownChunks are the ids of the chunks the graph links to e: its entry
// chunk, the chunks that mention it and those its facts come from.
func ownChunks(e graph.Entity) []string {
	seen := make(map[string]bool, len(e.Chunks)+1)
	var out []string
	add := func(id string) {
		if id != "" && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	add(e.EntryChunk)
	for _, id := range e.Chunks {
		add(id)
	}
	for _, ed := range e.Edges {
		add(ed.ChunkID)
	}
	for _, ed := range e.Incoming {
		add(ed.ChunkID)
	}
	return out
}

// readingOrder sorts own chunks as a reader meets them: the entry chunk
// and what follows it in its document, then every other chunk by document
// and position. Chunks of the entry's document before the entry chunk
// belong to someone else's entry that mentions the subject.
func readingOrder(cs []schemas.Chunk, entryChunk string) {
	var entry schemas.Chunk
	for _, c := range cs {
		if c.ChunkID == entryChunk {
			entry = c
		}
	}
	group := func(c schemas.Chunk) int {
		if entry.ChunkID != "" && c.DocID == entry.DocID && c.Start >= entry.Start {
			return 0
		}
		return 1
	}
	slices.SortStableFunc(cs, func(a, b schemas.Chunk) int {
		return cmp.Or(cmp.Compare(group(a), group(b)), cmp.Compare(a.DocID, b.DocID),
			cmp.Compare(a.Start, b.Start), cmp.Compare(a.ChunkID, b.ChunkID))
	})
}

// outsideNeighbours reports whether e has a person neighbour that is not
// anchored to e's own entry: one the graph resolved by name (an archive
// note linking two men). A person resolved inside the entry (a father, a
// son introduced there) is anchored to the same entry chunk as e, so his
// entry's chunks are e's own already.
func outsideNeighbours(e graph.Entity) bool {
	inEntry := func(ed graph.Edge) bool {
		return ed.Resolution == graph.ResolvedEntry && ed.TailResolution == graph.ResolvedEntry
	}
	for _, ed := range e.Edges {
		if ed.TailID != "" && ed.TailID != e.ID && isPerson(ed.TailID) && !inEntry(ed) {
			return true
		}
	}
	for _, ed := range e.Incoming {
		if ed.HeadID != "" && ed.HeadID != e.ID && isPerson(ed.HeadID) && !inEntry(ed) {
			return true
		}
	}
	return false
}

func isPerson(id string) bool { return strings.HasPrefix(id, schemas.EntityPerson+":") }

// neighbourChunks are the entry chunks of root's person neighbours, not
// already own, in neighbour-id order, and the neighbour each was reached
// through. The caller keeps those that mention the subject.
func neighbourChunks(sg graph.Subgraph, root string, own []string) ([]string, map[string]string) {
	seen := make(map[string]bool, len(own))
	for _, id := range own {
		seen[id] = true
	}
	var out []string
	via := map[string]string{}
	for _, n := range sg.Nodes {
		if n.ID != root && n.Type == schemas.EntityPerson && n.EntryChunk != "" && !seen[n.EntryChunk] {
			seen[n.EntryChunk] = true
			out = append(out, n.EntryChunk)
			via[n.EntryChunk] = n.ID
		}
	}
	return out, via
}

// mentionNames are the names a chunk must contain to count as mentioning
// the subject: its aliases of at least two characters (a one-character
// name matches almost any classical text).
// othersAttached reports whether c is the text of a person attached to
// another's entry (Chunk.Main) who is not name.
func othersAttached(c schemas.Chunk, name string) bool {
	if c.Main == "" {
		return false
	}
	person := c.SubEntry
	if person == "" && c.Entry != c.Main {
		person = c.Entry
	}
	return person != name
}

func mentionNames(aliases []string) []string {
	out := make([]string, 0, len(aliases))
	for _, a := range aliases {
		if len([]rune(a)) >= 2 {
			out = append(out, a)
		}
	}
	return out
}

// namedShare is the share of the sentences of s that name one of names.
func namedShare(s string, names []string) float64 {
	ss := text.SplitSentences(s)
	if len(ss) == 0 {
		return 0
	}
	n := 0
	for _, x := range ss {
		if mentionsAny(x, names) {
			n++
		}
	}
	return float64(n) / float64(len(ss))
}

func mentionsAny(s string, names []string) bool {
	for _, n := range names {
		if strings.Contains(s, n) {
			return true
		}
	}
	return false
}

// fuse merges the graph's order and the vector order by reciprocal rank
// fusion and keeps the best max. Ties keep the graph's order.
func fuse(fromKG, vec []schemas.Reference, max int) []schemas.Reference {
	out := make([]schemas.Reference, 0, len(fromKG)+len(vec))
	at := make(map[string]int, len(fromKG)+len(vec))
	for i, g := range fromKG {
		g.Score = 1 / float64(rrfK+i+1)
		at[g.ChunkID] = len(out)
		out = append(out, g)
	}
	for i, v := range vec {
		s := 1 / float64(rrfK+i+1)
		if j, ok := at[v.ChunkID]; ok {
			out[j].Score += s
			continue
		}
		v.Score = s
		at[v.ChunkID] = len(out)
		out = append(out, v)
	}
	slices.SortStableFunc(out, func(a, b schemas.Reference) int { return cmp.Compare(b.Score, a.Score) })
	if len(out) > max {
		out = out[:max]
	}
	return out
}

func mergeSorted(a, b []string) []string {
	out := append(slices.Clone(a), b...)
	slices.Sort(out)
	return slices.Compact(out)
}
