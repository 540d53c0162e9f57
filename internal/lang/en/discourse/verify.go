package discourse

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"

	"github.com/annalist-dev/annalist/schemas"
)

// Error types of an opinion verdict.
const (
	OpinionErrorAttribution = "attribution"
	OpinionErrorEntity      = "entity"
	OpinionErrorPolarity    = "polarity"
	OpinionErrorValue       = "value"
	OpinionErrorOther       = "other"
)

// OpinionVerdict is the outcome of checking one opinion sentence against
// the turn it cites: supported, not_included (it says something the turn
// does not) or not_supported (it contradicts the turn), with the error
// type of a not_supported verdict and a reason naming the evidence.
type OpinionVerdict struct {
	Status    string
	ErrorType string
	Reason    string
}

// VerifyOpinion checks an opinion sentence, whoever wrote it, against the
// turn it cites. The sentence must cite exactly one turn of d, open with
// that turn's participant ("PersonN thinks that …" or "PersonN <verb>s
// …"), and say what the turn says. Its body is aligned word by word with
// the turn (weighted longest common subsequence over normalised words:
// contractions expanded, verb and noun endings and forms of "be", "have",
// "do" folded, "I", "me", "my" read as the participant). Then:
//
//   - every name the sentence states is a background entity (g) or a word
//     of the turn; a background name the turn does not write must stand
//     where the turn has a reference expression (a pronoun, a determiner,
//     a group or role word) between the aligned words around it, or be
//     named by the turn elsewhere: otherwise entity;
//   - a negation in the sentence that the turn does not have at that
//     place, or a negation of the turn dropped between two aligned words
//     close on both sides: polarity;
//   - a number the turn does not state: value;
//   - any other content word the turn does not have (function words
//     aside, and role nouns of the entities the sentence names, which a
//     resolved reference may carry): not_included.
func VerifyOpinion(d schemas.Discussion, g *Graph, s schemas.OpinionSentence) OpinionVerdict {
	switch {
	case len(s.Citations) == 0:
		return OpinionVerdict{Status: schemas.StatusNotIncluded, Reason: "the sentence cites no turn"}
	case len(s.Citations) > 1:
		return notSupported(OpinionErrorOther, "the sentence cites %d turns; an opinion comes from one", len(s.Citations))
	}
	ti := s.Citations[0].Turn
	if ti < 0 || ti >= len(d.Turns) {
		return notSupported(OpinionErrorOther, "turn %d does not exist (the discussion has %d)", ti, len(d.Turns))
	}
	turn := d.Turns[ti]
	participants := map[string]bool{}
	for _, p := range d.Participants() {
		participants[p] = true
	}
	ts := tokenize(s.Text)
	first := firstWord(ts)
	if first < 0 {
		return OpinionVerdict{Status: schemas.StatusNotIncluded, Reason: "the sentence is empty"}
	}
	who := ts[first].Text
	if !participants[who] && !participantRE.MatchString(who) {
		return notSupported(OpinionErrorAttribution, "the sentence opens with %q, not a participant", who)
	}
	if who != turn.Participant {
		return notSupported(OpinionErrorAttribution, "the sentence attributes the opinion to %s; turn %d is %s's", who, ti, turn.Participant)
	}
	for _, name := range s.Entities {
		if g.Lookup(name) == nil && !containsFold(turn.Utterance, name) {
			return notSupported(OpinionErrorEntity, "entity %q is neither in the background nor in turn %d", name, ti)
		}
	}
	turnWords := expand(tokenize(turn.Utterance), nil, turn.Participant)
	// the attitude form ("PersonN thinks that …") is checked by its body;
	// any other form, and the attitude form whose body fails, as a whole
	// with the participant standing for "I"
	var best *OpinionVerdict
	if k := first + 1; k < len(ts) && attitudeVerbs[strings.ToLower(ts[k].Text)] {
		k++
		if k < len(ts) && strings.EqualFold(ts[k].Text, "that") {
			k++
		}
		v := verifyBody(g, ts, k, turn, ti, turnWords, participants)
		if v.Status == schemas.StatusSupported {
			return v
		}
		best = &v
	}
	v := verifyBody(g, ts, first, turn, ti, turnWords, participants)
	if v.Status == schemas.StatusSupported || best == nil {
		return v
	}
	return *best
}

var participantRE = regexp.MustCompile(`^Person\d+$`)

// attitudeVerbs introduce the opinion's content: "PersonN thinks that …".
var attitudeVerbs = wordSet("attitude_verbs")

func notSupported(errType, format string, args ...any) OpinionVerdict {
	return OpinionVerdict{Status: schemas.StatusNotSupported, ErrorType: errType, Reason: fmt.Sprintf(format, args...)}
}

func containsFold(text, name string) bool {
	return strings.Contains(strings.ToLower(text), strings.ToLower(name))
}

// word is one normalised word of a sentence or turn: norm is what is
// compared, text the word as written, tok the index of the token it
// comes from.
type word struct {
	norm, text string
	tok        int
}

// expand normalises tokens into words. Contractions become their words
// ("doesn't" → do not, "I'm" → I be), "I", "me", "myself" the
// participant and "my", "mine" the participant's; names (spans the
// sentence's entity marks cover) keep their tokens.
func expand(ts []token, entity []int, participant string) []word {
	var out []word
	add := func(i int, norm string) {
		out = append(out, word{norm: norm, text: ts[i].Text, tok: i})
	}
	for i, t := range ts {
		if t.Text == "" {
			continue
		}
		lw := strings.ToLower(t.Text)
		if t.Text == participant {
			add(i, selfWord)
			continue
		}
		if entity != nil && entity[i] >= 0 {
			add(i, lw)
			continue
		}
		switch lw {
		case "i", "me", "myself":
			add(i, selfWord)
			continue
		case "my", "mine":
			add(i, selfWord)
			add(i, "'s")
			continue
		case "'s":
			if i > 0 && sIsVerb[strings.ToLower(ts[i-1].Text)] {
				add(i, "be")
			} else {
				add(i, "'s")
			}
			continue
		case "can't", "cannot":
			add(i, "can")
			add(i, "not")
			continue
		case "won't":
			add(i, "will")
			add(i, "not")
			continue
		case "ain't":
			add(i, "be")
			add(i, "not")
			continue
		case "n't":
			add(i, "not")
			continue
		}
		if k := strings.Index(lw, "'"); k > 0 {
			head, tail := lw[:k], lw[k:]
			if head == "i" {
				head = selfWord
			}
			if tail == "n't" || strings.HasSuffix(lw, "n't") {
				add(i, lemma(strings.TrimSuffix(lw, "n't")))
				add(i, "not")
				continue
			}
			if v, ok := contracted[tail]; ok {
				add(i, lemma(head))
				add(i, v)
				continue
			}
		}
		if isNumberWord(lw) {
			add(i, strings.ReplaceAll(lw, ",", ""))
			continue
		}
		add(i, lemma(lw))
	}
	return out
}

const selfWord = "\x00self"

var contracted = map[string]string{"'m": "be", "'re": "be", "'ve": "have", "'ll": "will", "'d": "would", "'s": "be"}

var sIsVerb = wordSet("s_is_verb")

var beForms = wordSet("be_forms")

// lemma folds a word's inflection: forms of "be", "have", "do", a final
// -s, -es, -ies, and a final silent -e ("chooses", "choose" → "choos").
func lemma(w string) string {
	switch {
	case beForms[w]:
		return "be"
	case w == "has" || w == "have":
		return "have"
	case w == "does" || w == "do":
		return "do"
	case len(w) > 4 && strings.HasSuffix(w, "ies"):
		return w[:len(w)-3] + "y"
	case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		w = w[:len(w)-1]
	}
	if len(w) > 3 && strings.HasSuffix(w, "e") {
		w = w[:len(w)-1]
	}
	return w
}

func isNumberWord(w string) bool {
	hasDigit := false
	for _, r := range w {
		if unicode.IsDigit(r) {
			hasDigit = true
		}
	}
	return hasDigit || numberWords[w] > 0 && w != "both"
}

var negations = wordSet("negations")

// functionWords may be added or dropped without changing a claim.
var functionWords = wordSet("function_words")

// referenceWords in the turn are what a resolved name may stand for.
var referenceWords = wordSet("reference_words")

// verifyBody aligns the sentence's tokens from start on with the turn.
func verifyBody(g *Graph, ts []token, start int, turn schemas.Turn, ti int, turnWords []word, participants map[string]bool) OpinionVerdict {
	body := ts[start:]
	// entity spans: entity[i] is the index of the span token i is in
	entity := make([]int, len(body))
	var spans []entitySpan
	for i := range entity {
		entity[i] = -1
	}
	for i := 0; i < len(body); {
		if body[i].Text == "" {
			i++
			continue
		}
		if participants[body[i].Text] && body[i].Text != turn.Participant {
			entity[i] = len(spans)
			spans = append(spans, entitySpan{start: i, end: i + 1, other: true})
			i++
			continue
		}
		if e, n := g.match(body, i); e != nil {
			for k := i; k < i+n; k++ {
				entity[k] = len(spans)
			}
			spans = append(spans, entitySpan{e: e, start: i, end: i + n})
			i += n
			continue
		}
		i++
	}
	sw := expand(body, entity, turn.Participant)
	pair := align(sw, turnWords)
	lowTurn := strings.ToLower(turn.Utterance)

	// names the sentence states
	for i, w := range sw {
		if entity[w.tok] >= 0 || pair[i] >= 0 || i == 0 {
			continue
		}
		if isCapitalised(w.text) && isWord(w.text) && w.norm != selfWord && !strings.Contains(lowTurn, strings.ToLower(w.text)) {
			return notSupported(OpinionErrorEntity, "%q is neither a background entity nor written in turn %d", w.text, ti)
		}
	}
	for k, sp := range spans {
		var idx []int
		for i, w := range sw {
			if entity[w.tok] == k {
				idx = append(idx, i)
			}
		}
		if len(idx) == 0 {
			continue
		}
		matched := true
		for _, i := range idx {
			matched = matched && pair[i] >= 0
		}
		if matched {
			continue
		}
		name := render(body[sp.start:sp.end])
		if sp.other {
			if !referenceInTurn(turnWords, "you", "your", "yours") && !strings.Contains(lowTurn, strings.ToLower(name)) {
				return notSupported(OpinionErrorEntity, "%s is named but turn %d neither names nor addresses them", name, ti)
			}
			continue
		}
		if namedIn(g, turn.Utterance, sp.e) {
			continue
		}
		lo, hi := gapAround(pair, idx[0], idx[len(idx)-1], len(turnWords))
		if holdsRole(spans, sp.e) {
			continue
		}
		if ok, other := referenceBetween(g, turnWords, lo, hi, sp.e); !ok {
			if other != "" {
				return notSupported(OpinionErrorEntity, "%s stands where turn %d names %s", name, ti, other)
			}
			return notSupported(OpinionErrorEntity, "%s stands where turn %d has no reference to it", name, ti)
		}
	}

	// polarity: a negation added
	for i, w := range sw {
		if pair[i] < 0 && negations[w.norm] {
			return notSupported(OpinionErrorPolarity, "%q negates what turn %d states", w.text, ti)
		}
	}
	// polarity: a negation dropped between two aligned words close on
	// both sides
	prevS, prevT := -1, -1
	for i := range sw {
		if pair[i] < 0 {
			continue
		}
		if prevT >= 0 && pair[i]-prevT <= maxDroppedGap+1 && i-prevS <= maxDroppedGap+1 {
			for j := prevT + 1; j < pair[i]; j++ {
				if negations[turnWords[j].norm] {
					return notSupported(OpinionErrorPolarity, "turn %d says %q between %q and %q; the sentence drops it",
						ti, turnWords[j].text, turnWords[prevT].text, turnWords[pair[i]].text)
				}
			}
		}
		prevS, prevT = i, pair[i]
	}
	// values
	for i, w := range sw {
		if pair[i] < 0 && entity[w.tok] < 0 && isNumberWord(w.norm) && !referenceGroup(w.norm, spans) {
			return notSupported(OpinionErrorValue, "%q is not a value turn %d states%s", w.text, ti, nearValue(turnWords, pair, i))
		}
	}
	// added content
	roles := map[string]bool{}
	for _, sp := range spans {
		if sp.e == nil {
			continue
		}
		for _, r := range sp.e.Roles {
			for _, f := range strings.Fields(r) {
				roles[lemma(strings.ToLower(f))] = true
			}
		}
		for k := range sp.e.RoleOf {
			roles[lemma(k)] = true
		}
	}
	turnSet := map[string]bool{}
	for _, w := range turnWords {
		turnSet[w.norm] = true
	}
	for i, w := range sw {
		if pair[i] >= 0 || entity[w.tok] >= 0 || w.norm == selfWord || functionWords[w.norm] || functionWords[strings.ToLower(w.text)] || roles[w.norm] || !isWord(w.text) || len([]rune(w.norm)) < 2 {
			continue
		}
		if turnSet[w.norm] {
			continue // a word of the turn the writer moved
		}
		return OpinionVerdict{Status: schemas.StatusNotIncluded,
			Reason: fmt.Sprintf("%q is not in turn %d: the sentence adds to what the turn says", w.text, ti)}
	}
	return OpinionVerdict{Status: schemas.StatusSupported, Reason: fmt.Sprintf("aligned with turn %d", ti)}
}

// maxDroppedGap: a negation the sentence leaves out between aligned
// words counts only where the turn skips at most this many words there
// (a longer skip is a clause the statement does not take).
const maxDroppedGap = 3

type entitySpan struct {
	e          *Entity
	start, end int
	other      bool // another participant, named for "you"
}

// align is a weighted longest common subsequence of a and b: content
// words weigh more than function words. pair[i] is the index in b that
// a[i] is aligned with, or -1.
func align(a, b []word) []int {
	n, m := len(a), len(b)
	dp := make([][]int, n+1)
	for i := range dp {
		dp[i] = make([]int, m+1)
	}
	// a match weighs by its word, and one more when the next words
	// match too: a word the turn repeats is aligned where its
	// neighbours are ("the performances of …" with the turn's second
	// sentence, not with "her performance in …" of its first)
	weight := func(i, j int) int {
		w := 3
		if functionWords[a[i].norm] {
			w = 1
		}
		if i+1 < n && j+1 < m && a[i+1].norm == b[j+1].norm {
			w++
		}
		return w
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			best := max(dp[i+1][j], dp[i][j+1])
			if a[i].norm == b[j].norm {
				best = max(best, dp[i+1][j+1]+weight(i, j))
			}
			dp[i][j] = best
		}
	}
	pair := make([]int, n)
	for i := range pair {
		pair[i] = -1
	}
	for i, j := 0, 0; i < n && j < m; {
		switch {
		case a[i].norm == b[j].norm && dp[i][j] == dp[i+1][j+1]+weight(i, j):
			pair[i] = j
			i++
			j++
		case dp[i][j] == dp[i+1][j]:
			i++
		default:
			j++
		}
	}
	return pair
}

// gapAround is the range of turn words between the aligned words before
// sentence word lo and after sentence word hi, those words included.
func gapAround(pair []int, lo, hi, m int) (int, int) {
	from, to := 0, m-1
	for i := lo - 1; i >= 0; i-- {
		if pair[i] >= 0 {
			from = pair[i]
			break
		}
	}
	for i := hi + 1; i < len(pair); i++ {
		if pair[i] >= 0 {
			to = pair[i]
			break
		}
	}
	return from, to
}

// referenceBetween reports whether turn words lo..hi hold a reference
// expression e may resolve: a pronoun, a determiner or group word, one of
// e's role words, or one of e's names. Otherwise it returns the other
// background name written there, if any.
func referenceBetween(g *Graph, tw []word, lo, hi int, e *Entity) (bool, string) {
	roles := map[string]bool{}
	for _, r := range e.Roles {
		for _, f := range strings.Fields(r) {
			roles[lemma(strings.ToLower(f))] = true
		}
	}
	for k := range e.RoleOf {
		roles[lemma(k)] = true
	}
	other := ""
	for j := lo; j <= hi && j < len(tw); j++ {
		w := tw[j]
		lw := strings.ToLower(w.text)
		if referenceWords[w.norm] || referenceWords[lw] || roles[w.norm] || groupHeads[lw] != 0 || eventHeads[lw] || eventHeads[w.norm] || numberWords[lw] > 0 {
			return true, ""
		}
		if x := g.Lookup(w.text); x != nil {
			if x == e {
				return true, ""
			}
			if other == "" {
				other = x.Name
			}
		}
	}
	return false, other
}

// namedIn reports whether a text writes one of e's names.
func namedIn(g *Graph, text string, e *Entity) bool {
	for _, x := range g.EntitiesIn(text) {
		if x == e {
			return true
		}
	}
	return false
}

func referenceInTurn(tw []word, ws ...string) bool {
	for _, w := range tw {
		for _, x := range ws {
			if w.norm == x {
				return true
			}
		}
	}
	return false
}

// referenceGroup: a number word the writer keeps with a group it spells
// out ("both", "the two") is no value when the sentence names that many.
func referenceGroup(w string, spans []entitySpan) bool {
	n := numberWords[w]
	return n > 0 && len(spans) >= n
}

// nearValue names the value the turn states where the sentence's number
// stands, for the reason.
func nearValue(tw []word, pair []int, i int) string {
	lo, hi := gapAround(pair, i, i, len(tw))
	for j := lo; j <= hi && j < len(tw); j++ {
		if isNumberWord(tw[j].norm) {
			return fmt.Sprintf(" (the turn says %q)", tw[j].text)
		}
	}
	return ""
}

// holdsRole reports whether e is where another entity the sentence names
// holds a role ("the president of FIFA, Gianni Infantino"): the writer
// adds the organisation to the role it resolves.
func holdsRole(spans []entitySpan, e *Entity) bool {
	for _, sp := range spans {
		if sp.e == nil || sp.e == e {
			continue
		}
		for _, h := range sp.e.RoleOf {
			if strings.EqualFold(h, e.Name) || contains(e.Aliases, h) {
				return true
			}
		}
	}
	return false
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if strings.EqualFold(x, y) {
			return true
		}
	}
	return false
}
