package zh

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/internal/lang/factkit"
	"github.com/annalist-dev/annalist/internal/lang/profile"
)

// randomText joins n pieces drawn from pieces.
func randomText(rng *rand.Rand, pieces []string, n int) string {
	var b strings.Builder
	for k := rng.IntN(n + 1); k > 0; k-- {
		b.WriteString(pieces[rng.IntN(len(pieces))])
	}
	return b.String()
}

// TestFilteredIsTheRegexp: a filtered pattern finds what its regexp finds,
// on texts written to meet and miss its words, first runes and lengths.
func TestFilteredIsTheRegexp(t *testing.T) {
	p := profile.Default().For(profile.Liezhuan, profile.LangChinese)
	hz, err := newHan(p)
	if err != nil {
		t.Fatal(err)
	}
	patterns := []*filteredRE{reZi, reHao, reMing, reXiaozi, rePlace, reMagistrate, reKinOf, reSuccession, reSentZi,
		reClauseSubject, reQualLead, hz.reSentKin, hz.jinshiAt, hz.times.all, hz.deaths.all,
		mustFiltered(`^(?:ab|c)d{1,3}$`), mustFiltered(`x[yz]+w`), mustFiltered(`^(?:[^，]{0,2}q)?r`), mustFiltered(`\x{FFFD}a`)}
	pieces := []string{"字", "号", "名", "小", "一", "人", "其先", "知", "县", "子", "弟", "从", "嗣", "袭", "传至", "，", "。",
		"以", "由", "者", "遂", "累官", "万历", "五", "年", "进士", "第", "卒", "于", "家", "七十", "又", "父", "甲", "乙",
		"a", "b", "c", "d", "x", "y", "z", "w", "q", "r", "\xff", "𠀀"}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, f := range patterns {
		re := regexp.MustCompile(f.String())
		for range 4000 {
			s := randomText(rng, pieces, 10)
			if got, want := f.FindStringSubmatchIndex(s), re.FindStringSubmatchIndex(s); !slices.Equal(got, want) {
				t.Fatalf("%s on %q: %v, the regexp finds %v", re, s, got, want)
			}
			if got, want := f.MatchString(s), re.MatchString(s); got != want {
				t.Fatalf("%s matches %q: %v, the regexp says %v", re, s, got, want)
			}
			loc := re.FindStringIndex(s)
			if got, want := f.matchesAll(s), loc != nil && loc[0] == 0 && loc[1] == len(s); got != want {
				t.Fatalf("%s matches all of %q: %v, the regexp says %v", re, s, got, want)
			}
		}
	}
}

// TestScansAreThePatterns: the scans of deaths, jinshi degrees and
// relatives find, sentence by sentence (factkit.FindAll), what the patterns they
// stand for find.
func TestScansAreThePatterns(t *testing.T) {
	p := profile.Default().For(profile.Liezhuan, profile.LangChinese)
	hz, err := newHan(p)
	if err != nil {
		t.Fatal(err)
	}
	unanchored := func(re *regexp.Regexp) *regexp.Regexp {
		return regexp.MustCompile(strings.TrimSuffix(strings.TrimPrefix(re.String(), "^(?:"), ")"))
	}
	for _, c := range []struct {
		scan    factkit.Matcher
		re      *regexp.Regexp
		anchors []string
		pieces  []string
	}{
		{hz.deathScan, regexp.MustCompile(strings.TrimPrefix(hz.deaths.all.String(), "^")), []string{"卒", "薨"},
			[]string{"万历", "洪武", "建中靖国", "建中", "元", "年", "五", "十", "三", "中", "初", "正月", "闰", "月", "春",
				"卒", "薨", "于", "家", "，", "；", "有", "七", "病", "天", "。", "\n"}},
		{hz.jinshis, regexp.MustCompile(strings.TrimPrefix(hz.jinshiAt.String(), "^")), []string{"进士", "试第"},
			[]string{"万历", "洪武", "建中靖国", "建中", "元", "年", "五", "十", "进士", "第", "一", "二", "甲", "人", "会试",
				"及第", "举", "成", "登", "中", "初", "，", "、", "又", "天", "士", "试", "。", "\n"}},
		{hz.kinOpenings, unanchored(hz.kinOpenings.at), []string{"父", "子", "弟", "兄"},
			[]string{"父", "子", "弟", "兄", "长子", "其", " ", "　", "。", "；", "\n", "，", "、", "嗣", "袭", "甲", "乙", "a"}},
	} {
		rng := rand.New(rand.NewPCG(3, 4))
		for range 5000 {
			s := randomText(rng, c.pieces, 24)
			got, want := factkit.FindAll(c.scan, s, hanEndSet, c.anchors...), factkit.FindAll(c.re, s, hanEndSet, c.anchors...)
			if !slices.EqualFunc(got, want, slices.Equal) {
				t.Fatalf("%s on %q: %v, the pattern finds %v", c.re, s, got, want)
			}
		}
	}
}
