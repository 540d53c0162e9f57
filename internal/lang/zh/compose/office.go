package compose

import (
	"strings"

	"github.com/annalist-dev/annalist/internal/lang/profile"
)

// Offices are ranked by the grades of the profile's office lexicon
// (internal/lang/profile, offices.tsv): the civil and military grades (品)
// of the Ming bureaucracy, 1 for 正一品, 1.5 for 从一品 and so on, with the
// Grand Secretary above everyone and commissions without a grade of their
// own ranked with the title they were usually given. Honorary titles (the
// three dukes and three solitaries, 太师 … 少保, and the heir apparent's,
// 太子太保 …) are conferred, not held, and are left out of careers.
//
// A title is matched by the longest graded term it contains, so 副都御史
// is not taken for 都御史 and 南京礼部右侍郎 is a 侍郎. A title joined with
// 兼 or 加 takes the higher of its parts.

// Grade returns the grade of a title (lower is higher) and whether the
// lexicon knows it.
func Grade(o profile.Offices, title string) (float64, bool) {
	best, found := 0.0, false
	for _, part := range o.Parts(title) {
		for _, k := range o.Graded() {
			if strings.Contains(part, k.Term) {
				if !found || k.Grade < best {
					best, found = k.Grade, true
				}
				break
			}
		}
	}
	return best, found
}

// Outranked reports whether text names an office of a higher grade than
// g: then a higher post may have escaped the extractor, and "官至" (rose
// to) would claim too much.
func Outranked(o profile.Offices, text string, g float64) bool {
	for _, k := range o.Graded() {
		if k.Grade < g && strings.Contains(text, k.Term) {
			return true
		}
	}
	return false
}

// HighestOffice returns the index of the highest of the titles, in the
// order held: the lowest grade; of equal grades a post that is no
// sinecure (the southern capital's ministries, 南京) and then the later
// one. -1 when no title is graded.
func HighestOffice(o profile.Offices, titles []string) int {
	best := -1
	var bestGrade float64
	for i, t := range titles {
		g, ok := Grade(o, t)
		if !ok || o.Honorary(t) {
			continue
		}
		if best < 0 || g < bestGrade || g == bestGrade && (!o.Sinecure(t) || o.Sinecure(titles[best])) {
			best, bestGrade = i, g
		}
	}
	return best
}
