package linker

import (
	"math/rand/v2"
	"slices"
	"testing"

	corpus "github.com/annalist-dev/annalist/internal/lang/profile"
)

// TestFitLearnsContext: on examples where names stand after 与 or at a
// clause's start and non-names after 不, the fitted model reads a new
// occurrence by its context, and a feature it never saw takes its
// prefix's rare class.
func TestFitLearnsContext(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 9))
	surnames := []rune("王李张刘陈杨赵黄周吴")
	given := []rune("文武明德安国忠信仁义礼智")
	var ex []Example
	for i := range 400 {
		name := string(surnames[r.IntN(len(surnames))]) + string(given[r.IntN(len(given))])
		switch i % 4 {
		case 0:
			ex = append(ex, Example{Text: []rune("帝召" + name + "与议。"), Start: 2, End: 4, Name: true})
		case 1:
			ex = append(ex, Example{Text: []rune("时" + "与" + name + "同朝。"), Start: 2, End: 4, Name: true})
		case 2:
			ex = append(ex, Example{Text: []rune("其言不" + name + "也。"), Start: 3, End: 5})
		default:
			ex = append(ex, Example{Text: []rune("事不" + name + "，遂止。"), Start: 2, End: 4})
		}
	}
	m, err := Fit(ex, FitConfig{})
	if err != nil {
		t.Fatal(err)
	}
	named := m.LLR([]rune("及与孙礼同至"), 2, 4, false)
	word := m.LLR([]rune("遂不孙礼而去"), 2, 4, false)
	if named <= 0 || word >= 0 {
		t.Errorf("after 与: LLR %.2f, want > 0; after 不: %.2f, want < 0", named, word)
	}
	back := NewModel(m.Weights(), CharCountsOf(m.Chars.Rows()))
	if got := back.LLR([]rune("及与孙礼同至"), 2, 4, false); got != named {
		t.Errorf("weights round trip: LLR %v, want %v", got, named)
	}
	if _, err := Fit(ex[:1], FitConfig{}); err == nil {
		t.Error("fitting on names alone succeeded")
	}
	if _, err := Fit([]Example{{Text: []rune("王文"), Start: 1, End: 5, Name: true}}, FitConfig{}); err == nil {
		t.Error("a span outside its text was accepted")
	}
	if got := (Model{}).LLR([]rune("王文"), 0, 2, false); got != 0 {
		t.Errorf("the zero model: LLR %v, want 0", got)
	}
}

// TestCountOnlyNames: a count-only name adds to the character counts the
// shape is read from and to nothing else: the regression's weights are
// those of the other examples under those counts, and count-only names
// alone are no fit.
func TestCountOnlyNames(t *testing.T) {
	ex := []Example{
		{Text: []rune("帝召王文与议。"), Start: 2, End: 4, Name: true},
		{Text: []rune("其言不安国也。"), Start: 3, End: 5},
	}
	prince := Example{Text: []rune("子祐樒嗣。"), Start: 1, End: 3, Name: true, CountOnly: true}
	with, err := Fit(append(slices.Clone(ex), prince), FitConfig{})
	if err != nil {
		t.Fatal(err)
	}
	without, err := Fit(ex, FitConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if got := with.Chars['祐'][CountFirst]; got != 1 {
		t.Errorf("祐 begins %d counted names, want 1", got)
	}
	if got := without.Chars['祐'][CountFirst]; got != 0 {
		t.Errorf("without the count-only name, 祐 begins %d counted names, want 0", got)
	}
	if with.Prior != without.Prior {
		t.Errorf("prior %v with the count-only name, %v without: it joined the regression", with.Prior, without.Prior)
	}
	if _, err := Fit([]Example{prince, {Text: []rune("其言不安国也。"), Start: 3, End: 5, CountOnly: true}}, FitConfig{}); err == nil {
		t.Error("fitting on count-only examples alone succeeded")
	}
}

// TestShippedModel reads sentences as a history writes them with the
// Chinese profile's fitted model: a name opening a sentence, after an
// office or before 等 reads as a name; the tail of a longer name (崔应元),
// the head of one the text writes again (王逢年 … 逢年) and a phrase (之学)
// do not.
func TestShippedModel(t *testing.T) {
	p := corpus.Default().For(corpus.Liezhuan, corpus.LangChinese)
	m := NewModel(p.MentionModel, CharCountsOf(p.MentionChars))
	if len(m.W) == 0 || len(m.Chars) == 0 {
		t.Fatal("the liezhuan profile ships no mention model")
	}
	at := func(s, sub string) (rs []rune, start, end int) {
		rs = []rune(s)
		sr := []rune(sub)
		for i := 0; i+len(sr) <= len(rs); i++ {
			if string(rs[i:i+len(sr)]) == sub {
				return rs, i, i + len(sr)
			}
		}
		t.Fatalf("%q not in %q", sub, s)
		return nil, 0, 0
	}
	for _, tc := range [][2]string{
		{"夏言晚年归里，筑室讲学。", "夏言"},
		{"时大学士杨廷和与蒋冕议之，不合。", "杨廷和"},
		{"御史王廷相等交章论之。", "王廷相"},
	} {
		rs, s, e := at(tc[0], tc[1])
		if llr := m.LLR(rs, s, e, false); llr <= 0 {
			t.Errorf("%s in %s: LLR %.2f, want a name's", tc[1], tc[0], llr)
		}
	}
	for _, tc := range [][2]string{{"魏忠贤使崔应元、许显纯拷掠之。", "应元"}, {"此圣贤切己之学也。", "之学"},
		{"又有吴人王逢年者，袁亦欲援之，而逢年不堪其任。", "王逢"}} {
		rs, s, e := at(tc[0], tc[1])
		if llr := m.LLR(rs, s, e, false); llr >= 0 {
			t.Errorf("%s in %s: LLR %.2f, want below 0", tc[1], tc[0], llr)
		}
	}
}

// TestLongerNameFeatures: what the text writes elsewhere says a name goes
// on past the surface; a text that does not write it again says nothing.
func TestLongerNameFeatures(t *testing.T) {
	has := func(fs []string, f string) bool {
		for _, x := range fs {
			if x == f {
				return true
			}
		}
		return false
	}
	again := []rune("城陷，巡道王瑞旃自缢。瑞旃字圣木，南昌人。")
	fs := features(again, NewCounts(again), 5, 7, false)
	if !has(fs, featLongerGiven) || has(fs, featLonger) || has(fs, featEarlier) {
		t.Errorf("王瑞 of 王瑞旃, whose given name the text writes again: features %v", fs)
	}
	once := []rune("城陷，巡道王瑞旃自缢。")
	if fs := features(once, NewCounts(once), 5, 7, false); has(fs, featLongerGiven) || has(fs, featLonger) {
		t.Errorf("written once: features %v", fs)
	}
	twice := []rune("魏忠贤使崔应元拷掠之。崔应元，大兴人。")
	if fs := features(twice, NewCounts(twice), 5, 7, false); !has(fs, featEarlier) {
		t.Errorf("应元 of 崔应元 written twice: features %v", fs)
	}
	c := NewCounts([]rune("王文王文王"))
	if c.Of([]rune("王文")) != 2 || c.Of([]rune("文王")) != 2 || c.Of([]rune("王文王文王文王")) != 0 || c.Of([]rune("王文")) != 2 {
		t.Errorf("counts of 王文 %d, 文王 %d", c.Of([]rune("王文")), c.Of([]rune("文王")))
	}
}
