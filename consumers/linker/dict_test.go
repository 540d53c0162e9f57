package linker

import (
	"slices"
	"testing"
)

// TestDictionaryLeftmostLongest: of the surfaces that begin at the first
// position where one does the longest is taken, one-character surfaces
// are left out, and offsets are runes; surfaces added over many batches
// are all found, each with its sequence.
func TestDictionaryLeftmostLongest(t *testing.T) {
	var d dictionary
	d.add([]string{"向高", "王", "方从哲"}, []int64{1, 2, 3})
	d.add([]string{"叶向高"}, []int64{4})
	if d.last != 4 {
		t.Fatalf("last %d", d.last)
	}
	got := d.find("是岁，叶向高入阁，与方从哲、王议。")
	want := []match{{"叶向高", 3, 6, 4}, {"方从哲", 10, 13, 3}}
	if !slices.Equal(got, want) {
		t.Fatalf("matches %+v, want %+v", got, want)
	}
	// A surface that is a prefix of another: the longer where the text
	// holds it, else the shorter; overlapping names, the one that begins
	// first.
	d.add([]string{"方从", "从哲甫"}, []int64{5, 6})
	if got, want := d.find("方从来，方从哲甫至"), []match{{"方从", 0, 2, 5}, {"方从哲", 4, 7, 3}}; !slices.Equal(got, want) {
		t.Errorf("prefixes: %+v, want %+v", got, want)
	}
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
	for _, k := range []int{0, 7, 700, len(many) - 1} {
		if m := d.find("叶向高与" + many[k]); len(m) != 2 || m[1].surface != many[k] || m[1].start != 4 || m[1].seq != int64(10+k) {
			t.Errorf("surface %d: %+v", k, m)
		}
	}
	// Characters beyond the Basic Multilingual Plane.
	d.add([]string{"王𠀾"}, []int64{2000})
	if m := d.find("与王𠀾议"); len(m) != 1 || m[0].start != 1 || m[0].end != 3 {
		t.Errorf("supplementary plane: %+v", m)
	}
}

// TestDictionaryLoggedAgain: a surface logged again keeps its latest
// sequence, and surfaces read out of order are kept in log order.
func TestDictionaryLoggedAgain(t *testing.T) {
	var d dictionary
	d.add([]string{"叶向高", "方从哲"}, []int64{5, 3})
	d.add([]string{"叶向高"}, []int64{9})
	if m := d.find("叶向高"); len(m) != 1 || m[0].seq != 9 {
		t.Fatalf("matches %+v", m)
	}
	if d.hasNewer("方从哲", 3) || !d.hasNewer("叶向高", 5) || d.hasNewer("叶向高", 9) {
		t.Error("hasNewer after the surface was logged again")
	}
	if len(d.log) != 2 || d.log[0].surface != "方从哲" || d.log[1].surface != "叶向高" {
		t.Errorf("log %+v", d.log)
	}
}

// TestDictionaryHasNewer: a text holds a surface logged after a version,
// whether few surfaces are newer (searched one by one) or many (the text
// walked).
func TestDictionaryHasNewer(t *testing.T) {
	var d dictionary
	var old []string
	var seqs []int64
	for i := range 2 * scanNewerMax {
		old = append(old, "旧"+string(rune(0x4e00+i)))
		seqs = append(seqs, int64(1+i))
	}
	d.add(old, seqs)
	d.add([]string{"叶向高"}, []int64{100})
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
// holds, each once and in text order, whether searched one by one or
// walked, a newer one inside an older longer one included; none when the
// text holds only older ones.
func TestDictionaryNewer(t *testing.T) {
	var d dictionary
	var old []string
	var seqs []int64
	for i := range 2 * scanNewerMax {
		old = append(old, "旧"+string(rune(0x4e00+i))+"名")
		seqs = append(seqs, int64(i+1))
	}
	d.add(old, seqs)
	d.add([]string{"叶向高", "方从哲"}, []int64{100, 101})
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
	// More newer surfaces than are searched one by one: the walk finds
	// the same, and a newer surface inside an older, longer one.
	if got := d.newer(text, 0); !slices.Equal(got, []string{"叶向高", old[3], old[60]}) {
		t.Errorf("after 0: %q", got)
	}
	d.add([]string{"向高"}, []int64{200})
	if got := d.newer(text, 101); !slices.Equal(got, []string{"向高"}) {
		t.Errorf("inside an older name, after 101: %q", got)
	}
}
