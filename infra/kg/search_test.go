package kg_test

import (
	"context"
	"slices"
	"testing"

	"github.com/annalist-dev/annalist/infra/kg"
	"github.com/annalist-dev/annalist/schemas"
)

func TestSearch(t *testing.T) {
	s, _ := newStore(t, kg.Config{})
	ctx := context.Background()
	ts := slices.Concat(yeXiangGao(), wangPu(), triplets("doc-en", "c-en", "Ann Lee", "c-en",
		fact{head: "Ann Lee", rel: schemas.RelNativePlace, tail: "York", tailType: schemas.EntityPlace, start: 0, end: 4, evidence: "York"},
		fact{head: "Ann Lee", rel: schemas.RelCourtesyName, tail: "Annie*?[x]", start: 5, end: 9, evidence: "Annie"}))
	apply(t, s, ts, nil)
	wp := resolve(t, s, "王溥")
	if len(wp) != 2 {
		t.Fatalf("王溥 resolves to %v; want two people", wp)
	}
	ye := resolve(t, s, "叶向高")[0]

	ids := func(ms []kg.Match) []string {
		var out []string
		for _, m := range ms {
			out = append(out, m.ID)
		}
		return out
	}
	for _, tc := range []struct {
		name, q string
		limit   int
		want    []string // ids in order
		tenant  string
	}{
		{name: "by courtesy name", q: "进卿", want: []string{ye}},
		{name: "prefix of a name", q: "叶", want: []string{ye}},
		{name: "a name two people bear", q: "王溥", want: wp},
		// 子明 is the courtesy name of one 王溥 and of 李贞; 明 also matches
		// inside it, never at the start.
		{name: "substring", q: "明", want: resolve(t, s, "子明")},
		{name: "limit", q: "王", limit: 1, want: wp[:1]},
		{name: "case ignored, persons first", q: "ANN", want: []string{resolve(t, s, "Ann Lee")[0]}},
		{name: "prefix before substring, persons before places", q: "y", want: []string{"place:York"}},
		{name: "glob characters are literal", q: "*?[x]", want: []string{resolve(t, s, "Ann Lee")[0]}},
		{name: "no star wildcard", q: "叶*", want: nil},
		{name: "unknown", q: "无此人", want: nil},
		{name: "empty", q: "  ", want: nil},
		{name: "another tenant sees nothing", q: "叶", tenant: "other", want: nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tn := tc.tenant
			if tn == "" {
				tn = tenant
			}
			got, err := s.Search(ctx, tn, tc.q, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ids(got), tc.want) {
				t.Fatalf("Search(%q) = %v; want %v", tc.q, ids(got), tc.want)
			}
		})
	}

	got, err := s.Search(ctx, tenant, "进", 0)
	if err != nil || len(got) != 1 {
		t.Fatalf("Search(进) = %+v, %v", got, err)
	}
	m := got[0]
	if m.Name != "叶向高" || m.Type != schemas.EntityPerson || m.Matched != "进卿" ||
		!slices.Contains(m.Aliases, "进卿") || !slices.Contains(m.Aliases, "叶向高") {
		t.Fatalf("match = %+v; want 叶向高 (person) matched by 进卿 with both surfaces as aliases", m)
	}
	if _, err := s.Search(ctx, "bad tenant!", "叶", 0); err == nil {
		t.Fatal("an invalid tenant must be refused")
	}
}

// BenchmarkSearch measures a search over the surfaces of 6,000 entries
// (≈17,700 surface forms, about the full History of Ming's): the SSCAN
// walk dominates, whatever the query.
func BenchmarkSearch(b *testing.B) {
	s, _ := newStore(b, kg.Config{})
	ctx := context.Background()
	ts := corpus(6000)
	for lo := 0; lo < len(ts); lo += 1000 {
		if _, err := s.Apply(ctx, tenant, ts[lo:min(lo+1000, len(ts))], nil); err != nil {
			b.Fatal(err)
		}
	}
	for _, q := range []string{"人12", "字5999", "无此人"} {
		b.Run(q, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.Search(ctx, tenant, q, 20); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
