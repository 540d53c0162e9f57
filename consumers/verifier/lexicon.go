package verifier

import (
	"strings"
	"unicode"
)

// examTerms are the words of the imperial examinations: degrees, the
// examinations themselves and the ranks a list gives. A differing segment
// that holds one is a knowledge_lack error (the knowledge solver looks the
// term up in the glossary). Longer terms come first so that a scan takes
// the longest match.
var examTerms = []string{
	"第一甲", "第二甲", "第三甲", "进士及第", "进士出身", "同进士出身",
	"乡贡进士", "进士", "举人", "贡生", "监生", "生员", "秀才", "明经",
	"乡试", "会试", "殿试", "廷试", "解元", "会元", "状元", "榜眼", "探花", "传胪",
	"一甲", "二甲", "三甲", "甲科", "乙科", "举于乡", "乡举", "登第", "及第", "下第", "落第",
}

// examRankRunes may follow an examination term as its rank (进士第一).
func examRank(rs []rune, i int) int {
	if i < len(rs) && rs[i] == '第' {
		j := i + 1
		for j < len(rs) && isNumeral(rs[j]) {
			j++
		}
		if j > i+1 {
			if j < len(rs) && rs[j] == '人' {
				j++
			}
			return j
		}
	}
	return i
}

// officeSuffixes end office titles. The list is the common offices of Ming
// and Qing biographies; a title ending with one is an office term, which
// makes a differing segment a knowledge_lack error.
var officeSuffixes = []string{
	"大学士", "学士", "尚书", "侍郎", "都御史", "御史", "给事中", "主事", "郎中", "员外郎",
	"知府", "知州", "知县", "同知", "通判", "推官", "布政使", "按察使", "参政", "参议",
	"副使", "佥事", "编修", "检讨", "修撰", "庶吉士", "庶子", "中允", "赞善", "洗马",
	"司业", "祭酒", "博士", "助教", "教谕", "训导", "少卿", "正卿", "寺丞", "府丞", "府尹",
	"太师", "太傅", "太保", "少师", "少傅", "少保", "总督", "巡抚", "总兵", "都督",
	"指挥使", "指挥", "千户", "百户", "将军", "侍读", "侍讲", "詹事", "通政使", "评事",
	"经历", "都事", "提学", "学政", "司务", "长史", "舍人", "行人", "司正", "丞相", "宰相",
	"太守", "刺史", "节度使", "参将", "游击", "守备", "都司", "主簿", "县丞", "典史", "巡检",
	"驿丞", "元帅", "右丞", "左丞", "平章", "参知政事", "大使", "知事", "照磨", "检校",
	"镇抚", "都指挥", "同知", "佥事", "监丞", "典簿", "侍御", "谕德", "中允", "赞善",
	"卿", "令", "丞", "使",
}

// officeVerbs introduce an office in a clause (授编修, 擢礼部尚书).
var officeVerbs = []string{
	"历官", "官至", "累官", "累迁", "累擢", "召为", "出为", "入为", "改为", "迁为", "擢为",
	"拜", "授", "擢", "迁", "改", "除", "升", "转", "调", "进", "补", "起",
}

// hasOfficeSuffix reports whether s ends with an office title.
func hasOfficeSuffix(s string) bool {
	for _, suf := range officeSuffixes {
		if strings.HasSuffix(s, suf) {
			return true
		}
	}
	return false
}

// containsExam reports whether s holds an examination term.
func containsExam(s string) bool {
	for _, t := range examTerms {
		if strings.Contains(s, t) {
			return true
		}
	}
	return false
}

// examPhrases returns the examination phrases of s (term plus rank), in
// order.
func examPhrases(s string) []string {
	rs := []rune(s)
	var out []string
	for i := 0; i < len(rs); {
		n := examTermAt(rs, i)
		if n == 0 {
			i++
			continue
		}
		j := examRank(rs, i+n)
		out = append(out, string(rs[i:j]))
		i = j
	}
	return out
}

// examPassed returns the examination phrase that ends a clause, the form
// in which a clause says its person passed (举万历十一年进士, 叶向高中举人,
// 进士第一, 进士出身); "" when the phrase is not at the end (由进士授编修,
// 与进士韩如璜结乡兵), where the degree qualifies something else.
func examPassed(clause string) string {
	rs := []rune(strings.TrimSpace(clause))
	for _, tail := range []string{"出身", "及第", "第"} {
		tr := []rune(tail)
		if len(rs) > len(tr) && hasRunesAt(rs, len(rs)-len(tr), tr) && examTermAt(rs, len(rs)-len(tr)-2) > 0 {
			rs = rs[:len(rs)-len(tr)]
		}
	}
	for i := len(rs) - 1; i >= 0 && i >= len(rs)-8; i-- {
		n := examTermAt(rs, i)
		if n == 0 {
			continue
		}
		if examRank(rs, i+n) != len(rs) {
			continue
		}
		// Passing needs a verb or a year before the degree (举进士,
		// 中举人, 登…进士, 万历十一年进士); a bare degree (而举人) is a
		// category of men, not an event.
		if i > 0 && (strings.ContainsRune("举中登成年", rs[i-1]) || examTermAt(rs, i-1) > 0) {
			return string(rs[i:])
		}
		return ""
	}
	return ""
}

// provincial reports whether an examination phrase is of the provincial
// level (举人, 乡试, 解元), below the metropolitan 进士.
func provincial(p string) bool {
	for _, t := range []string{"举人", "乡试", "解元", "举于乡", "乡举", "贡生", "监生", "生员", "秀才"} {
		if strings.Contains(p, t) {
			return true
		}
	}
	return false
}

// examTermRunes is examTerms as runes, made once.
var examTermRunes = runesOf(examTerms)

// examTermAt is the length of the longest examination term at rs[i:], or 0.
func examTermAt(rs []rune, i int) int {
	best := 0
	for _, tr := range examTermRunes {
		if len(tr) > best && hasRunesAt(rs, i, tr) {
			best = len(tr)
		}
	}
	return best
}

func hasRunesAt(rs []rune, i int, p []rune) bool {
	if i < 0 || i+len(p) > len(rs) {
		return false
	}
	for k, r := range p {
		if rs[i+k] != r {
			return false
		}
	}
	return true
}

// isNumeral reports whether r is a Chinese numeral used in dates and
// counts, or an ASCII digit.
func isNumeral(r rune) bool {
	switch r {
	case '〇', '零', '一', '二', '三', '四', '五', '六', '七', '八', '九', '十', '百', '千', '廿', '卅', '两':
		return true
	}
	return r >= '0' && r <= '9'
}

// nameMarkers precede a name slot: a courtesy, art or posthumous name.
var nameMarkers = []string{"字", "号", "谥", "又号", "别号", "自号", "小字", "初名", "更名", "改名", "名"}

// punct reports whether r separates clauses or is otherwise not content.
func punct(r rune) bool {
	return unicode.IsPunct(r) || unicode.IsSymbol(r) || unicode.IsSpace(r)
}
