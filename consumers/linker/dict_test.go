package linker

import (
	"testing"
)

// TestDictionaryLeftmostLongest: matches of the main automaton and the
// delta are merged as one automaton would find them, one-character
// surfaces are left out, and offsets are runes.
func TestDictionaryLeftmostLongest(t *testing.T) {
	var d dictionary
	d.add([]string{"向高", "王", "方从哲"}, []int64{1, 2, 3})
	d.add([]string{"叶向高"}, []int64{4})
	if d.last != 4 {
		t.Fatalf("last %d", d.last)
	}
	got := d.find("是岁，叶向高入阁，与方从哲、王议。")
	want := []match{{"叶向高", 3, 6, 4}, {"方从哲", 10, 13, 3}}
	if len(got) != len(want) {
		t.Fatalf("matches %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("match %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	// Folding a large delta into the main automaton keeps every surface.
	var many []string
	var seqs []int64
	for i := range minRebuild + 1 {
		many = append(many, "名"+string(rune(0x4e00+i))+"甲")
		seqs = append(seqs, int64(10+i))
	}
	d.add(many, seqs)
	if d.delta != nil || len(d.main.surfaces) != minRebuild+4 {
		t.Fatalf("rebuild: main %d surfaces, delta %v", len(d.main.surfaces), d.delta)
	}
	if m := d.find("叶向高与" + many[7]); len(m) != 2 || m[1].surface != many[7] || m[1].start != 4 {
		t.Errorf("after rebuild: %+v", m)
	}
}
