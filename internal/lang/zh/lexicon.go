package zh

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/internal/lang/factkit"
	"github.com/annalist-dev/annalist/internal/lang/text"
	"github.com/annalist-dev/annalist/internal/lang/zh/names"

	"github.com/annalist-dev/annalist/internal/lang/profile"
)

// The classical-Chinese patterns rest on domain knowledge — era names,
// office titles, examination terms, kinship words, names — which is the
// profile's (internal/lang/profile): the eras come from the era table, the
// rest from the profile's files. It is deliberately closed: a fact whose
// tail is not recognisably an office or an era year is not emitted,
// because a wrong triplet becomes a wrong sentence in a biography, while a
// missed one only costs recall (and may still be found by the LLM path).

// han is the classical-Chinese rules of one profile: the patterns that
// depend on its data compiled once, and its lexicons. It is immutable.
type han struct {
	offices profile.Offices
	// lastListing is the listing of the last chunk's groups (listingOf).
	lastListing struct {
		sync.Mutex
		l *listing
	}
	// kin are the kinship words cut off a header's name, longest first;
	// kinIdx holds them by first rune, as surnameIdx the compound
	// surnames.
	kin         []profile.KinWord
	kinIdx      byFirstRune[profile.KinWord]
	introducers []string
	surnames    []string
	surnameIdx  byFirstRune[string]
	eras        []string
	// agents are the corpus counts of clause roles (roles.go); nil
	// without the profile's file.
	agents *agentsTable
	// judge is the profile's fitted name judge (internal/lang/zh/names) and
	// nameWords the words it reads; nil for a profile without one.
	judge     *names.Judge
	nameWords *names.Words
	// placeChars count the characters of the corpus's native places
	// (placechars.go); nil for a profile that is not Chinese.
	placeChars map[rune]int

	reHeir    *regexp.Regexp
	reSentKin *filteredRE
	// jinshiAt reads a jinshi degree at the start of a text, times a time
	// and deaths a death; jinshis and deathScan find degrees and deaths
	// in a text, kinOpenings the relatives named at sentence starts
	// (kinNames).
	jinshiAt           *filteredRE
	times, deaths      eraPatterns
	jinshis, deathScan *wordScan
	kinOpenings        openingScan
}

// newHan compiles the rules of a Chinese profile. The patterns are RE2:
// matching stays linear in the text however many eras the table holds.
func newHan(p *profile.Profile) (*han, error) {
	hz := &han{offices: p.Offices, kin: p.Kin.WithRole(profile.RoleHeader), introducers: p.Names.Introducers,
		surnames: p.Names.CompoundSurnames, eras: p.EraNames()}
	hz.kinIdx = indexKin(hz.kin)
	hz.surnameIdx = indexByFirstRune(hz.surnames, func(s string) string { return s })
	words := func(role string) string {
		var ws []string
		for _, k := range p.Kin.WithRole(role) {
			ws = append(ws, regexp.QuoteMeta(k.Word))
		}
		return strings.Join(ws, "|")
	}
	quote := func(ss []string) string {
		out := make([]string, len(ss))
		for i, s := range ss {
			out[i] = regexp.QuoteMeta(s)
		}
		return strings.Join(out, "|")
	}
	eraAlt := quote(hz.eras)
	// A time: an era and a year, a year alone or an era and a part of it,
	// then maybe a month and a season.
	timeExpr := func(eras []string) string {
		year := numYear
		if len(eras) > 0 {
			alt := quote(eras)
			year = `(?:` + alt + `)` + numYear + `|` + numYear + `|(?:` + alt + `)[中末初]`
		}
		return `(?:` + year + `)(?:(?:正|闰?[一二三四五六七八九十]{1,2}|冬|腊)月)?[春夏秋冬]?`
	}
	// A death: maybe a time, 卒 or 薨, maybe a place and an age.
	deathExpr := func(eras []string) string {
		return `(` + timeExpr(eras) + `)?(卒|薨)(?:于(\p{Han}{1,4}))?(?:[，；]?年(` + ageExpr + `))?`
	}
	// The jinshi examination as the table writes it: a metropolitan degree
	// (进士), a tier (二甲), then a rank (第一) or the rest of a palace
	// designation that begins with the degree (及第 of 进士及第); or a
	// metropolitan or palace examination with a rank (会试第一).
	degrees := p.Exams.Select(profile.LevelMetropolitan, profile.KindDegree)
	var designations []string
	for _, d := range p.Exams.Select(profile.LevelPalace, profile.KindDegree) {
		for _, g := range degrees {
			if rest, ok := strings.CutPrefix(d, g); ok && rest != "" && !slices.Contains(designations, rest) {
				designations = append(designations, rest)
			}
		}
	}
	ranked := append(p.Exams.Select(profile.LevelMetropolitan, profile.KindExam),
		p.Exams.Select(profile.LevelPalace, profile.KindExam)...)
	rank := `第[一二三]人?`
	exam := `(?:` + quote(degrees) + `)(?:` + quote(p.Exams.Select("", profile.KindTier)) + `)?(?:` + rank
	if len(designations) > 0 {
		exam += `|` + quote(designations)
	}
	exam += `)?`
	if len(ranked) > 0 {
		exam += `|(?:` + quote(ranked) + `)` + rank
	}
	if len(degrees) == 0 || len(hz.eras) == 0 || words(profile.RoleNamed) == "" || words(profile.RoleSubject) == "" ||
		words(profile.RoleHeir) == "" {
		return nil, fmt.Errorf("profile %s: Chinese rules need eras, a metropolitan degree and named, subject and heir kinship words", p.Name)
	}
	var err error
	compile := func(src string) *regexp.Regexp {
		re, e := regexp.Compile(src)
		if e != nil && err == nil {
			err = fmt.Errorf("profile %s: %w", p.Name, e)
		}
		return re
	}
	jinshi := compile(`^(?:举|成|登)?(` + eraAlt + `)(元年|[〇一二三四五六七八九十]{1,3}年|[中末初])[，、]?(?:又|复)?(?:举|成|登|中)?(` + exam + `)`)
	hz.times = eraPatternsOf(hz.eras, func(eras []string) string { return `^` + timeExpr(eras) }, compile)
	hz.deaths = eraPatternsOf(hz.eras, func(eras []string) string { return `^` + deathExpr(eras) }, compile)
	hz.kinOpenings = openingScan{at: compile(`^(?:` + openingExpr + `[ 　]*(?:其)?(` + words(profile.RoleNamed) + `)` +
		`(\p{Han}{1,2}?)(?:嗣|袭|[，、。]))`)}
	// reSentKin finds a sentence whose subject is a relative ("父复，…"):
	// what follows is about the relative, not the head.
	sentKin := compile(`^(?:其)?(?:` + words(profile.RoleSubject) + `)(?:\p{Han}{1,2}[，、]|\p{Han}{1,6}(?:嗣|袭))`)
	// reHeir matches a succession at a sentence or clause start: 其 (his,
	// also "以其": had his …), 以 (had …), or the predecessor's given name;
	// a kinship word; an optional title ending in 王; the heir's name (rare
	// characters spelt out in brackets); an optional "由…" (from his former
	// fief); a negation or a verb before 嗣 or 袭 (succeeded, inherited):
	// "子隐王尚炳嗣", "表荣子端王知烊嗣", "再从子简王新〈土典〉嗣", "庶兄盖臣借
	// 袭", "子昂降袭", "世子安泽未袭卒".
	hz.reHeir = compile(`^(?:(?:以|命|诏|令)?其|以|(\p{Han}{1,2}))??` +
		`(` + words(profile.RoleHeir) + `)` +
		`(\p{Han}{1,2}王)?((?:\p{Han}|〈\p{Han}{1,3}〉){1,3}?)(?:由\p{Han}{1,6}?)?` +
		`(?:未|不得|不)?(?:借|乞|请|得|当|应|世|降)?(?:嗣|袭)`)
	if err != nil {
		return nil, err
	}
	hz.jinshiAt, hz.reSentKin = filtered(jinshi), filtered(sentKin)
	hz.jinshis = newWordScan(hz.jinshiAt, func(string) *filteredRE { return hz.jinshiAt },
		hz.jinshiAt.maxLen, hz.jinshiAt.alphabet)
	// What a death holds before its 卒 or 薨 is its time.
	hz.deathScan = newWordScan(hz.deaths.all, hz.deaths.of, hz.times.all.maxLen, hz.times.all.alphabet)
	if hz.agents, err = loadAgents(p); err != nil {
		return nil, fmt.Errorf("profile %s: %w", p.Name, err)
	}
	if hz.placeChars, err = loadPlaceChars(p); err != nil {
		return nil, fmt.Errorf("profile %s: %w", p.Name, err)
	}
	if hz.judge = names.For(p.Name); hz.judge != nil {
		hz.nameWords = names.WordsOf(p)
	}
	return hz, nil
}

// eraPatterns is a pattern anchored at the start of the text that holds
// the era table (all), compiled again for each rune an era name begins
// with, holding only the eras that begin with it, and once with none of
// them for the other runes. Eras that begin with another rune than the
// text cannot match it, so the pattern for its first rune finds what all
// finds, and the engine does not pay for hundreds of eras at each step.
type eraPatterns struct {
	all    *filteredRE
	byRune map[rune]*filteredRE
	none   *filteredRE
}

// eraPatternsOf compiles expr, the pattern made with the eras it is given,
// with all the eras and by first rune.
func eraPatternsOf(eras []string, expr func(eras []string) string,
	compile func(string) *regexp.Regexp) eraPatterns {
	p := eraPatterns{byRune: map[rune]*filteredRE{}}
	byRune := map[rune][]string{}
	for _, e := range eras {
		r := firstRune(e)
		byRune[r] = append(byRune[r], e)
	}
	p.all, p.none = filtered(compile(expr(eras))), filtered(compile(expr(nil)))
	for r, es := range byRune {
		p.byRune[r] = filtered(compile(expr(es)))
	}
	return p
}

// of returns the pattern to run on s.
func (p eraPatterns) of(s string) *filteredRE {
	if f, ok := p.byRune[firstRune(s)]; ok {
		return f
	}
	return p.none
}

// Year and age expressions of the patterns.
const (
	numYear = `(?:元|[〇一二三四五六七八九十]{1,3})年`
	ageExpr = `[一二三四五六七八九十百]{1,4}(?:有[一二三四五六七八九])?`
)

// officeBanned are characters that show a phrase is a clause, not an office
// title ("之", "以", "者" …).
const officeBanned = "之以而其于与及所者也乃遂命请帝曰不未皆俱并又复因即欲将为此彼何进迁擢改授拜召除调升"

var officeBannedSet = factkit.NewRuneSet(officeBanned)

// officePhrase reports whether s is a plausible office title: it ends with
// a title the profile's lexicon lets the extractor take.
func (hz *han) officePhrase(s string) bool {
	n := utf8.RuneCountInString(s)
	if n < 2 || n > 16 || officeBannedSet.In(s) || strings.HasPrefix(s, "封") {
		return false
	}
	return hz.offices.Extracted(s)
}

// surname splits a full name into surname and given name: a compound
// surname of the profile, else the first character. Names of fewer
// than two characters, names in brackets of rare-character markup, and a
// prince's or noble's title ("秦王樉", "汧阳王诚洌": 王 after the first
// character ends a title, not a surname) have no known surname. A woman
// written by her family's name and 氏, after a title or not ("孝宗孝康皇
// 后张氏", "甘氏"), has that surname and no given name.
func (hz *han) surname(name string) (sur, given string) {
	n := utf8.RuneCountInString(name)
	if n < 2 || rareMarkup.In(name) {
		return "", name
	}
	if family, ok := strings.CutSuffix(name, "氏"); ok {
		for _, c := range hz.surnames {
			if strings.HasSuffix(family, c) {
				return c, ""
			}
		}
		r, size := utf8.DecodeLastRuneInString(family)
		if text.IsHan(r) {
			return family[len(family)-size:], ""
		}
		return "", name
	}
	if _, size := utf8.DecodeRuneInString(name); strings.Contains(name[size:], "王") {
		return "", name
	}
	if n >= 3 {
		for _, c := range hz.surnameIdx.of(firstRune(name)) {
			if strings.HasPrefix(name, c) {
				return c, name[len(c):]
			}
		}
	}
	_, size := utf8.DecodeRuneInString(name)
	return name[:size], name[size:]
}

// rareMarkup are the brackets that spell out a rare character.
var rareMarkup = factkit.NewRuneSet("〈〉｛｝")

// cutKin splits a leading kinship word off s; same says its bearer has the
// person's surname ("子琮" under 陆文渊 names 陆琮).
func (hz *han) cutKin(s string) (kin, rest string, same bool) {
	for _, k := range hz.kinIdx.of(firstRune(s)) {
		if strings.HasPrefix(s, k.Word) {
			return k.Word, s[len(k.Word):], k.SameSurname
		}
	}
	return "", s, false
}

// notNames are clause openers that look like a short name before a comma
// but are time words or connectives.
var notNames = wordSet("not_names")

// nameLike reports whether s can be a person's name (or a given name):
// 1–4 Han characters (rare characters may be written 〈…〉), not a clause
// opener and not a time expression.
func nameLike(s string) bool {
	if s == "" || notNameFirst.Has(firstRune(s)) {
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
		case !text.IsHan(r):
			return false
		}
		i += size
		if n++; n > 4 {
			return false
		}
	}
	last, _ := utf8.DecodeLastRuneInString(s)
	return !notNameLast.Has(last) && !notNames[s]
}

// notNameFirst and notNameLast are the characters a name neither begins
// nor ends with.
var notNameFirst, notNameLast = factkit.NewRuneSet("字号名"), factkit.NewRuneSet("年月日时初末中后岁曰")

// placeBanned are characters that show a "…人" phrase counts people or
// qualifies them instead of naming a place ("三千余人", "不知何许人").
const placeBanned = "千百十数等诸众辈之其不何知无有者也为以所此彼皆非则乃尽诚甚最又而且授拜迁去止过绝异惊动服感杀伤害爱恶教用待取得"

// openingBanned are the characters of placeBanned that stay banned in
// the place an entry's opening gives after the courtesy name ("…，字X，P人"):
// words that count, ask or refer, but not the 诸 of 诸暨 or the 无 of 无锡.
var openingBanned = strings.NewReplacer("诸", "", "无", "").Replace(placeBanned)

var placeBannedSet, openingBannedSet = factkit.NewRuneSet(placeBanned), factkit.NewRuneSet(openingBanned)

// OpeningPlaceName reports whether s can be the place of the "P人" clause
// that follows the courtesy name in an entry's opening: a place by its
// position, two to six Han characters free of openingBanned, not a "同…"
// (same county as) or "…余" (a count).
func OpeningPlaceName(s string) bool {
	n := utf8.RuneCountInString(s)
	if n < 2 || n > 6 || openingBannedSet.In(s) || strings.HasPrefix(s, "同") || strings.HasSuffix(s, "余") {
		return false
	}
	for _, r := range s {
		if !text.IsHan(r) {
			return false
		}
	}
	return true
}

// placeName reports whether s can be the place of a "…人" clause.
func placeName(s string) bool {
	n := utf8.RuneCountInString(s)
	if n < 1 || n > 6 || placeBannedSet.In(s) {
		return false
	}
	// "…人" words that are not "a man of …": 邑人 and 乡里人 say whose,
	// 行人 and 舍人 are offices, 门人 a disciple, 庶人 a commoner …
	if notPlaces[s] || personRenWords[s] {
		return false
	}
	for _, w := range samePlaceWords {
		if strings.Contains(s, w) {
			return false
		}
	}
	for _, r := range s {
		if !text.IsHan(r) {
			return false
		}
	}
	// "三千余人" counts people; "白沙门人" is a disciple of 白沙;
	// "雍正元年举人" is a degree of a year.
	return !strings.HasPrefix(s, "同") && !strings.HasSuffix(s, "余") && !strings.HasSuffix(s, "门") &&
		!reNumberedYear.MatchString(s)
}

// notPlaces and personRenWords are the words before 人 that name no
// native place: the place the text spoke of ("邑人") and words for a
// person ("门人"); samePlaceWords say "of the same place" ("同县").
var (
	notPlaces      = wordSet("not_places")
	personRenWords = wordSet("person_ren_words")
	samePlaceWords = wordList("same_place_words")
)

// reNumberedYear is a year numbered in an era or a reign (元年, 十一年):
// no place name holds one (永年 is a place: 永 is no numeral).
var reNumberedYear = regexp.MustCompile(`(?:元|[〇一二三四五六七八九十])年`)

// ownClauseWords may stand between a clause boundary and a verb without
// naming another subject: time words and adverbs, in the order they are
// cut off.
var ownClauseWords = wordList("own_clause_words")
