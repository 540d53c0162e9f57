package era_test

import (
	"testing"

	"github.com/annalist-dev/annalist/internal/lang/zh/era"
)

func FuzzFind(f *testing.F) {
	for _, s := range []string{
		"万历十一年（1583年）举进士",
		"萬曆十一年", "洪武初", "嘉靖末年", "天册万岁元年", "隆庆元年",
		"太平兴国廿有三年", "万历一百零五年", "至元元年至元", "建武中元元年",
		"\xff万历\xfe十年", "",
	} {
		f.Add(s)
	}
	tab := era.Default()
	f.Fuzz(func(t *testing.T, s string) {
		rs := []rune(s)
		prev := 0
		for _, d := range tab.Find(s) {
			if d.Start < prev || d.Start >= d.End || d.End > len(rs) {
				t.Fatalf("Find(%q): span %d–%d after %d in %d runes", s, d.Start, d.End, prev, len(rs))
			}
			prev = d.End
			if d.Text != string(rs[d.Start:d.End]) {
				t.Fatalf("Find(%q): Text %q is not the span %q", s, d.Text, string(rs[d.Start:d.End]))
			}
			if d.Era == "" || (d.Year > 0) == (d.Approx != "") {
				t.Fatalf("Find(%q): malformed %+v", s, d)
			}
			if d.Gregorian != 0 {
				if g, ok := tab.Gregorian(d.Era, d.Year); !ok || g != d.Gregorian {
					t.Fatalf("Find(%q): %+v but Gregorian gives %d, %v", s, d, g, ok)
				}
			}
			again := tab.Find(d.Format())
			if len(again) != 1 || again[0].Era != d.Era || again[0].Year != d.Year || again[0].Approx != d.Approx {
				t.Fatalf("Find(%q) of the formatted %+v = %+v", d.Format(), d, again)
			}
		}
	})
}

func FuzzFindGregorian(f *testing.F) {
	for _, s := range []string{
		"万历十一年（1583年）举进士", "（1559—1627）", "in AD 1583", "公元前140年", "(", "）1583（", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		rs := []rune(s)
		prev := 0
		for _, y := range era.FindGregorian(s) {
			if y.Start < prev || y.Start >= y.End || y.End > len(rs) || y.Text != string(rs[y.Start:y.End]) {
				t.Fatalf("FindGregorian(%q): bad span %+v", s, y)
			}
			prev = y.End
			if y.Value == 0 || y.Value > 9999 || y.Value < -9999 {
				t.Fatalf("FindGregorian(%q): value %d", s, y.Value)
			}
		}
	})
}

func FuzzParseNumeral(f *testing.F) {
	for _, s := range []string{"元", "十一", "廿三", "四十八", "十有一", "一百零五", "１２", "", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, ok := era.ParseNumeral(s)
		if !ok {
			return
		}
		if n < 1 {
			t.Fatalf("ParseNumeral(%q) = %d", s, n)
		}
		if m, ok := era.ParseNumeral(era.FormatNumeral(n)); !ok || m != n {
			t.Fatalf("ParseNumeral(FormatNumeral(%d)) = %d, %v", n, m, ok)
		}
	})
}
