package discussion

import (
	"sort"
	"strings"
)

// The resolver's weights. Recency in the discussion dominates background
// salience: a participant who just named someone means them by "she"
// unless gender or number rules them out; salience decides only when the
// discussion itself has named nobody who fits.
const (
	weightRecency   = 1.0
	weightSalience  = 0.6
	bonusSameSpeech = 0.25 // the same participant named it last
	bonusRole       = 0.5  // a role phrase matches one of its roles
	penaltyUnknown  = 0.35 // gender unknown where the pronoun has one
	penaltySingular = 0.2  // "they" for an organisation the text calls "it"
	// confidenceFloor and confidenceMargin: below either the reference is
	// left as written rather than guessed.
	confidenceFloor  = 0.15
	confidenceMargin = 0.08
)

// Resolution is the outcome for one implicit reference.
type Resolution struct {
	Turn   int
	Phrase string  // as written: "she", "this institution"
	Entity *Entity // nil when left unresolved
	// Members are the entities a group reference ("the two teams")
	// denotes, Entity the first of them.
	Members []*Entity
	Score   float64
	Runner  float64 // the second best candidate's score
	Reasons string
}

// Focus sets the paragraphs that support the discussion
// (SelectBackground's choice): a background covering several stories is
// discussed one story at a time, so the lists of names that group
// references and "this match" denote are looked for there.
func (r *Resolver) Focus(paragraphs []int) {
	if len(paragraphs) == 0 {
		return
	}
	r.focus = map[int]bool{}
	for _, p := range paragraphs {
		r.focus[p] = true
	}
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// Resolver resolves the implicit references of a discussion's turns to
// entities of its background, turn after turn; it keeps the discussion's
// history of named and resolved entities (who named whom, when).
type Resolver struct {
	g        *Graph
	salience map[*Entity]float64
	focus    map[int]bool // supporting paragraphs, when known
	history  []historyItem
	// Resolutions lists every reference met, resolved or not.
	Resolutions []Resolution
}

type historyItem struct {
	e           *Entity
	turn        int
	participant string
}

// NewResolver prepares a resolver for a discussion's graph.
func NewResolver(g *Graph) *Resolver {
	r := &Resolver{g: g, salience: map[*Entity]float64{}}
	maxM := 1
	for _, e := range g.Entities {
		if e.Mentions > maxM {
			maxM = e.Mentions
		}
	}
	firstPara := 1 << 30
	for _, e := range g.Entities {
		if e.FirstParagraph < firstPara {
			firstPara = e.FirstParagraph
		}
	}
	for _, e := range g.Entities {
		s := float64(e.Mentions) / float64(maxM)
		if e.FirstParagraph == firstPara {
			s += 0.15
		}
		r.salience[e] = s
	}
	return r
}

type pronounClass int

const (
	notPronoun pronounClass = iota
	pronMale
	pronFemale
	pronPlural
	pronNeuter
)

func classifyPronoun(lw string) (pronounClass, bool) {
	switch lw {
	case "he", "him", "himself":
		return pronMale, false
	case "his":
		return pronMale, true
	case "she", "herself", "hers":
		return pronFemale, false
	case "her":
		return pronFemale, true // possessive or object: decided by context
	case "they", "them", "themselves", "theirs":
		return pronPlural, false
	case "their":
		return pronPlural, true
	case "it":
		return pronNeuter, false
	case "its":
		return pronNeuter, true
	}
	return notPronoun, false
}

// determinerWords open a role phrase ("the coach", "this institution").
var determinerWords = toSet(`the this that`)

// nonHeadFollowers: after "her", a word of these is not the noun she
// possesses, so "her" is an object ("for her to", "beat her and").
var nonHeadFollowers = toSet(`to and or but than in on at for from by with as is was were are be been has have had will would
can could should may might must that which who when because if so not also too again though anyway
already now then here there today yesterday tomorrow either instead all both off out up down back over well enough`)

// copulas after "it" make it an expletive more often than a reference
// ("it is hard to …", "it would be impossible …").
var copulas = toSet(`is was would will 's seems seemed might may could can must should has had`)

// Resolve rewrites one atomic statement of a turn: names written in part
// ("Infantino") get their canonical form, pronouns and role phrases that
// resolve with confidence are replaced by the entity's canonical name
// (possessives keep their "'s"). It returns the rewritten tokens and the
// entities the statement now names.
func (r *Resolver) Resolve(ts []token, turn int, participant string) []token {
	out := make([]token, len(ts))
	copy(out, ts)
	type used struct {
		e          *Entity
		class      pronounClass
		possessive bool
	}
	var clauseRefs []used
	stmtStart := len(r.history)
	for i := 0; i < len(out); i++ {
		lw := strings.ToLower(out[i].Text)
		if e, n := r.g.match(out, i); e != nil {
			out[i].Text = r.surface(e, i > 0 && strings.EqualFold(out[i-1].Text, "the"))
			out[i].Name = true
			for k := i + 1; k < i+n; k++ {
				out[k].Text = ""
			}
			r.history = append(r.history, historyItem{e, turn, participant})
			i += n - 1
			continue
		}
		if _, n := r.resolveGroup(out, i, turn, participant); n > 0 {
			i += n - 1
			continue
		}
		if class, poss := classifyPronoun(lw); class != notPronoun {
			if lw == "her" {
				poss = i+1 < len(out) && isLowerWord(out[i+1].Text) && !nonHeadFollowers[strings.ToLower(out[i+1].Text)]
			}
			if class == pronNeuter && !poss && i+1 < len(out) && copulas[strings.ToLower(out[i+1].Text)] {
				continue
			}
			if class == pronNeuter && i+1 < len(out) && out[i+1].Text == "'s" {
				continue
			}
			// an object pronoun cannot be its clause's subject ("she was
			// beaten by her"); "hers" is not the "her" it is compared with
			exclude := map[*Entity]bool{}
			object := lw == "him" || lw == "them" || lw == "her" && !poss
			standalone := lw == "hers" || lw == "theirs" || lw == "his" && !(i+1 < len(out) && isLowerWord(out[i+1].Text))
			for _, u := range clauseRefs {
				if u.class == class && (object && !u.possessive || standalone) {
					exclude[u.e] = true
				}
			}
			e, res := r.pick(class, "", turn, participant, exclude)
			res.Phrase = out[i].Text
			r.Resolutions = append(r.Resolutions, res)
			if e == nil {
				continue
			}
			clauseRefs = append(clauseRefs, used{e, class, poss})
			name := r.surface(e, false)
			if poss || standalone {
				name = possessive(name)
			}
			out[i].Text = name
			out[i].Name = true
			r.history = append(r.history, historyItem{e, turn, participant})
			continue
		}
		if determinerWords[lw] && !(i > 0 && strings.EqualFold(out[i-1].Text, "as")) {
			// a role phrase: determiner, up to two modifiers, a head noun
			for j := i + 1; j < len(out) && j <= i+3; j++ {
				w := strings.ToLower(out[j].Text)
				if !isLowerWord(out[j].Text) || roleStop[w] {
					break
				}
				if next := j + 1; next < len(out) && isLowerWord(out[next].Text) && !roleStop[strings.ToLower(out[next].Text)] && j < i+3 {
					continue // a longer phrase may end at a later head
				}
				if !r.isRoleHead(w) {
					break
				}
				// a role phrase is not an entity its statement already
				// names ("the Reds swept this team")
				named := map[*Entity]bool{}
				for _, h := range r.history[stmtStart:] {
					named[h.e] = true
				}
				e, res := r.pick(notPronoun, w, turn, participant, named)
				var ws []string
				for k := i; k <= j; k++ {
					ws = append(ws, out[k].Text)
				}
				res.Phrase = strings.Join(ws, " ")
				r.Resolutions = append(r.Resolutions, res)
				if e != nil {
					out[i].Text = r.surface(e, false)
					out[i].Name = true
					for k := i + 1; k <= j; k++ {
						out[k].Text = ""
					}
					r.history = append(r.history, historyItem{e, turn, participant})
					i = j
				}
				break
			}
		}
	}
	return out
}

// surface is how an entity is written in an opinion: its canonical name,
// with "the" before an organisation or event the background writes so.
func (r *Resolver) surface(e *Entity, afterThe bool) string {
	if !afterThe && e.the > 0 && e.Kind != KindPerson {
		return "the " + e.Name
	}
	return e.Name
}

// isRoleHead reports whether a noun is a role some entity carries, or a
// head that describes organisations ("institution", "club").
func (r *Resolver) isRoleHead(w string) bool {
	if orgRoles[w] {
		return true
	}
	for _, e := range r.g.Entities {
		for _, role := range e.Roles {
			if role == w {
				return true
			}
		}
	}
	return false
}

func hasRole(e *Entity, head string) bool {
	for _, role := range e.Roles {
		if role == head || strings.HasSuffix(role, " "+head) {
			return true
		}
	}
	return false
}

// pick scores the candidates compatible with a pronoun class or a role
// head and returns the best if it clears the floor and the margin.
func (r *Resolver) pick(class pronounClass, head string, turn int, participant string, exclude map[*Entity]bool) (*Entity, Resolution) {
	type cand struct {
		e     *Entity
		score float64
	}
	// recency rank: the most recently named compatible entity first
	lastSeen := map[*Entity]int{}
	lastBy := map[*Entity]bool{}
	for k, h := range r.history {
		lastSeen[h.e] = k + 1
	}
	for k := len(r.history) - 1; k >= 0; k-- {
		if r.history[k].participant == participant {
			lastBy[r.history[k].e] = true
			break
		}
	}
	var cands []cand
	for _, e := range r.g.Entities {
		if exclude[e] {
			continue
		}
		s, ok := compatible(e, class, head)
		if !ok {
			continue
		}
		cands = append(cands, cand{e, s + weightSalience*r.salience[e]})
	}
	sort.SliceStable(cands, func(i, j int) bool { return lastSeen[cands[i].e] > lastSeen[cands[j].e] })
	rank := 0
	for k := range cands {
		if lastSeen[cands[k].e] == 0 {
			break
		}
		cands[k].score += weightRecency / float64(1+rank)
		if lastBy[cands[k].e] {
			cands[k].score += bonusSameSpeech
		}
		rank++
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].score > cands[j].score })
	res := Resolution{Turn: turn}
	if len(cands) == 0 {
		res.Reasons = "no compatible entity"
		return nil, res
	}
	res.Score = cands[0].score
	if len(cands) > 1 {
		res.Runner = cands[1].score
	}
	if res.Score < confidenceFloor || res.Score-res.Runner < confidenceMargin {
		res.Reasons = "below confidence"
		return nil, res
	}
	res.Entity = cands[0].e
	return cands[0].e, res
}

// compatible says whether an entity can be what a pronoun class or a role
// head denotes, and with what adjustment.
func compatible(e *Entity, class pronounClass, head string) (float64, bool) {
	if head != "" {
		if hasRole(e, head) {
			return bonusRole, true
		}
		if orgRoles[head] && e.Kind == KindOrganisation {
			return 0, true
		}
		return 0, false
	}
	switch class {
	case pronMale, pronFemale:
		if e.Kind != KindPerson && !(e.Kind == KindOther && e.Gender != GenderUnknown) {
			return 0, false
		}
		want := Male
		if class == pronFemale {
			want = Female
		}
		if e.Gender == want {
			return 0, true
		}
		if e.Gender == GenderUnknown {
			return -penaltyUnknown, true
		}
		return 0, false
	case pronPlural:
		if e.Kind != KindOrganisation {
			return 0, false
		}
		if e.Plural {
			return 0, true
		}
		return -penaltySingular, true
	case pronNeuter:
		if e.Kind == KindPerson || e.Plural || e.Kind == KindPlace {
			return 0, false
		}
		return 0, e.Kind == KindOrganisation || e.Kind == KindEvent
	}
	return 0, false
}

// possessive writes a name's possessive: "Halep's", "the Aces'".
func possessive(name string) string {
	if strings.HasSuffix(name, "s") {
		return name + "'"
	}
	return name + "'s"
}
