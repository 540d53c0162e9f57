package kg_test

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/annalist-dev/annalist/infra/kg"
)

func TestKnownPersons(t *testing.T) {
	s, _ := newStore(t, kg.Config{})
	apply(t, s, slices.Concat(yeXiangGao(), wangPu()), nil)
	got, err := s.KnownPersons(context.Background(), tenant,
		[]string{"叶向高", "进卿", "王溥", "福清", "无名氏", "", "叶向高", " 子明 "})
	if err != nil {
		t.Fatal(err)
	}
	// A name, a courtesy name and an ambiguous name are persons; a place
	// (福清 names place:福清) and an unknown word are not.
	want := []string{"叶向高", "子明", "王溥", "进卿"}
	if keys := slices.Sorted(maps.Keys(got)); !slices.Equal(keys, want) {
		t.Errorf("known persons = %v, want %v", keys, want)
	}
	if _, err := s.KnownPersons(context.Background(), "bad tenant", []string{"叶向高"}); err == nil {
		t.Error("an invalid tenant was accepted")
	}
	empty, err := s.KnownPersons(context.Background(), tenant, nil)
	if err != nil || len(empty) != 0 {
		t.Errorf("no surfaces: %v, %v", empty, err)
	}
}
