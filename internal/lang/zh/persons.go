package zh

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/internal/lang/factkit"
	"github.com/annalist-dev/annalist/internal/lang/zh/names"
	"github.com/annalist-dev/annalist/schemas"
)

// People are people. Every person the extractor names becomes a node of
// the knowledge graph, anchored to the entry, so a run of words read as a
// name is a made-up person with facts of his own. The rules that read
// names therefore ask for evidence that the words are a name, and a fact
// whose person the evidence is against is dropped, never given to someone
// else:
//
//   - A sentence that opens with words and a comma introduces a person
//     only when the profile's name judge (internal/lang/zh/names: the characters
//     of the run, what the document says of it, the words after it) takes
//     the run for a name; the entry's person and the chunk's sub-entry,
//     which the chunker has judged, need no more. Where a "…人" clause of
//     characters no native place holds (placeWritten) or a courtesy name
//     written on without a comma is all that would present him, the run
//     must read as a name by itself and begin with a surname the corpus
//     writes. Words the judge reads as a clause's ("世宗即位，复行人") stay
//     with the person before them; a sentence that introduces someone the
//     evidence does not name gives its facts to no one (headerNamed).
//   - A given name written alone, where the text has written the person
//     in full before ("附张天禄…：天禄字桂吾"), names him in full; a name
//     after an office or a word for a person is the name's ("游击曾英").
//     A name of two characters that does not begin with a surname the
//     corpus writes, that the text does not complete and before which it
//     writes no title or native place ("泌之，鹿邑人", "士骥官中书舍人",
//     "子庭竹嗣" outside a prince's house) is a given name and names no
//     one in full (fullShape); the listing's relatives of the entry
//     ("(子承荫孙应昌全昌德昌)") bear his surname.
//   - A kinship word that, with the words after it, writes the given name
//     of a person the chunk names ("子兴喜" in 郭子兴's entry, "子登惧"
//     after 金子登) is part of that name, not a relative's; an owner, a
//     kinship word and a given name ("拳子希仁") name the owner's relative,
//     or no one when the chunk does not name the owner in full.
//   - The listing's groups are names run together: a group holding
//     sentence punctuation is a note in parentheses, not a listing, and no
//     run of a group holds anything but name characters. The sub-entry's
//     given name is he, and a listed given name the text wrote in full
//     before is named so.
//   - Whatever rule read it, a person's name is made of name characters
//     (Han, private-use code points, the brackets that spell out a rare
//     character) and has a surname and a given name: one character alone
//     names no one in full, nor do "常某" and "郭公" (Mr 常, Mr 郭)
//     (personShape). The chunk's entry, subject and sub-entry are the
//     chunker's and stay as they are.

// personShape reports whether name has the shape of a person's name: at
// least two characters, all of them name characters, no 某 ("常某": Mr
// 常, whose name the text does not know), and not a surname and 公 ("郭
// 公": Mr 郭, his given name unwritten).
func personShape(name string) bool {
	n := 0
	for _, r := range name {
		if !names.IsNameRune(r) && !strings.ContainsRune("〈〉｛｝", r) || r == '某' {
			return false
		}
		n++
	}
	return n >= 3 || n == 2 && !strings.HasSuffix(name, "公")
}

// keepPersons drops the facts whose head or tail is a person whose name
// does not have a person's shape (personShape), unless the chunker gave
// that name: the chunk's entry, subject, sub-entry or main person.
func keepPersons(c schemas.Chunk, facts []factkit.Fact) []factkit.Fact {
	given := func(n string) bool {
		return n != "" && (n == c.Entry || n == c.Subject || n == c.SubEntry || n == c.Main)
	}
	ok := func(n, typ string) bool {
		return typ != schemas.EntityPerson || given(n) || personShape(n)
	}
	out := facts[:0]
	for _, f := range facts {
		headType := f.HeadType
		if headType == "" {
			headType = schemas.EntityPerson
		}
		if ok(f.Head, headType) && (f.Tail == "" || ok(f.Tail, f.TailType)) {
			out = append(out, f)
		}
	}
	return out
}

// nameReader reads the names of one text with the profile's name judge:
// the document's evidence is built once, when a run is first judged.
type nameReader struct {
	hz   *han
	text string
	doc  *names.Doc
	rs   []rune
}

// named reports whether the judge takes the run text[at:end] for a
// person's name, with the words after it as its context (a comma, 者, a
// courtesy name …). Without a judge every run is taken.
func (nr *nameReader) named(at, end int) bool {
	j := nr.hz.judge
	if j == nil {
		return true
	}
	nr.read()
	p := utf8.RuneCountInString(nr.text[:at])
	n := utf8.RuneCountInString(nr.text[at:end])
	return n > 0 && j.Named(nr.doc, nr.rs[p:p+n], p, p+n)
}

// score is the judge's log-likelihood ratio for the run text[at:end]:
// the evidence of the run itself, without the words after it. Without a
// judge it is 1 (a name).
func (nr *nameReader) score(at, end int) float64 {
	j := nr.hz.judge
	if j == nil {
		return 1
	}
	nr.read()
	p := utf8.RuneCountInString(nr.text[:at])
	n := utf8.RuneCountInString(nr.text[at:end])
	return j.Score(nr.doc, nr.rs[p:p+n], p)
}

// read builds the document's name evidence once.
func (nr *nameReader) read() {
	if nr.doc == nil {
		nr.rs = []rune(nr.text)
		nr.doc = names.NewDoc(nr.rs, nr.hz.nameWords)
	}
}

// headerNamed reports whether header h introduces a person by the
// evidence: it names the entry's person or the sub-entry's (the
// chunker's), or the judge takes the name it writes for a name. The name
// is read as resolveHead reads it: after a leading 又 or 其, a word that
// introduces someone ("有", "同邑"), the entry's given name and a kinship
// word ("世贞子士骐"), or a kinship word ("子琮"); before a trailing 者.
// clause says, of a header that introduces no one by the evidence, that
// its opening words read as a clause's, not a name's (the judge's
// evidence of the run alone is against a name): the sentence goes on
// about the person before it ("世宗即位，复行人" in 张岳's life). Else
// the sentence introduces someone whose name the text does not give in
// full, and no one takes its facts.
func (hz *han) headerNamed(nr *nameReader, h *hanHeader, entry, sub string) (named, clause bool) {
	if hz.judge == nil {
		return true, false
	}
	body := h.body
	if _, g := hz.surname(entry); entry != "" && (body == entry || g != "" && body == g) {
		return true, false
	}
	if _, ok := hz.namesSub(body, sub); ok {
		return true, false
	}
	at, end := h.at, h.bodyEnd
	trim := func(s string, prefix bool) {
		if prefix && strings.HasPrefix(nr.text[at:end], s) && end-at > len(s) {
			at += len(s)
		}
		if !prefix && strings.HasSuffix(nr.text[at:end], s) && end-at > len(s) {
			end -= len(s)
		}
	}
	trim("者", false)
	trim("又", true)
	trim("其", true)
	for _, p := range hz.introducers {
		if strings.HasPrefix(nr.text[at:end], p) && end-at > len(p) {
			at += len(p)
			break
		}
	}
	if _, g := hz.surname(entry); g != "" && strings.HasPrefix(nr.text[at:end], g) {
		if k, rest, _ := hz.cutKin(nr.text[at+len(g) : end]); k != "" && rest != "" {
			at += len(g)
		}
	}
	if k, rest, _ := hz.cutKin(nr.text[at:end]); k != "" && rest != "" {
		// "子骧，管军千户": the kinship word says a relative's given name
		// follows; the judge, which reads names written whole, is asked
		// only about words longer than a given name ("仲子璲最知名").
		if n := utf8.RuneCountInString(rest); n <= 2 && nameLike(rest) {
			return true, false
		}
		at += len(k)
	}
	if r := []rune(nr.text[at:end]); len(r) > 1 && strings.ContainsAny(string(r[1:]), "字号") {
		// "王字汝嘉", "张号钓石": a surname and a courtesy or art name.
		return false, false
	}
	if hz.kinOnly(nr.text[at:end]) || !personShape(nr.text[at:end]) && utf8.RuneCountInString(nr.text[at:end]) > 1 {
		// "次子名琬": a kinship word, the name after it; "游击常某": a
		// person whose name the text does not know.
		return false, false
	}
	clause = nr.score(at, end) <= 0
	switch after := nr.text[end:]; {
	case strings.HasPrefix(after, "亦") && slices.ContainsFunc(h.clauses, func(c hanClause) bool { return c.kind == "kin_of" }),
		strings.HasPrefix(after, "名"):
		// "鄂乐舜亦鄂尔泰从子", "嘉猷名升": formulas the judge's contexts
		// do not read; the run's own evidence decides ("然此亦非出於尊兄"
		// is no one's kin).
		return !clause, clause
	}
	if hz.placeOnly(h) || strings.HasPrefix(nr.text[end:], "字") || strings.HasPrefix(nr.text[end:], "号") {
		// "世宗即位，复行人", "旧例，粮长正副三人": the "…人" clause after
		// the run is all that would present a person, and it is no place;
		// "一切文字语言": a courtesy name written on without a comma may
		// be the run's word going on (文字). The run must itself read as a
		// name and begin with a surname the corpus writes ("王畿字汝中"),
		// or be the given name of one the text wrote in full or named
		// after a kinship word ("子汝稷、汝说。汝稷字元立").
		run := nr.text[at:end]
		head, _, ok := hz.resolveHead(h.body, entry, sub, nr.text[:h.at])
		return ok && !clause && (hz.surnameFirst(run) || head != run && hz.surnameFirst(head)), clause
	}
	return nr.named(at, end), clause
}

// surnameFirst reports whether name begins with a surname the corpus
// writes: a compound surname of the profile, or a character the name
// judge counts as a surname or the listings begin names with.
func (hz *han) surnameFirst(name string) bool {
	for _, c := range hz.surnames {
		if strings.HasPrefix(name, c) {
			return true
		}
	}
	r := firstRune(name)
	return hz.judge != nil && hz.judge.Surname(r) > 0 || hz.agents.surname(r)
}

// placeOnly reports whether the clauses of header h that introduce a
// person are native places only, one of them written with a character no
// native place of the corpus holds (placeWritten).
func (hz *han) placeOnly(h *hanHeader) bool {
	unwritten := false
	for _, c := range h.clauses {
		if c.kind != "place" {
			return false
		}
		if !hz.placeWritten(c.val) {
			unwritten = true
		}
	}
	return unwritten
}

// ownersRelative reads a name written as its owner, a kinship word and a
// given name ("琏子畾", "拳子希仁"): the relative of the owner, who is the
// entry's or the sub-entry's person by his given name, or a person the
// text before writes in full (of two characters or more). found says b is
// written so (an owner of one character that is a surname the corpus
// writes begins a name instead: 陈子龙); head is the relative with the
// owner's surname when the kinship keeps it and the owner's full name is
// known, else "".
func (hz *han) ownersRelative(b, entry, sub, before string) (head, kin string, found bool) {
	rs := []rune(b)
	for i := 1; i+1 < len(rs) && i <= 3; i++ {
		owner := string(rs[:i])
		k, rest, same := hz.cutKin(string(rs[i:]))
		if k == "" || rest == "" || !nameLike(rest) || utf8.RuneCountInString(rest) > 2 {
			continue
		}
		full := ""
		for _, p := range []string{entry, sub} {
			if _, g := hz.surname(p); p != "" && (owner == p || owner == g) {
				full = p
			}
		}
		if full == "" && i >= 2 {
			full = hz.fullBefore(before, owner)
		}
		if full == "" {
			if i == 1 && hz.surnameFirst(owner) {
				// "陈子龙": a surname, not an owner.
				continue
			}
			// "拳子希仁" where 拳 is no one the chunk names in full.
			return "", k, true
		}
		if sur, _ := hz.surname(full); same && sur != "" {
			return sur + rest, k, true
		}
		return "", k, true
	}
	return "", "", false
}

// writtenInFull returns the full name the text before writes for a given
// name of two characters (fullBefore) when the corpus writes the
// character before it as a surname more often than the given name's own
// first character: "张天禄" for 天禄, not "史周叙" for 周叙 after 御史.
// "" when the text writes none, or without a judge.
func (hz *han) writtenInFull(before, given string) string {
	if hz.judge == nil {
		return ""
	}
	full := hz.fullBefore(before, given)
	if full == "" {
		return ""
	}
	if hz.judge.Surname(firstRune(full)) <= hz.judge.Surname(firstRune(given)) {
		return ""
	}
	return full
}

// kinInName reports whether the kinship word of k ends a name the chunk
// writes: with the first characters after it, its last character is the
// given name of the entry's person or of head ("子兴喜" in 郭子兴's entry:
// 子兴 was pleased), or of a person the text before writes in full ("驿丞
// 金子登说…子登惧"). The words are that person's, not a relative's.
func (hz *han) kinInName(text string, k kinName, entry, head string) bool {
	kr := []rune(k.kin)
	last := string(kr[len(kr)-1])
	at := k.start + len(k.kin) - len(last)
	rs := []rune(k.name)
	for j := 1; j <= len(rs); j++ {
		w := last + string(rs[:j])
		for _, p := range []string{entry, head} {
			if _, g := hz.surname(p); g != "" && w == g {
				return true
			}
		}
		if hz.writtenInFull(text[:at], w) != "" {
			return true
		}
	}
	return false
}

// kinSurname is the surname a relative written by kin and a given name
// bears as head's relative: head's, or, for a woman written by her
// family's name and 氏, her family's for her parents and siblings and her
// husband's for her children ("宗胤芳妻江氏": 子麟祥 is 宗麟祥); "" when
// the text does not give it.
func (hz *han) kinSurname(head, kin string) string {
	sur, given := hz.surname(head)
	if sur == "" || given != "" || !strings.HasSuffix(head, "氏") || !strings.ContainsAny(kin, "子孙女") {
		return sur
	}
	if husband, _, ok := strings.Cut(head, "妻"); ok && utf8.RuneCountInString(husband) >= 2 {
		s, _ := hz.surname(husband)
		return s
	}
	return ""
}

// fullShape reports whether a name of two characters has the shape of a
// full name the corpus writes: it begins with a surname the corpus writes
// (surnameFirst), or it is a woman's family name and 氏 ("时氏"). Without a
// judge every name has it.
func (hz *han) fullShape(name string) bool {
	return hz.judge == nil || utf8.RuneCountInString(name) != 2 || hz.surnameFirst(name) || strings.HasSuffix(name, "氏")
}
