package zh

import (
	"strings"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/internal/lang/factkit"
	"github.com/annalist-dev/annalist/internal/lang/text"
	"github.com/annalist-dev/annalist/internal/lang/zh/names"
	"github.com/annalist-dev/annalist/schemas"
)

// A biography volume's listing names in parentheses the people attached
// to its entries (Chunk.Listed). Many of them the text names only in
// passing, the way the histories write an official: office, native
// place, name ("给事中祁门倪思辉", "宗人府经历宋徵", "总兵官刘佳引"). The
// listing says where such a name begins and ends, which the text alone
// does not ("临川朱钦相疏继之"); with it, the title before the name is
// the person's office at that time, and two characters between a title
// and the name are his native place.

// listedFacts returns the offices and native places the text gives the
// people of the listing's groups where it names them after a title, or
// names them and says what they were appointed to. The chunk's entry
// person is left to the rules of his text; the sub-entry's person (sub),
// written by his given name, is named in full.
func (hz *han) listedFacts(s string, groups []string, entry, sub string) []factkit.Fact {
	if len(groups) == 0 {
		return nil
	}
	l := hz.listingOf(groups)
	if len(l.written) == 0 {
		return nil
	}
	rs := []rune(s)
	off := make([]int, len(rs)+1) // rune index → byte offset
	for i, b := 0, 0; i < len(rs); i++ {
		off[i] = b
		b += utf8.RuneLen(rs[i])
	}
	off[len(rs)] = len(s)
	// before is the text before rune i.
	valid := utf8.ValidString(s)
	before := func(i int) string {
		if valid {
			return s[:off[i]]
		}
		return string(rs[:i])
	}
	written, first := l.written, l.first
	inGroup := func(w []rune) bool { return first.Has(w[0]) && written[string(w)] }
	_, entryGiven := hz.surname(entry)
	var out []factkit.Fact
	// prev is the title of the name just read and prevEnd where it ends;
	// placed says that name had a native place: a name after "、" that
	// has no title takes the one before ("参将张应元、汪之凤",
	// "给事中祁门倪思辉、临川朱钦相"), and two characters before it are a
	// place when the name before had one ("有诸城谢升、聊城丁志方").
	prev, prevEnd, placed := "", -1, false
	for i := 1; i < len(rs); i++ {
		if !first.Has(rs[i]) {
			continue
		}
		n := 0
		for l := min(4, len(rs)-i); l >= 2; l-- {
			if inGroup(rs[i : i+l]) {
				n = l
				break
			}
		}
		// The name's first character: the one before it does not begin a
		// longer name the groups write.
		if n == 0 || inGroup(rs[i-1:i+n]) {
			continue
		}
		name := string(rs[i : i+n])
		k, rest, _ := hz.cutKin(name)
		// A relative written by kinship and given name ("子麟") is read by
		// the kinship rules.
		if k != "" && utf8.RuneCountInString(rest) < 2 ||
			hz.kinOnly(name) || name == entry || name == entryGiven || hz.titleWord(name) {
			i += n - 1
			continue
		}
		pre := clauseBefore(rs, i)
		// item says the name is an item of a list after "、", its words
		// before it (pre) at most a place.
		item := len(pre) <= 2 && i-len(pre) >= 1 && rs[i-len(pre)-1] == '、'
		afterPrev := item && prevEnd == i-len(pre)-1
		office, place := hz.titleBefore(pre)
		if office == "" && k == "" {
			place = hz.placeBefore(pre, afterPrev && placed)
		}
		at := i - utf8.RuneCountInString(office) - utf8.RuneCountInString(place)
		if office == "" && item {
			switch {
			case afterPrev && prev != "":
				office = prev
			case !afterPrev && len(pre) == 0:
				office = hz.titledItem(clauseBefore(rs, i-1))
			}
		}
		if place == "" && k == "" {
			place = jointPlace(rs, i+n)
		}
		head := hz.listedHead(name, l, entry, sub)
		add := func(f factkit.Fact) {
			// A name the evidence does not read keeps its place in a
			// list ("主事安玺、仵瑜、臧应奎": the next name takes the
			// title) but gets no facts.
			if f.Head != "" {
				out = append(out, f)
			}
		}
		if head == name && utf8.RuneCountInString(name) == 2 {
			// "擢人龙总兵官" after "总兵贺人龙": the given name of a person
			// the text has written in full. A name the text writes after
			// a title or a native place is one in full ("御史凌儒", "怀宁
			// 甘霖"); one written alone that does not begin with a
			// surname the corpus writes ("士骥官中书舍人") is a given name
			// and names no one in full.
			switch full := hz.writtenInFull(before(i), name); {
			case full != "":
				head = full
			case hz.fullShape(name):
			case l.relatives[name]:
				// "全昌为宣府总兵官" under "(子承荫孙应昌全昌德昌)": the
				// entry's relative.
				head = hz.withSurnameOf(entry, name)
			case office == "" && place == "":
				head = ""
			}
		}
		if place != "" {
			add(factkit.Fact{Head: head, Relation: schemas.RelNativePlace, Tail: strings.TrimSuffix(place, "人"), TailType: schemas.EntityPlace,
				Start: off[at], End: off[i+n], Method: factkit.MethodRegex, Pattern: "han.listed.native_place", Confidence: confNarrative})
		}
		if office != "" {
			add(factkit.Fact{Head: head, Relation: schemas.RelOffice, Tail: office, TailType: schemas.EntityOffice,
				Qualifiers: map[string]string{"as": "title"}, Start: off[at], End: off[i+n],
				Method: factkit.MethodRegex, Pattern: "han.listed.office", Confidence: confNarrative})
		} else if v, o, end := hz.appointedAfter(rs, i+n); o != "" && rs[i-1] != '代' {
			// "而赵亮为庆云典史", "召南海霍子衡为太仆卿": the name, then
			// the appointment; not after 代, whose subject the post is
			// ("代应昌为定边副总兵": he replaced 应昌).
			add(factkit.Fact{Head: head, Relation: schemas.RelOffice, Tail: o, TailType: schemas.EntityOffice,
				Qualifiers: map[string]string{"verb": v}, Start: off[i], End: off[end],
				Method: factkit.MethodRegex, Pattern: "han.listed.appointed", Confidence: confNarrative})
		} else if v := appointingVerb(rs, i); v != "" {
			// "帝授同敞中书舍人", "乃改同敞尚宝卿": appointed, the name
			// written between the verb and the office, when the text also
			// writes it as a clause's subject ("同敞负志节") or writes the
			// person in full before: else the words may be the office's
			// ("授蓝田知县": the magistrate of 蓝田, "擢吏科给事中").
			k := i + n
			for k < len(rs) && k-i-n < 16 && text.IsHan(rs[k]) {
				k++
			}
			if o := hz.longestOffice(string(rs[i+n : k])); o != "" && (head != name || hz.writtenAsSubject(s, name)) {
				add(factkit.Fact{Head: head, Relation: schemas.RelOffice, Tail: o, TailType: schemas.EntityOffice,
					Qualifiers: map[string]string{"verb": v}, Start: off[i-1], End: off[i+n+utf8.RuneCountInString(o)],
					Method: factkit.MethodRegex, Pattern: "han.listed.appointed", Confidence: confNarrative})
			}
		}
		prev, prevEnd, placed = office, i+n, place != ""
		i += n - 1
	}
	return out
}

// appointingVerb is the verb of appointment right before rune i whose
// object the name at i is ("授同敞中书舍人"), or "".
func appointingVerb(rs []rune, i int) string {
	if i < 1 || !strings.ContainsRune("授擢改拜除", rs[i-1]) {
		return ""
	}
	return string(rs[i-1])
}

// listedHead names the person a listed name is: as written, or, for a
// relative the groups write after a kinship word ("(曾孙同敞)", "(子承荫
// …)"), or the text writes so ("敬修孙同敞"), with the entry person's
// surname when the kinship keeps it (张同敞 in 张居正's entry). 孙 alone is a surname as often as a
// grandson: it counts as kinship only where a group writes the name after
// a longer kinship word (曾孙, 从孙) or the text names him so.
//
// A name the text writes as the sub-entry's person's given name is he (汤
// 克宽 for "乃命克宽为副总兵").
func (hz *han) listedHead(name string, l *listing, entry, sub string) string {
	if k, rest, same := hz.cutKin(name); k != "" && utf8.RuneCountInString(rest) >= 1 {
		if k == "孙" && !l.afterLongerKin[rest] {
			return name
		}
		if same {
			return hz.withSurnameOf(entry, rest)
		}
		return rest
	}
	if l.afterLongerKin[name] || l.afterKin[name] {
		return hz.withSurnameOf(entry, name)
	}
	if _, g := hz.surname(sub); g != "" && name == g {
		return sub
	}
	return name
}

// withSurnameOf completes a given name of one or two characters with the
// surname of the entry's person.
func (hz *han) withSurnameOf(entry, given string) string {
	sur, _ := hz.surname(entry)
	if sur == "" || utf8.RuneCountInString(given) > 2 || strings.HasPrefix(given, sur) {
		return given
	}
	return sur + given
}

// listing is what the extractor reads of a volume's listing groups:
// the runs of two to five characters they write (written) and the
// characters those begin with (first), and the given names they write
// right after a kinship word other than 孙 ("(子承荫孙应昌…)": 承荫) and
// after a longer kinship word ending in 孙 (曾孙, 从孙: "(曾孙同敞)").
//
// A group is the text of a pair of parentheses: names run together, maybe
// parted by "、" or closed by 等. A group that holds sentence punctuation
// is a note in parentheses (archive books write them: "（以上癸未名…）",
// "（择善固执，正是…）"), no listing, and no run of a group holds other
// characters than a name's.
//
// relatives are the runs of two characters of the groups that open with a
// kinship word of the entry's family ("(子承荫孙应昌全昌德昌)"): a given
// name among them that does not begin with a surname is the entry's
// relative's, who bears his surname.
type listing struct {
	key                      string
	written                  map[string]bool
	first                    *factkit.RuneSet
	afterKin, afterLongerKin map[string]bool
	relatives                map[string]bool
}

// listingOf returns the listing of groups, from the last one built when
// the groups are the same (the chunks of one volume come together).
func (hz *han) listingOf(groups []string) *listing {
	key := strings.Join(groups, "\x00")
	hz.lastListing.Lock()
	defer hz.lastListing.Unlock()
	if l := hz.lastListing.l; l != nil && l.key == key {
		return l
	}
	l := &listing{key: key, written: map[string]bool{},
		afterKin: map[string]bool{}, afterLongerKin: map[string]bool{}, relatives: map[string]bool{}}
	var first []rune
	for _, g := range groups {
		if strings.ContainsAny(g, "，。；：！？") {
			continue
		}
		if k, rest, same := hz.cutKin(g); k != "" && same && !strings.ContainsAny(rest, "、等") {
			rs := []rune(rest)
			for i := 0; i+2 <= len(rs); i++ {
				l.relatives[string(rs[i:i+2])] = true
			}
		}
		// "X等" lists X and others: 等 ends the name; a name holds name
		// characters only.
		for _, part := range strings.FieldsFunc(g, func(r rune) bool { return r == '等' || !nameRune(r) }) {
			gr := []rune(part)
			for i := range gr {
				for n := 2; n <= 5 && i+n <= len(gr); n++ {
					l.written[string(gr[i:i+n])] = true
				}
				if i+1 < len(gr) {
					first = append(first, gr[i])
				}
			}
		}
		for _, k := range hz.kin {
			for q := strings.Index(g, k.Word); q >= 0; {
				rest := []rune(g[q+len(k.Word):])
				for n := 1; n <= 2 && n <= len(rest); n++ {
					given := string(rest[:n])
					if k.Word != "孙" {
						l.afterKin[given] = true
					}
					if utf8.RuneCountInString(k.Word) >= 2 && strings.HasSuffix(k.Word, "孙") {
						l.afterLongerKin[given] = true
					}
				}
				next := strings.Index(g[q+len(k.Word):], k.Word)
				if next < 0 {
					break
				}
				q += len(k.Word) + next
			}
		}
	}
	l.first = factkit.NewRuneSet(string(first))
	hz.lastListing.l = l
	return l
}

// nameRune reports the characters a name may hold: Han, private-use code
// points and the brackets that spell out a rare character.
func nameRune(r rune) bool {
	return names.IsNameRune(r) || strings.ContainsRune("〈〉｛｝", r)
}

// titledItem reads the title of the item before a "、" when that item is
// a title and a name of two or three characters the listing need not
// write ("参将张应元"): the list's next name, written bare, holds it too.
func (hz *han) titledItem(item []rune) string {
	for _, n := range []int{3, 2} {
		if len(item) < n+2 {
			continue
		}
		if o := hz.officeEnding(item[:len(item)-n]); o != "" && !officeBannedSet.In(string(item[len(item)-n:])) {
			return o
		}
	}
	return ""
}

// jointPlace reads the native place a list of names gives together, the
// name at its head or inside it: "杨元杲、阮弘道，皆滁人", "卢原质、郑公智、
// 林嘉猷，皆宁海人". i is the offset after the name; the list goes on
// with items of two to four characters after "、" up to "，皆", then a
// place of one to three characters and 人 closing the clause.
func jointPlace(rs []rune, i int) string {
	for i < len(rs) && rs[i] == '、' {
		j := i + 1
		for j < len(rs) && j-i <= 4 && text.IsHan(rs[j]) {
			j++
		}
		if j-i-1 < 2 {
			return ""
		}
		i = j
	}
	if i+2 > len(rs) || rs[i] != '，' || rs[i+1] != '皆' {
		return ""
	}
	j := i + 2
	for j < len(rs) && j-i-2 <= 3 && text.IsHan(rs[j]) && rs[j] != '人' {
		j++
	}
	if j == i+2 || j >= len(rs) || rs[j] != '人' || j+1 < len(rs) && text.IsHan(rs[j+1]) {
		return ""
	}
	return string(rs[i+2 : j])
}

// appointedAfter reads an appointment right after a name: a verb of
// appointment and an office phrase ("为庆云典史", "终韶州知府"). It
// returns the verb, the office and the rune offset after it.
func (hz *han) appointedAfter(rs []rune, i int) (verb, office string, end int) {
	if i >= len(rs) {
		return "", "", 0
	}
	for _, v := range appointVerbs {
		vr := []rune(v)
		if i+len(vr) > len(rs) || string(rs[i:i+len(vr)]) != v {
			continue
		}
		j := i + len(vr)
		k := j
		for k < len(rs) && k-j < 16 && text.IsHan(rs[k]) {
			k++
		}
		if o := hz.longestOffice(string(rs[j:k])); o != "" {
			return v, o, j + utf8.RuneCountInString(o)
		}
		return "", "", 0
	}
	return "", "", 0
}

// appointVerbs are the verbs of an appointment a name is the subject of,
// longest first.
var appointVerbs = wordList("appoint_verbs")

// kinOnly reports a "name" made of kinship words alone ("子孙").
func (hz *han) kinOnly(name string) bool {
	for name != "" {
		k, rest, _ := hz.cutKin(name)
		if k == "" {
			return false
		}
		name = rest
	}
	return true
}

// titleWord reports a "name" of a listing that is a title or the start
// of one (宣慰 of 宣慰使): a volume on native chiefdoms lists offices.
func (hz *han) titleWord(name string) bool {
	if hz.offices.Recognised(name, 2) {
		return true
	}
	for _, t := range hz.offices.Terms {
		if strings.HasPrefix(t.Term, name) {
			return true
		}
	}
	return false
}

// clauseBefore is the clause's text before rune i, up to 14 characters:
// the Han characters back to the last punctuation or line break.
func clauseBefore(rs []rune, i int) []rune {
	j := i
	for j > 0 && i-j < 14 && text.IsHan(rs[j-1]) {
		j--
	}
	return rs[j:i]
}

// titleBefore reads the words before a name: an office title ending them
// ("宗人府经历"), or a title and a native place: two characters
// ("给事中祁门") or a place written with 人 ("户部主事滁人"). The title is
// the longest the office lexicon takes. The place comes back as written.
func (hz *han) titleBefore(pre []rune) (office, place string) {
	if o := hz.officeEnding(pre); o != "" {
		return o, ""
	}
	var tries [][2]int // place length, with 人
	if len(pre) >= 2 && pre[len(pre)-1] == '人' {
		tries = [][2]int{{2, 1}, {3, 1}, {4, 1}}
	} else {
		tries = [][2]int{{2, 0}}
	}
	for _, t := range tries {
		if len(pre) < t[0]+2 {
			continue
		}
		p := pre[len(pre)-t[0]:]
		pl := string(p[:len(p)-t[1]])
		if k, _, _ := hz.cutKin(pl); k != "" || officeBannedSet.In(pl) || placeNotInSet.In(pl) {
			continue
		}
		if o := hz.officeEnding(pre[:len(pre)-t[0]]); o != "" {
			return o, string(p)
		}
	}
	return "", ""
}

// placeBefore reads a native place alone before a name: two characters
// after a word that joins names or opens a subject (而, 有, 与, 及, 暨:
// "有诸城谢升", "而怀宁甘霖"), also with 人 ("有大冶人尹如翁"), or, when listed (the clause goes on a
// list whose last name had a place of its own), the clause's two
// characters ("有诸城谢升、聊城丁志方"). The two characters are no title,
// no number, not "the same county" (同县, 同郡 …), do not end like a
// word for a person (诸生, 部将, 复社 …), and are characters native places
// are written with ("而澳念梦泰无可劾": 戴澳 thought 梦泰 …).
func (hz *han) placeBefore(pre []rune, listed bool) string {
	if len(pre) >= 4 && pre[len(pre)-1] == '人' && !listed {
		// "有大冶人尹如翁": the place written with 人, after 有 alone;
		// after 与 the words may end a name and make a word for a person
		// with 人 ("受业吴与弼门人胡九韶").
		if pre[len(pre)-4] != '有' {
			return ""
		}
		if p := hz.placeBefore(pre[:len(pre)-1], false); p != "" {
			return p + "人"
		}
		return ""
	}
	if len(pre) < 2 {
		return ""
	}
	rest, p := pre[:len(pre)-2], string(pre[len(pre)-2:])
	switch {
	case listed && len(rest) == 0:
	case len(rest) > 0 && strings.ContainsRune(placeJoiners, rest[len(rest)-1]):
	default:
		return ""
	}
	if k, _, _ := hz.cutKin(p); k != "" || officeBannedSet.In(p) || placeNotInSet.In(p) ||
		strings.ContainsRune(personEnds, pre[len(pre)-1]) || hz.offices.Recognised(p, 1) ||
		pre[len(pre)-2] == '同' || !hz.placeWritten(p) {
		return ""
	}
	return p
}

// placeJoiners may come right before a place and a name; personEnds end
// words for a person or a group of people, which a place does not;
// placeNotIn are characters of numbers, time, speech and the passive,
// which no place name before a person holds (with officeBanned).
const (
	placeJoiners = "而有与及暨"
	personEnds   = "人生士儒将社官臣里邑子孙弟兄父母妻妇女党民卒兵僧道客众"
	placeNotIn   = "一二三四五六七八九十百千被时是年月日则如言"
)

var placeNotInSet = factkit.NewRuneSet(placeNotIn)

// officeEnding is the longest office phrase that ends pre, or "": one
// that holds none of the words of the clause around a title (a verb, a
// time, "则", "如": "以草诏属侍读", "茂则监军佥事", "如弘治元年户部员外郎")
// and does not begin with a character that ends the word before it
// ("友人徽州知府", "复使佥都御史") or hold a relative's kinship word
// (kinInside).
func (hz *han) officeEnding(pre []rune) string {
	for k := 0; k+2 <= len(pre); k++ {
		s := string(pre[k:])
		if hz.cleanTitle(s) {
			return s
		}
	}
	return ""
}

// cleanTitle reports whether s is a title as a name's title is written:
// an office phrase (titlePhrase) with none of the words of the clause
// around it (titleBanned), not beginning with a character that ends the
// word before it (titleNotFirst), holding no relative's kinship word
// (kinInside), and with 令 only as a county's title: before a name 令
// orders him ("承畴令", "二千令副将").
func (hz *han) cleanTitle(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return s != "" && !titleBannedSet.In(s) && !strings.ContainsRune(titleNotFirst, r) &&
		!kinInside([]rune(s)) && hz.titlePhrase(s) && !strings.ContainsRune(strings.TrimSuffix(s, "县令"), '令')
}

// titlePhrase is officePhrase for a title written before a name, which
// may end in 将 (副将, 参将): officeBanned holds 将 for the verb
// ("将兵", "将行") that a title before a name is not.
func (hz *han) titlePhrase(s string) bool {
	if t, ok := strings.CutSuffix(s, "将"); ok {
		n := utf8.RuneCountInString(s)
		return n >= 2 && n <= 16 && !officeBannedSet.In(t) && hz.offices.Extracted(s)
	}
	return hz.officePhrase(s)
}

// kinInside reports a kinship character inside a title's words after
// another character that does not make it a title's ("企仲子礼部主事",
// "良柱子指挥": a relative's title; not 太子 or 国子).
func kinInside(w []rune) bool {
	for p := 1; p < len(w); p++ {
		if strings.ContainsRune("子弟孙侄兄", w[p]) && !strings.ContainsRune("太国世", w[p-1]) {
			return true
		}
	}
	return false
}

// titleBanned are characters no title written before a name holds, on
// top of officeBanned: words of time and connection (则, 如, 是时, 会,
// 更, 方, 惟, 独) and the verbs a title follows as their object or
// comes with (劾, 遣, 率, 谪, 逮, 罢, 围, 嗣, 袭 …). titleNotFirst are those it does not begin with.
const (
	titleBanned   = "则系如属付友檄是时尝会更方惟独有诸自由年月日言劾憾偕遣谪拘弹尽罢下围劫执逮居征率当嗣袭荫"
	titleNotFirst = "使人令子弟孙侄兄"
)

var titleBannedSet = factkit.NewRuneSet(titleBanned)

// relativeFacts reads the sentences the text gives a listed relative of
// the entry's person: "子彦章，万历十七年进士", "子悫，南京工部右侍郎",
// "缄，官按察使", "锡爵弟鼎爵，进士". The sentence opens with a kinship
// word and a given name the groups write after a kinship word (or the
// given name alone, or the entry person's given name and the kinship
// word), then "，" and a clause that is a degree with its year, a title,
// or 官 and a title: the relative's, not the entry person's.
func (hz *han) relativeFacts(s string, groups []string, entry string) []factkit.Fact {
	if len(groups) == 0 || entry == "" {
		return nil
	}
	_, entryGiven := hz.surname(entry)
	l := hz.listingOf(groups)
	var out []factkit.Fact
	for i := 0; i < len(s); {
		start := i
		if e := stops.Index(s[i:]); e >= 0 {
			_, size := utf8.DecodeRuneInString(s[i+e:])
			i += e + size
		} else {
			i = len(s)
		}
		sent := strings.TrimLeft(s[start:i], " 　\t")
		at := start + len(s[start:i]) - len(sent)
		head, clause, cAt := hz.relativeClause(sent, l, entry, entryGiven)
		if head == "" {
			continue
		}
		cAt += at
		// The first two clauses: "孙绍芳，进士，户部左侍郎".
		for c := 0; c < 2 && clause != ""; c++ {
			out = append(out, hz.relativeClauseFacts(head, clause, cAt)...)
			next, ok := strings.CutPrefix(sent[cAt-at+len(clause):], "，")
			if !ok {
				break
			}
			cAt += len(clause) + len("，")
			clause = firstClause(next)
		}
	}
	return out
}

// firstClause is s up to its first "，", "；", "、" or "。".
func firstClause(s string) string {
	if e := strings.IndexAny(s, "，；、。"); e >= 0 {
		return s[:e]
	}
	return s
}

// relativeClauseFacts reads one clause of a relative's sentence at byte
// offset at: a degree with its year ("万历十七年进士"), a title ("南京工部
// 右侍郎"), or a verb of office and a title ("官按察使", "亦为贵州总兵官").
func (hz *han) relativeClauseFacts(head, clause string, at int) []factkit.Fact {
	if m := hz.jinshiAt.FindStringSubmatchIndex(clause); m != nil {
		era, year := clause[m[2]:m[3]], clause[m[4]:m[5]]
		return []factkit.Fact{{Head: head, Relation: schemas.RelJinshi, Tail: era + year, TailType: schemas.EntityTime,
			Qualifiers: map[string]string{"era": era, "year": era + year}, Start: at, End: at + m[1],
			Method: factkit.MethodRegex, Pattern: "han.listed.relative_jinshi", Confidence: confNarrative}}
	}
	title, verb := strings.TrimPrefix(clause, "亦"), ""
	for _, v := range relativeOfficeVerbs {
		if t, ok := strings.CutPrefix(title, v); ok {
			title, verb = t, v
			break
		}
	}
	// "字晋卿" is a courtesy name that ends like a title.
	if strings.HasPrefix(title, "字") || strings.HasPrefix(title, "号") || !hz.cleanTitle(title) {
		return nil
	}
	q := map[string]string{"as": "title"}
	if verb != "" {
		q = map[string]string{"verb": verb}
	}
	return []factkit.Fact{{Head: head, Relation: schemas.RelOffice, Tail: title, TailType: schemas.EntityOffice,
		Qualifiers: q, Start: at, End: at + len(clause),
		Method: factkit.MethodRegex, Pattern: "han.listed.relative_office", Confidence: confNarrative}}
}

// relativeOfficeVerbs are the verbs of office that may open a clause of a
// relative's sentence, in the order they are tried.
var relativeOfficeVerbs = wordList("relative_office_verbs")

// relativeClause reads the opening of a relative's sentence: the
// relative's name (with the entry's surname when the kinship keeps it),
// the clause after "，" and its byte offset in sent; "" when the sentence
// does not open so.
func (hz *han) relativeClause(sent string, l *listing, entry, entryGiven string) (head, clause string, at int) {
	name, rest, ok := strings.Cut(sent, "，")
	if !ok || utf8.RuneCountInString(name) > 5 {
		return "", "", 0
	}
	if entryGiven != "" {
		name = strings.TrimPrefix(name, entryGiven)
	}
	name = strings.TrimPrefix(name, "其")
	k, given, same := hz.cutKin(name)
	n := utf8.RuneCountInString(given)
	if n < 1 || n > 2 || !nameLike(given) {
		return "", "", 0
	}
	if !(k != "" && l.written[k+given] || k == "" && l.afterKin[given]) {
		return "", "", 0
	}
	clause = firstClause(rest)
	if clause == "" {
		return "", "", 0
	}
	// The sentence opens the relative's own text inside the entry: 孙 is
	// kinship here ("孙绍芳，进士"), as it is not in a list of names.
	head = given
	if k == "" || same {
		head = hz.withSurnameOf(entry, given)
	}
	return head, clause, len(sent) - len(rest)
}

// writtenAsSubject reports whether s writes name at the start of a
// clause, followed by words that do not begin an office title: the name
// of a person the text tells of ("同敞负志节"), not a place before a title
// ("蓝田知县").
func (hz *han) writtenAsSubject(s, name string) bool {
	for i := strings.Index(s, name); i >= 0; {
		r, _ := utf8.DecodeLastRuneInString(s[:i])
		after := s[i+len(name):]
		if (i == 0 || strings.ContainsRune("，。；：\n", r)) && after != "" && !hz.startsOffice(after) {
			if next, _ := utf8.DecodeRuneInString(after); text.IsHan(next) || next == '，' {
				return true
			}
		}
		j := strings.Index(after, name)
		if j < 0 {
			return false
		}
		i += len(name) + j
	}
	return false
}
