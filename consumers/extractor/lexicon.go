package extractor

import (
	"strings"
	"unicode/utf8"
)

// The lexicon below is the domain knowledge the classical-Chinese patterns
// rest on: era names, office titles, kinship words. It is deliberately
// closed: a fact whose tail is not recognisably an office or an era year is
// not emitted, because a wrong triplet becomes a wrong sentence in a
// biography, while a missed one only costs recall (and may still be found
// by the LLM path).

// eras are the reign titles (年号) a jinshi or death year is written with in
// Ming biographies: the Ming eras, the late Yuan eras a Ming founder's
// biography uses, the Southern Ming and the early Qing ones.
var eras = []string{
	"洪武", "建文", "永乐", "洪熙", "宣德", "正统", "景泰", "天顺", "成化", "弘治",
	"正德", "嘉靖", "隆庆", "万历", "泰昌", "天启", "崇祯",
	"弘光", "隆武", "绍武", "永历",
	"至正", "至元", "至顺", "元统", "天历",
	"天命", "天聪", "崇德", "顺治", "康熙",
}

// officeSuffixes end a plausible office phrase. An office tail must end
// with one of them; "令" and "丞" are short and also end ordinary words, so
// officePhrase demands at least three characters for those.
var officeSuffixes = []string{
	"大学士", "学士", "尚书", "侍郎", "郎中", "员外郎", "主事", "司务", "都事", "经历", "照磨",
	"都御史", "御史", "给事中", "编修", "修撰", "检讨", "庶吉士", "侍读", "侍讲", "祭酒", "司业",
	"中允", "赞善", "洗马", "庶子", "詹事", "谕德", "少卿", "卿", "寺丞", "知县", "知州", "知府",
	"同知", "通判", "推官", "判官", "知事", "教谕", "训导", "教授", "学正", "布政使", "按察使",
	"参政", "参议", "副使", "佥事", "巡抚", "总督", "经略", "总兵", "总兵官", "都督", "都督同知",
	"都督佥事", "指挥使", "指挥", "千户", "百户", "行人", "评事", "博士", "中书舍人", "舍人",
	"太师", "太傅", "太保", "少师", "少傅", "少保", "长史", "纪善", "典史", "主簿", "提学",
	"巡按", "参将", "游击", "守备", "元帅", "都尉", "司正", "正字", "待诏", "监丞", "典籍",
	"县令", "令", "丞", "提督", "督学", "学政", "运使", "转运使", "盐运使", "理问", "断事",
	"审理", "奉祀", "司直", "尚宝卿", "光禄卿", "起居注", "左右丞", "平章政事", "参知政事",
	"都指挥使", "都指挥", "镇抚", "检校", "府尹", "左丞", "右丞", "丞相",
}

// officeBanned are characters that show a phrase is a clause, not an office
// title ("之", "以", "者" …).
const officeBanned = "之以而其于与及所者也乃遂命请帝曰不未皆俱并又复因即欲将为此彼何进迁擢改授拜召除调升"

// officePhrase reports whether s is a plausible office title.
func officePhrase(s string) bool {
	n := utf8.RuneCountInString(s)
	if n < 2 || n > 16 || strings.ContainsAny(s, officeBanned) || strings.HasPrefix(s, "封") {
		return false
	}
	last, _ := utf8.DecodeLastRuneInString(s)
	for _, suf := range officeSuffixesByLast[last] {
		if strings.HasSuffix(s, suf) {
			if (suf == "令" || suf == "丞") && n < 3 {
				return false
			}
			return true
		}
	}
	return false
}

// officeSuffixesByLast indexes officeSuffixes by their last character.
var officeSuffixesByLast = func() map[rune][]string {
	m := map[rune][]string{}
	for _, s := range officeSuffixes {
		r, _ := utf8.DecodeLastRuneInString(s)
		m[r] = append(m[r], s)
	}
	return m
}()

// compoundSurnames are the two-character surnames; every other Chinese
// surname is taken to be one character.
var compoundSurnames = []string{
	"欧阳", "司马", "上官", "诸葛", "东方", "皇甫", "尉迟", "公孙", "慕容", "长孙", "宇文",
	"夏侯", "令狐", "澹台", "司徒", "司空", "端木", "闻人", "万俟", "西门", "南宫", "独孤",
	"呼延", "申屠", "轩辕", "钟离", "百里", "东郭", "濮阳", "太史", "仲孙", "赫连", "拓跋",
}

// surname splits a full name into surname and given name. Names of fewer
// than two characters, names in brackets of rare-character markup, and a
// prince's or noble's title ("秦王樉", "汧阳王诚洌": 王 after the first
// character ends a title, not a surname) have no known surname.
func surname(name string) (sur, given string) {
	if utf8.RuneCountInString(name) < 2 || strings.ContainsAny(name, "〈〉｛｝") {
		return "", name
	}
	if _, size := utf8.DecodeRuneInString(name); strings.Contains(name[size:], "王") {
		return "", name
	}
	for _, c := range compoundSurnames {
		if strings.HasPrefix(name, c) && utf8.RuneCountInString(name) >= 3 {
			return c, name[len(c):]
		}
	}
	_, size := utf8.DecodeRuneInString(name)
	return name[:size], name[size:]
}

// kinSame are kinship words (longest first) whose bearer shares the
// subject's surname, so "子琮" under 陆文渊 names 陆琮.
var kinSame = []string{
	"从子", "从弟", "从兄", "从孙", "族子", "族弟", "族兄", "族孙", "长子", "次子", "仲子",
	"季子", "少子", "幼子", "嗣子", "养子", "犹子", "曾孙", "玄孙", "叔父", "伯父",
	"从祖", "曾祖", "高祖", "叔祖", "伯祖", "子", "弟", "兄", "父", "孙", "侄", "祖",
}

// kinOther are kinship words whose bearer has another surname.
var kinOther = []string{"女婿", "婿", "甥", "外孙", "舅"}

// cutKin splits a leading kinship word off s.
func cutKin(s string) (kin, rest string, same bool) {
	for _, k := range kinSame {
		if strings.HasPrefix(s, k) {
			return k, s[len(k):], true
		}
	}
	for _, k := range kinOther {
		if strings.HasPrefix(s, k) {
			return k, s[len(k):], false
		}
	}
	return "", s, false
}

// headerPrefixes introduce another person without kinship: "同时朱国祯",
// "门人何寿朋", "同邑汪与立".
var headerPrefixes = []string{
	"同时有", "同时", "其同邑", "同邑", "同郡", "同县", "同里", "其弟子", "弟子", "门人",
	"时有", "又有", "有",
}

// notNames are clause openers that look like a short name before a comma
// but are time words or connectives.
var notNames = map[string]bool{
	"先是": true, "当是时": true, "是时": true, "初": true, "已而": true, "既而": true, "久之": true,
	"居久之": true, "明年": true, "其后": true, "于是": true, "未几": true, "逾年": true, "时": true,
	"会": true, "后": true, "及": true, "既": true, "寻": true, "已": true, "然": true, "故": true,
	"且": true, "今": true, "昔": true, "是岁": true, "是年": true, "其年": true, "俄": true,
	"顷之": true, "亡何": true, "无何": true, "越数日": true, "至是": true, "自是": true,
	"帝": true, "上": true, "太祖": true, "成祖": true, "诏": true, "疏": true, "赞曰": true,
	"故事": true, "是月": true, "是日": true, "其冬": true, "其秋": true, "其春": true, "其夏": true,
}

// nameLike reports whether s can be a person's name (or a given name):
// 1–4 Han characters (rare characters may be written 〈…〉), not a clause
// opener and not a time expression.
func nameLike(s string) bool {
	if s == "" || notNames[s] || strings.ContainsRune("字号名", firstRune(s)) {
		return false
	}
	n := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '〈' || r == '｛':
			closing := map[rune]rune{'〈': '〉', '｛': '｝'}[r]
			j := strings.IndexRune(s[i:], closing)
			if j < 0 {
				return false
			}
			size = j + utf8.RuneLen(closing)
		case !isHan(r):
			return false
		}
		i += size
		n++
	}
	if n > 4 {
		return false
	}
	last, _ := utf8.DecodeLastRuneInString(s)
	return !strings.ContainsRune("年月日时初末中后岁曰", last)
}

func isHan(r rune) bool {
	return (r >= 0x4E00 && r <= 0x9FFF) || (r >= 0x3400 && r <= 0x4DBF) || (r >= 0x20000 && r <= 0x2FA1F) ||
		(r >= 0xF900 && r <= 0xFAFF)
}

// placeBanned are characters that show a "…人" phrase counts people or
// qualifies them instead of naming a place ("三千余人", "不知何许人").
const placeBanned = "千百十数等诸众辈之其不何知无有者也为以所此彼皆非则乃尽诚甚最又而且授拜迁去止过绝异惊动服感杀伤害爱恶教用待取得"

// placeName reports whether s can be the place of a "…人" clause.
func placeName(s string) bool {
	n := utf8.RuneCountInString(s)
	if n < 1 || n > 6 || strings.ContainsAny(s, placeBanned) {
		return false
	}
	switch s {
	case "邑", "乡", "里", "国", "本", "一", "故", "中", "乡里", "邑里", "其乡",
		// "…人" words that are not "a man of …": 行人 and 舍人 are offices,
		// 门人 a disciple, 庶人 a commoner …
		"行", "舍", "门", "夫", "贵", "庶", "商", "友", "工", "美", "妇", "女", "家", "主", "宫",
		"罪", "仇", "世", "古", "时", "今", "后", "他", "众", "圣", "贤", "小", "大", "野", "文":
		return false
	}
	for _, w := range []string{"同邑", "同里", "同县", "同郡", "同乡"} {
		if strings.Contains(s, w) {
			return false
		}
	}
	for _, r := range s {
		if !isHan(r) {
			return false
		}
	}
	// "三千余人" counts people.
	return !strings.HasPrefix(s, "同") && !strings.HasSuffix(s, "余")
}

// ownClauseWords may stand between a clause boundary and a verb without
// naming another subject: time words and adverbs.
var ownClauseWords = []string{
	"居久之", "久之", "未几", "既而", "已而", "明年", "其年", "是年", "逾年", "次年", "寻以", "亡何",
	"无何", "顷之", "俄而", "后又", "其后", "既", "寻", "遂", "乃", "复", "再", "又", "累", "旋",
	"俄", "即", "已", "后", "因", "亦", "仍", "竟", "终", "始", "初", "会", "时", "而", "及", "是岁",
	"以是月", "是月", "是日", "其月", "是夕", "以疾", "以病", "以老", "春", "夏", "秋", "冬",
}
