package zh

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/internal/lang/factkit"
	"github.com/annalist-dev/annalist/schemas"
)

// Hand-made patterns for classical Chinese biographies (the liezhuan
// profile, and any text a Chinese profile reads), compiled once; those
// that hold the profile's eras, examination terms and kinship words are
// compiled per profile (newHan). Go's regexp is RE2: matching is linear in
// the text, so no pattern can blow up on adversarial input.
var (
	reZi     = mustFiltered(`^(?:一字|又字|更字|字)(\p{Han}{1,3})$`)
	reHao    = mustFiltered(`^(?:自号|别号|号)(\p{Han}{1,5})$`)
	reMing   = mustFiltered(`^(一名|初名|原名|本名|旧名|名)(\p{Han}{1,3})$`)
	reXiaozi = mustFiltered(`^(小字|小名)(\p{Han}{1,4})$`)
	rePlace  = mustFiltered(`^(其先|先世)?(\p{Han}{1,8})人$`)
	reDeathB = regexp.MustCompile(`年(` + ageExpr + `)，?(卒|薨)(?:于(\p{Han}{1,4}))?`)
	// reKinMore continues a list of relatives: "子用懋、用嘉".
	reKinMore = regexp.MustCompile(`^、(\p{Han}{1,2}?)(?:嗣|袭|[、，。])`)
	reSelfHao = regexp.MustCompile(`自号(\p{Han}{2,6}?)(?:[，。；]|$)`)
	// reMagistrate is a clause that makes a person the magistrate of a
	// county, a department or a prefecture: "知宁海县".
	reMagistrate = mustFiltered(`^知(\p{Han}{2,4}?)(县|州|府)$`)
	// reKinOf says whose relative a person is: "武善弟", "鄂尔泰从子".
	reKinOf = mustFiltered(`^[^之第者其]{2,4}?(?:从子|从弟|从孙|族子|族弟|族孙|子|弟|兄|孙|侄)$`)
	// reSuccession ends a clause that makes an heir the subject:
	// "弟简王有爝嗣，景泰三年薨" is the heir's death.
	reSuccession = mustFiltered(`(?:嗣|袭|袭封|袭爵)(?:[，。；]|$)|传至`)
	// reSentZi is a sentence that opens with a person and his courtesy
	// name, maybe after words that end in 者 ("时与悦同里而先为南京兵部尚书
	// 者张蓥，字廷器").
	reSentZi = mustFiltered(`^(?:[^，。；]{1,24}者)?([^，。；者]{1,8})，字`)
	// reClauseSubject finds a clause that opens with a subject of two or
	// three characters followed by an adverb or an appointment verb ("鸿儒
	// 遂…", "时中累官…", "向高亦…"). One character before an adverb is too
	// often a verb ("召复故官").
	reClauseSubject = mustFiltered(`(?:^|，)(\p{Han}{2,3}?)(?:遂|乃|亦|即|复|因|竟|既|独|皆|累官|累迁|官至|授|擢|迁|拜|除|召为|出为)`)
)

// kinNameStop are characters that cannot be in the given name after a
// kinship word at a sentence start: "父丧", "子孙", "父忧归" are events and
// collectives, not people.
const kinNameStop = "殁丧卒忧死老母妇姓亦皆以为又既尝遂乃年某等辈归病疾殇亡早没故已尚俱并不无也矣焉孙弟兄女侄婿一二三四五六七八九十数"

var kinNameStopSet = factkit.NewRuneSet(kinNameStop)

// kinNameFirstStop may be in a name but not begin one after a kinship word.
const kinNameFirstStop = "有幼少长子"

// hanHeader is a sentence that introduces a person: "叶向高，字进卿，福清人".
type hanHeader struct {
	at, end   int // byte offsets: the name, the end of the first sentence
	bodyEnd   int // byte offset of the end of the name
	lineStart bool
	body      string
	head, kin string
	// full says head is known to be a full name (see section).
	full bool
	// unnamed says the sentence introduces someone whose name the
	// evidence does not read (headerNamed): his section has no head.
	unnamed bool
	clauses []hanClause
}

type hanClause struct {
	kind       string // zi, hao, ming, xiaozi, yizixing, place, kin_of, office
	word, val  string
	start, end int
}

// parseHeaders returns the person-introducing sentences of text, in order:
// a sentence that opens with a name and a comma ("Name，…"), whose clauses
// then introduce the person.
func (hz *han) parseHeaders(text string) []hanHeader {
	var out []hanHeader
	sentenceStarts(text, func(at int, lineStart bool) {
		at += len(text[at:]) - len(strings.TrimLeft(text[at:], " 　\t"))
		end := len(text)
		if j := hanEndSet.Index(text[at:]); j >= 0 {
			end = at + j
		}
		// "尹竑，字太和，巴人；童存德，字居敬，兰溪人": people listed one
		// after another, a semicolon between them.
		defer func() {
			for i := at; ; {
				j := strings.Index(text[i:end], "；")
				if j < 0 {
					return
				}
				i += j + len("；")
				// A name of one character there is a wife's surname
				// ("冯智懋妻谢，智懋，长洲人；谢，嘉兴人"), not a new person.
				if b, _, ok := strings.Cut(text[i:end], "，"); ok && utf8.RuneCountInString(b) >= 2 {
					hz.headerAt(text, i, false, &out)
				}
			}
		}()
		n := len(out)
		hz.headerAt(text, at, lineStart, &out)
		if len(out) > n {
			return
		}
		// "洪武初，有张琬者，鄱阳人": a time, then the person; "同时闽中殉难
		// 者：萧震，侯官人": a colon, then the first of a list of people.
		if c := strings.Index(text[at:end], "："); c > 0 {
			// Not speech ("帝曰：…").
			if r, _ := utf8.DecodeLastRuneInString(text[at : at+c]); !strings.ContainsRune("曰云言奏诏谕书", r) {
				hz.headerAt(text, at+c+len("："), false, &out)
			}
		} else if c := strings.Index(text[at:end], "，"); c > 0 && hz.timeLead(text[at:at+c]) {
			hz.headerAt(text, at+c+len("，"), false, &out)
		}
	})
	return out
}

// headerAt parses a header that would begin at byte at, and appends it to
// out if it introduces a person.
func (hz *han) headerAt(text string, at int, lineStart bool, out *[]hanHeader) {
	comma := strings.Index(text[at:], "，")
	if stop := strings.Index(text[at:], "。"); stop > 0 && (comma < 0 || stop < comma) {
		// "汝稷字元立。好学": the courtesy name written on, then a stop.
		if name, zi, ok := strings.Cut(text[at:at+stop], "字"); ok && utf8.RuneCountInString(name) >= 2 && nameLike(name) &&
			classifyClause("字"+zi).kind == "zi" {
			comma = stop
		}
	}
	if comma <= 0 {
		return
	}
	body := text[at : at+comma]
	if len(body) > 12*utf8.UTFMax || utf8.RuneCountInString(body) > 12 || notInBody.In(body) {
		return
	}
	like := hz.bodyLike(body)
	if !like || strings.Contains(strings.TrimSuffix(body, "者"), "者") ||
		utf8.RuneCountInString(trimBody(body)) >= 4 {
		// "代之者刘璋，字廷信", "又都给事中龚泰，义乌人", "户部主事安玺，宛平
		// 人", "游击曾英，福建莆田人", "有郡人吴訚者": the name after the
		// words that describe him, an office, a word for a person or a
		// clause ending in 者.
		if k := hz.describedName(body); k > 0 {
			at += k
			comma -= k
			body = text[at : at+comma]
			like = hz.bodyLike(body)
		}
	}
	bodyEnd, restStart := at+comma, at+comma+len("，")
	if name, rel, ok := strings.Cut(body, "亦"); ok && lineStart && utf8.RuneCountInString(name) >= 2 && nameLike(name) &&
		reKinOf.MatchString(rel) {
		// "鄂乐舜亦鄂尔泰从子，初名鄂敏": a paragraph that opens with a
		// person and whose relative he is.
		bodyEnd, restStart = at+len(name), at+len(name)+len("亦")
	} else if name, rest, ok := strings.Cut(body, "名"); ok && utf8.RuneCountInString(name) >= 2 && nameLike(name) &&
		classifyClause("名"+rest).kind == "ming" && utf8.RuneCountInString(rest) <= 2 {
		// "嘉猷名升，以字行": his name written straight after the name
		// he goes by.
		bodyEnd, restStart = at+len(name), at+len(name)
	} else if !like {
		// "王畿字汝中，别号龙溪": the courtesy name written straight
		// after the name, as the Mingru xuean and many archive books
		// open a life.
		name, zi, ok := strings.Cut(body, "字")
		if !ok || utf8.RuneCountInString(name) < 2 || !nameLike(name) || classifyClause("字"+zi).kind != "zi" {
			return
		}
		bodyEnd, restStart = at+len(name), at+len(name)
	}
	// "尹竑，字太和，巴人；童存德，字居敬，兰溪人": a semicolon ends one
	// person's opening.
	restEnd := len(text)
	if j := stops.Index(text[restStart:]); j >= 0 {
		restEnd = restStart + j
	}
	if h, ok := hz.parseHeader(text, at, bodyEnd, restStart, restEnd, lineStart); ok {
		*out = append(*out, h)
	}
}

// notInBody are the characters a header's name and the words before it
// do not hold.
var notInBody = factkit.NewRuneSet("。；：、 　\t\n")

// parseHeader reads the clauses after a header's name (text[at:bodyEnd]),
// up to the end of the sentence (text[restStart:restEnd]), and reports
// whether they introduce a person.
func (hz *han) parseHeader(text string, at, bodyEnd, restStart, restEnd int, lineStart bool) (hanHeader, bool) {
	h := hanHeader{at: at, bodyEnd: bodyEnd, end: restEnd, body: text[at:bodyEnd], lineStart: lineStart}
	rest, off := text[restStart:restEnd], restStart
	unknown, strong, early := 0, false, false
	for i := 0; ; i++ {
		cl, next, more := strings.Cut(rest, "，")
		c := classifyClause(cl)
		if c.kind == "" && len(h.clauses) > 0 && h.clauses[len(h.clauses)-1].kind == "zi" {
			c = classifyOpeningPlace(cl)
		}
		if c.kind == "" && i == 0 {
			if m := reMagistrate.FindStringSubmatch(cl); m != nil {
				// "又王士弘者，知宁海县": the magistrate of a county.
				c = hanClause{kind: "office", val: "知" + m[2], word: m[1]}
			}
		}
		if c.kind == "" && i == 0 && strings.HasSuffix(cl, "也") {
			// "有华敏者，南京锦衣军余也", "袁敏者，金齿卫知事也": who he
			// was, an office.
			if o := strings.TrimSuffix(cl, "也"); o != "" && hz.longestOffice(o) == o {
				c = hanClause{kind: "office", val: o}
			}
		}
		if c.kind == "" && i == 0 && lineStart && reKinOf.MatchString(cl) {
			// "布善，武善弟": at a paragraph's start, whose relative he is
			// introduces him as the courtesy name would.
			c = hanClause{kind: "kin_of", val: cl}
		}
		if c.kind == "place" && slices.ContainsFunc(h.clauses, func(o hanClause) bool { return o.kind == "place" }) {
			// An opening gives one native place: "王莹，鄞人，起家举人" (rose
			// as a provincial graduate), "显际，真定人，士骥官中书舍人".
			c = hanClause{}
		}
		if c.kind == "" {
			// "朱宽，莆田人，李翔，大足人": a clause that could be a name
			// introduces the next person; stop before it.
			unknown++
			if unknown > 2 || (len(h.clauses) > 0 && nameLike(cl)) {
				break
			}
		} else {
			c.start, c.end = off, off+len(cl)
			h.clauses = append(h.clauses, c)
			// Another name alone ("宪成既废，名益高": his fame grew) is
			// too weak to introduce a person.
			if i < 2 && c.kind != "ming" && c.kind != "xiaozi" {
				early = true
			}
			// Mid-paragraph, "Name，字X" and "Name，Place人" at once
			// introduce someone; a place later in the sentence does not.
			if c.kind == "zi" || c.kind == "yizixing" || (c.kind == "place" && i == 0) {
				strong = true
			}
		}
		if !more {
			break
		}
		off += len(cl) + len("，")
		rest = next
	}
	if !early && lineStart && len(h.clauses) == 0 {
		// "涂棐，天顺四年进士": a paragraph that opens with a name and his
		// degree introduces him.
		if n := utf8.RuneCountInString(h.body); n >= 2 && n <= 3 && nameLike(h.body) {
			first, _, _ := strings.Cut(text[restStart:restEnd], "，")
			if hz.jinshiAt.MatchString(first) {
				early = true
			}
		}
	}
	if !early && lineStart && len(h.clauses) == 0 && hz.kinBody(h.body) {
		// "子维城，举万历四十七年进士": a paragraph that opens with a
		// relative, named after the kinship word, tells of him.
		early = true
	}
	return h, early && (lineStart || strong)
}

// classifyOpeningPlace reads "P人" right after a header's 字 clause
// ("王冕，字元章，诸暨人"), where the position leaves no other reading: the
// characters that elsewhere show a "…人" phrase counts or qualifies people
// (诸, 无: "诸生数十人") begin place names here (诸暨, 无锡), and "…门人" is a
// place (祁门), not a disciple.
func classifyOpeningPlace(s string) hanClause {
	m := rePlace.FindStringSubmatch(s)
	if m == nil || m[1] != "" {
		return hanClause{}
	}
	if OpeningPlaceName(m[2]) {
		return hanClause{kind: "place", word: m[1], val: m[2]}
	}
	return hanClause{}
}

func classifyClause(s string) hanClause {
	if m := reZi.FindStringSubmatch(s); m != nil {
		return hanClause{kind: "zi", word: "字", val: m[1]}
	}
	if m := reHao.FindStringSubmatch(s); m != nil {
		return hanClause{kind: "hao", word: "号", val: m[1]}
	}
	if m := reXiaozi.FindStringSubmatch(s); m != nil {
		return hanClause{kind: "xiaozi", word: m[1], val: m[2]}
	}
	if m := reMing.FindStringSubmatch(s); m != nil {
		return hanClause{kind: "ming", word: m[1], val: m[2]}
	}
	if s == "以字行" {
		return hanClause{kind: "yizixing", word: s}
	}
	place := s
	if strings.HasSuffix(place, "人也") {
		place = strings.TrimSuffix(place, "也")
	}
	if m := rePlace.FindStringSubmatch(place); m != nil {
		// "亦莆田人" (also of 莆田), "江宁人也" (of 江宁), "本乐安人"
		// (originally of 乐安), "黄冈举人" (a provincial graduate of 黄冈).
		place := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(m[2], "亦"), "本"), "举")
		// "浙之山阴人": a county after its province, joined by 之.
		if p, county, ok := strings.Cut(place, "之"); ok && utf8.RuneCountInString(p) <= 2 && utf8.RuneCountInString(county) >= 2 {
			place = county
		}
		if placeName(place) {
			return hanClause{kind: "place", word: m[1], val: place}
		}
	}
	return hanClause{}
}

// bodyLike reports whether the words before a header's comma can name a
// person: a name, or a name after a word that introduces someone ("同时朱国
// 祯", "有赵翥者", "世贞子士骐").
func (hz *han) bodyLike(b string) bool {
	b = trimBody(b)
	if nameLike(b) {
		return true
	}
	for _, p := range hz.introducers {
		if rest, ok := strings.CutPrefix(b, p); ok && nameLike(rest) {
			return true
		}
	}
	for i, n := 0, 0; i < len(b) && n <= 3; n++ {
		if k, rest, _ := hz.cutKin(b[i:]); k != "" && nameLike(rest) && (i == 0 || nameLike(b[:i])) {
			return true
		}
		_, size := utf8.DecodeRuneInString(b[i:])
		i += size
	}
	return false
}

// describedName returns the byte offset in body of a name of two or three
// characters that ends it (before a closing 者) after words describing
// him: a clause ending in 者 ("代之者"), an office phrase, maybe after 时,
// 又 or 而 ("时广西佥事"), or, after a word that introduces someone, a
// word for a person ending in 人 ("有郡人吴訚者"). 0 if there is none.
func (hz *han) describedName(body string) int {
	b := strings.TrimSuffix(body, "者")
	if !utf8.ValidString(b) {
		// The words are read rune by rune: an invalid byte is one, U+FFFD.
		b = string([]rune(b))
	}
	n := utf8.RuneCountInString(b)
	for _, l := range []int{3, 2} {
		if n < l+2 {
			continue
		}
		cut := len(b)
		for range l {
			_, size := utf8.DecodeLastRuneInString(b[:cut])
			cut -= size
		}
		name, pre := b[cut:], b[:cut]
		if !nameLike(name) || officeBannedSet.In(name) {
			continue
		}
		intro := pre
		for _, p := range hz.introducers {
			if rest, ok := strings.CutPrefix(pre, p); ok && rest != "" {
				intro = rest
				break
			}
		}
		_, size := utf8.DecodeRuneInString(name)
		if strings.HasSuffix(pre, "者") || hz.officePhrase(strings.TrimLeft(pre, "时又而")) &&
			!hz.officePhrase(b[:cut+size]) ||
			intro != pre && utf8.RuneCountInString(intro) == 2 && strings.HasSuffix(intro, "人") {
			return len(pre)
		}
	}
	return 0
}

// kinBody reports whether a header's name is a kinship word and a given
// name of one or two characters ("子维城"), none of them a character that
// makes an event or a group of the words ("父丧", "子孙").
func (hz *han) kinBody(b string) bool {
	k, rest, _ := hz.cutKin(strings.TrimPrefix(b, "其"))
	n := utf8.RuneCountInString(rest)
	return k != "" && n >= 1 && n <= 2 && nameLike(rest) && !kinNameStopSet.In(rest) && !strings.ContainsAny(rest, "嗣袭") &&
		!strings.ContainsRune(kinNameFirstStop, firstRune(rest))
}

// trimBody drops the words around a header's name that introduce it: a
// leading 又 or 其 ("又袁义", "其弟子…") and a trailing 者 ("詹鼎者").
func trimBody(b string) string {
	b = strings.TrimSuffix(b, "者")
	b = strings.TrimPrefix(b, "又")
	return strings.TrimPrefix(b, "其")
}

// resolveHead names the person a header introduces, given the entry the
// chunk belongs to, the sub-entry it begins ("" if none) and the text
// before the header. ok is false when the header clearly introduces
// someone but the name cannot be made out; the facts of that section are
// then dropped rather than given to the wrong person.
func (hz *han) resolveHead(body, entry, sub, before string) (head, kin string, ok bool) {
	sur, given := hz.surname(entry)
	esur := sur
	if entry != "" && (body == entry || (given != "" && body == given)) {
		return entry, "", true
	}
	if sub != "" && sub != entry && hz.fullSub(sub, entry) {
		// The sub-entry's text tells of his family: "盛以弘…父讷" in 孙慎
		// 行's entry is 盛讷.
		sur, _ = hz.surname(sub)
	}
	if k, ok := hz.namesSub(body, sub); ok {
		return sub, k, true
	}
	b := trimBody(body)
	// "世贞子士骐": the entry's given name, then a kinship word.
	if given != "" && strings.HasPrefix(b, given) {
		if k, _, _ := hz.cutKin(b[len(given):]); k != "" {
			b = b[len(given):]
		}
	}
	if k, rest, same := hz.cutKin(b); k != "" && rest != "" && nameLike(rest) {
		n := utf8.RuneCountInString(rest)
		switch {
		case same && k == "孙" && n >= 2:
			// 孙 is also a surname: "孙嘉绩" is a name, not "grandson 嘉绩".
		case same && n == 2 && sur != "" && strings.HasPrefix(rest, sur):
			// "子顾俨": the son written with his surname.
			return rest, k, true
		case same && n <= 2 && sur != "":
			return sur + rest, k, true
		case same && n <= 2:
			return "", "", false
		case n >= 2:
			return rest, k, true
		}
	}
	for _, p := range hz.introducers {
		if rest, found := strings.CutPrefix(b, p); found {
			if n := utf8.RuneCountInString(rest); n >= 2 && n <= 4 && nameLike(rest) {
				return rest, "", true
			}
		}
	}
	n := utf8.RuneCountInString(b)
	if n <= 2 && sur != "" {
		// A given name introduced earlier as kin: "子用懋、用嘉。用懋，字敬中".
		if k := hz.kinBefore(before, b); k != "" {
			return sur + b, k, true
		}
	}
	switch {
	case n >= 2 && n <= 4 && nameLike(b):
		if head, k, found := hz.ownersRelative(b, entry, sub, before); found {
			// "琏子畾" in 刘琏's text: 刘畾. A kinship word is never part
			// of a name; a relative whose surname cannot be made out is
			// no one the text names.
			return head, k, head != ""
		}
		// A sibling or cousin written by given name shares the generation
		// character: 刘一燝's brother 一焜 is 刘一焜.
		if n == 2 && esur != "" && utf8.RuneCountInString(given) == 2 && firstRune(b) == firstRune(given) {
			return esur + b, "", true
		}
		if n == 2 {
			// "附张天禄袭休宁：天禄字桂吾": the given name of a person the
			// text has written in full.
			if full := hz.writtenInFull(before, b); full != "" {
				return full, "", true
			}
			if !hz.fullShape(b) {
				// "泌之，鹿邑人": a given name written alone names no one
				// in full.
				return "", "", false
			}
		}
		return b, "", true
	}
	return "", "", false
}

// namesSub reports whether a header's name is the sub-entry's person as
// the text writes him: the name the chunker gave, or its last one or two
// characters (the given name), after a kinship word or a word that
// introduces him ("子琮" for 陆琮, "用嘉" for 申用嘉, "有朱士完者"). kin is
// the kinship word written, if any.
func (hz *han) namesSub(body, sub string) (kin string, ok bool) {
	if sub == "" {
		return "", false
	}
	b := trimBody(body)
	for _, p := range hz.introducers {
		if rest, found := strings.CutPrefix(b, p); found && rest != "" {
			b = rest
			break
		}
	}
	// "孙作" is a name when the chunker says so: 孙 is a surname too.
	// "潞城赵泰", "时御史古田林英": the person after words that
	// introduce him, a place or an office.
	if b == sub || utf8.RuneCountInString(sub) >= 2 && strings.HasSuffix(b, sub) {
		return "", true
	}
	if k, rest, _ := hz.cutKin(b); k != "" && rest != "" && (rest == sub || strings.HasSuffix(sub, rest)) {
		return k, true
	}
	return "", utf8.RuneCountInString(b) <= 2 && strings.HasSuffix(sub, b)
}

// kinBefore returns the kinship word under which text introduced the given
// name earlier ("子琮", "子用懋、用嘉"), or "".
func (hz *han) kinBefore(text, given string) string {
	for _, k := range hz.kinNames(text) {
		if k.name == given {
			return k.kin
		}
	}
	return ""
}

func firstRune(s string) rune {
	r, _ := factkit.DecodeRune(s)
	return r
}

// section is a stretch of text about one person. full says the head is
// known to be a full name (the entry, a name of three characters or more,
// or one completed with the entry's surname), so a relative's given name
// can be completed with its surname.
type section struct {
	start, end int
	head       string
	full       bool
	hdr        *hanHeader
	// others are the names, as written, of the other people the chunk
	// introduces (relatives, sub-entries): a sentence that opens with one
	// of them is about that person.
	others map[string]bool
	// inherited says the head is the entry's person only because a
	// continuation chunk belongs to his entry: the text has not named him.
	inherited bool
	// pred and kin are set on a succession's section: the holder the heir
	// succeeded and the kinship word between them ("子"). after is set on
	// the text after a succession's paragraph: the heir last named, a full
	// name if afterFull.
	pred, kin, after string
	afterFull        bool
	// relatives are the given names of relatives the chunk names after a
	// kinship word and also writes as a subject (relativesNamed).
	relatives map[string]bool
}

// relativesNamed returns the two-character names the text writes after a
// kinship word ("敬修孙同敞请复武荫") that also open a clause as its subject
// ("同敞负志节"): relatives the text goes on to tell of. The entry's
// person and his given name are not among them.
func (hz *han) relativesNamed(text, entry string) map[string]bool {
	_, g := hz.surname(entry)
	out := map[string]bool{}
	for _, w := range kinNamedIn(text, hz.kinIdx) {
		if out[w] || w == g || strings.Contains(entry, w) || !nameLike(w) {
			continue
		}
		for i := strings.Index(text, w); i >= 0; {
			r, _ := utf8.DecodeLastRuneInString(text[:i])
			next, _ := utf8.DecodeRuneInString(text[i+len(w):])
			if (i == 0 || strings.ContainsRune("，。；\n", r)) && next != '，' && next != '、' && next != '。' && next != utf8.RuneError {
				out[w] = true
				break
			}
			j := strings.Index(text[i+len(w):], w)
			if j < 0 {
				break
			}
			i += len(w) + j
		}
	}
	return out
}

// hanSections splits text by the person it talks about. In an entry chunk
// the text before the first header is the entry's, or the sub-entry's
// person's when the chunk begins one (sub); in a continuation chunk
// (begins false) that text is inherited: the entry's person is assumed, not
// introduced; a header at a line
// start (a relative's sub-entry) runs to the next header; a header inside a
// paragraph (a relative introduced in passing, "父子祺，名寿昌，以字行")
// runs to the end of its paragraph, after which the text is again the
// enclosing person's. Outside entries only a header's own paragraph is
// attributed.
func (hz *han) hanSections(text, entry, sub string, begins bool, headers []hanHeader) []section {
	var out []section
	first := len(text)
	if len(headers) > 0 {
		first = headers[0].at
	}
	outer := section{head: entry, full: entry != "", inherited: entry != "" && !begins}
	if sub != "" {
		outer = section{head: sub, full: hz.fullSub(sub, entry)}
	}
	if outer.head != "" && first > 0 {
		out = append(out, section{start: 0, end: first, head: outer.head, full: outer.full, inherited: outer.inherited})
	}
	for i := range headers {
		h := &headers[i]
		next := len(text)
		if i+1 < len(headers) {
			next = headers[i+1].at
		}
		end := next
		if entry == "" || !h.lineStart {
			if nl := strings.IndexByte(text[h.at:], '\n'); nl >= 0 && h.at+nl < end {
				end = h.at + nl
			}
		}
		if h.head, h.kin, _ = hz.resolveHead(h.body, entry, sub, text[:h.at]); h.unnamed {
			h.head, h.kin = "", ""
		}
		if entry != "" && hz.namedBy(headers[:i], entry, h.body) {
			// "詹枚妻王，名贞仪……；贞仪，泗州人": a name the entry's
			// opening gave its person.
			h.head, h.kin = entry, ""
		}
		full := h.head != "" && (h.head == entry || h.head != trimBody(h.body) ||
			utf8.RuneCountInString(h.head) >= 3)
		if h.head != "" && h.head == sub {
			full = hz.fullSub(sub, entry)
		}
		h.full = full
		sec := section{start: h.at, end: end, head: h.head, full: full, hdr: h}
		out = append(out, sec)
		if h.lineStart && entry != "" {
			outer = sec
		}
		if end < next && outer.head != "" {
			out = append(out, section{start: end, end: next, head: outer.head, full: outer.full, inherited: outer.inherited})
		}
	}
	return out
}

// namedBy reports whether one of the headers, about the entry's person,
// gave him the name body (名贞仪, 初名…).
func (hz *han) namedBy(headers []hanHeader, entry, body string) bool {
	for _, o := range headers {
		if o.head != entry {
			continue
		}
		for _, c := range o.clauses {
			if (c.kind == "ming" || c.kind == "xiaozi") && c.val == body {
				return true
			}
		}
	}
	return false
}

// fullSub reports whether a sub-entry's person is named in full, so his
// relatives' given names can take his surname: a name of three
// characters or more, or one with the entry's surname. A two-character
// name may be a given name written alone ("德懋").
func (hz *han) fullSub(sub, entry string) bool {
	if utf8.RuneCountInString(sub) >= 3 {
		return true
	}
	sur, _ := hz.surname(entry)
	return sur != "" && utf8.RuneCountInString(sub) == 2 && strings.HasPrefix(sub, sur)
}

// sectionAt returns the section containing byte offset b.
func sectionAt(secs []section, b int) *section {
	for i := range secs {
		if b >= secs[i].start && b < secs[i].end {
			return &secs[i]
		}
	}
	return nil
}

// hanEnds end the sentences factkit.FindAll scans; no classical-Chinese pattern
// matches across them.
const hanEnds = "。\n"

// hanEndSet holds hanEnds. sentenceEnds end a sentence; stops end a
// sentence or the part of one a semicolon ends; clauseEnds end a clause.
var (
	hanEndSet    = factkit.NewRuneSet(hanEnds)
	sentenceEnds = factkit.NewRuneSet("。；！？\n")
	stops        = factkit.NewRuneSet("。；\n")
	clauseEnds   = factkit.NewRuneSet("，。；\n")
)

const clauseBoundaries = "，。；：！？、\n 　"

var clauseBoundarySet = factkit.NewRuneSet(clauseBoundaries)

// clauseStart returns the offset where the clause containing b begins,
// not before lo.
func clauseStart(text string, b, lo int) int {
	i := clauseBoundarySet.LastIndex(text[lo:b])
	if i < 0 {
		return lo
	}
	_, size := utf8.DecodeRuneInString(text[lo+i:])
	return lo + i + size
}

// sentenceStart returns the offset where the sentence containing b begins.
func sentenceStart(text string, b, lo int) int {
	i := sentenceEnds.LastIndex(text[lo:b])
	if i < 0 {
		return lo
	}
	_, size := utf8.DecodeRuneInString(text[lo+i:])
	return lo + i + size
}

// ownClause reports whether the words between a clause boundary and a
// pattern leave the subject to be the head: nothing, the head's name, time
// words and adverbs. "慎行已先卒" names another subject; "寻擢" does not.
func (hz *han) ownClause(p, head string) bool {
	p = strings.TrimSpace(p)
	if head != "" {
		if i := strings.Index(p, head); i > 0 && utf8.RuneCountInString(p[:i]) <= 2 && nameLike(p[:i]) &&
			utf8.RuneCountInString(head) >= 2 {
			// "襄阳任亨泰亦举…": his place before his name.
			p = p[i:]
		}
		if rest, ok := strings.CutPrefix(p, head); ok {
			p = rest
		} else if _, g := hz.surname(head); g != "" && strings.HasPrefix(p, g) {
			p = p[len(g):]
		}
	}
	for p != "" {
		if loc := hz.times.of(p).FindStringIndex(p); loc != nil && loc[1] > 0 {
			p = p[loc[1]:]
			continue
		}
		found := false
		for _, w := range ownClauseWords {
			if rest, ok := strings.CutPrefix(p, w); ok {
				p, found = rest, true
				break
			}
		}
		if !found {
			// "以进士授行人", "由工部主事历官…": the standing he was
			// appointed from, right before the verb.
			return reQualLead.MatchString(p)
		}
	}
	return true
}

// reQualLead is the standing a person is appointed from, written before
// the appointment verb: "以进士", "以荫", "由乡举", "由广东副使", "自工部侍郎"
// (进尚书).
var reQualLead = mustFiltered(`^(?:以|由|自)[^，。；、之其者也所为与及帝上]{1,5}$`)

// foreignSentence reports whether the sentence before b has a subject other
// than head: a relative ("父复，宣德中进士") or another person's header.
func (hz *han) foreignSentence(text string, b int, s *section) bool {
	ss := sentenceStart(text, b, s.start)
	sent := strings.TrimLeft(text[ss:b], " 　")
	// The header's own sentence ("子琮，字季玉，…") is about the head, as is
	// a sentence that names him after a kinship word ("子恭，举人" in 陈恭's
	// sub-entry).
	own := s.hdr != nil && ss == s.hdr.at || hz.kinNamesHead(sent, s.head)
	if !own && (hz.reSentKin.MatchString(sent) || reSuccession.MatchString(sent)) {
		return true
	}
	_, g := hz.surname(s.head)
	if m := reSentZi.FindStringSubmatch(sent); !own && m != nil && m[1] != s.head && m[1] != g {
		return true
	}
	if !own {
		for n := range s.others {
			if n != g && !strings.HasPrefix(s.head, n) && strings.HasPrefix(sent, n) {
				return true
			}
		}
		if hz.namedEarlier(text[s.start:ss], sent, s.head) {
			return true
		}
	}
	// "鸿儒遂先期反，自号…": an earlier clause of the sentence names its
	// own subject before an adverb; the last such subject holds.
	if ms := reClauseSubject.FindAllStringSubmatch(sent, -1); ms != nil {
		if subj := ms[len(ms)-1][1]; subj != s.head && subj != g && !hz.ownClause(subj, s.head) && !sovereign(subj) {
			return true
		}
	}
	return hz.foreignPrevious(text, b, s)
}

// namedEarlier reports whether sent opens with the given name of another
// person whom the text before it wrote in full: "胤衡，万历中进士" after "与
// 乡官杨所修、洪胤衡…共城守" is about 洪胤衡. The word must stand as the
// sentence's subject (a comma follows it) and be neither the head nor the
// head's given name.
func (hz *han) namedEarlier(before, sent, head string) bool {
	w, _, ok := strings.Cut(sent, "，")
	if !ok || utf8.RuneCountInString(w) != 2 || !nameLike(w) {
		return false
	}
	if _, g := hz.surname(head); w == head || w == g || strings.HasSuffix(head, w) {
		return false
	}
	for i := strings.Index(before, w); i >= 0; {
		if r, size := utf8.DecodeLastRuneInString(before[:i]); size > 0 {
			if sur, given := hz.surname(string(r) + w); sur != "" && given == w {
				return true
			}
		}
		j := strings.Index(before[i+len(w):], w)
		if j < 0 {
			break
		}
		i += len(w) + j
	}
	return false
}

// kinNamesHead reports whether sent opens with a kinship word and the
// head's given name or name: the relative it speaks of is the head.
func (hz *han) kinNamesHead(sent, head string) bool {
	k, rest, _ := hz.cutKin(sent)
	if k == "" || head == "" {
		return false
	}
	_, g := hz.surname(head)
	return strings.HasPrefix(rest, head) || g != "" && strings.HasPrefix(rest, g)
}

// sovereign reports whether a subject is the emperor or an empress
// ("成祖即位", "帝遂擢…"): they act on the head, so they do not take the
// sentence from him.
func sovereign(subj string) bool {
	if sovereignWords[subj] {
		return true
	}
	last, _ := utf8.DecodeLastRuneInString(subj)
	return strings.ContainsRune("宗祖帝后", last) || strings.HasPrefix(subj, "帝")
}

// sovereignWords are the subjects that are the emperor or the court
// whatever they end with ("天子", "廷议").
var sovereignWords = wordSet("sovereign_words")

// foreignPrevious reports whether the sentence before the one containing b
// made an heir or a relative the subject. A sentence without a subject
// continues the previous one's, so after "弟康王季埱嗣。" a bare "天顺六年
// 薨" is the heir's.
func (hz *han) foreignPrevious(text string, b int, s *section) bool {
	ss := sentenceStart(text, b, s.start)
	if ss <= s.start {
		return false
	}
	ps := sentenceStart(text, ss-1, s.start)
	if s.hdr != nil && ps == s.hdr.at {
		return false
	}
	prev := strings.TrimLeft(text[ps:ss], " 　")
	if hz.kinNamesHead(prev, s.head) {
		return false
	}
	// After "刚中，字九如。" (another person, introduced by the given name
	// of a full name written earlier) a sentence without a subject goes on
	// about him: "崇祯七年进士" is 马刚中's, not the entry's.
	cur := strings.TrimLeft(text[ss:b], " 　")
	_, g := hz.surname(s.head)
	if m := reSentZi.FindStringSubmatch(prev); m != nil && m[1] != s.head && m[1] != g ||
		hz.namedEarlier(text[s.start:ps], prev, s.head) {
		return !strings.HasPrefix(cur, s.head) && (g == "" || !strings.HasPrefix(cur, g))
	}
	if reSuccession.MatchString(prev) {
		return true
	}
	if !hz.reSentKin.MatchString(prev) {
		return false
	}
	// After "父复，宣德中进士及第。" a sentence without a subject goes on
	// about the father; one that names the head ("向高甫妊") returns to him.
	return !strings.HasPrefix(cur, s.head) && (g == "" || !strings.HasPrefix(cur, g))
}

// attributable returns the section of a narrative match at [start, …) when
// its subject is the section's head, else nil.
func (hz *han) attributable(text string, secs []section, start int) *section {
	s := sectionAt(secs, start)
	if s == nil || s.head == "" {
		return nil
	}
	if !hz.ownClause(text[clauseStart(text, start, s.start):start], s.head) || hz.foreignSentence(text, start, s) ||
		hz.relativeParagraph(text, start, s) {
		return nil
	}
	return s
}

// namesRelative reports whether s opens with the name of one of the
// section's relatives.
func (hz *han) namesRelative(s string, sec *section) bool {
	for n := range sec.relatives {
		if strings.HasPrefix(s, n) {
			return true
		}
	}
	return false
}

// relativeParagraph reports whether the paragraph holding b opens with a
// relative as its subject ("同敞负志节，感帝恩，益自奋。……擢兵部右侍郎")
// and no sentence of it before b returns to the head by name: the
// paragraph tells of the relative.
func (hz *han) relativeParagraph(text string, b int, s *section) bool {
	ps := s.start
	if i := strings.LastIndexByte(text[s.start:b], '\n'); i >= 0 {
		ps = s.start + i + 1
	}
	if s.hdr != nil && ps <= s.hdr.at || !hz.namesRelative(text[ps:b], s) {
		return false
	}
	_, g := hz.surname(s.head)
	for _, sent := range strings.Split(text[ps:b], "。") {
		if strings.HasPrefix(sent, s.head) || g != "" && strings.HasPrefix(sent, g) {
			return false
		}
	}
	return true
}

// Confidence of hand-made patterns: header clauses are the most regular
// writing in the corpus; narrative patterns depend on the subject being
// the head, which the clause checks only approximate.
const (
	confHeader    = 0.95
	confPlace     = 0.9
	confAlias     = 0.85
	confJinshi    = 0.9
	confOffice    = 0.8
	confDeath     = 0.8
	confRelative  = 0.8
	confMention   = 1.0
	confNarrative = 0.75
)

// extractHan applies the classical-Chinese patterns to text. entry is the
// person the chunk's entry is about ("" outside entries), sub the person
// whose sub-entry the chunk begins ("" if none): the chunk's opening text
// is about sub, who is mentioned in it. begins says the chunk begins the
// entry. It returns the facts and the
// sections, which LLM-synthesised regexes reuse to attribute their
// matches.
func (hz *han) extractHan(text, entry, sub string, begins bool) ([]factkit.Fact, []section) {
	headers := hz.parseHeaders(text)
	if h, ok := hz.subHeader(text, sub); ok {
		switch {
		case len(headers) == 0 || headers[0].at > h.at:
			headers = append([]hanHeader{h}, headers...)
		case headers[0].at == h.at && headers[0].head != sub:
			// "郎中胡琏，字重器": the chunker has read the person's name
			// out of the words that introduce him.
			headers[0] = h
		}
	}
	// A relative's paragraph the chunk already begins as his sub-entry
	// ("子恭，举人" of 陈恭) needs no header of its own; a sentence whose
	// opening words the name judge does not take for a name introduces no
	// one (persons.go).
	nr := &nameReader{hz: hz, text: text}
	headers = slices.DeleteFunc(headers, func(h hanHeader) bool {
		_, ok := hz.namesSub(h.body, sub)
		return len(h.clauses) == 0 && ok
	})
	for i := 0; i < len(headers); {
		named, clause := hz.headerNamed(nr, &headers[i], entry, sub)
		switch {
		case named:
		case clause:
			headers = slices.Delete(headers, i, i+1)
			continue
		default:
			headers[i].unnamed = true
		}
		i++
	}
	secs := hz.splitSuccessions(text, entry, hz.hanSections(text, entry, sub, begins, headers))
	kins := hz.kinNames(text)
	others := map[string]bool{}
	for _, k := range kins {
		others[k.name] = true
	}
	for _, h := range headers {
		if h.head != "" && h.head != entry {
			others[trimBody(h.body)] = true
		}
	}
	for _, s := range secs {
		if s.kin != "" {
			others[s.hdr.body] = true
		}
	}
	rels := hz.relativesNamed(text, entry)
	for n := range rels {
		others[n] = true
	}
	for i := range secs {
		secs[i].others = others
		secs[i].relatives = rels
	}
	var facts []factkit.Fact
	add := func(f factkit.Fact) {
		if f.HeadType == "" {
			f.HeadType = schemas.EntityPerson
		}
		if f.Method == "" {
			f.Method = factkit.MethodRegex
		}
		facts = append(facts, f)
	}
	if entry != "" {
		s, e := hz.mentionSpan(text, entry)
		add(factkit.Fact{Head: entry, Relation: schemas.RelMention, Start: s, End: e, Pattern: "han.mention", Confidence: confMention})
	}
	if sub != "" && sub != entry && !slices.ContainsFunc(headers, func(h hanHeader) bool { return h.head == sub }) {
		s, e := hz.mentionSpan(text, sub)
		add(factkit.Fact{Head: sub, Relation: schemas.RelMention, Start: s, End: e, Pattern: "han.mention.sub_entry", Confidence: confMention})
	}
	for i := range headers {
		h := &headers[i]
		if h.head == "" {
			continue
		}
		if h.head != entry {
			add(factkit.Fact{Head: h.head, Relation: schemas.RelMention, Start: h.at, End: h.bodyEnd,
				Pattern: "han.mention", Confidence: confMention})
			if h.kin != "" && entry != "" {
				add(factkit.Fact{Head: entry, Relation: schemas.RelRelative, Tail: h.head, TailType: schemas.EntityPerson,
					Qualifiers: map[string]string{"kin": h.kin}, Start: h.at, End: h.bodyEnd,
					Pattern: "han.header.kin", Confidence: confRelative})
			}
		}
		hz.headerFacts(text, h, add)
	}
	for _, s := range secs {
		if s.kin == "" || s.head == "" {
			continue
		}
		add(factkit.Fact{Head: s.head, Relation: schemas.RelMention, Start: s.start, End: s.hdr.bodyEnd,
			Pattern: "han.mention.heir", Confidence: confMention})
		if s.pred != "" {
			add(factkit.Fact{Head: s.pred, Relation: schemas.RelRelative, Tail: s.head, TailType: schemas.EntityPerson,
				Qualifiers: map[string]string{"kin": s.kin, "succession": "1"}, Start: s.start, End: s.hdr.bodyEnd,
				Pattern: "han.succession", Confidence: confRelative})
		}
	}
	hz.jinshiFacts(text, secs, add)
	hz.officeFacts(text, secs, add)
	hz.deathFacts(text, secs, add)
	hz.kinFacts(text, entry, secs, kins, add)
	for _, m := range factkit.FindAll(reSelfHao, text, hanEndSet, "自号") {
		if s := hz.attributable(text, secs, m[0]); s != nil {
			add(factkit.Fact{Head: s.head, Relation: schemas.RelArtName, Tail: text[m[2]:m[3]], TailType: schemas.EntityName,
				Qualifiers: map[string]string{"form": "自号"}, Start: m[0], End: m[3],
				Pattern: "han.art_name.self", Confidence: confNarrative})
		}
	}
	return facts, secs
}

// subHeader reads the opening of a chunk that begins sub's sub-entry when
// the chunker's name for him vouches for words the header rules alone
// would not take for a name: a given name that ends like a time or begins
// like a formula ("允中，太原人" of 杨允中, "名儒，真定人" of 贾名儒), or a
// full stop written for the comma before the courtesy name ("王准。字子推").
func (hz *han) subHeader(text, sub string) (hanHeader, bool) {
	if sub == "" {
		return hanHeader{}, false
	}
	at := len(text) - len(strings.TrimLeft(text, " 　\t\n"))
	if first := text[at:]; !strings.HasPrefix(first, sub) {
		// "以地震言事者，又有邓洪震，宣化人": the sentence says who he was,
		// then names him (the chunker began his text at the sentence).
		if e := stops.Index(first); e >= 0 {
			first = first[:e]
		}
		if q := strings.Index(first, sub+"，"); q > 0 {
			if r, _ := utf8.DecodeLastRuneInString(first[:q]); strings.ContainsRune("者有，", r) {
				at += q
			}
		}
	}
	end := clauseEnds.Index(text[at:])
	if end <= 0 {
		return hanHeader{}, false
	}
	bodyEnd := at + end
	body := text[at:bodyEnd]
	if _, ok := hz.namesSub(body, sub); !ok || utf8.RuneCountInString(body) > 4 && !strings.HasSuffix(body, sub) {
		return hanHeader{}, false
	}
	rest := text[bodyEnd:]
	switch {
	case strings.HasPrefix(rest, "，"):
	case strings.HasPrefix(rest, "。字"), strings.HasPrefix(rest, "。名"):
	default:
		return hanHeader{}, false
	}
	restStart := bodyEnd + len("，")
	restEnd := len(text)
	if j := stops.Index(text[restStart:]); j >= 0 {
		restEnd = restStart + j
	}
	return hz.parseHeader(text, at, bodyEnd, restStart, restEnd, true)
}

// mentionSpan is the first place the person's name (or given name)
// occurs, or an empty span at the start. A one-character given name is
// looked for only at the start of the text, where a sub-entry writes it
// ("琰，举人"): elsewhere it is too often another word.
func (hz *han) mentionSpan(text, name string) (int, int) {
	if i := strings.Index(text, name); i >= 0 {
		return i, i + len(name)
	}
	_, g := hz.surname(name)
	switch n := utf8.RuneCountInString(g); {
	case n >= 2:
		if i := strings.Index(text, g); i >= 0 {
			return i, i + len(g)
		}
	case n == 1:
		lead := len(text) - len(strings.TrimLeft(text, " 　\t\n"))
		if strings.HasPrefix(text[lead:], g) {
			return lead, lead + len(g)
		}
	}
	return 0, 0
}

func (hz *han) headerFacts(text string, h *hanHeader, add func(factkit.Fact)) {
	sur, given := hz.surname(h.head)
	for _, c := range h.clauses {
		switch c.kind {
		case "zi":
			add(factkit.Fact{Head: h.head, Relation: schemas.RelCourtesyName, Tail: c.val, TailType: schemas.EntityName,
				Start: c.start, End: c.end, Pattern: "han.header.courtesy_name", Confidence: confHeader})
		case "hao":
			add(factkit.Fact{Head: h.head, Relation: schemas.RelArtName, Tail: c.val, TailType: schemas.EntityName,
				Start: c.start, End: c.end, Pattern: "han.header.art_name", Confidence: confHeader})
		case "ming", "xiaozi":
			tail := c.val
			if c.kind == "ming" && sur != "" && utf8.RuneCountInString(c.val) <= 2 && !strings.HasPrefix(c.val, sur) && h.full {
				tail = sur + c.val
			}
			if tail == h.head {
				continue
			}
			add(factkit.Fact{Head: h.head, Relation: schemas.RelAlias, Tail: tail, TailType: schemas.EntityName,
				Qualifiers: map[string]string{"kind": c.word, "as_written": c.val}, Start: c.start, End: c.end,
				Pattern: "han.header.alias", Confidence: confAlias})
		case "yizixing":
			// "吴伯宗，名祐，以字行": he went by his courtesy name, the
			// given name of the header. After "字原礼" (戴思恭，字原礼，
			// 浦江人，以字行) it is the courtesy name given that he went by;
			// a 字 after it (文徵明，…以字行，更字徵仲) is a later one.
			hasZi := slices.ContainsFunc(h.clauses, func(o hanClause) bool { return o.kind == "zi" && o.start < c.start })
			// A head not known to be a full name may be a given name
			// alone ("嘉猷名升，以字行" of 林嘉猷): its surname is unknown.
			if sur != "" && given != "" && !hasZi && h.full {
				add(factkit.Fact{Head: h.head, Relation: schemas.RelCourtesyName, Tail: given, TailType: schemas.EntityName,
					Qualifiers: map[string]string{"note": "以字行"}, Start: h.at, End: c.end,
					Pattern: "han.header.courtesy_name", Confidence: confAlias})
			}
		case "office":
			q := map[string]string{"verb": "也"}
			if c.word != "" {
				q = map[string]string{"verb": "知", "place": c.word}
			}
			add(factkit.Fact{Head: h.head, Relation: schemas.RelOffice, Tail: c.val, TailType: schemas.EntityOffice,
				Qualifiers: q, Start: c.start, End: c.end, Pattern: "han.header.office", Confidence: confOffice})
		case "place":
			q := map[string]string(nil)
			if c.word != "" {
				q = map[string]string{"ancestral": c.word}
			}
			add(factkit.Fact{Head: h.head, Relation: schemas.RelNativePlace, Tail: c.val, TailType: schemas.EntityPlace,
				Qualifiers: q, Start: c.start, End: c.end, Pattern: "han.header.native_place", Confidence: confPlace})
		}
	}
}

func (hz *han) jinshiFacts(text string, secs []section, add func(factkit.Fact)) {
	for _, m := range factkit.FindAll(hz.jinshis, text, hanEndSet, "进士", "试第") {
		s := hz.attributable(text, secs, m[0])
		if s == nil {
			continue
		}
		era, year, exam := text[m[2]:m[3]], text[m[4]:m[5]], text[m[6]:m[7]]
		if hz.givenNameAsEra(s.head, era) || hz.namedDegree(text, m[0], s) {
			continue
		}
		q := map[string]string{"era": era}
		tail := era + year
		switch year {
		case "中", "末", "初":
			q["approx"] = year
		}
		q["year"] = tail
		rank := strings.TrimPrefix(exam, "进士")
		rank = strings.TrimSuffix(rank, "人")
		if rank != "" {
			if !strings.HasPrefix(exam, "进士") {
				rank = strings.TrimSuffix(exam, "人")
			}
			q["rank"] = rank
		}
		conf := confJinshi
		if q["approx"] != "" {
			conf = confNarrative
		}
		add(factkit.Fact{Head: s.head, Relation: schemas.RelJinshi, Tail: tail, TailType: schemas.EntityTime, Qualifiers: q,
			Start: m[0], End: m[1], Pattern: "han.jinshi", Confidence: conf})
	}
}

// namedDegree reports whether the degree at b is given in a paragraph
// that opens with another person's name and the degree straight after it:
// "平定郗夔，弘治十五年进士" (a place and a name) in another's entry. The
// head's own header sentence, his name and given name are his; inside a
// paragraph the words before the comma are too often a clause ("年十九，举
// 万历五年进士").
func (hz *han) namedDegree(text string, b int, s *section) bool {
	ss := sentenceStart(text, b, s.start)
	if s.hdr != nil && ss == s.hdr.at || ss > 0 && text[ss-1] != '\n' {
		return false
	}
	w, rest, ok := strings.Cut(strings.TrimLeft(text[ss:b], " 　"), "，")
	if !ok || strings.TrimLeft(rest, "举登成中") != "" || utf8.RuneCountInString(w) < 2 || !nameLike(w) ||
		hz.timeLead(w) {
		return false
	}
	_, g := hz.surname(s.head)
	return !strings.HasPrefix(w, s.head) && (g == "" || !strings.HasPrefix(w, g)) && !strings.HasSuffix(s.head, w) &&
		!(utf8.RuneCountInString(s.head) >= 2 && strings.HasSuffix(w, s.head)) && !sovereign(w)
}

// officeFacts finds "verb + office" phrases. The verb may be followed by the
// name of the person promoted ("擢向高礼部尚书"), which is skipped; the
// office is the longest plausible office phrase after it, and the search
// resumes after that phrase so "授庶吉士进编修" yields both offices.
func (hz *han) officeFacts(text string, secs []section, add func(factkit.Fact)) {
	for pos := 0; pos < len(text); {
		// Find the next character that can begin a verb, then match the
		// anchored pattern there, on a window of a few dozen characters.
		i := officeVerbStarts.Index(text[pos:])
		if i < 0 {
			return
		}
		pos += i
		window := text[pos:min(len(text), pos+officeWindow)]
		loc := officeAt(window)
		if loc == nil {
			_, size := utf8.DecodeRuneInString(text[pos:])
			pos += size
			continue
		}
		for i := range loc {
			loc[i] += pos
		}
		verb := text[loc[2]:loc[3]]
		runStart, run := loc[4], text[loc[4]:loc[5]]
		pos = loc[3]
		if verb == "官" || verb == "为" {
			// "子如法，官刑部主事", "为礼部侍郎": 官 and 为 alone are the
			// verb only opening a clause; elsewhere they are words ("百官",
			// "以为").
			if r, _ := utf8.DecodeLastRuneInString(text[:loc[0]]); loc[0] > 0 && !strings.ContainsRune("，。；\n", r) {
				continue
			}
		}
		s := hz.attributable(text, secs, loc[0])
		if s == nil {
			continue
		}
		skip := 0
		if rest, ok := strings.CutPrefix(run, s.head); ok {
			skip = len(run) - len(rest)
		} else if _, g := hz.surname(s.head); g != "" && strings.HasPrefix(run, g) {
			skip = len(g)
		}
		for _, w := range []string{"亦", "终", "为", "至"} {
			if strings.HasPrefix(run[skip:], w) {
				skip += len(w)
			}
		}
		if hz.namesRelative(run[skip:], s) {
			// "改同敞尚宝卿": the office is the relative's, named after
			// the verb.
			continue
		}
		office := hz.longestOffice(run[skip:])
		if office == "" {
			continue
		}
		end := runStart + skip + len(office)
		if verb == "为" && strings.ContainsRune("所者之", firstRune(text[end:])) {
			// "为御史所劾": the office is the agent's, not his.
			continue
		}
		head, pattern := s.head, "han.office"
		if verb == "为" {
			if agent, ok := hz.passiveAgent(text[end:]); ok {
				// "为给事中李侃、御史张奎所劾": the title is the agent's.
				if agent == "" {
					continue
				}
				head, pattern = agent, "han.office.passive_agent"
			}
		}
		if head == s.head {
			if head, pattern = hz.subjectOf(text, loc[0], s, pattern); head == "" {
				continue
			}
		}
		add(factkit.Fact{Head: head, Relation: schemas.RelOffice, Tail: office, TailType: schemas.EntityOffice,
			Qualifiers: map[string]string{"verb": verb}, Start: loc[0], End: end,
			Pattern: pattern, Confidence: confOffice})
		pos = end
	}
}

// officeWindow bounds the text after a verb that officeAt looks at: the
// longest verb and 20 Han characters, in bytes.
const officeWindow = 6 + 20*4

// officeVerbs are the verbs that make a person an office holder, in the
// order officeAt tries them; officeVerbStarts are their first characters.
var (
	officeVerbs      = wordList("office_verbs")
	officeVerbStarts = indexByFirstRune(officeVerbs, func(v string) string { return v }).first
)

// officeAt returns the submatches of `^(verb|…)(\p{Han}{1,20})` in s, the
// verbs those of officeVerbs, as the regexp's FindStringSubmatchIndex
// does: the first verb s begins with that a Han character follows, and
// the run of Han characters after it, 20 at most; nil if there is none.
func officeAt(s string) []int {
	for _, v := range officeVerbs {
		if !strings.HasPrefix(s, v) {
			continue
		}
		end := len(v)
		for n := 0; n < 20 && end < len(s); n++ {
			r, size := utf8.DecodeRuneInString(s[end:])
			if !unicode.Is(unicode.Han, r) {
				break
			}
			end += size
		}
		if end > len(v) {
			return []int{0, end, 0, len(v), len(v), end}
		}
	}
	return nil
}

func officeVerbStart(r rune) bool { return officeVerbStarts.Has(r) }

// longestOffice returns the longest prefix of run that is an office
// phrase, or "".
func (hz *han) longestOffice(run string) string {
	// No office title contains a banned character: cut there first.
	if i := officeBannedSet.Index(run); i >= 0 {
		run = run[:i]
	}
	for end := len(run); end > 0; {
		if hz.officePhrase(run[:end]) {
			return run[:end]
		}
		_, size := utf8.DecodeLastRuneInString(run[:end])
		end -= size
	}
	return ""
}

func (hz *han) deathFacts(text string, secs []section, add func(factkit.Fact)) {
	// A person dies once: after the text has told the head's death ("守
	// 仁既卒"), a death without a named subject is someone else's ("生子正
	// 亿……隆庆初，袭新建伯。万历五年卒" is the son's).
	died := func(s *section, at int) bool {
		before := text[s.start:at]
		_, g := hz.surname(s.head)
		for _, n := range []string{s.head, g} {
			if utf8.RuneCountInString(n) < 2 {
				continue
			}
			for _, w := range afterDeathWords {
				if strings.Contains(before, n+w) {
					return true
				}
			}
		}
		return false
	}
	for _, m := range factkit.FindAll(hz.deathScan, text, hanEndSet, "卒", "薨") {
		timeS, placeS, ageS := sub(text, m, 1), sub(text, m, 3), sub(text, m, 4)
		start := m[0]
		if timeS == "" && ageS == "" {
			// "十年，卒于官": the time may be the clause just before.
			timeS, start = hz.timeBefore(text, m[0])
			if timeS == "" {
				continue
			}
		}
		if ageS == "" {
			// "卒" must end its word: not "卒不能" (finally), "卒伍" (soldiers).
			after := m[5]
			if placeS != "" {
				after = m[7]
			}
			if after < len(text) {
				if r, _ := utf8.DecodeRuneInString(text[after:]); !strings.ContainsRune("，。；、\n 　官", r) {
					continue
				}
			}
		}
		s := hz.attributable(text, secs, m[0])
		if s == nil || died(s, start) {
			continue
		}
		if timeS != "" && hz.givenNameAsEra(s.head, timeS) {
			continue
		}
		if timeS != "" && hz.duration(text[clauseStart(text, start, s.start):start], timeS) {
			// "又二年卒" is two years later, not the second year of an era.
			if timeS = ""; ageS == "" {
				continue
			}
		}
		head, pattern := hz.subjectOf(text, m[0], s, "han.death")
		if head == "" {
			continue
		}
		for _, f := range deathFacts(head, timeS, placeS, ageS, start, m[1], pattern) {
			add(f)
		}
	}
	for _, m := range factkit.FindAll(reDeathB, text, hanEndSet, "卒", "薨") {
		s := hz.attributable(text, secs, m[0])
		if s == nil || died(s, m[0]) {
			continue
		}
		head, pattern := hz.subjectOf(text, m[0], s, "han.death.age")
		if head == "" {
			continue
		}
		for _, f := range deathFacts(head, "", sub(text, m, 3), sub(text, m, 1), m[0], m[1], pattern) {
			add(f)
		}
	}
}

// afterDeathWords, after a person's name, say the text has told his
// death ("守仁既卒").
var afterDeathWords = wordList("after_death_words")

// givenNameAsEra reports whether a date opens with the head's given name
// where an era name would stand: "天和初举进士" in 刘天和's entry is "(天和)
// at first passed", not the 天和 era of the Northern Zhou. The era table
// holds hundreds of names, some of them given names too.
func (hz *han) givenNameAsEra(head, date string) bool {
	_, g := hz.surname(head)
	return g != "" && strings.HasPrefix(date, g) && slices.Contains(hz.eras, g)
}

// duration reports whether a year without an era counts years from an
// earlier event: "又二年", "居三年", "一年" (the first year of an era is 元年).
func (hz *han) duration(prefix, t string) bool {
	for _, e := range hz.eras {
		if strings.HasPrefix(t, e) {
			return false
		}
	}
	if strings.HasPrefix(t, "一年") {
		return true
	}
	for _, w := range durationLeads {
		if strings.HasSuffix(prefix, w) {
			return true
		}
	}
	return false
}

// durationLeads, right before a year without an era, make it a count of
// years from an earlier event.
var durationLeads = wordList("duration_leads")

// timeBefore returns the clause ending with "，" just before b when it is a
// time expression alone, and where it starts.
func (hz *han) timeBefore(text string, b int) (string, int) {
	if !strings.HasSuffix(text[:b], "，") {
		return "", b
	}
	end := b - len("，")
	start := clauseStart(text, end, 0)
	t := text[start:end]
	if hz.times.of(t).matchesAll(t) {
		return t, start
	}
	return "", b
}

// deathFacts are the facts of one death clause: the death itself when the
// clause gives its time ("万历五年卒", qualified by the place and the age),
// and the age at death as a relation of its own ("卒，年七十一"), qualified
// by the time. An age is never a death's tail: it is not a date.
func deathFacts(head, timeS, placeS, ageS string, start, end int, pattern string) []factkit.Fact {
	var out []factkit.Fact
	if timeS != "" {
		q := map[string]string{"time": timeS}
		if ageS != "" {
			q["age"] = ageS
		}
		if placeS != "" {
			q["place"] = placeS
		}
		out = append(out, factkit.Fact{Head: head, Relation: schemas.RelDeath, Tail: timeS, TailType: schemas.EntityTime, Qualifiers: q,
			Start: start, End: end, Pattern: pattern, Confidence: confDeath})
	}
	if ageS != "" {
		q := map[string]string{}
		if timeS != "" {
			q["time"] = timeS
		}
		if placeS != "" {
			q["place"] = placeS
		}
		out = append(out, factkit.Fact{Head: head, Relation: schemas.RelDeathAge, Tail: ageS, TailType: schemas.EntityValue, Qualifiers: q,
			Start: start, End: end, Pattern: strings.TrimSuffix(pattern, ".age") + ".age", Confidence: confDeath})
	}
	return out
}

// kinName is a relative named after a kinship word: "父朝荣", and each of
// "子用懋、用嘉".
type kinName struct {
	kin, name  string
	start, end int
}

// kinNames finds the relatives a text names at sentence starts.
func (hz *han) kinNames(text string) []kinName {
	var out []kinName
	ok := func(name string) bool {
		return !kinNameStopSet.In(name) && !strings.ContainsRune(kinNameFirstStop, firstRune(name))
	}
	for _, m := range factkit.FindAll(hz.kinOpenings, text, hanEndSet, "父", "子", "弟", "兄") {
		kin, name := text[m[2]:m[3]], text[m[4]:m[5]]
		for _, w := range []string{"名", "讳"} {
			// "次子名琬", "父讳铨": the kinship word, then the name.
			if rest, found := strings.CutPrefix(name, w); found && rest != "" {
				name = rest
			}
		}
		if !ok(name) {
			continue
		}
		out = append(out, kinName{kin, name, m[2], m[5]})
		for at := m[5]; ; {
			more := reKinMore.FindStringSubmatchIndex(text[at:])
			if more == nil || !ok(text[at+more[2]:at+more[3]]) {
				break
			}
			out = append(out, kinName{kin, text[at+more[2] : at+more[3]], at + more[2], at + more[3]})
			at += more[3]
		}
	}
	return out
}

// kinFacts adds the relatives named after kinship words, as relatives of
// the person the text is about there. A sub-entry that opens with its own
// kinship word ("子恭，举人") names the sub-entry's person: the fact is
// then the entry's person's relative.
func (hz *han) kinFacts(text, entry string, secs []section, kins []kinName, add func(factkit.Fact)) {
	for _, k := range kins {
		s := sectionAt(secs, k.start)
		if s == nil || s.head == "" || (s.hdr != nil && k.start >= s.hdr.at && k.start < s.hdr.bodyEnd) {
			// A header's own kinship word ("子琮，字季玉") is the header's fact.
			continue
		}
		sur := hz.kinSurname(s.head, k.kin)
		if sur == "" || !s.full || hz.foreignPrevious(text, k.start, s) || hz.kinInName(text, k, entry, s.head) {
			continue
		}
		tail := k.name
		if !strings.HasPrefix(k.name, sur) {
			tail = sur + k.name
		}
		if tail == s.head {
			if entry != "" && entry != s.head {
				add(factkit.Fact{Head: entry, Relation: schemas.RelRelative, Tail: tail, TailType: schemas.EntityPerson,
					Qualifiers: map[string]string{"kin": k.kin, "as_written": k.name}, Start: k.start, End: k.end,
					Pattern: "han.kin.sub_entry", Confidence: confRelative})
			}
			continue
		}
		add(factkit.Fact{Head: s.head, Relation: schemas.RelRelative, Tail: tail, TailType: schemas.EntityPerson,
			Qualifiers: map[string]string{"kin": k.kin, "as_written": k.name}, Start: k.start, End: k.end,
			Pattern: "han.kin", Confidence: confRelative})
	}
}

// sub returns capture group i of a match, or "".
func sub(text string, m []int, i int) string {
	if 2*i+1 >= len(m) || m[2*i] < 0 {
		return ""
	}
	return text[m[2*i]:m[2*i+1]]
}
