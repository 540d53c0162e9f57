package kg

import (
	"context"
	"fmt"
	"slices"

	goredis "github.com/redis/go-redis/v9"
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
	if len(ids) == 0 {
		return nil, nil
	}
	cmds := make([]*goredis.StringSliceCmd, len(ids))
	if _, err := s.c.Pipelined(ctx, func(p goredis.Pipeliner) error {
		for i, id := range ids {
			cmds[i] = p.SMembers(ctx, prefix(tenant)+"names:"+id)
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("read the names of %d entities: %w", len(ids), err)
	}
	out := make([][]string, len(ids))
	for i, c := range cmds {
		out[i] = c.Val()
		slices.Sort(out[i])
	}
	return out, nil
}
