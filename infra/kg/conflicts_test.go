package kg_test

import (
	"context"
	"slices"
	"testing"

	"github.com/annalist-dev/annalist/infra/kg"
	"github.com/annalist-dev/annalist/schemas"
)

func TestDisagreements(t *testing.T) {
	s, _ := newStore(t, kg.Config{})
	ctx := context.Background()
	apply(t, s, slices.Concat(yeXiangGao(), wangPu()), nil)
	// An archive book names 叶向高 (resolved by alias to his entry's
	// person): it agrees on the courtesy name, disagrees on the place.
	archive := triplets("doc-arch", "c-arch", "", "",
		fact{head: "叶向高", rel: schemas.RelCourtesyName, tail: "进卿", start: 0, end: 7, evidence: "叶向高，字进卿"},
		fact{head: "叶向高", rel: schemas.RelNativePlace, tail: "晋江", tailType: schemas.EntityPlace, start: 8, end: 11, evidence: "晋江人"},
		// 王溥 is two people: the fact stays on the ambiguous surface.
		fact{head: "王溥", rel: schemas.RelNativePlace, tail: "吉安", tailType: schemas.EntityPlace, start: 20, end: 23, evidence: "吉安人"})
	apply(t, s, archive, nil)
	ids := make([]string, 0, len(archive)+1)
	for _, tr := range archive {
		ids = append(ids, kg.EdgeID(tr))
	}
	ids = append(ids, "no-such-edge")
	edges, others, err := s.Disagreements(ctx, tenant, ids)
	if err != nil {
		t.Fatal(err)
	}
	if len(edges) != len(ids) || len(others) != len(ids) {
		t.Fatalf("answered %d edges and %d lists for %d ids", len(edges), len(others), len(ids))
	}
	ye := kg.PersonID("叶向高", "c-ye")
	if edges[0].HeadID != ye || edges[0].DocID != "doc-arch" || len(others[0]) != 0 {
		t.Errorf("agreeing courtesy name: edge %+v, others %+v", edges[0], others[0])
	}
	if edges[1].HeadID != ye || len(others[1]) != 1 || others[1][0].TailID != "place:福清" ||
		others[1][0].DocID != "doc-128" || others[1][0].Evidence != "福清人" {
		t.Errorf("disagreeing place: edge %+v, others %+v", edges[1], others[1])
	}
	if edges[2].Resolution != "ambiguous" || len(others[2]) != 0 {
		t.Errorf("ambiguous head: edge %+v, others %+v", edges[2], others[2])
	}
	if edges[3].ID != "" || len(others[3]) != 0 {
		t.Errorf("unknown edge: %+v, %+v", edges[3], others[3])
	}
	// The agreeing fact is one fact with two edges of provenance.
	e := entity(t, s, ye)
	n := 0
	for _, ed := range e.Edges {
		if ed.Relation == schemas.RelCourtesyName && ed.Tail == "进卿" {
			n++
		}
	}
	if n != 2 {
		t.Errorf("courtesy name 进卿 has %d edges of provenance, want 2", n)
	}
	if _, _, err := s.Disagreements(ctx, "bad tenant", ids); err == nil {
		t.Error("an invalid tenant was accepted")
	}
}
