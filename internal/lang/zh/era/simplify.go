package era

// tradPairs lists traditional (and variant) characters met in era and
// dynasty names, each followed by its simplified form. Every mapping is one
// rune to one rune, so that simplifying a text keeps its rune offsets.
const tradPairs = "" +
	"萬万曆历歷历啟启啓启禎祯順顺慶庆統统樂乐寧宁甯宁興兴龍龙鳳凤貞贞觀观" +
	"寶宝寳宝應应開开顯显總总儀仪調调聖圣長长壽寿載载證证歲岁禮礼國国" +
	"廣广會会紹绍義义陽阳鴻鸿綏绥漢汉節节黃黄龜龟熈熙煕熙昇升麚䴥業业" +
	"烏乌雲云冊册復复璽玺監监祿禄紀纪緒绪聰聪視视賜赐贊赞輔辅運运" +
	"攝摄極极豐丰徳德眞真靑青淸清徵征間间佑祐將将" +
	"東东晉晋劉刘齊齐後后孫孙吳吴遼辽陳陈閩闽趙赵涼凉鄭郑楊杨蕭萧"

// simplifier maps traditional and variant characters of era names to their
// simplified forms.
type simplifier map[rune]rune

func newSimplifier() simplifier {
	rs := []rune(tradPairs)
	m := make(simplifier, len(rs)/2)
	for i := 0; i+1 < len(rs); i += 2 {
		if rs[i] != rs[i+1] {
			m[rs[i]] = rs[i+1]
		}
	}
	return m
}

func (s simplifier) rune(r rune) rune {
	if v, ok := s[r]; ok {
		return v
	}
	return r
}

func (s simplifier) string(x string) string {
	changed := false
	for _, r := range x {
		if _, ok := s[r]; ok {
			changed = true
			break
		}
	}
	if !changed {
		return x
	}
	rs := []rune(x)
	for i, r := range rs {
		rs[i] = s.rune(r)
	}
	return string(rs)
}

// Simplify returns s with the traditional and variant characters of era and
// dynasty names replaced by their simplified forms (萬曆 → 万历, 東晉 → 东晋).
// Other characters are kept, and the result has as many runes as s, so rune
// offsets found in the result are offsets in s.
func Simplify(s string) string { return newSimplifier().string(s) }
