package writer

import (
	"strings"
	"unicode/utf8"
)

// officeGrade is the grade of a Ming office title, lower is higher: the
// civil and military grades (品) of the Ming bureaucracy, 1 for 正一品, 1.5
// for 从一品 and so on, with two departures from the letter of the grades
// that every reader of the History of Ming makes:
//
//   - a Grand Secretary (大学士 of the Grand Secretariat, 首辅 its head)
//     ranks above everyone: nominally 正五品, the post was the government,
//     and its holders carried a minister's title besides ("礼部尚书兼东阁
//     大学士");
//   - commissions without a grade of their own rank with the title they
//     were usually given: a supreme commander (总督) with a minister, a
//     grand coordinator (巡抚) with an assistant censor-in-chief (右佥都御史,
//     the title most held), a regional
//     commander (总兵) with a chief military commissioner.
//
// Honorary titles (the three dukes and three solitaries, 太师 … 少保, and
// the heir apparent's, 太子太保 …) are conferred, not held, and are left out
// of careers (honorary).
//
// A title is matched by the longest keyword it contains, so 副都御史 is
// not taken for 都御史 and 南京礼部右侍郎 is a 侍郎. A title joined with 兼
// or 加 takes the higher of its parts.
var officeGrades = map[string]float64{
	"首辅": 0, "大学士": 0,
	"左都督": 1, "右都督": 1, "都督同知": 1.5, "都督佥事": 2, "都督": 1,
	"尚书": 2, "左都御史": 2, "右都御史": 2, "都御史": 2, "总督": 2, "都指挥使": 2, "总兵": 2,
	"布政使": 2.5, "都指挥同知": 2.5,
	"侍郎": 3, "副都御史": 3, "通政使": 3, "大理卿": 3, "大理寺卿": 3, "太常卿": 3,
	"太常寺卿": 3, "詹事": 3, "府尹": 3, "按察使": 3, "指挥使": 3, "副总兵": 3, "都指挥佥事": 3,
	"参政": 3.5, "光禄卿": 3.5, "太仆卿": 3.5, "太仆寺卿": 3.5,
	"佥都御史": 4, "巡抚": 4, "少詹事": 4, "知府": 4, "副使": 4, "少卿": 4, "通政": 4, "学士": 5, "参将": 4,
	"祭酒": 4.5, "参议": 4.5, "同知": 4.5, "游击": 4.5,
	"佥事": 5, "郎中": 5, "庶子": 5, "侍读学士": 4.5, "侍讲学士": 4.5, "谕德": 5, "千户": 5, "守备": 5,
	"员外郎": 5.5, "知州": 5.5, "洗马": 5.5, "中书舍人": 7,
	"主事": 6, "司业": 6, "中允": 6, "修撰": 6.5, "赞善": 6.5, "侍读": 6, "侍讲": 6, "百户": 6,
	"给事中": 7.5, "都给事中": 7, "御史": 7, "编修": 7, "知县": 7, "推官": 7, "评事": 7,
	"检讨": 7.5, "行人": 8, "教谕": 9, "庶吉士": 9, "典史": 9.5,
}

// officeKeys are the keywords of officeGrades, longest first.
var officeKeys = func() []string {
	keys := make([]string, 0, len(officeGrades))
	for k := range officeGrades {
		keys = append(keys, k)
	}
	// Longest first, then lexical, so matching is deterministic.
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && longer(keys[j], keys[j-1]); j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}()

func longer(a, b string) bool {
	la, lb := utf8.RuneCountInString(a), utf8.RuneCountInString(b)
	if la != lb {
		return la > lb
	}
	return a < b
}

// honorary reports whether a title is an honour rather than a post: every
// part of it (joined by 兼 or 加) is one of the three dukes or three
// solitaries, a pillar of state, an heir apparent's title or a posthumous
// gift (赠).
func honorary(title string) bool {
	parts := strings.FieldsFunc(title, func(r rune) bool { return r == '兼' || r == '加' })
	for _, p := range parts {
		if !honour(p) {
			return false
		}
	}
	return len(parts) > 0
}

func honour(p string) bool {
	if strings.HasPrefix(p, "太子") || strings.HasPrefix(p, "赠") {
		return true
	}
	for _, h := range []string{"太师", "太傅", "太保", "少师", "少傅", "少保", "柱国", "左柱国", "右柱国", "上柱国"} {
		if p == h {
			return true
		}
	}
	return false
}

// grade returns the grade of a title (lower is higher) and whether the
// lexicon knows it.
func grade(title string) (float64, bool) {
	best, found := 0.0, false
	for _, part := range strings.FieldsFunc(title, func(r rune) bool { return r == '兼' || r == '加' }) {
		for _, k := range officeKeys {
			if strings.Contains(part, k) {
				if g := officeGrades[k]; !found || g < best {
					best, found = g, true
				}
				break
			}
		}
	}
	return best, found
}

// outranked reports whether text names an office of a higher grade than
// g: then a higher post may have escaped the extractor, and "官至" (rose
// to) would claim too much.
func outranked(text string, g float64) bool {
	for k, kg := range officeGrades {
		if kg < g && strings.Contains(text, k) {
			return true
		}
	}
	return false
}

// highestOffice returns the index of the highest of the titles, in the
// order held: the lowest grade; of equal grades a post outside the
// southern capital (南京, whose ministries were sinecures) and then the
// later one. -1 when no title is graded.
func highestOffice(titles []string) int {
	best := -1
	var bestGrade float64
	for i, t := range titles {
		g, ok := grade(t)
		if !ok || honorary(t) {
			continue
		}
		if best < 0 || g < bestGrade || g == bestGrade && (!nanjing(t) || nanjing(titles[best])) {
			best, bestGrade = i, g
		}
	}
	return best
}

func nanjing(title string) bool { return strings.HasPrefix(title, "南京") }
