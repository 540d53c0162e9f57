package en

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/annalist-dev/annalist/internal/lang/factkit"
	"github.com/annalist-dev/annalist/schemas"
)

// Hand-made patterns for English biographical prose. The subject of each
// pattern is an explicit name or a pronoun; a pronoun refers to the last
// person introduced before it in the chunk ("Thomas Harrow was … He was
// born …"), or to the chunk's entry when none was.
const enName = `(?:[A-Z][\p{L}'’\-]+\s+){0,3}[A-Z][\p{L}'’\-]+`

var (
	enSubj = `\b(` + enName + `|[Hh]e|[Ss]he)(?:\s*\([^)]{0,80}\))?`

	// reEnIntro finds people introduced as the subject of a sentence or as a
	// heading.
	reEnIntro = regexp.MustCompile(`(?m)(?:^#+[ \t]*(` + enName + `)[ \t]*$|(?:^|[.!?]\s+)(` + enName + `)(?:\s*\([^)]{0,80}\))?(?:,[^,.;]{1,60},)?,?\s+(?:was|is|became|served|lived|died)\b)`)

	reEnBorn = regexp.MustCompile(enSubj + `,?\s+was\s+born\s+([^.;:()]{1,160})`)
	reEnDied = regexp.MustCompile(enSubj + `,?\s+(?:later\s+|eventually\s+)?(?:died|passed\s+away)\s+([^.;:()]{1,160})`)
	// reEnAge is the age in a death clause: "died in 1571, aged 71", "died
	// at the age of seventy-one", "died at 71" (a year has four digits).
	reEnAge       = regexp.MustCompile(`\b(?:(?:aged|at\s+the\s+age\s+of)\s+(\d{1,3}|[a-z]+(?:-[a-z]+)?)|at\s+(\d{1,3}))\b`)
	reEnNative    = regexp.MustCompile(enSubj + `,?\s+(?:was\s+)?a\s+native\s+of\s+([A-Z][^.;:,()]{1,80})`)
	reEnAppointed = regexp.MustCompile(enSubj + `,?\s+was\s+(?:later\s+|subsequently\s+|then\s+|soon\s+)?appointed\s+(?:as\s+)?([^.;:,()]{2,120})`)
	reEnStyled    = regexp.MustCompile(`(` + enName + `)(?:\s*\([^)]{0,80}\))?,\s+(courtesy\s+name|styled|art\s+name|pen\s+name)\s+([A-Z][\p{L}'’\-]+(?:\s+[A-Z][\p{L}'’\-]+)?)`)
	reEnHisName   = regexp.MustCompile(`\b(?:[Hh]is|[Hh]er)\s+(courtesy\s+name|art\s+name|pen\s+name)\s+was\s+([A-Z][\p{L}'’\-]+(?:\s+[A-Z][\p{L}'’\-]+)?)`)
	// reEnParen is a name glossed in brackets, as translations of Chinese
	// histories write it: "Ye Xianggao (courtesy name Jinqing) of Fuqing".
	// The place is his only right after the brackets.
	reEnParen    = regexp.MustCompile(`(` + enName + `)\s*\((courtesy\s+name|styled|art\s+name|pen\s+name)\s+([A-Z][\p{L}'’\-]+(?:\s+[A-Z][\p{L}'’\-]+)?)\)(?:\s+of\s+([A-Z][^.;:,()]{1,80}))?`)
	reEnYear     = regexp.MustCompile(`^\d{3,4}$`)
	reEnInYear   = regexp.MustCompile(`\s+in\s+(\d{3,4})\s*$`)
	reEnSentYear = regexp.MustCompile(`(?:^|[.!?]\s+)In\s+(\d{3,4}),?\s+[^.!?]*$`)
)

// enStopFirst are capitalised words that start sentences but not names.
var enStopFirst = wordSet("stop_first")

// enEnds end the sentences factkit.FindAll scans: the English patterns do
// not match across a full stop or a line break. enEndSet holds them.
const enEnds = ".!?\n"

var enEndSet = factkit.NewRuneSet(enEnds)

// confNarrative is the confidence of the facts of the English patterns.
const confNarrative = 0.75

// enMonths are the month names a phrase is a time by.
var enMonths = wordList("months")

// reEnFullName finds capitalised names of two to four words, the full
// names a lone surname subject ("Pike was born …") may abbreviate.
var reEnFullName = regexp.MustCompile(`\b[A-Z][\p{L}'’\-]+(?:\s+[A-Z][\p{L}'’\-]+){1,3}\b`)

type enPerson struct {
	at   int
	name string
}

// enContext resolves the subjects of English patterns in one chunk.
type enContext struct {
	text     string
	fallback string
	people   []enPerson
	names    []string
}

func newEnContext(text, fallback string) *enContext {
	c := &enContext{text: text, fallback: fallback}
	for _, m := range factkit.FindAll(reEnIntro, text, enEndSet, "#", " was", " is", " became", " served", " lived", " died") {
		for g := 1; g <= 2; g++ {
			if m[2*g] >= 0 {
				name := text[m[2*g]:m[2*g+1]]
				if enNameOK(name) {
					c.people = append(c.people, enPerson{at: m[2*g], name: name})
				}
			}
		}
	}
	return c
}

// fullNames lists the capitalised names of the text, found on first use.
func (c *enContext) fullNames() []string {
	if c.names == nil {
		c.names = []string{}
		for _, n := range reEnFullName.FindAllString(c.text, -1) {
			if enNameOK(n) {
				c.names = append(c.names, strings.Join(strings.Fields(n), " "))
			}
		}
	}
	return c.names
}

func enNameOK(name string) bool {
	first, _, _ := strings.Cut(name, " ")
	return !enStopFirst[first]
}

// head resolves a subject at byte offset at: a pronoun to the last person
// introduced before it, a surname to the full name it abbreviates.
func (c *enContext) head(subj string, at int) string {
	switch subj {
	case "He", "he", "She", "she":
		for i := len(c.people) - 1; i >= 0; i-- {
			if c.people[i].at < at && strings.Contains(c.people[i].name, " ") {
				return c.people[i].name
			}
		}
		return c.fallback
	}
	subj = strings.Join(strings.Fields(subj), " ")
	if !enNameOK(subj) {
		return ""
	}
	candidates := make([]string, 0, len(c.people)+1)
	if c.fallback != "" {
		candidates = append(candidates, c.fallback)
	}
	for _, p := range c.people {
		candidates = append(candidates, p.name)
	}
	candidates = append(candidates, c.fullNames()...)
	for _, full := range candidates {
		if full != subj && strings.HasSuffix(full, " "+subj) {
			return full
		}
	}
	return subj
}

// extractEnglish applies the English patterns to text; fallback is the
// person the chunk is about when it names none ("" when unknown).
func extractEnglish(text, fallback string) []factkit.Fact {
	c := newEnContext(text, fallback)
	var facts []factkit.Fact
	add := func(f factkit.Fact) {
		f.HeadType, f.Method, f.Confidence = schemas.EntityPerson, factkit.MethodRegex, confNarrative
		facts = append(facts, f)
	}
	for _, m := range factkit.FindAll(reEnBorn, text, enEndSet, "born") {
		if h := c.head(text[m[2]:m[3]], m[2]); h != "" {
			for _, f := range lifeEvent(text, m, h, schemas.RelBirth, "en.birth") {
				add(f)
			}
		}
	}
	for _, m := range factkit.FindAll(reEnDied, text, enEndSet, "died", "passed") {
		if h := c.head(text[m[2]:m[3]], m[2]); h != "" {
			for _, f := range lifeEvent(text, m, h, schemas.RelDeath, "en.death") {
				add(f)
			}
			if a := reEnAge.FindStringSubmatchIndex(text[m[4]:m[5]]); a != nil {
				g := 2
				if a[2] < 0 {
					g = 4
				}
				add(factkit.Fact{Head: h, Relation: schemas.RelDeathAge, Tail: text[m[4]+a[g] : m[4]+a[g+1]], TailType: schemas.EntityValue,
					Start: m[0], End: m[4] + a[1], Pattern: "en.death_age"})
			}
		}
	}
	for _, m := range factkit.FindAll(reEnNative, text, enEndSet, "native of") {
		h := c.head(text[m[2]:m[3]], m[2])
		place := cutAtWords(text[m[4]:m[5]], nativePlaceEnds...)
		if h == "" || !capitalisedPhrase(place) {
			continue
		}
		add(factkit.Fact{Head: h, Relation: schemas.RelNativePlace, Tail: place, TailType: schemas.EntityPlace,
			Start: m[0], End: m[4] + len(place), Pattern: "en.native_place"})
	}
	for _, m := range factkit.FindAll(reEnAppointed, text, enEndSet, "appointed") {
		h := c.head(text[m[2]:m[3]], m[2])
		office := cutAtWords(text[m[4]:m[5]], officeEnds...)
		q := map[string]string{"verb": "appointed"}
		if y := reEnInYear.FindStringSubmatchIndex(office); y != nil {
			q["year"] = office[y[2]:y[3]]
			office = office[:y[0]]
		} else if y := reEnSentYear.FindStringSubmatch(text[:m[2]]); y != nil {
			q["year"] = y[1]
		}
		office = strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(office, "the "), "a "), "an ")
		if h == "" || !enOffice(office) {
			continue
		}
		end := m[4] + strings.Index(text[m[4]:m[5]], office) + len(office)
		add(factkit.Fact{Head: h, Relation: schemas.RelOffice, Tail: office, TailType: schemas.EntityOffice, Qualifiers: q,
			Start: m[0], End: end, Pattern: "en.office"})
	}
	for _, m := range factkit.FindAll(reEnStyled, text, enEndSet, "name", "styled") {
		h := c.head(text[m[2]:m[3]], m[2])
		if h == "" {
			continue
		}
		rel := enNameRelation(text[m[4]:m[5]])
		add(factkit.Fact{Head: h, Relation: rel, Tail: text[m[6]:m[7]], TailType: schemas.EntityName,
			Start: m[0], End: m[1], Pattern: "en." + rel})
	}
	for _, m := range factkit.FindAll(reEnParen, text, enEndSet, "(") {
		h := c.head(text[m[2]:m[3]], m[2])
		if h == "" || strings.ContainsAny(h, "\n") {
			continue
		}
		rel := enNameRelation(text[m[4]:m[5]])
		add(factkit.Fact{Head: h, Relation: rel, Tail: text[m[6]:m[7]], TailType: schemas.EntityName,
			Start: m[0], End: m[7], Pattern: "en.paren." + rel})
		if m[8] < 0 {
			continue
		}
		place := cutAtWords(text[m[8]:m[9]], parenPlaceEnds...)
		if !capitalisedPhrase(place) {
			continue
		}
		add(factkit.Fact{Head: h, Relation: schemas.RelNativePlace, Tail: place, TailType: schemas.EntityPlace,
			Start: m[0], End: m[8] + len(place), Pattern: "en.paren.native_place"})
	}
	for _, m := range factkit.FindAll(reEnHisName, text, enEndSet, "name was") {
		h := c.head("He", m[0])
		if h == "" {
			continue
		}
		rel := enNameRelation(text[m[2]:m[3]])
		add(factkit.Fact{Head: h, Relation: rel, Tail: text[m[4]:m[5]], TailType: schemas.EntityName,
			Start: m[0], End: m[1], Pattern: "en." + rel})
	}
	return facts
}

// nativePlaceEnds, officeEnds and parenPlaceEnds end the place of "a
// native of …", the office of "was appointed …" and the place after a
// name glossed in brackets: each a word with a space either side.
var (
	nativePlaceEnds = spaced(wordList("native_place_ends"))
	officeEnds      = spaced(wordList("office_ends"))
	parenPlaceEnds  = spaced(wordList("paren_place_ends"))
)

// spaced returns the words with a space either side, as cutAtWords finds
// them.
func spaced(words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = " " + w + " "
	}
	return out
}

func enNameRelation(kind string) string {
	switch strings.Join(strings.Fields(kind), " ") {
	case "art name", "pen name":
		return schemas.RelArtName
	}
	return schemas.RelCourtesyName
}

// lifeEvent reads the "in X on Y at Z" phrases after "born" or "died": a
// phrase with a year or a month is the time, a capitalised one the place.
// Reading stops at the first word that does not continue a phrase.
func lifeEvent(text string, m []int, head, rel, pattern string) []factkit.Fact {
	rest, base := text[m[4]:m[5]], m[4]
	if i := strings.IndexAny(rest, ",\n"); i >= 0 {
		rest = rest[:i]
	}
	type phrase struct {
		words      []string
		start, end int
	}
	var phrases []phrase
	off := 0
	for _, w := range strings.Fields(rest) {
		i := strings.Index(rest[off:], w) + off
		off = i + len(w)
		if phrasePreps[w] {
			phrases = append(phrases, phrase{start: base + i})
			continue
		}
		if len(phrases) == 0 {
			break
		}
		p := &phrases[len(phrases)-1]
		p.words = append(p.words, w)
		p.end = base + off
	}
	var timeS, placeS string
	end := m[0]
	for _, p := range phrases {
		if len(p.words) == 0 {
			break
		}
		s := strings.Join(p.words, " ")
		switch {
		case timeS == "" && IsTime(s):
			timeS = s
		case placeS == "" && capitalisedPhrase(s):
			placeS = s
		default:
			continue
		}
		end = p.end
	}
	var out []factkit.Fact
	if timeS != "" {
		q := map[string]string{}
		if placeS != "" {
			q["place"] = placeS
		}
		out = append(out, factkit.Fact{Head: head, Relation: rel, Tail: timeS, TailType: schemas.EntityTime, Qualifiers: q,
			Start: m[0], End: end, Pattern: pattern})
	}
	if placeS != "" {
		q := map[string]string{}
		if timeS != "" {
			q["time"] = timeS
		}
		out = append(out, factkit.Fact{Head: head, Relation: rel, Tail: placeS, TailType: schemas.EntityPlace, Qualifiers: q,
			Start: m[0], End: end, Pattern: pattern})
	}
	return out
}

// phrasePreps open the time and place phrases after "born" or "died".
var phrasePreps = wordSet("phrase_preps")

// IsTime reports whether s names a time: a year of three or four digits
// or a month.
func IsTime(s string) bool {
	for _, w := range strings.Fields(s) {
		if reEnYear.MatchString(strings.Trim(w, ",")) {
			return true
		}
		for _, mo := range enMonths {
			if w == mo {
				return true
			}
		}
	}
	return false
}

// capitalisedPhrase reports whether s reads as a proper name: at most six
// words, the first and last capitalised, the rest capitalised or small
// connecting words.
func capitalisedPhrase(s string) bool {
	ws := strings.Fields(s)
	if len(ws) == 0 || len(ws) > 6 {
		return false
	}
	for i, w := range ws {
		r := []rune(w)[0]
		if unicode.IsUpper(r) {
			continue
		}
		if i == 0 || i == len(ws)-1 {
			return false
		}
		if !nameConnectors[w] {
			return false
		}
	}
	return !enStopFirst[ws[0]] || len(ws) > 1 && ws[0] == "The"
}

// nameConnectors are the small words a proper name may hold between
// capitalised ones ("Duke of Zhou").
var nameConnectors = wordSet("name_connectors")

// enOffice reports whether s reads as an office title: two to ten words,
// no finite verb.
func enOffice(s string) bool {
	ws := strings.Fields(s)
	if len(ws) == 0 || len(ws) > 10 {
		return false
	}
	for _, w := range ws {
		if notOfficeWords[strings.ToLower(w)] {
			return false
		}
	}
	return true
}

// notOfficeWords, lower-cased, show a phrase is a clause, not a title.
var notOfficeWords = wordSet("not_office_words")

// cutAtWords returns s up to the first of words it holds, trimmed.
func cutAtWords(s string, words ...string) string {
	cut := len(s)
	for _, w := range words {
		if i := strings.Index(s, w); i >= 0 && i < cut {
			cut = i
		}
	}
	return strings.TrimSpace(s[:cut])
}
