package kg

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	goredis "github.com/redis/go-redis/v9"

	"github.com/annalist-dev/annalist/internal/ports/graph"
)

// Disagreements returns, for each of edgeIDs, the edge and the other edges
// of its head entity with the same relation and another value (tail id,
// or tail surface for values that are not entities), sorted by id: the
// facts the KG already holds that a new fact may contradict. Whether they
// do (a relation with one true value, values that cannot both hold) is
// the caller's rule. An unknown edge id gives a zero edge and no others;
// an edge whose head is an ambiguous surface gives no others, since it is
// not known whose facts to compare it with. Three round trips at most.
func (s *Store) Disagreements(ctx context.Context, tenant string, edgeIDs []string) ([]graph.Edge, [][]graph.Edge, error) {
	if err := checkTenant("read disagreements", tenant); err != nil {
		return nil, nil, err
	}
	pre := prefix(tenant)
	edges := make([]graph.Edge, len(edgeIDs))
	others := make([][]graph.Edge, len(edgeIDs))
	if len(edgeIDs) == 0 {
		return edges, others, nil
	}
	p := s.c.Pipeline()
	hs := make([]*goredis.MapStringStringCmd, len(edgeIDs))
	for i, id := range edgeIDs {
		hs[i] = p.HGetAll(ctx, pre+"edge:"+id)
	}
	if _, err := p.Exec(ctx); err != nil {
		return nil, nil, fmt.Errorf("read %d edges: %w", len(edgeIDs), err)
	}
	outs := map[string]*goredis.StringSliceCmd{}
	p = s.c.Pipeline()
	for i, id := range edgeIDs {
		if len(hs[i].Val()) == 0 {
			continue
		}
		edges[i] = edgeFromHash(id, hs[i].Val())
		if h := edges[i].HeadID; h != "" && edges[i].Resolution != graph.ResolvedAmbiguous && outs[h] == nil {
			outs[h] = p.SMembers(ctx, pre+"out:"+h)
		}
	}
	if len(outs) == 0 {
		return edges, others, nil
	}
	if _, err := p.Exec(ctx); err != nil {
		return nil, nil, fmt.Errorf("read the edges of %d entities: %w", len(outs), err)
	}
	read := map[string]*goredis.MapStringStringCmd{}
	p = s.c.Pipeline()
	for _, c := range outs {
		for _, id := range c.Val() {
			if read[id] == nil {
				read[id] = p.HGetAll(ctx, pre+"edge:"+id)
			}
		}
	}
	if len(read) > 0 {
		if _, err := p.Exec(ctx); err != nil {
			return nil, nil, fmt.Errorf("read %d edges of the heads: %w", len(read), err)
		}
	}
	for i, e := range edges {
		c := outs[e.HeadID]
		if e.ID == "" || c == nil {
			continue
		}
		for _, id := range c.Val() {
			h := read[id].Val()
			if id == e.ID || len(h) == 0 || h["relation"] != e.Relation {
				continue
			}
			o := edgeFromHash(id, h)
			if value(o) != value(e) {
				others[i] = append(others[i], o)
			}
		}
		slices.SortFunc(others[i], func(a, b graph.Edge) int { return cmp.Compare(a.ID, b.ID) })
	}
	return edges, others, nil
}

// value is what an edge states about its head: the tail entity, or the
// tail as written when it is not an entity (the key of its fact: set).
func value(e graph.Edge) string {
	if e.TailID != "" {
		return e.TailID
	}
	return e.Tail
}
