package kg

import (
	"context"
	"fmt"
	"strings"

	goredis "github.com/redis/go-redis/v9"
)

// KnownPersons reports which of surfaces name a person of the tenant's
// graph: kg:{t}:alias:<surface> holds at least one person id (the person's
// canonical name, courtesy name, art name or other alias). The extractor
// asks it which name-shaped words of a chunk are people it may anchor
// facts to; a surface that names only a place or an office is not one.
// One round trip whatever the number of surfaces; blank and repeated
// surfaces are ignored.
func (s *Store) KnownPersons(ctx context.Context, tenant string, surfaces []string) (map[string]bool, error) {
	if err := checkTenant("look up persons", tenant); err != nil {
		return nil, err
	}
	known := make(map[string]bool)
	if len(surfaces) == 0 {
		return known, nil
	}
	pre := prefix(tenant)
	p := s.c.Pipeline()
	cmds := make(map[string]*goredis.StringSliceCmd, len(surfaces))
	for _, sf := range surfaces {
		sf = Surface(sf)
		if sf == "" || cmds[sf] != nil {
			continue
		}
		cmds[sf] = p.SMembers(ctx, pre+"alias:"+sf)
	}
	if len(cmds) == 0 {
		return known, nil
	}
	if _, err := p.Exec(ctx); err != nil {
		return nil, fmt.Errorf("look up %d person surfaces: %w", len(cmds), err)
	}
	for sf, c := range cmds {
		for _, id := range c.Val() {
			if strings.HasPrefix(id, "person:") {
				known[sf] = true
				break
			}
		}
	}
	return known, nil
}
