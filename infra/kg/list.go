package kg

import (
	"context"
	"fmt"
	"sort"
)

// Nodes lists the ids of the tenant's entities of one type (all types when
// typ is empty), sorted. It scans the node index incrementally, so it does
// not block Redis on a large graph; it is meant for listings, not for the
// hot path.
func (s *Store) Nodes(ctx context.Context, tenant, typ string) ([]string, error) {
	if err := checkTenant("list nodes", tenant); err != nil {
		return nil, err
	}
	match := "*"
	if typ != "" {
		match = typ + ":*"
	}
	var ids []string
	var cursor uint64
	for {
		keys, next, err := s.c.SScan(ctx, prefix(tenant)+"nodes", cursor, match, 1000).Result()
		if err != nil {
			return nil, fmt.Errorf("list %s nodes: %w", typ, err)
		}
		ids = append(ids, keys...)
		if next == 0 {
			break
		}
		cursor = next
	}
	sort.Strings(ids)
	return ids, nil
}
