package kg

import (
	"context"
	"fmt"
	"slices"
)

// PersonNames returns the surface forms of an entity (kg:{t}:names:<id>:
// its canonical name, courtesy and art names, other aliases), sorted.
func (s *Store) PersonNames(ctx context.Context, tenant, id string) ([]string, error) {
	if err := checkTenant("read names", tenant); err != nil {
		return nil, err
	}
	names, err := s.c.SMembers(ctx, prefix(tenant)+"names:"+id).Result()
	if err != nil {
		return nil, fmt.Errorf("read the names of %s: %w", id, err)
	}
	slices.Sort(names)
	return names, nil
}

// PersonNamesOf returns the surface forms of each entity, sorted, in one
// round trip.
func (s *Store) PersonNamesOf(ctx context.Context, tenant string, ids []string) ([][]string, error) {
	if err := checkTenant("read names", tenant); err != nil {
		return nil, err
	}
	out, err := s.sortedSets(ctx, prefix(tenant)+"names:", ids)
	if err != nil {
		return nil, fmt.Errorf("read the names of %d entities: %w", len(ids), err)
	}
	return out, nil
}
