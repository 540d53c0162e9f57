package discourse

import (
	"regexp"
	"strings"
	"unicode"
)

// token is one word or punctuation mark of a text, with the white space
// before it, so a rewritten token list prints back as the text did.
type token struct {
	Text  string
	Space string
	// Name: the resolver wrote an entity's name here.
	Name bool
}

var tokenRE = regexp.MustCompile(`[\p{L}\p{N}]+(?:[-'’&.][\p{L}\p{N}]+)*|\S`)

// tokenize splits text into words and punctuation; a possessive "'s" is its
// own token ("Halep's" → "Halep", "'s"), curly apostrophes become straight.
func tokenize(text string) []token {
	text = strings.ReplaceAll(text, "’", "'")
	var out []token
	prev := 0
	for _, loc := range tokenRE.FindAllStringIndex(text, -1) {
		if loc[0] < prev {
			continue
		}
		w := text[loc[0]:loc[1]]
		sp := text[prev:loc[0]]
		prev = loc[1]
		lw := strings.ToLower(w)
		if len(w) > 2 && strings.HasSuffix(lw, "'s") {
			out = append(out, token{Text: w[:len(w)-2], Space: sp}, token{Text: w[len(w)-2:]})
			continue
		}
		if strings.HasSuffix(lw, "s'") && len(w) > 2 {
			out = append(out, token{Text: w[:len(w)-1], Space: sp}, token{Text: "'"})
			continue
		}
		// a company's abbreviation keeps its period: "Kessler Motor Co. Ltd."
		if companyAbbrevs[lw] && loc[1] < len(text) && text[loc[1]] == '.' {
			w += "."
			prev++
		}
		out = append(out, token{Text: w, Space: sp})
	}
	return out
}

// companyAbbrevs end companies' names and keep their period.
var companyAbbrevs = wordSet("company_abbrevs")

func render(ts []token) string {
	var b strings.Builder
	afterName := false
	for i, t := range ts {
		if t.Text == "" {
			continue
		}
		if i > 0 || b.Len() > 0 {
			b.WriteString(t.Space)
		}
		if t.Text == "'s" && afterName && strings.HasSuffix(b.String(), "s") {
			b.WriteString("'")
			afterName = false
			continue
		}
		afterName = t.Name
		b.WriteString(t.Text)
	}
	return strings.TrimSpace(b.String())
}

func isWord(t string) bool {
	for _, r := range t {
		return unicode.IsLetter(r) || unicode.IsDigit(r)
	}
	return false
}

func isCapitalised(t string) bool {
	r := []rune(t)
	return len(r) > 0 && unicode.IsUpper(r[0])
}

func isAllCaps(t string) bool {
	n := 0
	for _, r := range t {
		if unicode.IsLower(r) {
			return false
		}
		if unicode.IsLetter(r) {
			n++
		}
	}
	return n >= 2
}

// nameConnectors may stand inside a name between capitalised words
// ("Court of Arbitration for Sport", "David de Gea").
var nameConnectors = wordSet("name_connectors")

// notNames are capitalised words that do not name an entity: function words
// that open sentences, days and months, titles kept as roles.
var notNames = wordSet("not_names")

// titleWords before a name are roles of the person, not part of the name.
var titleWords = wordSet("title_words")

// mention is one capitalised name found in a sentence.
type mention struct {
	Name  string // as written, possessive removed
	Start int    // token index
	End   int    // one past the last token
	// Initial: the name opens its sentence, so its capital proves nothing.
	Initial bool
}

// lexicon is what the discussion's own text says about its words: which
// it writes in lower case (common words), which it capitalises inside a
// sentence (names), which follow a determiner or a possessive (nouns) and
// which follow a subject pronoun, "to" or an auxiliary (verbs).
type lexicon struct {
	lower, capMid, noun, verb map[string]bool
	// seqMid: capitalised sequences the text writes inside a sentence.
	seqMid map[string]bool
}

// determinersPoss open a noun phrase: after them a word is used as a noun.
var determinersPoss = wordSet("determiners_poss")

// verbOpeners: after them a lower-case word is a verb.
var verbOpeners = wordSet("verb_openers")

func newLexicon() *lexicon {
	return &lexicon{lower: map[string]bool{}, capMid: map[string]bool{}, noun: map[string]bool{}, verb: map[string]bool{},
		seqMid: map[string]bool{}}
}

// add records a sentence's (or a turn's) words.
func (lx *lexicon) add(ts []token) {
	for k, t := range ts {
		initial := k == 0 || sentenceOpener(ts[k-1].Text)
		switch {
		case isLowerWord(t.Text):
			if k > 0 {
				lx.lower[t.Text] = true
				prev := strings.ToLower(ts[k-1].Text)
				// "'s" is a possessive after a name, a verb after "he", "it"
				possessive := prev == "'s" && k > 1 && isCapitalised(ts[k-2].Text) && !notNames[strings.ToLower(ts[k-2].Text)]
				if determinersPoss[prev] && (prev != "'s" || possessive) {
					lx.noun[t.Text] = true
				}
				if verbOpeners[prev] {
					lx.verb[t.Text] = true
				}
			}
		case isCapitalised(t.Text) && !initial:
			lx.capMid[t.Text] = true
			if k > 0 && isCapitalised(ts[k-1].Text) {
				continue
			}
			j := k
			for j < len(ts) && isCapitalised(ts[j].Text) && isWord(ts[j].Text) {
				j++
			}
			if j-k > 1 {
				lx.seqMid[joinTokens(ts[k:j])] = true
			}
		}
	}
}

func joinTokens(ts []token) string {
	var b strings.Builder
	for i, t := range ts {
		if i > 0 && t.Text != "'s" {
			b.WriteByte(' ')
		}
		b.WriteString(t.Text)
	}
	return b.String()
}

// sentenceOpener: after these a capital proves nothing.
func sentenceOpener(t string) bool {
	switch t {
	case "\"", "“", ":", "(", "–", "—", "‘":
		return true
	}
	return false
}

// commonSuffixes end common nouns and adverbs, rarely names.
var commonSuffixes = []string{"tion", "sion", "ment", "ness", "ity", "ism", "ance", "ence", "ship", "ly", "where", "wise", "ings"}

// common reports whether a capitalised word that opens a sentence is a
// common word: the text writes it (or its singular or plural) in lower
// case, or it has a common noun's or adverb's ending and the text never
// capitalises it inside a sentence.
func (lx *lexicon) common(w string) bool {
	lw := strings.ToLower(w)
	if lx.lower[lw] || lx.lower[lw+"s"] || lx.lower[lw+"es"] ||
		strings.HasSuffix(lw, "s") && lx.lower[lw[:len(lw)-1]] ||
		strings.HasSuffix(lw, "es") && lx.lower[lw[:len(lw)-2]] {
		return true
	}
	if lx.capMid[w] || isAllCaps(w) {
		return false
	}
	for _, suf := range commonSuffixes {
		if strings.HasSuffix(lw, suf) && len(lw) > len(suf)+2 {
			return true
		}
	}
	// a negated participle is an adjective ("Unbeaten Juventus",
	// "Undefeated", "Unseeded")
	if strings.HasPrefix(lw, "un") && len(lw) > 6 && (strings.HasSuffix(lw, "ed") || strings.HasSuffix(lw, "en")) {
		return true
	}
	return false
}

// findNames returns the capitalised sequences of a sentence's tokens, with
// inner connectors, without leading function words, titles, days and
// months. A word that opens the sentence (or a quote, or follows a colon)
// is dropped when the text shows it is a common word (lexicon.common). A
// title stays part of the name when the name ends in an organisation word
// ("General Motors").
func findNames(ts []token, lx *lexicon) []mention {
	var out []mention
	i := 0
	for i < len(ts) {
		if !isCapitalised(ts[i].Text) || !isWord(ts[i].Text) || compoundAdjective(ts[i].Text) || monthAbbreviation(ts, i) {
			i++
			continue
		}
		j := i
		for j < len(ts) {
			w := ts[j].Text
			if isCapitalised(w) && isWord(w) && !compoundAdjective(w) {
				j++
				continue
			}
			if nameConnectors[w] && j+1 < len(ts) && isCapitalised(ts[j+1].Text) && j > i {
				j++
				continue
			}
			if w == "'s" && j > i && possessiveName(ts, j, lx) {
				j++
				continue
			}
			break
		}
		orgName := orgWords[strings.ToLower(ts[j-1].Text)] && !isAllCaps(ts[j-1].Text)
		start := i
		for start < j {
			lw := strings.ToLower(ts[start].Text)
			initial := start == 0 || sentenceOpener(ts[start-1].Text)
			// a sequence the text also writes inside a sentence, or one
			// that ends in an organisation word, keeps its first word
			whole := j-start > 1 && (orgName || lx.seqMid[joinTokens(ts[start:j])])
			if (notNames[lw] && !isAllCaps(ts[start].Text)) || titleWords[lw] && !(orgName && j-start > 1) && !(start+1 < j && ts[start+1].Text == "of") || (initial && !whole && lx.common(ts[start].Text) && !(geoFirst[lw] && j-start > 1)) ||
				initial && j-start == 1 && modifiesRole(ts, start, lx) ||
				initial && personRoles[lw] && j-start > 2 {
				start++
				continue
			}
			break
		}
		end := j
		for end > start && (nameConnectors[ts[end-1].Text] || notNames[strings.ToLower(ts[end-1].Text)] && !isAllCaps(ts[end-1].Text) && !nameLetter(ts, end-1, start) ||
			titleAbbreviations[strings.ToLower(ts[end-1].Text)] != "" && end < len(ts) && ts[end].Text == ".") {
			// "Minnesota Gov. Tim Walz": the title is Walz's
			end--
		}
		// a league's or a series' number ends its name ("League 2",
		// "Ligue 1")
		if end == j && end > start && j < len(ts) && nameNumber(ts, j) && !notNames[strings.ToLower(ts[end-1].Text)] {
			end++
			j++
		}
		// a role inside the sequence ("Raiders QB Gardner Minshew") parts
		// the holder from the person
		for k := start + 1; k < end-2; k++ {
			if lk := strings.ToLower(ts[k].Text); (titleWords[lk] || personRoles[lk]) && !nameConnectors[ts[k+1].Text] {
				out = appendName(out, ts, start, k)
				start = k + 1
				break
			}
		}
		if end > start && personRoles[strings.ToLower(ts[end-1].Text)] && isAllCaps(ts[end-1].Text) {
			end--
		}
		out = appendName(out, ts, start, end)
		i = j
		if i == start {
			i++
		}
	}
	return out
}

// possessiveName: the "'s" at ts[k] is inside a name ("Elmford Children's
// Hospital", "St Anne's College"): an institution's head follows it and
// the possessor is a common word or a title, not a name of its own.
func possessiveName(ts []token, k int, lx *lexicon) bool {
	j := k + 1
	for j < len(ts) && isCapitalised(ts[j].Text) && isWord(ts[j].Text) {
		j++
	}
	if j == k+1 || !institutionHeads[strings.ToLower(ts[j-1].Text)] {
		return false
	}
	pw := strings.ToLower(ts[k-1].Text)
	saint := k >= 2 && (strings.EqualFold(ts[k-2].Text, "st") || strings.EqualFold(ts[k-2].Text, "saint"))
	return possessorWords[pw] || lx.lower[pw] || saint
}

// institutionHeads end names of places and institutions.
var institutionHeads = wordSet("institution_heads")

// possessorWords stand before "'s" inside such names.
var possessorWords = wordSet("possessor_words")

// compoundAdjective: a capitalised compound whose last part is a lower-case
// participle ("Oscar-winning", "US-based") describes, it does not name.
func compoundAdjective(w string) bool {
	k := strings.LastIndexByte(w, '-')
	if k < 0 || k == len(w)-1 {
		return false
	}
	last := w[k+1:]
	return isLowerWord(last) && (strings.HasSuffix(last, "ing") || strings.HasSuffix(last, "ed") || last == "born" || last == "based")
}

// appendName adds the mention ts[start:end], unless it is empty or a
// single demonym before a noun ("the Romanian star").
func appendName(out []mention, ts []token, start, end int) []mention {
	if end <= start {
		return out
	}
	name := joinTokens(ts[start:end])
	if end-start == 1 && isDemonym(name) && end < len(ts) && isLowerWord(ts[end].Text) {
		return out
	}
	return append(out, mention{Name: name, Start: start, End: end, Initial: start == 0 || sentenceOpener(ts[start-1].Text)})
}

func isLowerWord(w string) bool {
	r := []rune(w)
	return len(r) > 0 && unicode.IsLower(r[0])
}

// isDemonym: a single capitalised word used as an adjective of origin
// ("the Romanian star", "the Italian club") describes, it does not name.
func isDemonym(w string) bool {
	lw := strings.ToLower(w)
	for _, suf := range []string{"ian", "ean", "ese", "ish", "ican"} {
		if strings.HasSuffix(lw, suf) && len(lw) > len(suf)+2 {
			return true
		}
	}
	return false
}

// nameLetter: a lone capital letter after a name inside a sentence is
// part of it ("Serie A", "Group B"): the article is written "a" there.
func nameLetter(ts []token, k, start int) bool {
	w := ts[k].Text
	return len(w) == 1 && w != "I" && isCapitalised(w) && k > start && k > 0 && !sentenceOpener(ts[k-1].Text)
}

// nameNumber: ts[k] is a one- or two-digit number written after a name
// and before a lower-case word or punctuation ("League 2 visitors",
// "Ligue 1 season"), not a score or a date.
func nameNumber(ts []token, k int) bool {
	w := ts[k].Text
	if len(w) > 2 || !bgIsNumber(w) {
		return false
	}
	return k+1 >= len(ts) || !isCapitalised(ts[k+1].Text) && !isDigitWord(ts[k+1].Text)
}

// monthAbbreviations written before a day are dates ("Sept. 24", "Oct 3").
var monthAbbreviations = wordSet("month_abbreviations")

func monthAbbreviation(ts []token, i int) bool {
	if !monthAbbreviations[strings.ToLower(ts[i].Text)] {
		return false
	}
	j := i + 1
	if j < len(ts) && ts[j].Text == "." {
		j++
	}
	return j < len(ts) && bgIsNumber(ts[j].Text)
}

// adjectiveEndings end the adjectives that open a description of a
// person ("Dissident rapper Toomaj Salehi", "Reigning champion Real
// Madrid").
var adjectiveEndings = []string{"ing", "ent", "ant", "ive", "ous", "ary", "ed"}

// modifiesRole: the word opening a sentence is an adjective of the role
// noun after it, which a name follows: it has an adjective's ending and
// the text never writes it capitalised inside a sentence.
func modifiesRole(ts []token, k int, lx *lexicon) bool {
	w := ts[k].Text
	lw := strings.ToLower(w)
	if k+2 >= len(ts) || lx.capMid[w] || !isLowerWord(ts[k+1].Text) || !personNoun(strings.ToLower(ts[k+1].Text), lx) || !isCapitalised(ts[k+2].Text) {
		return false
	}
	for _, suf := range adjectiveEndings {
		if strings.HasSuffix(lw, suf) && len(lw) > len(suf)+3 {
			return true
		}
	}
	return false
}
