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
