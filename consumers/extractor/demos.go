package extractor

import (
	"github.com/annalist-dev/annalist/internal/regexmem"
	"github.com/annalist-dev/annalist/schemas"
)

// handDemos are hand-made regexes written the way the model is asked to
// write them: one pattern applied to the whole chunk, the value in a
// capture group. They head the demonstrations of every prompt, before the
// best validated regexes from memory. Each passes CheckRegex on its own
// example (a test holds them to it).
var handDemos = map[bool]map[string][]regexmem.Pattern{
	// Classical Chinese.
	true: {
		schemas.RelCourtesyName: {{
			Source: `，字(\p{Han}{1,3})[，。]`, Groups: map[string]int{"tail": 1},
			Example: "陆文渊，字静之，号松岩，苏州吴县人。",
		}},
		schemas.RelArtName: {{
			Source: `，号(\p{Han}{1,4})[，。]`, Groups: map[string]int{"tail": 1},
			Example: "陆文渊，字静之，号松岩，苏州吴县人。",
		}},
		schemas.RelNativePlace: {{
			Source:  `(?m)^\p{Han}{2,4}，(?:字\p{Han}{1,3}，)?(?:号\p{Han}{1,4}，)?(\p{Han}{1,8})人[。，]`,
			Groups:  map[string]int{"tail": 1},
			Example: "陆文渊，字静之，号松岩，苏州吴县人。",
		}},
		schemas.RelJinshi: {{
			Source: `(\p{Han}{2}(?:元|[一二三四五六七八九十]{1,3})年)(?:举|成)?进士`, Groups: map[string]int{"tail": 1},
			Example: "举嘉靖二十年进士，授翰林院编修。",
		}},
		schemas.RelOffice: {{
			Source:  `(授|擢|迁|改|拜)(\p{Han}{1,10}?(?:尚书|侍郎|编修|御史|主事|知县|郎中))`,
			Groups:  map[string]int{"verb": 1, "tail": 2},
			Example: "举嘉靖二十年进士，授翰林院编修。",
		}},
		schemas.RelDeath: {{
			Source: `((?:\p{Han}{2})?(?:元|[一二三四五六七八九十]{1,3})年)卒`, Groups: map[string]int{"tail": 1},
			Example: "鹤龄持法平，狱无冤滞。万历二年卒。",
		}},
		schemas.RelRelative: {{
			Source: `(?m)(?:^|。)(父|子|弟|兄)(\p{Han}{1,2})，`, Groups: map[string]int{"kin": 1, "tail": 2},
			Example: "子琮，字季玉，以荫为中书舍人。",
		}},
	},
	// English.
	false: {
		schemas.RelBirth: {{
			Source: `born in ([A-Z][\w-]+(?: [A-Z][\w-]+)?)`, Groups: map[string]int{"tail": 1},
			Example: "He was born in Swansea in 1788.",
		}},
		schemas.RelDeath: {{
			Source: `died (?:in|at) ([A-Z][\w-]+(?: [A-Z][\w-]+)?)`, Groups: map[string]int{"tail": 1},
			Example: "Ellery died in Bath in 1860.",
		}},
		schemas.RelNativePlace: {{
			Source: `native of ([A-Z][\w-]+(?: [A-Z][\w-]+){0,2})`, Groups: map[string]int{"tail": 1},
			Example: "Wen Lu, a native of Suzhou, passed the examination young.",
		}},
		schemas.RelOffice: {{
			Source:  `appointed (?:as )?([a-z][\w ]{2,60}? of the [A-Z][\w ]{2,40}?)(?: in \d{4}|[,.])`,
			Groups:  map[string]int{"tail": 1},
			Example: "He was appointed engineer of the Swansea Harbour Trust in 1815.",
		}},
		schemas.RelCourtesyName: {{
			Source: `courtesy name (?:was )?([A-Z][a-z]+)`, Groups: map[string]int{"tail": 1},
			Example: "Lu Wenyuan, courtesy name Jingzhi, was a native of Suzhou.",
		}},
	},
}

// relationText describes relations to the model.
var relationText = map[string]string{
	schemas.RelCourtesyName: "the person's courtesy name (字), e.g. 进卿 in 叶向高，字进卿",
	schemas.RelArtName:      "the person's art name or sobriquet (号)",
	schemas.RelAlias:        "another name of the person (名, 初名, 小字, English variant)",
	schemas.RelNativePlace:  "the person's native place, e.g. 福清 in 福清人",
	schemas.RelJinshi:       "the year the person passed the jinshi (进士) examination, as era name plus year, e.g. 万历十一年",
	schemas.RelOffice:       "an office the person was appointed to (a title, not a clause)",
	schemas.RelDeath:        "when the person died (a year, or the age at death)",
	schemas.RelBirth:        "when or where the person was born",
	schemas.RelRelative:     "a named relative of the person (father, son, brother)",
}
