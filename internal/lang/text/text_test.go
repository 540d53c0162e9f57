package text_test

import (
	"math"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/internal/lang/text"
)

func TestSplitSentences(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"chinese", "甲，字乙，丙人。少好学。", []string{"甲，字乙，丙人。", "少好学。"}},
		{"chinese exclamation and question", "何也？善哉！然。", []string{"何也？", "善哉！", "然。"}},
		{"closing quote stays with its sentence", "曰：「可。」遂行。", []string{"曰：「可。」", "遂行。"}},
		{"space after a stop is absorbed", "曰： 可。 遂行。", []string{"曰： 可。 ", "遂行。"}},
		{"chinese lines are paragraphs", "甲传\n乙，丙人", []string{"甲传\n", "乙，丙人"}},
		{"english", "He was born in 1820. He died in 1890.", []string{"He was born in 1820. ", "He died in 1890."}},
		{"english question and quote", `She asked "why?" Then she left!`, []string{`She asked "why?" `, "Then she left!"}},
		{"abbreviation", "Dr. Harrow met Mr. Ellery. They spoke.", []string{"Dr. Harrow met Mr. Ellery. ", "They spoke."}},
		{"initial", "J. S. Mill wrote it. Then", []string{"J. S. Mill wrote it. ", "Then"}},
		{"decimal is no end", "It cost 3.5 pounds. Fine.", []string{"It cost 3.5 pounds. ", "Fine."}},
		{"english wrapped line continues", "The mill stood\nby the river. Next", []string{"The mill stood\nby the river. ", "Next"}},
		{"chinese line ending in a bracket", "甲(乙)丙(丁)\n甲，字戊。", []string{"甲(乙)丙(丁)\n", "甲，字戊。"}},
		{"english line quoting chinese continues", "Liu Ji (刘基) was a\nstatesman. Next", []string{"Liu Ji (刘基) was a\nstatesman. ", "Next"}},
		{"blank line ends a paragraph", "A heading\n\nBody text", []string{"A heading\n\n", "Body text"}},
		{"markdown heading", "# Harrow\nHe lived.", []string{"# Harrow\n", "He lived."}},
		{"no end", "无句读之文", []string{"无句读之文"}},
		{"empty", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := text.SplitSentences(tt.in)
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("SplitSentences(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

// FuzzSentences: spans tile the input whatever it is.
func FuzzSentences(f *testing.F) {
	for _, s := range []string{"甲，字乙。乙\n\n丙！", "Mr. A. B. said so. Yes?", "\xff\xfe。", "...!!!?", "\n\n\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		rs := []rune(s)
		pos := 0
		for _, sp := range text.SentencesRunes(rs) {
			if sp.Start != pos || sp.End <= sp.Start || sp.End > len(rs) {
				t.Fatalf("span %v after %d in %d runes", sp, pos, len(rs))
			}
			pos = sp.End
		}
		if pos != len(rs) {
			t.Fatalf("spans end at %d of %d", pos, len(rs))
		}
	})
}

func TestIndex(t *testing.T) {
	s := "ab刘基，字伯温c"
	x := text.NewIndex(s)
	if x.Len() != utf8.RuneCountInString(s) {
		t.Fatalf("Len %d", x.Len())
	}
	if got := x.Slice(2, 4); got != "刘基" {
		t.Fatalf("Slice(2,4) = %q", got)
	}
	if got := x.Slice(6, 100); got != "伯温c" {
		t.Fatalf("Slice clamps: %q", got)
	}
	for r := 0; r <= x.Len(); r++ {
		if back := x.Rune(x.Byte(r)); back != r {
			t.Fatalf("Rune(Byte(%d)) = %d", r, back)
		}
	}
	if got := x.Rune(3); got != 2 { // byte 3 is inside 刘 (bytes 2..4)
		t.Fatalf("Rune(3) = %d, want 2", got)
	}
	if got := text.Substr(s, 2, 4); got != "刘基" {
		t.Fatalf("Substr = %q", got)
	}
	if got := text.Substr(s, 7, 99); got != "温c" {
		t.Fatalf("Substr clamps: %q", got)
	}
	if got := text.Substr(s, 5, 3); got != "" {
		t.Fatalf("Substr reversed: %q", got)
	}
}

func FuzzIndex(f *testing.F) {
	f.Add("刘基a\xffb", 1, 3)
	f.Fuzz(func(t *testing.T, s string, a, b int) {
		x := text.NewIndex(s)
		rs := []rune(s)
		if x.Len() != len(rs) {
			t.Fatalf("Len %d, want %d", x.Len(), len(rs))
		}
		if a < 0 || b < a || b > len(rs) {
			return
		}
		if got, want := x.Slice(a, b), text.Substr(s, a, b); got != want {
			t.Fatalf("Slice %q, Substr %q", got, want)
		}
		if utf8.ValidString(s) {
			if got := x.Slice(a, b); got != string(rs[a:b]) {
				t.Fatalf("Slice(%d,%d) = %q, want %q", a, b, got, string(rs[a:b]))
			}
		}
	})
}

func TestLang(t *testing.T) {
	for in, want := range map[string]string{
		"刘基，字伯温":                      "zh",
		"Liu Ji (刘基) was a statesman": "en",
		"刘基，字伯温 Liu Ji":               "zh",
		"1368, 1370.":                 "",
	} {
		if got := text.Lang(in); got != want {
			t.Errorf("Lang(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTokens(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"刘基，字伯温", []string{"刘", "基", "刘基", "字", "伯", "字伯", "温", "伯温"}},
		{"The Mill's OWNER", []string{"the", "mill's", "owner"}},
		{"刘基Liu", []string{"刘", "基", "刘基", "liu"}},
		{"1368年", []string{"1368", "年"}},
		{"", nil},
	}
	for _, tt := range tests {
		if got := text.Tokens(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Tokens(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestJaccard(t *testing.T) {
	tests := []struct {
		a, b string
		want float64
	}{
		{"刘基", "刘基", 1},
		{"刘基", "宋濂", 0},
		// {刘,基,刘基} vs {刘,伯,刘伯}: 1 shared of 5.
		{"刘基", "刘伯", 0.2},
		{"The mill", "the MILL", 1},
		{"a b c d", "c d e f", 2.0 / 6},
		{"", "", 0},
		{"。，", "刘", 0},
	}
	for _, tt := range tests {
		if got := text.Jaccard(tt.a, tt.b); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("Jaccard(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
	a, b := text.NewTokenSet("叶向高，字进卿，福清人"), text.NewTokenSet("进卿，福清人也")
	if a.Jaccard(b) != b.Jaccard(a) {
		t.Fatal("Jaccard is not symmetric")
	}
	if a.Len() != len(dedupe(text.Tokens("叶向高，字进卿，福清人"))) {
		t.Fatalf("set of %d tokens", a.Len())
	}
}

func dedupe(xs []string) map[string]bool {
	m := map[string]bool{}
	for _, x := range xs {
		m[x] = true
	}
	return m
}

var sink float64

func BenchmarkJaccardSets(b *testing.B) {
	ref := text.NewTokenSet(strings.Repeat("叶向高，字进卿，福清人。万历十一年进士。", 20))
	sent := "叶向高，字进卿，福清人，万历十一年进士。"
	b.ReportAllocs()
	for b.Loop() {
		sink += text.NewTokenSet(sent).Jaccard(ref)
	}
}

func BenchmarkSentences(b *testing.B) {
	s := strings.Repeat("刘基，字伯温，青田人。曾祖濠，仕宋为翰林掌书。He was born. Then he left!\n", 200)
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for b.Loop() {
		sink += float64(len(text.Sentences(s)))
	}
}

func TestClip(t *testing.T) {
	for _, tt := range []struct {
		s    string
		n    int
		want string
	}{
		{"叶向高字进卿", 3, "叶向高…"},
		{"叶向高", 3, "叶向高"},
		{"abc", 0, "abc"},
		{"", 2, ""},
		{"hello world", 5, "hello…"},
	} {
		if got := text.Clip(tt.s, tt.n); got != tt.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}
