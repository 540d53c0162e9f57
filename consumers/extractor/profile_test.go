package extractor_test

import (
	"context"
	"slices"
	"testing"

	"github.com/annalist-dev/annalist/internal/lang/profile/profiletest"

	"github.com/annalist-dev/annalist/consumers/extractor"
	"github.com/annalist-dev/annalist/internal/lang/profile"
	"github.com/annalist-dev/annalist/schemas"
)

// Any era of the table dates a jinshi degree, not only the Ming ones: the
// eras are internal/lang/zh/era's table, so Qing biographies get their facts.
func TestJinshiOfAnyEraOfTheTable(t *testing.T) {
	for _, tt := range []struct {
		entry, text, want string
	}{
		{"张廷瓒", "张廷瓒，字卣臣，桐城人。乾隆十年进士，授编修。", "张廷瓒 jinshi 乾隆十年 {era=乾隆 year=乾隆十年}"},
		{"李宗昉", "李宗昉，字芝龄，山阳人。光绪二年进士，改庶吉士。", "李宗昉 jinshi 光绪二年 {era=光绪 year=光绪二年}"},
		{"王遵", "王遵，字仲和，福州人。举淳熙八年进士第二。", "王遵 jinshi 淳熙八年 {era=淳熙 rank=第二 year=淳熙八年}"},
		{"陈涛", "陈涛，字海门，长沙人。康熙三十年进士及第。", "陈涛 jinshi 康熙三十年 {era=康熙 rank=及第 year=康熙三十年}"},
	} {
		got := facts(extract(t, chunk("j1", tt.entry, tt.text)))
		if _, ok := got[tt.want]; !ok {
			t.Errorf("%s: no %q among %v", tt.entry, tt.want, factKeys(got))
		}
	}
}

// A given name that is also an era name is the man, not a date: "天和初举
// 进士" in 刘天和's entry says he passed at first, in no era.
func TestGivenNameIsNoEra(t *testing.T) {
	text := "刘天和，字养和，麻城人。言官论天和衰老，遂乞休归。\n天和初举进士，刘瑾欲与叙宗姓，谢不往。"
	for k := range facts(extract(t, chunk("j2", "刘天和", text))) {
		if slices.Contains([]string{"jinshi"}, relationOf(k)) {
			t.Errorf("given name read as an era: %s", k)
		}
	}
}

func relationOf(fact string) string {
	for i, r := range fact {
		if r == ' ' {
			rest := fact[i+1:]
			for j, r2 := range rest {
				if r2 == ' ' {
					return rest[:j]
				}
			}
			return rest
		}
	}
	return ""
}

func factKeys(m map[string]schemas.Triplet) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// The profile decides the language of the patterns, not the characters of
// the text: an English chunk that quotes Chinese gets no Chinese facts,
// a liezhuan chunk with a Latin gloss no English ones.
func TestProfileDecidesThePatterns(t *testing.T) {
	ex := extractor.New(extractor.Config{})
	ctx := context.Background()
	en := englishChunk("l1", "Lu Wenyuan (陆文渊，字静之，苏州吴县人) was a scholar. He was born in Suzhou in 1515.")
	en.Profile, en.Lang = profile.English, "en"
	ts, err := ex.Extract(ctx, "", en)
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range ts {
		if tr.Relation == schemas.RelCourtesyName || tr.Tail == "苏州吴县" {
			t.Errorf("Chinese pattern ran under the english profile: %s", fact(tr))
		}
	}
	if !slices.ContainsFunc(ts, func(tr schemas.Triplet) bool { return tr.Relation == schemas.RelBirth }) {
		t.Errorf("no English birth fact: %v", ts)
	}
	zh := chunk("l2", "陆文渊", "陆文渊，字静之，苏州吴县人。Lu Wenyuan was born in Suzhou in 1515.")
	ts, err = ex.Extract(ctx, "", zh)
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range ts {
		if tr.Relation == schemas.RelBirth {
			t.Errorf("English pattern ran under the liezhuan profile: %s", fact(tr))
		}
	}
	// Generic text takes the language of its chunk.
	g := englishChunk("l3", "陆文渊，字静之，苏州吴县人。")
	g.Lang = "zh"
	ts, err = ex.Extract(ctx, "", g)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(ts, func(tr schemas.Triplet) bool { return tr.Relation == schemas.RelCourtesyName }) {
		t.Errorf("generic Chinese text got no Chinese facts: %v", ts)
	}
}

// A corpus added as profile files only (internal/lang/profile/profiletest/testdata/qingshi: it
// extends liezhuan with a Qing office table) is read by the extractor
// with its own lexicon: an office of its table is taken, one only
// liezhuan's table knows is not.
func TestProfileAddedAsFiles(t *testing.T) {
	set := profiletest.Set(t)
	ex := extractor.New(extractor.Config{Profiles: set})
	c := chunk("q1", "阿桂", "阿桂，字广廷，满洲正蓝旗人。乾隆四年举人，授军机大臣，迁礼部主事。")
	c.Profile = "qingshi"
	ts, err := ex.Extract(context.Background(), "", c)
	if err != nil {
		t.Fatal(err)
	}
	got := facts(ts)
	for _, want := range []string{"阿桂 courtesy_name 广廷", "阿桂 office 军机大臣 {verb=授}"} {
		if _, ok := got[want]; !ok {
			t.Errorf("no %q among %v", want, factKeys(got))
		}
	}
	if _, ok := got["阿桂 office 礼部主事 {verb=迁}"]; ok {
		t.Errorf("office of liezhuan's table taken under qingshi's")
	}
}
