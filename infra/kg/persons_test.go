package kg_test

import (
	"context"
	"slices"
	"testing"

	"github.com/annalist-dev/annalist/infra/kg"
)

func TestPersonNames(t *testing.T) {
	s, _ := newStore(t, kg.Config{})
	apply(t, s, slices.Concat(yeXiangGao(), wangPu()), nil)
	ye := kg.PersonID("叶向高", "c-ye")
	got, err := s.PersonNames(context.Background(), tenant, ye)
	if err != nil {
		t.Fatal(err)
	}
	// The canonical name and the courtesy name; not the place.
	if want := []string{"叶向高", "进卿"}; !slices.Equal(got, want) {
		t.Errorf("names of %s = %v, want %v", ye, got, want)
	}
	if none, err := s.PersonNames(context.Background(), tenant, "person:无名氏"); err != nil || len(none) != 0 {
		t.Errorf("unknown person: %v, %v", none, err)
	}
	if _, err := s.PersonNames(context.Background(), "bad tenant", ye); err == nil {
		t.Error("an invalid tenant was accepted")
	}
}
