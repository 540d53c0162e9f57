package verifier_test

import (
	"reflect"
	"testing"

	"github.com/annalist-dev/annalist/consumers/verifier"
	"github.com/annalist-dev/annalist/schemas"
)

func TestAtomic(t *testing.T) {
	f := func(text, rel, val string) schemas.Fact { return schemas.Fact{Text: text, Relation: rel, Value: val} }
	tests := []struct {
		name     string
		sentence string
		want     []schemas.Fact
	}{
		{"identity", "林敬安，字守拙，号南溪，莆田人。", []schemas.Fact{
			f("林敬安", schemas.RelAlias, "林敬安"),
			f("字守拙", schemas.RelCourtesyName, "守拙"),
			f("号南溪", schemas.RelArtName, "南溪"),
			f("莆田人", schemas.RelNativePlace, "莆田"),
		}},
		{"identity with a one-numeral place", "周立，字正甫，五河人。", []schemas.Fact{
			f("周立", schemas.RelAlias, "周立"),
			f("字正甫", schemas.RelCourtesyName, "正甫"),
			f("五河人", schemas.RelNativePlace, "五河"),
		}},
		{"examination with its Gregorian year", "万历十一年（1583年），林敬安举进士。", []schemas.Fact{
			f("万历十一年", verifier.RelDate, "万历十一年"),
			f("1583年", verifier.RelDate, "1583"),
			f("林敬安举进士", schemas.RelJinshi, "进士"),
		}},
		{"examination with rank in one clause", "万历十一年（1583年）进士第一。", []schemas.Fact{
			f("万历十一年进士第一", schemas.RelJinshi, "进士第一"),
			f("万历十一年", verifier.RelDate, "万历十一年"),
			f("1583年", verifier.RelDate, "1583"),
		}},
		{"career list", "历官行人、吏部主事、太常寺少卿。", []schemas.Fact{
			f("历官行人", schemas.RelOffice, "行人"),
			f("吏部主事", schemas.RelOffice, "吏部主事"),
			f("太常寺少卿", schemas.RelOffice, "太常寺少卿"),
		}},
		{"copied clause with a date inside", "举万历十一年进士，授行人。", []schemas.Fact{
			f("举万历十一年进士", schemas.RelJinshi, "进士"),
			f("万历十一年", verifier.RelDate, "万历十一年"),
			f("授行人", schemas.RelOffice, "行人"),
		}},
		{"date clause with month", "三十五年五月，进礼部右侍郎。", []schemas.Fact{
			f("三十五年五月", verifier.RelDate, "三十五年五月"),
			f("进礼部右侍郎", schemas.RelOffice, "礼部右侍郎"),
		}},
		{"death with age", "天启二年卒，年七十一。", []schemas.Fact{
			f("天启二年卒", schemas.RelDeath, "天启二年"),
			f("天启二年", verifier.RelDate, "天启二年"),
			f("年七十一", schemas.RelDeathAge, "七十一"),
		}},
		{"a count is no place", "林敬安，字守拙，率众三千余人。", []schemas.Fact{
			f("林敬安", schemas.RelAlias, "林敬安"),
			f("字守拙", schemas.RelCourtesyName, "守拙"),
			f("率众三千余人", verifier.RelText, ""),
		}},
		{"english", "Thomas Ellery, styled Harbourman, was appointed harbour master in 1851.", []schemas.Fact{
			f("Thomas Ellery", verifier.RelText, ""),
			f("styled Harbourman", schemas.RelCourtesyName, "Harbourman"),
			f("was appointed harbour master in 1851", schemas.RelOffice, "harbour master in 1851"),
			f("1851", verifier.RelDate, "1851"),
		}},
		{"empty", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := verifier.Atomic(tt.sentence)
			if len(got) == 0 && len(tt.want) == 0 {
				return
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Atomic(%q)\n got  %+v\n want %+v", tt.sentence, got, tt.want)
			}
		})
	}
}

// FuzzAtomic checks that any text splits without panicking and into facts
// whose texts are in the sentence (Gregorian years aside, which a clause
// leaves out).
func FuzzAtomic(f *testing.F) {
	for _, s := range []string{"林敬安，字守拙，号南溪，莆田人。", "万历十一年（1583年），林敬安举进士。", "（）、，。",
		"He died in 1890, and was buried.", "元年正月甲子朔", "年六十有九", "（1583", "字"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, fact := range verifier.Atomic(s) {
			if fact.Text == "" {
				t.Fatalf("Atomic(%q): empty fact %+v", s, fact)
			}
		}
	})
}
