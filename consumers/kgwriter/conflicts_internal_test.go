package kgwriter

import (
	"testing"

	"github.com/annalist-dev/annalist/internal/ports/graph"
	"github.com/annalist-dev/annalist/schemas"
)

func TestDeathAgesCompareAsNumbers(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"七十一", "七十有一", false},
		{"七十一", "71", false},
		{"七十一", "六十九", true},
		{"七十一", "年老", false},
	} {
		a := graph.Edge{Relation: schemas.RelDeathAge, Tail: tc.a}
		b := graph.Edge{Relation: schemas.RelDeathAge, Tail: tc.b}
		if got := contradicts(a, b); got != tc.want {
			t.Errorf("contradicts(%s, %s) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
	if !singleValued[schemas.RelDeathAge] {
		t.Error("an age at death is single-valued")
	}
}
