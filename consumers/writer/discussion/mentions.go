package discussion

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
		out = append(out, token{Text: w, Space: sp})
	}
	return out
}

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
var nameConnectors = map[string]bool{
	"of": true, "for": true, "de": true, "del": true, "della": true, "da": true,
	"van": true, "von": true, "der": true, "la": true, "le": true, "di": true,
	"du": true, "bin": true, "al": true, "el": true, "dos": true, "das": true,
}

// notNames are capitalised words that do not name an entity: function words
// that open sentences, days and months, titles kept as roles.
var notNames = toSet(`a an the this that these those it its he she his her him hers they their them we our us i my me you your
and but or nor so yet for because although though while whereas if when whenever after before since until as once
however meanwhile then also still even just only indeed moreover suddenly instead despite yesterday today tomorrow
in on at to from by with without into over under about against between during of off up down out
there here where what which who whom whose why how not no yes all both each every some any many most much more
another other such one two three four five six seven eight nine ten first second third last next new former
monday tuesday wednesday thursday friday saturday sunday january february march april may june july august
september october november december mr mrs ms dr sir prof president coach manager rookie veteran captain
according speaking asked having being given with under our let is was are were`)

// titleWords before a name are roles of the person, not part of the name.
var titleWords = toSet(`former rookie veteran president coach manager captain prime minister chancellor senator governor
king queen prince princess general chairman chief director boss judge sir mr mrs ms dr prof`)

func toSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// mention is one capitalised name found in a sentence.
type mention struct {
	Name  string // as written, possessive removed
	Start int    // token index
	End   int    // one past the last token
	// Initial: the name opens its sentence, so its capital proves nothing.
	Initial bool
}

// findNames returns the capitalised sequences of a sentence's tokens, with
// inner connectors, without leading function words, titles, days and
// months. lowerSeen says which words the text also writes in lower case:
// a sentence-initial word that occurs in lower case elsewhere is a common
// word, not a name.
func findNames(ts []token, lowerSeen map[string]bool) []mention {
	var out []mention
	i := 0
	for i < len(ts) {
		if !isCapitalised(ts[i].Text) || !isWord(ts[i].Text) {
			i++
			continue
		}
		j := i
		for j < len(ts) {
			w := ts[j].Text
			if isCapitalised(w) && isWord(w) {
				j++
				continue
			}
			if nameConnectors[w] && j+1 < len(ts) && isCapitalised(ts[j+1].Text) && j > i {
				j++
				continue
			}
			break
		}
		start := i
		for start < j {
			lw := strings.ToLower(ts[start].Text)
			initial := start == 0 || ts[start-1].Text == "\"" || ts[start-1].Text == "“"
			if (notNames[lw] && !isAllCaps(ts[start].Text)) || titleWords[lw] || (initial && lowerSeen[lw]) {
				start++
				continue
			}
			break
		}
		end := j
		for end > start && (nameConnectors[ts[end-1].Text] || notNames[strings.ToLower(ts[end-1].Text)] && !isAllCaps(ts[end-1].Text)) {
			end--
		}
		if end > start {
			var ws []string
			for k := start; k < end; k++ {
				ws = append(ws, ts[k].Text)
			}
			name := strings.Join(ws, " ")
			if !(end-start == 1 && isDemonym(name) && end < len(ts) && isLowerWord(ts[end].Text)) {
				out = append(out, mention{Name: name, Start: start, End: end, Initial: start == 0})
			}
		}
		i = j
		if i == start {
			i++
		}
	}
	return out
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
