package linker

import "testing"

// TestDecide: the evidence a single candidate needs.
func TestDecide(t *testing.T) {
	anch := "person:王文@00000001"
	loose := "person:太平"
	profiles := map[string]*profile{
		anch:                  {id: anch, name: "王文", facts: 2},
		loose:                 {id: loose, name: "太平", facts: 1, alias: true},
		"person:土鲁番@00000002": {id: "person:土鲁番@00000002", name: "土鲁番"},
		"person:叶向高@00000003": {id: "person:叶向高@00000003", name: "叶向高", facts: 3},
	}
	one := func(id string, score float64) []Candidate { return []Candidate{{Entity: id, Score: score}} }
	tests := []struct {
		name    string
		m       match
		cands   []Candidate
		bounded bool
		want    string
	}{
		{"two characters after punctuation", match{surface: "王文"}, one(anch, 1), true, anch},
		{"two characters inside a phrase", match{surface: "王文"}, one(anch, 1), false, ""},
		{"two characters with context", match{surface: "王文"}, one(anch, 2), false, anch},
		{"never anchored, no context", match{surface: "太平"}, one(loose, 1), true, ""},
		{"never anchored, context", match{surface: "太平"}, one(loose, 2), true, loose},
		{"no personal fact", match{surface: "土鲁番"}, one("person:土鲁番@00000002", 1), true, ""},
		{"three characters", match{surface: "叶向高"}, one("person:叶向高@00000003", 0), false, "person:叶向高@00000003"},
		{"era against", match{surface: "叶向高"}, one("person:叶向高@00000003", -2), true, ""},
		{"two candidates, no lead", match{surface: "王文"}, []Candidate{{anch, 2}, {loose, 1}}, true, ""},
		{"two candidates, a lead", match{surface: "王文"}, []Candidate{{anch, 4}, {loose, 1}}, true, anch},
	}
	for _, tc := range tests {
		if got, _ := decide(tc.m, tc.cands, profiles, tc.bounded); got != tc.want {
			t.Errorf("%s: resolved to %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestBounded(t *testing.T) {
	titles := []string{"给事中", "侍郎"}
	for _, tc := range []struct {
		text  string
		start int
		want  bool
	}{
		{"王文亦力言", 0, true},
		{"于谦、王文有言", 3, true},
		{"户部侍郎唐胄力持", 4, true},
		{"后为王文端", 2, false},
		{"诘为不成文", 3, false},
	} {
		if got := bounded([]rune(tc.text), tc.start, titles); got != tc.want {
			t.Errorf("bounded(%q, %d) = %v, want %v", tc.text, tc.start, got, tc.want)
		}
	}
}
