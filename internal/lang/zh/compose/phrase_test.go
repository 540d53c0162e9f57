package compose

import (
	"slices"
	"testing"
)

func TestTemplates(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{Career([]string{"庶吉士", "南京国子司业", "南京礼部右侍郎"}), "历官庶吉士、南京国子司业、南京礼部右侍郎。"},
		{Highest("礼部尚书兼东阁大学士"), "官至礼部尚书兼东阁大学士。"},
		{EvidenceSentence("年七十一，"), "年七十一。"},
		{GregorianText(1583), "1583年"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	if !Anaphoric("本部尚书") || Anaphoric("礼部尚书") {
		t.Error("本部尚书 names its ministry only in its sentence, 礼部尚书 names its own")
	}
}

func TestSectionTitles(t *testing.T) {
	for lang, want := range map[string][2]string{
		"zh": {"生平", "其他文献"},
		"en": {"Life", "From other documents"},
		"":   {"Life", "From other documents"},
	} {
		life, other := SectionTitles(lang)
		if life != want[0] || other != want[1] {
			t.Errorf("%q: got %q, %q, want %q", lang, life, other, want)
		}
	}
}

func TestNamedIn(t *testing.T) {
	names := SubjectNames("申时行", []string{"汝默"})
	got := NamedIn([]string{"时行延之入。", "申时行入朝。", "时行上疏。", "帝不听。"}, "申时行", names)
	if want := []bool{false, true, true, false}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v: a given name counts once the text has named him", got, want)
	}
}

// TestWordLists holds every embedded word list to the shape
// internal/lang/wordlist.Check describes.
func TestWordLists(t *testing.T) {
	for _, err := range words.Check() {
		t.Error(err)
	}
}
