package extractor

import (
	"github.com/annalist-dev/annalist/internal/lang/profile"
	"github.com/annalist-dev/annalist/internal/ports/regexmem"
	"github.com/annalist-dev/annalist/schemas"
)

// handDemos are the profile's hand-made regexes for rel (its
// regex_demos.tsv), written the way the model is asked to write them: one
// pattern applied to the whole chunk, the value in a capture group. They
// head the demonstrations of every prompt, before the best validated
// regexes from memory. Each passes CheckRegex on its own example (a test
// holds them to it).
func handDemos(p *profile.Profile, rel string) []regexmem.Pattern {
	var out []regexmem.Pattern
	for _, d := range p.RegexDemos {
		if d.Relation == rel {
			out = append(out, regexmem.Pattern{Relation: rel, Source: d.Source, Groups: d.Groups, Example: d.Example})
		}
	}
	return out
}

// relationText describes relations to the model.
var relationText = map[string]string{
	schemas.RelCourtesyName: "the person's courtesy name (字), e.g. 进卿 in 叶向高，字进卿",
	schemas.RelArtName:      "the person's art name or sobriquet (号)",
	schemas.RelAlias:        "another name of the person (名, 初名, 小字, English variant)",
	schemas.RelNativePlace:  "the person's native place, e.g. 福清 in 福清人",
	schemas.RelJinshi:       "the year the person passed the jinshi (进士) examination, as era name plus year, e.g. 万历十一年",
	schemas.RelOffice:       "an office the person was appointed to (a title, not a clause)",
	schemas.RelDeath:        "when the person died: a year or date, e.g. 万历五年 in 万历五年卒 (never an age)",
	schemas.RelDeathAge:     "the person's age at death, e.g. 七十一 in 卒，年七十一",
	schemas.RelBirth:        "when or where the person was born",
	schemas.RelRelative:     "a named relative of the person (father, son, brother)",
}
