package memory_test

import (
	"context"
	"testing"
	"time"

	"github.com/annalist-dev/annalist/internal/ports/regexmem"

	"github.com/annalist-dev/annalist/infra/memory"
	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
)

var _ regexmem.Memory = (*memory.Regexes)(nil)

func pattern(src string) regexmem.Pattern {
	g := map[string]int{"tail": 1}
	return regexmem.Pattern{
		ID: regexmem.ID("courtesy_name", src, g), Relation: "courtesy_name", Source: src, Groups: g,
		Example: "表字丙丁", Prompt: "regex.v1", Created: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC),
	}
}

func TestRegexesSaveHitPatterns(t *testing.T) {
	ctx := context.Background()
	c := redistest.Client(t)
	m := memory.NewRegexes(c, 0)
	a, b := pattern(`表字(\p{Han}{2})`), pattern(`，字(\p{Han}{1,3})，`)
	for _, p := range []regexmem.Pattern{a, b, a} {
		if err := m.Save(ctx, "t1", "liezhuan", p); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := m.Count(ctx, "t1", "liezhuan"); err != nil || n != 2 {
		t.Fatalf("count = %d, %v; want 2 (saving twice stores once)", n, err)
	}
	for i := 0; i < 3; i++ {
		if err := m.Hit(ctx, "t1", "liezhuan", b.ID); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Hit(ctx, "t1", "liezhuan", a.ID); err != nil {
		t.Fatal(err)
	}
	// Saving again keeps hits and the creation time.
	again := b
	again.Created = time.Now()
	if err := m.Save(ctx, "t1", "liezhuan", again); err != nil {
		t.Fatal(err)
	}
	got, err := m.Patterns(ctx, "t1", "liezhuan", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ID != b.ID || got[0].Hits != 3 || got[1].ID != a.ID || got[1].Hits != 1 {
		t.Fatalf("patterns = %+v; want b (3 hits) then a (1 hit)", got)
	}
	if got[0].Source != b.Source || got[0].Groups["tail"] != 1 || got[0].Relation != "courtesy_name" ||
		got[0].Example != "表字丙丁" || got[0].Prompt != "regex.v1" || !got[0].Created.Equal(b.Created) {
		t.Fatalf("details not kept: %+v", got[0])
	}
	score, err := c.ZScore(ctx, "mem:{t1}:regex:liezhuan", b.ID).Result()
	if err != nil || score != 3 {
		t.Fatalf("sorted set score = %v, %v; want 3", score, err)
	}
	if top, _ := m.Patterns(ctx, "t1", "liezhuan", 1); len(top) != 1 || top[0].ID != b.ID {
		t.Fatalf("top 1 = %+v", top)
	}
	// Tenants and profiles are apart; hits on unknown ids create nothing.
	if other, _ := m.Patterns(ctx, "t2", "liezhuan", 10); len(other) != 0 {
		t.Fatalf("tenant t2 sees %d patterns", len(other))
	}
	if other, _ := m.Patterns(ctx, "t1", "generic", 10); len(other) != 0 {
		t.Fatalf("profile generic sees %d patterns", len(other))
	}
	if err := m.Hit(ctx, "t1", "liezhuan", "nope"); err != nil {
		t.Fatal(err)
	}
	if n, _ := m.Count(ctx, "t1", "liezhuan"); n != 2 {
		t.Fatalf("a hit on an unknown id added a pattern: %d", n)
	}
}

func TestRegexesEvictLeastUsed(t *testing.T) {
	ctx := context.Background()
	c := redistest.Client(t)
	m := memory.NewRegexes(c, 2)
	a, b, d := pattern(`一字(\p{Han}{2})`), pattern(`又字(\p{Han}{2})`), pattern(`更字(\p{Han}{2})`)
	for _, p := range []regexmem.Pattern{a, b} {
		if err := m.Save(ctx, "t", "p", p); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Hit(ctx, "t", "p", a.ID); err != nil {
		t.Fatal(err)
	}
	if err := m.Save(ctx, "t", "p", d); err != nil {
		t.Fatal(err)
	}
	got, err := m.Patterns(ctx, "t", "p", 10)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, p := range got {
		ids[p.ID] = true
	}
	if len(got) != 2 || !ids[a.ID] || !ids[d.ID] {
		t.Fatalf("after eviction: %+v; want a (used) and d (new)", got)
	}
	if n, _ := c.Exists(ctx, "mem:{t}:regex:p:p:"+b.ID).Result(); n != 0 {
		t.Fatal("evicted pattern's hash was kept")
	}
}

var _ regexmem.Outcomes = (*memory.Regexes)(nil)

func TestRegexesOutcomes(t *testing.T) {
	ctx := context.Background()
	c := redistest.Client(t)
	m := memory.NewRegexes(c, 0)
	if got, err := m.Outcomes(ctx, "t1", "liezhuan"); err != nil || len(got) != 0 {
		t.Fatalf("empty memory: %v, %v", got, err)
	}
	for _, r := range []struct {
		key   string
		found bool
	}{{"courtesy_name@s0", true}, {"courtesy_name@s0", false}, {"courtesy_name@s2", false}, {"native_place@any", true}} {
		if err := m.RecordOutcome(ctx, "t1", "liezhuan", r.key, r.found); err != nil {
			t.Fatal(err)
		}
	}
	// Another tenant and another profile keep their own tallies.
	if err := m.RecordOutcome(ctx, "t2", "liezhuan", "courtesy_name@s0", true); err != nil {
		t.Fatal(err)
	}
	if err := m.RecordOutcome(ctx, "t1", "generic", "courtesy_name@s0", true); err != nil {
		t.Fatal(err)
	}
	got, err := m.Outcomes(ctx, "t1", "liezhuan")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]regexmem.Outcome{
		"courtesy_name@s0": {Asked: 2, Found: 1},
		"courtesy_name@s2": {Asked: 1},
		"native_place@any": {Asked: 1, Found: 1},
	}
	if len(got) != len(want) {
		t.Fatalf("outcomes = %+v, want %+v", got, want)
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("outcome %s = %+v, want %+v", k, got[k], w)
		}
	}
	// The tallies do not show up as patterns.
	if pats, err := m.Patterns(ctx, "t1", "liezhuan", 10); err != nil || len(pats) != 0 {
		t.Fatalf("patterns = %+v, %v", pats, err)
	}
}
