package kg

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/annalist-dev/annalist/internal/ports/graph"

	goredis "github.com/redis/go-redis/v9"
)

// Resolve returns the ids of the entities a surface form may denote, sorted:
// every entity whose canonical name, courtesy name, art name or other alias
// it is. An existing entity id resolves to itself. An unknown surface gives
// no ids and no error.
func (s *Store) Resolve(ctx context.Context, tenant, surface string) ([]string, error) {
	if err := checkTenant("resolve", tenant); err != nil {
		return nil, err
	}
	surface = Surface(surface)
	if surface == "" {
		return nil, nil
	}
	p := s.c.Pipeline()
	isID := p.SIsMember(ctx, prefix(tenant)+"nodes", surface)
	alias := p.SMembers(ctx, prefix(tenant)+"alias:"+surface)
	if _, err := p.Exec(ctx); err != nil {
		return nil, fmt.Errorf("resolve %q: %w", surface, err)
	}
	if isID.Val() {
		return []string{surface}, nil
	}
	ids := alias.Val()
	slices.Sort(ids)
	return ids, nil
}

// Entity returns an entity with its aliases, its edges in both directions,
// the chunks that mention it and its homonyms, in two round trips. An
// unknown id fails with an error wrapping graph.ErrNotFound.
//
// Edges are ordered as a reader of the source would meet them: those from
// the entry chunk first, then by document, chunk and position in the chunk.
func (s *Store) Entity(ctx context.Context, tenant, id string) (graph.Entity, error) {
	es, errs, err := s.Entities(ctx, tenant, []string{id})
	if err != nil {
		return graph.Entity{}, err
	}
	return es[0], errs[0]
}

// Entities reads several entities as Entity does, in two round trips for
// all of them. An id the graph does not hold gives an error wrapping
// graph.ErrNotFound in its place of errs.
func (s *Store) Entities(ctx context.Context, tenant string, ids []string) (es []graph.Entity, errs []error, err error) {
	if err := checkTenant("read entity", tenant); err != nil {
		return nil, nil, err
	}
	if len(ids) == 0 {
		return nil, nil, nil
	}
	pre := prefix(tenant)
	p := s.c.Pipeline()
	type reads struct {
		node                   *goredis.MapStringStringCmd
		names, out, in, chunks *goredis.StringSliceCmd
	}
	rs := make([]reads, len(ids))
	for i, id := range ids {
		rs[i] = reads{
			node: p.HGetAll(ctx, pre+"node:"+id), names: p.SMembers(ctx, pre+"names:"+id),
			out: p.SMembers(ctx, pre+"out:"+id), in: p.SMembers(ctx, pre+"in:"+id),
			chunks: p.SMembers(ctx, pre+"mentions:"+id),
		}
	}
	if _, err := p.Exec(ctx); err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", entitiesNamed(ids), err)
	}
	es, errs = make([]graph.Entity, len(ids)), make([]error, len(ids))
	edges := make([][]*goredis.MapStringStringCmd, len(ids))
	homonyms := make([]*goredis.StringSliceCmd, len(ids))
	p = s.c.Pipeline()
	for i, id := range ids {
		if len(rs[i].node.Val()) == 0 {
			errs[i] = fmt.Errorf("read entity %s: %w", id, graph.ErrNotFound)
			continue
		}
		es[i] = graph.Entity{Node: nodeFromHash(id, rs[i].node.Val())}
		for _, eid := range rs[i].out.Val() {
			edges[i] = append(edges[i], p.HGetAll(ctx, pre+"edge:"+eid))
		}
		for _, eid := range rs[i].in.Val() {
			edges[i] = append(edges[i], p.HGetAll(ctx, pre+"edge:"+eid))
		}
		homonyms[i] = p.SMembers(ctx, pre+"alias:"+es[i].Name)
	}
	if _, err := p.Exec(ctx); err != nil {
		return nil, nil, fmt.Errorf("read the edges of %s: %w", entitiesNamed(ids), err)
	}
	for i, id := range ids {
		if errs[i] != nil {
			continue
		}
		e := &es[i]
		setEdges(e, rs[i].out.Val(), rs[i].in.Val(), edges[i])
		e.Aliases = rs[i].names.Val()
		slices.SortFunc(e.Aliases, func(a, b string) int {
			if a == b {
				return 0
			}
			if a == e.Name {
				return -1
			}
			if b == e.Name {
				return 1
			}
			return cmp.Compare(a, b)
		})
		e.Chunks = rs[i].chunks.Val()
		slices.Sort(e.Chunks)
		for _, h := range homonyms[i].Val() {
			if h != id {
				e.Homonyms = append(e.Homonyms, h)
			}
		}
		slices.Sort(e.Homonyms)
	}
	return es, errs, nil
}

// entitiesNamed names ids in an error: the entity, or how many from which.
func entitiesNamed(ids []string) string {
	if len(ids) == 1 {
		return "entity " + ids[0]
	}
	return fmt.Sprintf("%d entities from %s", len(ids), ids[0])
}

// EntityEdges reads several entities with their edges, in two round
// trips for all of them: the node and its outgoing and incoming edges,
// sorted as Entity sorts them, without the chunks that mention it, its
// names or its homonyms (Entity reads those). An id the graph does not
// hold gives graph.ErrNotFound in its place of errs.
func (s *Store) EntityEdges(ctx context.Context, tenant string, ids []string) (es []graph.Entity, errs []error, err error) {
	if err := checkTenant("read entities", tenant); err != nil {
		return nil, nil, err
	}
	if len(ids) == 0 {
		return nil, nil, nil
	}
	pre := prefix(tenant)
	p := s.c.Pipeline()
	nodes := make([]*goredis.MapStringStringCmd, len(ids))
	outs := make([]*goredis.StringSliceCmd, len(ids))
	ins := make([]*goredis.StringSliceCmd, len(ids))
	for i, id := range ids {
		nodes[i] = p.HGetAll(ctx, pre+"node:"+id)
		outs[i] = p.SMembers(ctx, pre+"out:"+id)
		ins[i] = p.SMembers(ctx, pre+"in:"+id)
	}
	if _, err := p.Exec(ctx); err != nil {
		return nil, nil, fmt.Errorf("read %d entities: %w", len(ids), err)
	}
	p = s.c.Pipeline()
	edges := make([][]*goredis.MapStringStringCmd, len(ids))
	for i := range ids {
		for _, eid := range append(slices.Clone(outs[i].Val()), ins[i].Val()...) {
			edges[i] = append(edges[i], p.HGetAll(ctx, pre+"edge:"+eid))
		}
	}
	if _, err := p.Exec(ctx); err != nil {
		return nil, nil, fmt.Errorf("read the edges of %d entities: %w", len(ids), err)
	}
	es, errs = make([]graph.Entity, len(ids)), make([]error, len(ids))
	for i, id := range ids {
		if len(nodes[i].Val()) == 0 {
			errs[i] = fmt.Errorf("read entity %s: %w", id, graph.ErrNotFound)
			continue
		}
		e := graph.Entity{Node: nodeFromHash(id, nodes[i].Val())}
		setEdges(&e, outs[i].Val(), ins[i].Val(), edges[i])
		es[i] = e
	}
	return es, errs, nil
}

// setEdges sets e's outgoing and incoming edges from the hashes read for
// the edge ids outIDs then inIDs (an edge gone meanwhile is skipped), in
// the order Entity gives them.
func setEdges(e *graph.Entity, outIDs, inIDs []string, edges []*goredis.MapStringStringCmd) {
	e.Edges = make([]graph.Edge, 0, len(outIDs))
	e.Incoming = make([]graph.Edge, 0, len(inIDs))
	for i, c := range edges {
		if len(c.Val()) == 0 {
			continue
		}
		if i < len(outIDs) {
			e.Edges = append(e.Edges, edgeFromHash(outIDs[i], c.Val()))
		} else {
			e.Incoming = append(e.Incoming, edgeFromHash(inIDs[i-len(outIDs)], c.Val()))
		}
	}
	sortEdges(e.Edges, e.EntryChunk)
	sortEdges(e.Incoming, "")
}

func sortEdges(es []graph.Edge, entryChunk string) {
	slices.SortFunc(es, func(a, b graph.Edge) int {
		ea, eb := a.ChunkID == entryChunk && entryChunk != "", b.ChunkID == entryChunk && entryChunk != ""
		if ea != eb {
			if ea {
				return -1
			}
			return 1
		}
		return cmp.Or(
			cmp.Compare(a.DocID, b.DocID),
			cmp.Compare(a.ChunkID, b.ChunkID),
			cmp.Compare(a.Span.Start, b.Span.Start),
			cmp.Compare(a.Relation, b.Relation),
			cmp.Compare(a.Tail, b.Tail),
			cmp.Compare(a.ID, b.ID),
		)
	})
}

func nodeFromHash(id string, h map[string]string) graph.Node {
	return graph.Node{
		ID: id, Name: h["name"], Type: h["type"], EntryChunk: h["entry_chunk"],
		FirstChunk: h["first_chunk"], FirstDoc: h["first_doc"], FirstSeen: h["first_seen"],
	}
}

func edgeFromHash(id string, h map[string]string) graph.Edge {
	e := graph.Edge{
		ID: id, HeadID: h["head"], Head: h["head_name"], Relation: h["relation"],
		Tail: h["tail"], TailID: h["tail_id"], ChunkID: h["chunk"], DocID: h["doc"],
		Evidence: h["evidence"], Method: h["method"], Pattern: h["pattern"],
		TripletID: h["triplet"], Resolution: h["resolution"], TailResolution: h["tail_resolution"],
	}
	e.Span.Start, _ = strconv.Atoi(h["start"])
	e.Span.End, _ = strconv.Atoi(h["end"])
	e.Confidence, _ = strconv.ParseFloat(h["confidence"], 64)
	// These fields are written by this package from well-formed JSON; a
	// value that does not parse is left empty rather than failing a read.
	if q := h["qualifiers"]; q != "" {
		_ = json.Unmarshal([]byte(q), &e.Qualifiers)
	}
	if c := h["candidates"]; c != "" {
		_ = json.Unmarshal([]byte(c), &e.Candidates)
	}
	if c := h["tail_candidates"]; c != "" {
		_ = json.Unmarshal([]byte(c), &e.TailCandidates)
	}
	return e
}

// Neighbourhood returns the entities within hops edges of id (walking edges
// in both directions) and the edges walked, in 2·hops+1 round trips. The
// walk stops collecting edges at the store's NeighbourhoodLimit and then
// reports Truncated. hops ≤ 0 gives the entity alone. An unknown id fails
// with an error wrapping graph.ErrNotFound.
//
// Nodes are sorted by id, edges by id, so equal graphs give equal answers.
func (s *Store) Neighbourhood(ctx context.Context, tenant, id string, hops int) (graph.Subgraph, error) {
	if err := checkTenant("read neighbourhood", tenant); err != nil {
		return graph.Subgraph{}, err
	}
	pre := prefix(tenant)
	g := graph.Subgraph{Root: id}
	visited := map[string]bool{id: true}
	seenEdge := map[string]bool{}
	frontier := []string{id}
	for hop := 0; ; hop++ {
		walk := hop < hops && !g.Truncated
		p := s.c.Pipeline()
		nodes := make([]*goredis.MapStringStringCmd, len(frontier))
		adj := make([]*goredis.StringSliceCmd, 0, 2*len(frontier))
		for i, n := range frontier {
			nodes[i] = p.HGetAll(ctx, pre+"node:"+n)
			if walk {
				adj = append(adj, p.SMembers(ctx, pre+"out:"+n), p.SMembers(ctx, pre+"in:"+n))
			}
		}
		if _, err := p.Exec(ctx); err != nil {
			return graph.Subgraph{}, fmt.Errorf("read neighbourhood of %s, hop %d: %w", id, hop, err)
		}
		for i, c := range nodes {
			if len(c.Val()) == 0 {
				if hop == 0 {
					return graph.Subgraph{}, fmt.Errorf("read neighbourhood of %s: %w", id, graph.ErrNotFound)
				}
				continue
			}
			g.Nodes = append(g.Nodes, nodeFromHash(frontier[i], c.Val()))
		}
		if !walk {
			break
		}
		var eids []string
		for _, c := range adj {
			for _, eid := range c.Val() {
				if seenEdge[eid] {
					continue
				}
				if len(g.Edges)+len(eids) >= s.cfg.NeighbourhoodLimit {
					g.Truncated = true
					break
				}
				seenEdge[eid] = true
				eids = append(eids, eid)
			}
		}
		if len(eids) == 0 {
			break
		}
		p = s.c.Pipeline()
		ecmds := make([]*goredis.MapStringStringCmd, len(eids))
		for i, eid := range eids {
			ecmds[i] = p.HGetAll(ctx, pre+"edge:"+eid)
		}
		if _, err := p.Exec(ctx); err != nil {
			return graph.Subgraph{}, fmt.Errorf("read neighbourhood edges of %s, hop %d: %w", id, hop, err)
		}
		frontier = frontier[:0:0]
		for i, c := range ecmds {
			if len(c.Val()) == 0 {
				continue
			}
			e := edgeFromHash(eids[i], c.Val())
			g.Edges = append(g.Edges, e)
			for _, n := range []string{e.HeadID, e.TailID} {
				if n != "" && !visited[n] {
					visited[n] = true
					frontier = append(frontier, n)
				}
			}
		}
		if len(frontier) == 0 {
			break
		}
	}
	slices.SortFunc(g.Nodes, func(a, b graph.Node) int { return cmp.Compare(a.ID, b.ID) })
	slices.SortFunc(g.Edges, func(a, b graph.Edge) int { return cmp.Compare(a.ID, b.ID) })
	return g, nil
}

// Counts is the size of a tenant's graph.
type Counts struct {
	Nodes int64 `json:"nodes"`
	Edges int64 `json:"edges"`
	// Aliases is the number of distinct surface forms (canonical names
	// included).
	Aliases int64 `json:"aliases"`
}

// Counts returns how many nodes, edges and surface forms the tenant has.
func (s *Store) Counts(ctx context.Context, tenant string) (Counts, error) {
	if err := checkTenant("count graph", tenant); err != nil {
		return Counts{}, err
	}
	pre := prefix(tenant)
	p := s.c.Pipeline()
	n := p.SCard(ctx, pre+"nodes")
	e := p.SCard(ctx, pre+"edges")
	a := p.SCard(ctx, pre+"aliases")
	if _, err := p.Exec(ctx); err != nil {
		return Counts{}, fmt.Errorf("count graph of %s: %w", tenant, err)
	}
	return Counts{Nodes: n.Val(), Edges: e.Val(), Aliases: a.Val()}, nil
}

// RelationCounts returns, for each relation, how many distinct persons have
// at least one edge of it.
func (s *Store) RelationCounts(ctx context.Context, tenant string) (map[string]int64, error) {
	if err := checkTenant("count relations", tenant); err != nil {
		return nil, err
	}
	pre := prefix(tenant)
	rels, err := s.c.SMembers(ctx, pre+"rels").Result()
	if err != nil {
		return nil, fmt.Errorf("list relations of %s: %w", tenant, err)
	}
	out := make(map[string]int64, len(rels))
	if len(rels) == 0 {
		return out, nil
	}
	p := s.c.Pipeline()
	cards := make([]*goredis.IntCmd, len(rels))
	for i, r := range rels {
		cards[i] = p.SCard(ctx, pre+"rel:"+r)
	}
	if _, err := p.Exec(ctx); err != nil {
		return nil, fmt.Errorf("count relations of %s: %w", tenant, err)
	}
	for i, r := range rels {
		out[r] = cards[i].Val()
	}
	return out, nil
}
