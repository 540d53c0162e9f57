package segment

import (
	"cmp"
	"slices"
	"strings"

	"github.com/annalist-dev/annalist/internal/lang/text"
)

// People the listing names in parentheses are often brought into an
// entry without an opening of the usual shape: after the words that
// introduce them ("合肥陈文者，", "又吴人严德珉，", "卓同邑罗性，字子理",
// "时有杨正芳者，"), by the given name alone ("嘉猷，洪武丙子以儒士校文四川"
// for 林嘉猷), with a full stop where a comma belongs ("许存仁。名元"), or
// as the subject of a sentence after a time ("其后，襄阳任亨泰亦举…").
// The listing confirms that the name is a person's: listedIntroductions
// begins an attached person's text at the first such introduction of
// each name the groups write, inside an entry, and the entry's person is
// the subject again from the next paragraph on. The name is never one
// that ends like a place or an office ("宣抚司", "宁番卫"), nor "X等" (X
// and others), nor a relative written after a kinship word ("从弟守隅"):
// the entry's own text goes on in a relative's paragraph.

// maxIntroRunes bounds the words before the name that introduce it: a
// place, an office, "又有", "同邑" or a mix ("时御史古田", "时又有工部主事").
const maxIntroRunes = 8

// listedIntroductions returns the marks of the people of the listing's
// groups whose text opens at an introduction no other mark begins: a
// sentence start (or a clause start after a time or a clause closed by
// 者: "先是，又有邓祖禹者"), up to maxIntroRunes introducing characters,
// then a name of two to four characters written in a group, then "，",
// "者，", "亦" or "。" and a formula word (名, 字). Only the first
// introduction of a name counts, only inside an entry, and never for a
// name an existing mark already gives.
func (er *Rules) listedIntroductions(rs []rune, ops []opening, l listing, marks []Mark) []Mark {
	// A volume on countries or tribes lists places: its groups confirm
	// no person unless some line opens with a person's formula or says
	// who the person was ("陈奉，御马监奉御也").
	if len(l.groups) == 0 || !slices.ContainsFunc(ops, func(o opening) bool { return o.lineStart && (o.strong || o.identity) }) {
		return nil
	}
	sorted := slices.Clone(marks)
	slices.SortStableFunc(sorted, func(a, b Mark) int { return cmp.Compare(a.Pos, b.Pos) })
	// inEntry reports whether p lies in an entry: the last mark before it
	// is not one that begins text outside entries.
	inEntry := func(p int) bool {
		k := -1
		for i, m := range sorted {
			if m.Pos > p {
				break
			}
			k = i
		}
		return k >= 0 && sorted[k].Kind != MarkOutside
	}
	marked := map[int]bool{}
	var given [][]rune
	for _, m := range marks {
		marked[m.Pos] = true
		if m.Subject != "" {
			given = append(given, []rune(m.Subject))
		}
	}
	known := func(n []rune) bool {
		for _, s := range given {
			if hasSuffix(s, n) || hasSuffix(n, s) {
				return true
			}
		}
		return false
	}
	var out []Mark
	for _, st := range introStarts(rs) {
		p := st.at
		if marked[p] || marked[st.sentence] || !inEntry(p) {
			continue
		}
		k, n := er.groupNameAt(rs, p, l.groups)
		if n == 0 || marked[p+k] {
			continue
		}
		name := rs[p+k : p+k+n]
		if known(name) {
			continue
		}
		given = append(given, name)
		at := p
		if st.afterWho {
			at = st.sentence
		}
		out = append(out, Mark{Pos: at, Kind: MarkSub, Subject: string(name)})
	}
	// The person's text is the paragraph; the entry's person is the
	// subject again after it.
	for _, m := range slices.Clone(out) {
		marked[m.Pos] = true
	}
	for _, m := range slices.Clone(out) {
		if e := paragraphEnd(rs, m.Pos); e < len(rs) && !marked[e] {
			out = append(out, Mark{Pos: e, Kind: MarkSub})
			marked[e] = true
		}
	}
	return out
}

// paragraphEnd is the offset of the line after the one holding p, or
// len(rs).
func paragraphEnd(rs []rune, p int) int {
	for i := p; i < len(rs); i++ {
		if rs[i] == '\n' {
			return i + 1
		}
	}
	return len(rs)
}

// introStart is an offset where an introduction may begin (at) and the
// start of its sentence; afterWho says the words before it in the
// sentence describe the person it introduces ("以地震言事者，又有邓洪震"),
// so the person's text begins with the sentence.
type introStart struct {
	at, sentence int
	afterWho     bool
}

// introStarts are the offsets where an introduction may begin: the
// start of each sentence (after a line break or 。！？；), the clause
// after a sentence's first clause when that is a time word of at most
// three characters ("其后", "先是"), the clause after any clause of the
// sentence closed by 者 ("与愚同时为同知者，", "以地震言事者，又有邓洪震"),
// and the words right after a 者 inside a clause ("居首者余翱，字大振").
func introStarts(rs []rune) []introStart {
	var out []introStart
	start := true
	sentence, first, clause := -1, -1, -1
	for i, r := range rs {
		switch {
		case strings.ContainsRune("。！？；\n", r):
			start, first, clause = true, -1, -1
			continue
		case start && (r == ' ' || r == '　' || r == '\t'):
			continue
		case start:
			out = append(out, introStart{at: i, sentence: i})
			start, sentence, first, clause = false, i, i, i
		case r == '，' && clause >= 0:
			c := rs[clause:i]
			switch {
			case len(c) == 0:
			case first >= 0 && len(c) <= 3 && nameRunesOnly(c):
				out = append(out, introStart{at: i + 1, sentence: sentence})
			case len(c) <= 16 && c[len(c)-1] == '者':
				out = append(out, introStart{at: i + 1, sentence: sentence, afterWho: clause > sentence})
			}
			first, clause = -1, i+1
		case r == '者' && clause >= 0 && i+1 < len(rs) && rs[i+1] != '，':
			out = append(out, introStart{at: i + 1, sentence: sentence, afterWho: true})
		}
	}
	return out
}

// groupNameAt reads an introduction at p: the offset k of a name after
// its introducing words and the name's length n (0 if there is none). The
// name is the longest run of two to four characters that a group writes
// and that the words after it close as an introduction does.
func (er *Rules) groupNameAt(rs []rune, p int, groups [][]rune) (k, n int) {
	e := p
	for e < len(rs) && e-p < maxIntroRunes+4 && IsNameRune(rs[e]) {
		e++
	}
	for k := 0; k <= maxIntroRunes && p+k+2 <= e; k++ {
		for n := min(4, e-p-k); n >= 2; n-- {
			q := p + k + n
			name := rs[p+k : q]
			if er.kinWritten(rs[p:p+k+1]) || !introClosed(rs, q) || slices.Contains(name, '等') || slices.Contains(er.notNameEnds, name[n-1]) || !inAnyGroup(name, groups) || er.kinOnly(name) || k > 0 && !er.introWords(rs[p:p+k]) {
				continue
			}
			return k, n
		}
	}
	return 0, 0
}

// introClosed reports whether the words at q close an introduced name:
// "，", "者，", "亦" (the name is the subject of what follows), or "。"
// and a formula word ("许存仁。名元").
func introClosed(rs []rune, q int) bool {
	if q >= len(rs) {
		return false
	}
	switch rs[q] {
	case '，', '亦':
		return true
	case '者':
		return q+1 < len(rs) && rs[q+1] == '，'
	case '。':
		return q+1 < len(rs) && (rs[q+1] == '名' || rs[q+1] == '字')
	}
	return false
}

// introWords reports whether the words before a name can introduce it:
// none of them a character that makes them a clause with a verb of its
// own (the name would then be its object, "擢王懋"), and, beyond three
// characters (a place, "同邑", "又有"), words with an introducing word,
// an office title or a native place ("又吴人", "时御史古田").
func (er *Rules) introWords(w []rune) bool {
	for _, r := range w {
		if strings.ContainsRune("言曰谓奏劾荐擢授迁拜除召命令遣使与及并共偕如代杀斩执获见至以攻为于引用欲屈", r) {
			return false
		}
	}
	if len(w) <= 3 {
		return true
	}
	if slices.Contains(w, '人') || er.introduced(append(slices.Clone(w), '　', '　')) != nil {
		return true
	}
	for _, t := range er.officeTerms {
		if text.IndexRunes(w, t, 0) >= 0 {
			return true
		}
	}
	return false
}

// kinWritten reports whether the words up to a name's first character
// hold a kinship character ("子滋", "从弟守隅", "英从子文"): a relative,
// whose paragraph the entry's own text goes on in.
func (er *Rules) kinWritten(w []rune) bool {
	return slices.ContainsFunc(w, er.isKin)
}

// kinOnly reports a run made of kinship characters alone ("子孙").
func (er *Rules) kinOnly(name []rune) bool {
	for _, r := range name {
		if !er.isKin(r) {
			return false
		}
	}
	return true
}

// inAnyGroup reports whether one of the groups writes name.
func inAnyGroup(name []rune, groups [][]rune) bool {
	for _, g := range groups {
		if text.IndexRunes(g, name, 0) >= 0 {
			return true
		}
	}
	return false
}
