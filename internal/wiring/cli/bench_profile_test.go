package cli

import (
	"context"
	"testing"

	"github.com/annalist-dev/annalist/infra/metrics"
	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
)

// TestBenchRedis counts a real client's calls through the registry's hook:
// a pipeline is one round trip, opening a connection is not one (its
// handshake commands are), and the counts before a mark are taken out.
func TestBenchRedis(t *testing.T) {
	ctx := context.Background()
	reg := metrics.New()
	c := redistest.Client(t)
	c.AddHook(reg.RedisHook())
	for range 3 {
		if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	before, err := reg.RedisRoundTrips()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx, "k").Err(); err != nil {
		t.Fatal(err)
	}
	p := c.Pipeline()
	p.Get(ctx, "k")
	p.Set(ctx, "k2", "v", 0)
	if _, err := p.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := benchRedis(reg, before, 4, "page")
	if err != nil {
		t.Fatal(err)
	}
	calls := map[string]uint64{}
	var sum uint64
	for _, c := range got.TopByCalls {
		calls[c.Command] = c.Calls
		sum += c.Calls
	}
	if calls["get"] != 1 || calls["pipeline"] < 1 || calls["set"] != 0 || calls["dial"] != 0 {
		t.Errorf("after the mark: %v; want the GET and the pipeline, no SET of before, no dial", calls)
	}
	if got.RoundTrips != sum || got.PerUnit != float64(sum)/4 || got.Unit != "page" {
		t.Errorf("after the mark: %+v; want %d round trips, a quarter of them per page", got, sum)
	}
	all, err := benchRedis(reg, nil, 1, "document")
	if err != nil {
		t.Fatal(err)
	}
	if all.RoundTrips != got.RoundTrips+3+before["hello"].Calls+before["pipeline"].Calls {
		t.Errorf("from the start: %d round trips; want the %d after the mark and the 3 SETs (and any handshake) before it",
			all.RoundTrips, got.RoundTrips)
	}
}
