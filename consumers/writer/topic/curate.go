package topic

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/annalist-dev/annalist/internal/lang/quotes"
	"github.com/annalist-dev/annalist/internal/lang/text"
	"github.com/annalist-dev/annalist/internal/lang/zh/era"
	"github.com/annalist-dev/annalist/internal/lang/zh/glossary"
	"github.com/annalist-dev/annalist/internal/ports/graph"
	"github.com/annalist-dev/annalist/internal/ports/kind"
	"github.com/annalist-dev/annalist/internal/ports/vectors"
	"github.com/annalist-dev/annalist/schemas"
)

// Graph is the part of the knowledge graph the curator reads; infra/kg's
// Store implements it.
type Graph interface {
	// Resolve returns the ids of the entities a surface form (or an entity
	// id) may denote; none, without error, for an unknown surface.
	Resolve(ctx context.Context, tenant, surface string) ([]string, error)
	// Entity returns an entity with its aliases, edges, incoming edges and
	// mentions; an unknown id fails with an error wrapping
	// graph.ErrNotFound.
	Entity(ctx context.Context, tenant, id string) (graph.Entity, error)
}

// Entities is a Graph that reads several entities at once, as Entity
// reads one; infra/kg's Store implements it. The curation reads a topic's
// entities depth by depth, hundreds of them for a place, each in one go
// when the graph can.
type Entities interface {
	// Entities returns the entities of ids; an id the graph does not hold
	// gives an error wrapping graph.ErrNotFound in its place of errs.
	Entities(ctx context.Context, tenant string, ids []string) (es []graph.Entity, errs []error, err error)
}

// Linked is the part of the graph that holds the entity linker's
// resolutions; infra/kg's Store implements it. A Graph that implements it
// adds the chunks the linker resolved to the seed (chunks naming it).
type Linked interface {
	// LinkedOf returns each entity's linked chunks, sorted.
	LinkedOf(ctx context.Context, tenant string, entities []string) ([][]string, error)
}

// Chunks reads stored chunks; infra/redisdb's Chunks implements it.
type Chunks interface {
	// Get returns the chunks with the given ids that exist, in order.
	Get(ctx context.Context, tenant string, ids []string) ([]schemas.Chunk, error)
}

// MaxDepth bounds the expansion: the seed is depth 0, and no entity is
// reached more than MaxDepth edges away from it.
const MaxDepth = 4

// Defaults of the curator's bounds.
const (
	// DefaultMaxEntities bounds the curated entities.
	DefaultMaxEntities = 400
	// DefaultMaxFrontier bounds the entities one expansion step reads.
	DefaultMaxFrontier = 64
	// DefaultMaxItems bounds the outline (a page is bounded at 200
	// sentences by its Spec).
	DefaultMaxItems = 200
	// DefaultVectorK is how many chunks a free-text topic's vector search
	// reads.
	DefaultVectorK = 20
)

// Option configures a Curator.
type Option func(*Curator)

// WithVectors adds vector search for free-text topics: the topic is
// embedded, the top k chunks are read and those whose text contains the
// topic are kept. k ≤ 0 means DefaultVectorK.
func WithVectors(emb vectors.Embedder, store vectors.Store, k int) Option {
	return func(c *Curator) {
		if k <= 0 {
			k = DefaultVectorK
		}
		c.emb, c.vec, c.k = emb, store, k
	}
}

// WithDepth sets how deep the expansion goes (1..MaxDepth; default
// MaxDepth).
func WithDepth(d int) Option {
	return func(c *Curator) {
		if d >= 1 && d <= MaxDepth {
			c.depth = d
		}
	}
}

// WithEra sets the era table periods are read with (default era.Default()).
func WithEra(t *era.Table) Option {
	return func(c *Curator) {
		if t != nil {
			c.era = t
		}
	}
}

// Curator is the topic kind's planner: it curates the knowledge graph
// around a topic and outlines the page (see the package doc). It is safe
// for concurrent use.
type Curator struct {
	g           Graph
	chunks      Chunks
	emb         vectors.Embedder
	vec         vectors.Store
	k           int
	depth       int
	era         *era.Table
	maxEntities int
	maxFrontier int
	maxItems    int
	quotes      Quotes
}

var _ kind.Planner = (*Curator)(nil)

// NewCurator returns a curator over g and c.
func NewCurator(g Graph, c Chunks, opts ...Option) *Curator {
	cu := &Curator{g: g, chunks: c, depth: MaxDepth, era: era.Default(), maxEntities: DefaultMaxEntities,
		maxFrontier: DefaultMaxFrontier, maxItems: DefaultMaxItems}
	for _, o := range opts {
		o(cu)
	}
	return cu
}

// Plan curates the request's topic. A topic with no evidence fails with an
// error wrapping kind.ErrUnknownSubject.
func (c *Curator) Plan(ctx context.Context, tenant string, req schemas.Request) (*schemas.ReferenceSet, error) {
	topic := strings.TrimSpace(req.Subject)
	if topic == "" {
		return nil, fmt.Errorf("curate topic: %w: empty topic", kind.ErrUnknownSubject)
	}
	var fresh []string
	if t := req.Trigger; t != nil && t.Reason != schemas.ReasonRetracted {
		fresh = t.DocIDs
	}
	rs, err := c.curate(ctx, tenant, topic, fresh)
	if err == nil && req.Quotes {
		err = c.addQuotes(ctx, tenant, topic, rs)
	}
	if err != nil {
		return nil, fmt.Errorf("curate topic %q: %w", topic, err)
	}
	return rs, nil
}

// curation is one Plan's state.
type curation struct {
	c      *Curator
	tenant string
	topic  string
	seed   graph.Entity
	// names are the surface forms a chunk must contain to name the topic.
	names []string
	cur   schemas.Curation
	// at indexes cur.Entities; seen holds every entity reached, kept or not.
	at   map[string]int
	seen map[string]bool
	// ents are the entities read; chunks the chunks read.
	ents   map[string]graph.Entity
	chunks map[string]schemas.Chunk
	// via is the entity each curated chunk was reached through.
	via   map[string]string
	order []string // chunk ids in the order they were reached
	// keyNames are the names of the key entities kept so far.
	keyNames []string
	// fresh are the documents whose arrival asked for the page again.
	fresh []string
	// quotations are the chunks of the quotes collection read and left
	// out (see load).
	quotations map[string]bool
}

func (c *Curator) curate(ctx context.Context, tenant, topic string, fresh []string) (*schemas.ReferenceSet, error) {
	ids, err := c.g.Resolve(ctx, tenant, topic)
	if err != nil {
		return nil, err
	}
	cands, err := c.read(ctx, tenant, ids)
	if err != nil {
		return nil, err
	}
	st := &curation{c: c, tenant: tenant, topic: topic, at: map[string]int{}, seen: map[string]bool{},
		ents: map[string]graph.Entity{}, chunks: map[string]schemas.Chunk{}, via: map[string]string{}, fresh: fresh}
	seed, term, ok := pickSeed(topic, cands)
	if ok {
		st.seed = seed
		st.cur.Type = topicType(seed)
		st.cur.Seeds = []string{seed.ID}
		st.names = names(topic, seed.Aliases)
		st.ents[seed.ID] = seed
		st.keep(schemas.CuratedEntity{ID: seed.ID, Name: seed.Name, Type: seed.Type})
		if err := st.expand(ctx); err != nil {
			return nil, err
		}
	} else {
		st.cur.Type = schemas.TopicText
		st.names = names(topic, nil)
		if err := st.textSeeds(ctx, cands); err != nil {
			return nil, err
		}
	}
	if term.ID != "" && term.ID != st.seed.ID {
		st.cur.Seeds = append(st.cur.Seeds, term.ID)
		st.ents[term.ID] = term
		st.keep(schemas.CuratedEntity{ID: term.ID, Name: term.Name, Type: term.Type})
	}
	if err := st.outline(ctx, term); err != nil {
		return nil, err
	}
	if len(st.cur.Outline) == 0 {
		return nil, fmt.Errorf("%w: no passage of the sources speaks of it", kind.ErrUnknownSubject)
	}
	return st.referenceSet(), nil
}

// read returns the entities of ids that exist, in order.
func (c *Curator) read(ctx context.Context, tenant string, ids []string) ([]graph.Entity, error) {
	if b, ok := c.g.(Entities); ok {
		es, errs, err := b.Entities(ctx, tenant, ids)
		if err != nil {
			return nil, err
		}
		var out []graph.Entity
		for i, e := range es {
			if errors.Is(errs[i], graph.ErrNotFound) {
				continue
			}
			if errs[i] != nil {
				return nil, errs[i]
			}
			out = append(out, e)
		}
		return out, nil
	}
	var out []graph.Entity
	for _, id := range ids {
		e, err := c.g.Entity(ctx, tenant, id)
		if errors.Is(err, graph.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// typeRank orders the candidate seeds of a topic string: typed nodes that
// gather people first (a place, an office, an era year), then a person,
// then a glossary term (which, when another seed is chosen, adds its
// definition to the page).
func typeRank(e graph.Entity) int {
	switch e.Type {
	case schemas.EntityPlace:
		return 0
	case schemas.EntityOffice:
		return 1
	case schemas.EntityTime:
		return 2
	case schemas.EntityPerson:
		return 3
	case glossary.HeadType:
		return 4
	}
	return 5
}

// pickSeed chooses the seed among the candidates: by typeRank, then a
// person anchored to an entry under the topic's own name, then the entity
// with the most edges. A candidate with no edge at all in either
// direction gives no page and is not chosen. term is the glossary term
// among the candidates, if any.
func pickSeed(topic string, cands []graph.Entity) (seed, term graph.Entity, ok bool) {
	var usable []graph.Entity
	for _, e := range cands {
		if e.Type == glossary.HeadType && term.ID == "" {
			term = e
		}
		if typeRank(e) < 5 && len(e.Edges)+len(e.Incoming) > 0 {
			usable = append(usable, e)
		}
	}
	if len(usable) == 0 {
		return graph.Entity{}, term, false
	}
	anchored := func(e graph.Entity) int {
		if e.EntryChunk != "" && e.Name == topic {
			return 0
		}
		return 1
	}
	seed = slices.MinFunc(usable, func(a, b graph.Entity) int {
		return cmp.Or(cmp.Compare(typeRank(a), typeRank(b)), cmp.Compare(anchored(a), anchored(b)),
			cmp.Compare(len(b.Edges)+len(b.Incoming), len(a.Edges)+len(a.Incoming)), cmp.Compare(a.ID, b.ID))
	})
	return seed, term, true
}

func topicType(e graph.Entity) string {
	switch e.Type {
	case schemas.EntityPlace:
		return schemas.TopicPlace
	case schemas.EntityOffice:
		return schemas.TopicOffice
	case schemas.EntityTime:
		return schemas.TopicTime
	case schemas.EntityPerson:
		return schemas.TopicPerson
	case glossary.HeadType:
		return schemas.TopicTerm
	}
	return schemas.TopicText
}

// names are the surface forms that name the topic: the topic as asked and
// the seed's aliases of at least two characters (a one-character name
// matches almost any classical text).
func names(topic string, aliases []string) []string {
	out := []string{topic}
	for _, a := range aliases {
		if text.RuneLen(a) >= 2 && !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	return out
}

// contains reports whether s contains one of ns, letter case ignored.
func contains(s string, ns []string) bool {
	low := strings.ToLower(s)
	for _, n := range ns {
		if n != "" && strings.Contains(low, strings.ToLower(n)) {
			return true
		}
	}
	return false
}

func (st *curation) keep(e schemas.CuratedEntity) {
	st.seen[e.ID] = true
	if i, ok := st.at[e.ID]; ok {
		if e.Key && !st.cur.Entities[i].Key {
			st.cur.Entities[i].Key = true
			st.cur.Entities[i].Chunk = e.Chunk
			st.keyNames = append(st.keyNames, e.Name)
		}
		return
	}
	st.at[e.ID] = len(st.cur.Entities)
	st.cur.Entities = append(st.cur.Entities, e)
	if e.Key {
		st.keyNames = append(st.keyNames, e.Name)
	}
}

func (st *curation) addChunk(id, through string) {
	if id == "" {
		return
	}
	if _, ok := st.via[id]; !ok {
		st.via[id] = through
		st.order = append(st.order, id)
	}
}

// load reads the chunks of ids not read yet. A chunk of the quotes
// collection (profile quotes.Profile) is left out: the curation gathers
// what the sources say of the topic, and a quotation's words are its
// author's, never to be written as a plain sentence. A quotation enters
// a page only when the request asks for quotations (addQuotes), as its
// author's, verbatim and attributed.
func (st *curation) load(ctx context.Context, ids []string) error {
	var need []string
	for _, id := range ids {
		if _, ok := st.chunks[id]; !ok && id != "" && !st.quotations[id] && !slices.Contains(need, id) {
			need = append(need, id)
		}
	}
	if len(need) == 0 {
		return nil
	}
	cs, err := st.c.chunks.Get(ctx, st.tenant, need)
	if err != nil {
		return err
	}
	for _, ch := range cs {
		if ch.Profile == quotes.Profile {
			if st.quotations == nil {
				st.quotations = map[string]bool{}
			}
			st.quotations[ch.ChunkID] = true
			continue
		}
		st.chunks[ch.ChunkID] = ch
	}
	return nil
}

// keyRelation is the relation whose heads are a typed topic's key
// entities: the natives of a place, the holders of an office, the jinshi
// of a year.
func keyRelation(topicType string) string {
	switch topicType {
	case schemas.TopicPlace:
		return schemas.RelNativePlace
	case schemas.TopicOffice:
		return schemas.RelOffice
	case schemas.TopicTime:
		return schemas.RelJinshi
	case schemas.TopicPerson:
		return schemas.RelRelative
	}
	return ""
}

// hop is an entity reached over an edge.
type hop struct {
	id, name string
	ed       graph.Edge
	from     string
}

// hops are the entities e's edges lead to, outgoing then incoming,
// mentions aside.
func hops(e graph.Entity) []hop {
	var out []hop
	for _, ed := range e.Edges {
		if ed.Relation != schemas.RelMention && ed.TailID != "" && ed.TailID != e.ID {
			out = append(out, hop{id: ed.TailID, name: ed.Tail, ed: ed, from: e.ID})
		}
	}
	for _, ed := range e.Incoming {
		if ed.Relation != schemas.RelMention && ed.HeadID != "" && ed.HeadID != e.ID {
			out = append(out, hop{id: ed.HeadID, name: ed.Head, ed: ed, from: e.ID})
		}
	}
	return out
}

func isPerson(id string) bool { return strings.HasPrefix(id, schemas.EntityPerson+":") }

// expand walks the graph breadth first from the seed, depth by depth up to
// the curator's depth, and keeps what passes the relevance filter.
func (st *curation) expand(ctx context.Context) error {
	frontier := []string{st.seed.ID}
	for depth := 1; depth <= st.c.depth && len(frontier) > 0; depth++ {
		step := schemas.CurationStep{Depth: depth, Frontier: len(frontier)}
		var unread []string
		for _, id := range frontier {
			if _, ok := st.ents[id]; !ok {
				unread = append(unread, id)
			}
		}
		read, err := st.c.read(ctx, st.tenant, unread)
		if err != nil {
			return err
		}
		for _, e := range read {
			st.ents[e.ID] = e
		}
		var hs []hop
		for _, id := range frontier {
			e, ok := st.ents[id]
			if !ok {
				// Not in the graph (any more).
				continue
			}
			for _, h := range hops(e) {
				// Beyond the seed only people are followed: a place, an
				// office or a year reached from a native is a hub to other
				// topics, not part of this one.
				if depth > 1 && !isPerson(h.id) {
					continue
				}
				if st.seen[h.id] {
					continue
				}
				st.seen[h.id] = true
				hs = append(hs, h)
			}
		}
		step.Reached = len(hs)
		var cids []string
		for _, h := range hs {
			cids = append(cids, h.ed.ChunkID)
		}
		if err := st.load(ctx, cids); err != nil {
			return err
		}
		var next []string
		keyRel := keyRelation(st.cur.Type)
		for _, h := range hs {
			if len(st.cur.Entities) >= st.c.maxEntities {
				break
			}
			chunkText := st.chunks[h.ed.ChunkID].Text
			if !contains(h.ed.Evidence, st.names) && !contains(chunkText, st.names) &&
				!contains(chunkText, st.keyNames) {
				continue
			}
			typ, _, _ := strings.Cut(h.id, ":")
			key := depth == 1 && isPerson(h.id) && keyRel != "" && h.ed.Relation == keyRel
			name := h.name
			if isPerson(h.id) {
				name = personName(h.id, h.name)
			}
			ce := schemas.CuratedEntity{ID: h.id, Name: name, Type: typ, Depth: depth}
			if key {
				ce.Chunk = h.ed.ChunkID
			}
			st.keep(ce)
			st.cur.Edges = append(st.cur.Edges, h.ed.ID)
			st.addChunk(h.ed.ChunkID, h.id)
			step.Kept++
			if isPerson(h.id) && len(next) < st.c.maxFrontier {
				next = append(next, h.id)
			}
		}
		st.cur.Depths = append(st.cur.Depths, step)
		frontier = next
	}
	return nil
}

// personName is the canonical name of a person id (person:叶向高@1a2b3c4d
// is 叶向高), else the surface the edge used.
func personName(id, surface string) string {
	rest, ok := strings.CutPrefix(id, schemas.EntityPerson+":")
	if !ok {
		return surface
	}
	name, _, _ := strings.Cut(rest, "@")
	if name == "" {
		return surface
	}
	return name
}

// textSeeds finds the chunks of a free-text topic: the chunks of entities
// the topic string resolved to whose text contains it (lexical), and the
// vector search's hits whose text contains it.
func (st *curation) textSeeds(ctx context.Context, cands []graph.Entity) error {
	var lexical []string
	for _, e := range cands {
		st.ents[e.ID] = e
		lexical = append(lexical, e.Chunks...)
		for _, ed := range e.Edges {
			lexical = append(lexical, ed.ChunkID)
		}
		for _, ed := range e.Incoming {
			lexical = append(lexical, ed.ChunkID)
		}
	}
	if err := st.load(ctx, lexical); err != nil {
		return err
	}
	found := false
	for _, id := range lexical {
		if ch, ok := st.chunks[id]; ok && contains(ch.Text, st.names) {
			st.addChunk(id, "")
			found = true
		}
	}
	if found {
		st.cur.Seeds = append(st.cur.Seeds, "lexical")
	}
	if st.c.vec == nil {
		return nil
	}
	vs, err := st.c.emb.Embed(ctx, []string{st.topic})
	if err != nil {
		return fmt.Errorf("embed topic: %w", err)
	}
	if len(vs) != 1 {
		return fmt.Errorf("embed topic: %d vectors for 1 text", len(vs))
	}
	ids, err := st.nearest(ctx, vs[0])
	if err != nil {
		return err
	}
	found = false
	for _, id := range ids {
		if ch, ok := st.chunks[id]; ok && contains(ch.Text, st.names) {
			if _, had := st.via[id]; !had {
				st.addChunk(id, schemas.SourceVector)
			}
			found = true
		}
	}
	if found {
		st.cur.Seeds = append(st.cur.Seeds, "vector")
	}
	return nil
}

// maxVectorWiden bounds how far nearest widens its search: at most this
// many times the curator's k hits are read.
const maxVectorWiden = 16

// nearest returns the k nearest chunks of the topic's embedding that are
// not quotations, loaded. The quotes collection shares the vector index
// with the sources, and a topic that is also a tag of the collection has
// its nearest hits among the quotations, which load leaves out; so the
// search widens, doubling, until k chunks of the sources are found, the
// index has no more, or maxVectorWiden times k hits were read.
func (st *curation) nearest(ctx context.Context, vec []float32) ([]string, error) {
	for k := st.c.k; ; k *= 2 {
		hits, err := st.c.vec.Search(ctx, st.tenant, vec, k)
		if err != nil {
			return nil, fmt.Errorf("vector search: %w", err)
		}
		ids := make([]string, 0, len(hits))
		for _, h := range hits {
			ids = append(ids, h.ChunkID)
		}
		if err := st.load(ctx, ids); err != nil {
			return nil, err
		}
		kept := slices.DeleteFunc(ids, func(id string) bool { return st.quotations[id] })
		if len(kept) >= st.c.k || len(hits) < k || k >= maxVectorWiden*st.c.k {
			return kept[:min(len(kept), st.c.k)], nil
		}
	}
}

// referenceSet is the curation as the writer's reference set: the chunks
// of the outline first, in outline order, then the other curated chunks in
// the order they were reached.
func (st *curation) referenceSet() *schemas.ReferenceSet {
	rs := &schemas.ReferenceSet{Subject: st.topic, Name: st.topic, EntityID: st.seed.ID, Curation: &st.cur}
	if st.seed.ID != "" {
		rs.Name = st.seed.Name
		rs.Aliases = names(st.seed.Name, st.seed.Aliases)
	} else {
		rs.Aliases = []string{st.topic}
	}
	var ids []string
	for _, s := range st.cur.Outline {
		for _, it := range s.Items {
			if !slices.Contains(ids, it.Chunk) {
				ids = append(ids, it.Chunk)
			}
		}
	}
	for _, id := range st.order {
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	for _, id := range ids {
		ch, ok := st.chunks[id]
		if !ok {
			continue
		}
		src, through := schemas.SourceNeighbour, st.via[id]
		switch {
		case through == schemas.SourceVector:
			src, through = schemas.SourceVector, ""
		case through == "" || through == st.seed.ID:
			src, through = schemas.SourceEntity, st.seed.ID
		}
		rs.References = append(rs.References, schemas.Reference{ChunkID: id, DocID: ch.DocID, Text: ch.Text,
			Score: 1 / float64(60+len(rs.References)+1), Source: src, Entity: through})
		if rs.Lang == "" {
			rs.Lang, rs.Profile = text.Lang(ch.Text), ch.Profile
		}
	}
	return rs
}
