package kg_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/annalist-dev/annalist/infra/kg"
	"github.com/annalist-dev/annalist/schemas"
)

// corpus makes the triplets of n biography entries shaped like the
// liezhuan ones: courtesy name, art name, native place (shared among
// entries), jinshi year (shared), three offices, death; every fourth entry
// also names a relative and every tenth shares its name with another.
func corpus(n int) []schemas.Triplet {
	var ts []schemas.Triplet
	for i := range n {
		name := fmt.Sprintf("人%d", i)
		if i%10 == 9 {
			name = fmt.Sprintf("人%d", i-1)
		}
		chunk := fmt.Sprintf("c%d", i)
		fs := []fact{
			{head: name, rel: schemas.RelCourtesyName, tail: fmt.Sprintf("字%d", i), start: 0, end: 6, evidence: name + "，字"},
			{head: name, rel: schemas.RelArtName, tail: fmt.Sprintf("号%d", i), start: 7, end: 10},
			{head: name, rel: schemas.RelNativePlace, tail: fmt.Sprintf("县%d", i%150), tailType: schemas.EntityPlace, start: 11, end: 14},
			{head: name, rel: schemas.RelJinshi, tail: fmt.Sprintf("年%d", i%90), tailType: schemas.EntityTime, start: 20, end: 28,
				quals: map[string]string{"gregorian": fmt.Sprint(1400 + i%90)}},
			{head: name, rel: schemas.RelOffice, tail: "编修", tailType: schemas.EntityOffice, start: 30, end: 32},
			{head: name, rel: schemas.RelOffice, tail: fmt.Sprintf("侍郎%d", i%40), tailType: schemas.EntityOffice, start: 40, end: 44},
			{head: name, rel: schemas.RelOffice, tail: fmt.Sprintf("尚书%d", i%20), tailType: schemas.EntityOffice, start: 60, end: 64},
			{head: name, rel: schemas.RelDeath, tail: fmt.Sprintf("年%d", (i+30)%90), tailType: schemas.EntityTime, start: 90, end: 96},
		}
		if i%4 == 0 {
			fs = append(fs, fact{head: name, rel: schemas.RelRelative, tail: fmt.Sprintf("人%d", (i+7)%n), start: 100, end: 104,
				quals: map[string]string{"kin": "son"}})
		}
		ts = append(ts, triplets(fmt.Sprintf("d%d", i/40), chunk, name, chunk, fs...)...)
	}
	return ts
}

// BenchmarkApply measures writing a fresh graph: each iteration writes the
// corpus into a new tenant, in the batches the kg-writer stage hands over.
func BenchmarkApply(b *testing.B) {
	s, _ := newStore(b, kg.Config{})
	ts := corpus(2000)
	ctx := context.Background()
	const stageBatch = 500
	n := 0
	b.ReportAllocs()
	for b.Loop() {
		tenant := fmt.Sprintf("bench%d", n)
		n++
		for lo := 0; lo < len(ts); lo += stageBatch {
			if _, err := s.Apply(ctx, tenant, ts[lo:min(lo+stageBatch, len(ts))], nil); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(len(ts)*n)/b.Elapsed().Seconds(), "triplets/s")
}

// BenchmarkApplyAgain measures a re-ingest: every triplet already applied.
func BenchmarkApplyAgain(b *testing.B) {
	s, _ := newStore(b, kg.Config{})
	ts := corpus(2000)
	ctx := context.Background()
	if _, err := s.Apply(ctx, tenant, ts, nil); err != nil {
		b.Fatal(err)
	}
	n := 0
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Apply(ctx, tenant, ts, nil); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.ReportMetric(float64(len(ts)*n)/b.Elapsed().Seconds(), "triplets/s")
}

// BenchmarkEntity measures the entity view retrieval uses per request, on
// a graph of 2,000 entries over loopback Redis, and reports the 99th
// percentile beside the mean.
func BenchmarkEntity(b *testing.B) {
	s, _ := newStore(b, kg.Config{})
	ctx := context.Background()
	if _, err := s.Apply(ctx, tenant, corpus(2000), nil); err != nil {
		b.Fatal(err)
	}
	id := kg.PersonID("人4", "c4")
	e, err := s.Entity(ctx, tenant, id)
	if err != nil {
		b.Fatal(err)
	}
	if len(e.Edges) < 8 {
		b.Fatalf("entity has %d edges", len(e.Edges))
	}
	var lat []time.Duration
	b.ReportAllocs()
	for b.Loop() {
		t0 := time.Now()
		if _, err := s.Entity(ctx, tenant, id); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds()), "p99-ns")
	b.ReportMetric(float64(len(e.Edges)+len(e.Incoming)), "edges")
}

// BenchmarkNeighbourhood measures a one-hop neighbourhood (the writer's
// retrieval unit) of an entry person.
func BenchmarkNeighbourhood(b *testing.B) {
	s, _ := newStore(b, kg.Config{})
	ctx := context.Background()
	if _, err := s.Apply(ctx, tenant, corpus(2000), nil); err != nil {
		b.Fatal(err)
	}
	id := kg.PersonID("人4", "c4")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Neighbourhood(ctx, tenant, id, 1); err != nil {
			b.Fatal(err)
		}
	}
}
