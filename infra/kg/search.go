package kg

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode"

	goredis "github.com/redis/go-redis/v9"
)

// DefaultSearchLimit is the number of entities Search returns when asked
// for limit ≤ 0; MaxSearchLimit bounds larger limits.
const (
	DefaultSearchLimit = 20
	MaxSearchLimit     = 200
)

// searchScanCount is the SSCAN step of Search: larger steps mean fewer
// round trips, smaller ones shorter pauses of Redis for other clients.
const searchScanCount = 1000

// Match is an entity found by Search.
type Match struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Type string `json:"type"`
	// Aliases are the entity's surface forms, sorted: its canonical name,
	// courtesy names, art names and other aliases.
	Aliases []string `json:"aliases"`
	// Matched is the surface form the query matched.
	Matched string `json:"matched"`
	// Prefix is true when the query is a prefix of Matched.
	Prefix bool `json:"-"`
}

// Search finds the tenant's entities one of whose surface forms (canonical
// names and aliases) contains q, letter case ignored: the entities matched
// at the start of a surface first, then those matched inside one; within
// each, persons before other types, then shorter surfaces, then by id. It
// returns at most limit entities (DefaultSearchLimit when limit ≤ 0, at
// most MaxSearchLimit). An empty query finds nothing.
//
// Cost: the surfaces are found with SSCAN MATCH over kg:{t}:aliases, which
// walks the whole set on the server for every query (O(number of
// surfaces), in steps of searchScanCount so Redis is not blocked for long),
// then two pipelined round trips read the matched surfaces' entities. For
// ≈17,700 surfaces (6,000 entries, about the full History of Ming) that is
// 5–6 ms per query on the 2-core development machine (BenchmarkSearch),
// whatever the query; a much larger graph, or search-as-you-type by many
// users, would want a prefix index (a sorted set of surfaces) maintained
// by the write script.
func (s *Store) Search(ctx context.Context, tenant, q string, limit int) ([]Match, error) {
	if err := checkTenant("search entities", tenant); err != nil {
		return nil, err
	}
	q = Surface(q)
	if q == "" {
		return nil, nil
	}
	if limit <= 0 {
		limit = DefaultSearchLimit
	}
	limit = min(limit, MaxSearchLimit)
	pre := prefix(tenant)
	pattern := "*" + globFold(q) + "*"
	var surfaces []string
	var cursor uint64
	for {
		keys, next, err := s.c.SScan(ctx, pre+"aliases", cursor, pattern, searchScanCount).Result()
		if err != nil {
			return nil, fmt.Errorf("search entities %q: %w", q, err)
		}
		surfaces = append(surfaces, keys...)
		if next == 0 {
			break
		}
		cursor = next
	}
	slices.Sort(surfaces)
	surfaces = slices.Compact(surfaces) // SSCAN may return an element twice
	lq := strings.ToLower(q)
	isPrefix := func(surface string) bool { return strings.HasPrefix(strings.ToLower(surface), lq) }
	// Prefix matches first and shorter surfaces first, so the surfaces most
	// likely meant decide which entity a surface is reported with.
	slices.SortFunc(surfaces, func(a, b string) int {
		pa, pb := isPrefix(a), isPrefix(b)
		if pa != pb {
			if pa {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(len([]rune(a)), len([]rune(b))), cmp.Compare(a, b))
	})

	p := s.c.Pipeline()
	sets := make([]*goredis.StringSliceCmd, len(surfaces))
	for i, sf := range surfaces {
		sets[i] = p.SMembers(ctx, pre+"alias:"+sf)
	}
	if len(surfaces) > 0 {
		if _, err := p.Exec(ctx); err != nil {
			return nil, fmt.Errorf("search entities %q: read alias sets: %w", q, err)
		}
	}
	var found []Match
	seen := map[string]bool{}
	for i, c := range sets {
		ids := c.Val()
		slices.Sort(ids)
		for _, id := range ids {
			if seen[id] {
				continue
			}
			seen[id] = true
			found = append(found, Match{ID: id, Matched: surfaces[i], Prefix: isPrefix(surfaces[i])})
		}
	}
	slices.SortStableFunc(found, func(a, b Match) int {
		if a.Prefix != b.Prefix {
			if a.Prefix {
				return -1
			}
			return 1
		}
		pa, pb := strings.HasPrefix(a.ID, "person:"), strings.HasPrefix(b.ID, "person:")
		if pa != pb {
			if pa {
				return -1
			}
			return 1
		}
		return 0
	})
	if len(found) > limit {
		found = found[:limit]
	}
	if len(found) == 0 {
		return nil, nil
	}

	p = s.c.Pipeline()
	nodes := make([]*goredis.SliceCmd, len(found))
	names := make([]*goredis.StringSliceCmd, len(found))
	for i, m := range found {
		nodes[i] = p.HMGet(ctx, pre+"node:"+m.ID, "name", "type")
		names[i] = p.SMembers(ctx, pre+"names:"+m.ID)
	}
	if _, err := p.Exec(ctx); err != nil {
		return nil, fmt.Errorf("search entities %q: read entities: %w", q, err)
	}
	out := found[:0]
	for i, m := range found {
		v := nodes[i].Val()
		name, _ := v[0].(string)
		typ, _ := v[1].(string)
		if name == "" && typ == "" {
			continue // an alias left pointing at a node that is gone
		}
		m.Name, m.Type = name, typ
		m.Aliases = names[i].Val()
		slices.Sort(m.Aliases)
		out = append(out, m)
	}
	return out, nil
}

// globFold turns s into a Redis glob pattern matching s literally with
// ASCII letter case ignored: glob metacharacters are escaped, and each
// ASCII letter becomes a class of both cases ([aA]). Redis matches bytes,
// so other letters, whose cases may differ in length, are kept as written.
func globFold(s string) string {
	var b strings.Builder
	for _, r := range s {
		lo, up := unicode.ToLower(r), unicode.ToUpper(r)
		switch {
		case r < unicode.MaxASCII && lo != up:
			b.WriteByte('[')
			b.WriteRune(lo)
			b.WriteRune(up)
			b.WriteByte(']')
		case strings.ContainsRune(`*?[]\^-`, r):
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
