package linker

import (
	"testing"
)

// TestDictionaryLeftmostLongest: matches of the levels are merged as one
// automaton would find them, one-character surfaces are left out, and
// offsets are runes.
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
	// Many batches: the levels stay few, each over twice the size of the
	// next, fewer than pendingMax surfaces wait uncompiled, and every
	// surface is still found.
	var many []string
	for b := range 200 {
		var batch []string
		var seqs []int64
		for i := range 7 {
			batch = append(batch, "名"+string(rune(0x4e00+b*7+i))+"甲")
			seqs = append(seqs, int64(10+b*7+i))
		}
		d.add(batch, seqs)
		many = append(many, batch...)
	}
	total := len(d.pending.surfaces)
	if total >= pendingMax {
		t.Errorf("%d surfaces pending", total)
	}
	for i, a := range d.levels {
		total += len(a.surfaces)
		if i > 0 && len(d.levels[i-1].surfaces) <= 2*len(a.surfaces) {
			t.Errorf("level %d holds %d surfaces after one of %d", i, len(a.surfaces), len(d.levels[i-1].surfaces))
		}
	}
	if total != len(many)+3 || len(d.levels) > 12 {
		t.Fatalf("levels %d holding %d surfaces, want %d", len(d.levels), total, len(many)+3)
	}
	for _, k := range []int{0, 7, 700, len(many) - 1} {
		if m := d.find("叶向高与" + many[k]); len(m) != 2 || m[1].surface != many[k] || m[1].start != 4 {
			t.Errorf("surface %d: %+v", k, m)
		}
	}
}

// TestDictionaryHasNewer: a text holds a surface logged after a version
// whether the surface waits uncompiled or sits in a level.
func TestDictionaryHasNewer(t *testing.T) {
	var d dictionary
	var old []string
	var seqs []int64
	for i := range pendingMax {
		old = append(old, "旧"+string(rune(0x4e00+i)))
		seqs = append(seqs, int64(1+i))
	}
	d.add(old, seqs) // compiled: one level
	d.add([]string{"叶向高"}, []int64{100})
	if len(d.levels) != 1 || len(d.pending.surfaces) != 1 {
		t.Fatalf("levels %d, pending %d", len(d.levels), len(d.pending.surfaces))
	}
	for _, tc := range []struct {
		text string
		v    int64
		want bool
	}{
		{"叶向高入阁", 99, true},
		{"叶向高入阁", 100, false},
		{"与" + old[9] + "议", 5, true},
		{"与" + old[9] + "议", 10, false},
		{"无名", 0, false},
	} {
		if got := d.hasNewer(tc.text, tc.v); got != tc.want {
			t.Errorf("hasNewer(%q, %d) = %v", tc.text, tc.v, got)
		}
	}
}

// TestDictionaryNewer: the surfaces logged after a sequence that a text
// holds, each once, from the compiled levels and the pending ones alike;
// none when the text holds only older ones.
func TestDictionaryNewer(t *testing.T) {
	var d dictionary
	var old []string
	var seqs []int64
	for i := range pendingMax {
		old = append(old, "旧"+string(rune(0x4e00+i))+"名")
		seqs = append(seqs, int64(i+1))
	}
	d.add(old, seqs) // compiled: pendingMax surfaces make a level
	d.add([]string{"叶向高", "方从哲"}, []int64{100, 101})
	if len(d.levels) != 1 || len(d.pending.surfaces) != 2 {
		t.Fatalf("levels %d, pending %d", len(d.levels), len(d.pending.surfaces))
	}
	text := "叶向高与" + old[3] + "议，叶向高去，" + old[60] + "留。"
	if got := d.newer(text, 64); len(got) != 1 || got[0] != "叶向高" {
		t.Errorf("after 64: %q, want [叶向高]", got)
	}
	if got := d.newer(text, 50); len(got) != 2 || got[0] != "叶向高" || got[1] != old[60] {
		t.Errorf("after 50: %q, want [叶向高 %s]", got, old[60])
	}
	if got := d.newer(text, 101); len(got) != 0 || d.hasNewer(text, 101) {
		t.Errorf("after 101: %q, want none", got)
	}
	if !d.hasNewer(text, 64) {
		t.Error("hasNewer after 64: false")
	}
}
