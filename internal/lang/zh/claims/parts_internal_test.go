package claims

import (
	"testing"

	"github.com/annalist-dev/annalist/internal/lang/profile"
	"github.com/annalist-dev/annalist/internal/lang/text"
	"github.com/annalist-dev/annalist/internal/lang/zh/era"
)

// The building blocks are tested from inside: their contracts (what a
// differing run is, which dates compare) decide the checker's error types.

func TestAlignRuns(t *testing.T) {
	tests := []struct {
		a, b string
		// want are the differing runs as "sentence/passage".
		want []string
	}{
		{"叶向高字季晦福清人", "叶向高字进卿福清人", []string{"季晦/进卿"}},
		{"三十六年五月擢礼部", "其三十五年五月擢礼部尚书", []string{"六/五"}},
		{"十一年", "十年", []string{"一/"}},
		{"举进士", "举进士授编修", nil},
		{"万历十一年举人", "举万历十一年进士", []string{"举人/进士"}},
	}
	for _, tt := range tests {
		a, b := []rune(tt.a), []rune(tt.b)
		al := align(a, b)
		var got []string
		for _, r := range al.runs() {
			got = append(got, string(a[r.a0:r.a1])+"/"+string(b[r.b0:r.b1]))
		}
		if len(got) != len(tt.want) {
			t.Errorf("align(%s, %s) runs %v, want %v", tt.a, tt.b, got, tt.want)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("align(%s, %s) runs %v, want %v", tt.a, tt.b, got, tt.want)
			}
		}
	}
}

func TestNormalize(t *testing.T) {
	n := normalize("二十六年，擢太常寺少卿；He  was  Appointed.")
	if got := string(n.rs); got != "二十六年擢太常寺少卿he was appointed" {
		t.Errorf("normalize = %q", got)
	}
	if s, e := n.span(4, 9); s != 5 || e != 10 {
		t.Errorf("span(4,9) = [%d,%d), want [5,10)", s, e)
	}
}

func TestFindDates(t *testing.T) {
	tab := era.Default()
	tests := []struct {
		text string
		want []string
	}{
		{"举万历十一年进士，授庶吉士。", []string{"万历十一年"}},
		{"三十五年五月，擢礼部尚书。十一月，入朝。", []string{"三十五年五月", "十一月"}},
		{"万历十一年（1583年），举进士。", []string{"万历十一年", "1583年"}},
		{"明年，卒，年六十有九。", []string{"明年"}},
		{"嘉靖初，起故官。", []string{"嘉靖初"}},
		{"率众三千余人。", nil},
		{"建文元年正月甲子，师出。", []string{"建文元年正月甲子"}},
	}
	for _, tt := range tests {
		var got []string
		for _, d := range findDates(tab, tt.text) {
			got = append(got, d.text)
		}
		if len(got) != len(tt.want) {
			t.Errorf("findDates(%s) = %v, want %v", tt.text, got, tt.want)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("findDates(%s) = %v, want %v", tt.text, got, tt.want)
			}
		}
	}
}

func TestSameAndComparableDates(t *testing.T) {
	tab := era.Default()
	date := func(s string) dateSpan {
		ds := findDates(tab, s)
		if len(ds) != 1 {
			t.Fatalf("%s: %d dates", s, len(ds))
		}
		return ds[0]
	}
	tests := []struct {
		a, b             string
		same, comparable bool
	}{
		{"万历十一年", "万历十一年", true, true},
		{"万历十一年", "万历十四年", false, true},
		{"万历十一年", "十一年", true, true},
		{"二十六年", "二十七年", false, true},
		{"天顺末", "天顺八年", true, false},
		{"天顺末", "景泰二年", false, false},
		{"明年", "弘治元年", false, false},
		{"五月", "十一月", false, true},
		{"（1583年）", "（1585年）", false, true},
	}
	for _, tt := range tests {
		a, b := date(tt.a), date(tt.b)
		if got := sameDate(a, b); got != tt.same {
			t.Errorf("sameDate(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.same)
		}
		if !tt.same {
			if got := comparableDates(a, b); got != tt.comparable {
				t.Errorf("comparableDates(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.comparable)
			}
		}
	}
}

func TestExamPassed(t *testing.T) {
	for _, tt := range []struct{ clause, want string }{
		{"举万历十一年进士", "进士"},
		{"叶向高中举人", "举人"},
		{"万历十一年进士第一", "进士第一"},
		{"登弘治六年进士第", "进士"},
		{"正统六年进士及第", "进士"},
		{"举乡试第一", "乡试第一"},
		{"由进士授编修", ""},
		{"与进士韩如璜结乡兵", ""},
		{"而举人", ""},
	} {
		if got := liezhuanLexicon().examPassed(tt.clause); got != tt.want {
			t.Errorf("examPassed(%s) = %q, want %q", tt.clause, got, tt.want)
		}
	}
}

// liezhuanLexicon is the lexicon of the liezhuan profile.
func liezhuanLexicon() *Lexicon {
	return NewLexicon(profile.Default().For(profile.Liezhuan, ""))
}

// Under the English profile a Chinese clause is no office or degree; the
// liezhuan profile gives examination terms.
func TestEnglishProfileReadsNoChineseClause(t *testing.T) {
	chinese := "叶向高，字进卿，福清人。"
	if len(NewLexicon(profile.Default().For(profile.Liezhuan, text.Lang(""))).examTerms) == 0 {
		t.Error("liezhuan lexicon has no examination terms")
	}
	for _, a := range atomize(era.Default(), NewLexicon(profile.Default().For(profile.English, text.Lang(chinese))), "授翰林院编修，举万历十一年进士。") {
		if a.fact.Relation == "office" || a.fact.Relation == "jinshi" {
			t.Errorf("Chinese rule under the english profile: %+v", a.fact)
		}
	}
}
