package en

import (
	"testing"

	"github.com/annalist-dev/annalist/internal/lang/factkit"
	"github.com/annalist-dev/annalist/schemas"
)

// TestReadEnglish: the English patterns give the entry's person the facts
// a pronoun states, and the reading divides no text into parts.
func TestReadEnglish(t *testing.T) {
	c := schemas.Chunk{ChunkID: "c1", Entry: "Thomas Harrow",
		Text: "Thomas Harrow was a clerk. He was born in 1523 in Fuqing. He died in 1571, aged 71."}
	r, err := Reader{}.Read(nil, c)
	if err != nil {
		t.Fatal(err)
	}
	if r.Parts != nil || r.Known != nil {
		t.Errorf("English reading has parts %v or a known reading", r.Parts)
	}
	got := map[string]string{}
	for _, f := range r.Facts {
		if f.Head != "Thomas Harrow" || f.Method != factkit.MethodRegex {
			t.Errorf("fact %+v: want head Thomas Harrow, method regex", f)
		}
		got[f.Relation] = f.Tail
	}
	for rel, tail := range map[string]string{schemas.RelDeathAge: "71"} {
		if got[rel] != tail {
			t.Errorf("%s = %q, want %q (facts %+v)", rel, got[rel], tail, r.Facts)
		}
	}
	if got[schemas.RelBirth] == "" || got[schemas.RelDeath] == "" {
		t.Errorf("no birth or death in %+v", r.Facts)
	}
}
