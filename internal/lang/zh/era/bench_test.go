package era_test

import (
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/internal/lang/zh/era"
)

// paragraph is a biography-like text of at least 2 KB with era dates,
// Gregorian years and the ordinary prose between them.
func paragraph(tb testing.TB) string {
	tb.Helper()
	const part = "某公，字某某，某县人。嘉靖四十四年（1565年）生。万历十一年（1583年）举进士，" +
		"改庶吉士，授编修。万历中，累迁南京礼部侍郎，屡上疏言矿税之害，皆不报。" +
		"泰昌元年冬，召为礼部尚书兼东阁大学士，天启元年（1621年）入朝，寻为首辅，" +
		"调护善类，时论称之。天启四年乞归，天启七年卒于家，年六十九。崇祯初，赠太师，谥文忠。" +
		"其门人记其言行甚详，后之修史者多采之。"
	var b strings.Builder
	for b.Len() < 2048 {
		b.WriteString(part)
	}
	return b.String()
}

func BenchmarkFind(b *testing.B) {
	tab := era.Default()
	text := paragraph(b)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if len(tab.Find(text)) == 0 {
			b.Fatal("no dates found")
		}
	}
}

func BenchmarkFindNoEra(b *testing.B) {
	tab := era.Default()
	text := strings.Repeat("叶向高，字进卿，福清人。为人明决，好荐士。", 40)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		tab.Find(text)
	}
}

func BenchmarkFindGregorian(b *testing.B) {
	text := paragraph(b)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if len(era.FindGregorian(text)) == 0 {
			b.Fatal("no years found")
		}
	}
}

func BenchmarkDefault(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		era.Default()
	}
}

func BenchmarkGregorian(b *testing.B) {
	tab := era.Default()
	b.ReportAllocs()
	for b.Loop() {
		if g, ok := tab.Gregorian("萬曆", 11); !ok || g != 1583 {
			b.Fatal(g, ok)
		}
	}
}
