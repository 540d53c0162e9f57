package discourse

import (
	"math"
	"regexp"
	"sort"
	"strings"

	"github.com/annalist-dev/annalist/schemas"
)

// The resolver's weights. Recency in the discussion dominates background
// salience: a participant who just named someone means them by "she"
// unless gender or number rules them out; salience decides only when the
// discussion itself has named nobody who fits.
const (
	weightRecency   = 1.0
	weightDeed      = 1.0 // the turn's words follow its mentions
	weightSalience  = 0.6
	bonusSameSpeech = 0.25 // the same participant named it last
	bonusRole       = 0.5  // a role phrase matches one of its roles
	bonusAffiliated = 1.0  // an organisation head after its person
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
	scopes   []map[int]float64
	scope    map[int]float64 // the current turn's paragraphs, weighted
	// deeds: per turn, how much of the turn's wording the background
	// writes after each entity's mentions (0 to 1)
	deeds []map[*Entity]float64
	ex    []int // each turn's exchange (exchanges)
	turn  int   // the turn being resolved
	// lastGroup is the last group reference resolved; slots the tokens of
	// the current statement that denote it.
	// hint: the head of an apposition that describes the pronoun being
	// resolved ("as an official body, it"), "" otherwise
	hint string
	// polity: the plural pronoun being resolved denotes a country or a
	// region ("their economy", "they are not a developed country")
	polity    bool
	lastGroup *groupUse
	slots     []groupSlot

	history []historyItem
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

// placeHeads after "this" or "that" denote the story's place ("this
// area", "this country"); after "the" they are as often generic.
var placeHeads = wordSet("place_heads")

// countryHeads denote a country, never a locality written with the place
// it lies in ("Gourock, Inverclyde").
var countryHeads = wordSet("country_heads")

// facilityWords end the names of places that are no area a story is
// about ("Stansted Airport", "Nottingham Road").
var facilityWords = wordSet("facility_words")

func isFacility(e *Entity) bool {
	ws := strings.Fields(strings.ToLower(e.Name))
	return len(ws) > 0 && facilityWords[ws[len(ws)-1]]
}

// corefRoleHead: a role word that names a person — a known role noun or an
// agent noun ("striker", "director", "economist", "guardian") — rather
// than a thing or a quality the background tied to a name ("record",
// "technical", "final").
func corefRoleHead(w string) bool {
	if personRoles[w] {
		return true
	}
	for _, suf := range []string{"er", "or", "ist", "ian", "ant", "ent"} {
		if strings.HasSuffix(w, suf) && len(w) > len(suf)+2 {
			return true
		}
	}
	return false
}

// determinerWords open a role phrase ("the coach", "this institution").
var determinerWords = wordSet("determiner_words")

// nonHeadFollowers: after "her", a word of these is not the noun she
// possesses, so "her" is an object ("for her to", "beat her and"); a
// determiner opens the verb's second object ("given her the window").
var nonHeadFollowers = wordSet("non_head_followers")

// beliefVerbs take a proposition as their object: "it" after them is
// what was said.
var beliefVerbs = wordSet("belief_verbs")

// copulas after "it" make it an expletive more often than a reference
// ("it is hard to …", "it would be impossible …").
var copulas = wordSet("copulas")

// ResolveStatements resolves one atomic statement like Resolve and
// writes a statement about a group once per member.
func (r *Resolver) ResolveStatements(ts []token, turn int, participant string) [][]token {
	return r.perMember(r.Resolve(ts, turn, participant))
}

// Resolve rewrites one atomic statement of a turn: names written in part
// ("Infantino") get their canonical form, pronouns and role phrases that
// resolve with confidence are replaced by the entity's canonical name
// (possessives keep their "'s"). It returns the rewritten tokens and the
// entities the statement now names.
func (r *Resolver) Resolve(ts []token, turn int, participant string) []token {
	out := make([]token, len(ts))
	copy(out, ts)
	r.scope, r.turn = nil, turn
	r.slots = nil
	if turn >= 0 && turn < len(r.scopes) {
		r.scope = r.scopes[turn]
	}
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
			// "as an official body, it …": the apposition describes the
			// pronoun, which is no expletive then, and its head is a role
			// the entity should carry
			hint := asApposition(out, i)
			if class == pronNeuter && !poss && hint == "" && i+1 < len(out) && copulas[strings.ToLower(out[i+1].Text)] && !modalAction(out, i+1) {
				continue
			}
			if class == pronNeuter && i+1 < len(out) && out[i+1].Text == "'s" {
				continue
			}
			// the object of a verb of belief is what was said, not a
			// thing ("I doubt it", "I believe it")
			if lw == "it" && i > 0 && beliefVerbs[strings.ToLower(out[i-1].Text)] {
				continue
			}
			// a reflexive right after a noun stresses that noun ("the
			// charges themselves"): no entity
			if reflexives[lw] && i > 0 && isLowerWord(out[i-1].Text) && !verbBefore(out[i-1].Text) {
				continue
			}
			if lw == "they" && pluralSubjectBefore(out[:i]) {
				// "although the armed robberies are concerning, they …":
				// the things just named, no entity
				r.Resolutions = append(r.Resolutions, Resolution{Turn: turn, Phrase: lw, Reasons: "a plural subject before it"})
				continue
			}
			if class == pronPlural && r.bindGroup(turn) {
				object := lw == "them" || lw == "themselves"
				r.slots = append(r.slots, groupSlot{pos: i, possessive: poss || lw == "theirs", object: object})
				name := r.joinNames(r.lastGroup.members)
				if poss || lw == "theirs" {
					name = possessive(name)
				}
				out[i].Text = name
				out[i].Name = true
				r.Resolutions = append(r.Resolutions, Resolution{Turn: turn, Phrase: lw, Entity: r.lastGroup.members[0], Members: r.lastGroup.members, Reasons: "the last group"})
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
			// a pronoun is not a name of its own clause ("borrow them at
			// the Central Library", "they beat Juventus"), unless it is a
			// reflexive ("Harry pushed himself")
			if !poss && !standalone && !reflexives[lw] {
				for e := range r.clauseMates(ts, i) {
					exclude[e] = true
				}
			}
			r.hint = hint
			r.polity = class == pronPlural && polityStatement(out)
			e, res := r.pick(class, "", turn, participant, exclude)
			r.hint, r.polity = "", false
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
			// the longest phrase whose last word is a role head
			last := 0
			for j := i + 1; j < len(out) && j <= i+3; j++ {
				w := strings.ToLower(out[j].Text)
				// "that neither team scored": "that" opens a clause,
				// the quantifier its own phrase
				if !isLowerWord(out[j].Text) || roleStop[w] || quantifiers[w] {
					break
				}
				if r.isRoleHead(w) && !(placeHeads[w] && lw == "the") {
					last = j
				}
			}
			if last == 0 {
				if e, j := r.described(out, i, lw); e != nil {
					out[i].Text = r.surface(e, false)
					out[i].Name = true
					for k := i + 1; k <= j; k++ {
						out[k].Text = ""
					}
					r.history = append(r.history, historyItem{e, turn, participant})
					i = j
					continue
				}
			}
			for j := last; j > 0; j = 0 {
				w := strings.ToLower(out[j].Text)
				// a role phrase is not an entity its statement already
				// names ("the Reds swept this team")
				// in its clause ("she played for the Sparks, she led this
				// team": another clause may name it)
				named := map[*Entity]bool{}
				mates, written := r.clauseMates(ts, i), r.namesIn(ts)
				for _, h := range r.history[stmtStart:] {
					if mates[h.e] || !written[h.e] {
						named[h.e] = true
					}
				}
				for e := range mates {
					named[e] = true
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
					if h := r.holder(e, w, named); h != "" {
						out[i].Text = h + " " + w + " " + e.Name
					}
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
	r.completeRoles(out, stmtStart)
	return out
}

// eventNouns after a determiner denote the story's event ("this event",
// "that tournament"): an entity the graph takes for an event.
var eventNouns = wordSet("event_nouns")

// described resolves a definite description that is no role ("this
// airport", "that event", "the motorway") to the one entity whose name
// ends in its head noun ("Heathrow Airport"), or, for an event noun, to
// the one event: looked for in the turn's scope, then the supporting
// paragraphs, then the whole background; "the" only where the background
// has exactly one. It returns the entity and the head's token, or nil.
func (r *Resolver) described(out []token, i int, det string) (*Entity, int) {
	for j := i + 1; j < len(out) && j <= i+2; j++ {
		w := strings.ToLower(out[j].Text)
		if !isLowerWord(out[j].Text) || roleStop[w] {
			return nil, 0
		}
		if j+1 < len(out) && !headEnds(out[j+1].Text) {
			continue // a modifier: the head comes later
		}
		fits := func(e *Entity) bool {
			// an organisation's name ending in a common noun ("BBC
			// Sport") does not make it what that noun denotes
			if e.Kind == KindPerson || e.Kind == KindOrganisation {
				return false
			}
			ws := strings.Fields(strings.ToLower(e.Name))
			if len(ws) > 1 && (ws[len(ws)-1] == w || ws[len(ws)-1] == w+"s") {
				return true
			}
			return eventNouns[w] && e.Kind == KindEvent
		}
		var all, scoped, focused []*Entity
		for _, e := range r.g.Entities {
			if !fits(e) {
				continue
			}
			all = append(all, e)
			if r.scopeOf(e) > 0 {
				scoped = append(scoped, e)
			}
			for _, p := range e.Paragraphs {
				if r.focus[p] {
					focused = append(focused, e)
					break
				}
			}
		}
		res := Resolution{Turn: r.turn, Phrase: det + " " + w}
		var e *Entity
		switch {
		case det == "the":
			if len(all) == 1 {
				e = all[0]
			}
		case len(scoped) > 0:
			if len(scoped) == 1 {
				e = scoped[0]
			}
		case len(focused) > 0:
			if len(focused) == 1 {
				e = focused[0]
			}
		case len(all) == 1:
			e = all[0]
		}
		if len(all) == 0 {
			return nil, 0
		}
		res.Entity = e
		if e == nil {
			res.Reasons = "no single entity of that head"
		} else {
			res.Reasons = "the one entity of that head"
		}
		r.Resolutions = append(r.Resolutions, res)
		return e, j
	}
	return nil, 0
}

// headEnds reports whether a word can follow the head noun of a
// description rather than be a later noun of it: no lower-case word, a
// function word or auxiliary, or a verb in the past or the third person
// ("this airport handled …", "that event is …"; not "the airport staff").
func headEnds(w string) bool {
	lw := strings.ToLower(w)
	if !isLowerWord(w) || roleStop[lw] || nonHeadFollowers[lw] || auxiliaries[lw] {
		return true
	}
	return strings.HasSuffix(lw, "ed") || strings.HasSuffix(lw, "s") && !strings.HasSuffix(lw, "ss")
}

// holder is how the organisation in which e holds a role is written
// ("FIFA" for a president), when the graph knows it and the statement
// does not already name it; "" otherwise.
func (r *Resolver) holder(e *Entity, role string, named map[*Entity]bool) string {
	name := e.RoleOf[role]
	if name == "" {
		return ""
	}
	h := r.g.Lookup(name)
	if h == nil {
		return name
	}
	if named[h] {
		return ""
	}
	return r.surface(h, false)
}

// completeRoles writes the organisation of a role the statement gives
// its subject ("as the president, Gianni Infantino …" → "as the
// president of FIFA, …") when an entity the statement names holds that
// role in a known organisation.
func (r *Resolver) completeRoles(out []token, stmtStart int) {
	named := map[*Entity]bool{}
	for _, h := range r.history[stmtStart:] {
		named[h.e] = true
	}
	for i := 1; i+1 < len(out); i++ {
		if !strings.EqualFold(out[i-1].Text, "as") || !determinerWords[strings.ToLower(out[i].Text)] && !strings.EqualFold(out[i].Text, "a") {
			continue
		}
		role := strings.ToLower(out[i+1].Text)
		if !isLowerWord(out[i+1].Text) || i+2 < len(out) && strings.EqualFold(out[i+2].Text, "of") {
			continue
		}
		for _, h := range r.history[stmtStart:] {
			if org := r.holder(h.e, role, named); org != "" {
				out[i+1].Text += " of " + org
				break
			}
		}
	}
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
	if orgRoles[w] || placeHeads[w] {
		return true
	}
	if !corefRoleHead(w) {
		return false
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
	// "they" for an organisation the text calls "it" needs the discussion
	// to have named it just before: by itself "they" is as often people
	// in general ("they should pay more").
	recent := map[*Entity]bool{}
	for _, h := range r.history {
		if h.turn >= turn-1 {
			recent[h.e] = true
		}
	}
	// an organisation head ("the team", "his club") after a person is
	// most likely that person's organisation
	var person *Entity
	for k := len(r.history) - 1; k >= 0 && r.history[k].turn >= turn-1; k-- {
		if r.history[k].e.Kind == KindPerson {
			person = r.history[k].e
			break
		}
	}
	var cands, inScope []cand
	for _, e := range r.g.Entities {
		if exclude[e] {
			continue
		}
		s, ok := compatible(e, class, head)
		if r.polity {
			// a country's people: places of the story, no organisation
			s, ok = 0, e.Kind == KindPlace && !isFacility(e) && e.ev.locality == 0 && (recent[e] || r.scopeOf(e) != 0)
		}
		if !ok || class == pronPlural && !r.polity && !e.Plural && !recent[e] && r.scopeOf(e) < 1 {
			continue
		}
		if orgRoles[head] {
			s += bonusAffiliated * affiliated(person, e)
		}
		if placeHeads[head] && r.partsOf(e, head) {
			continue
		}
		if r.hint != "" && (hasRole(e, r.hint) || orgRoles[r.hint] && e.Kind == KindOrganisation && nameHas(e, r.hint)) {
			s += bonusRole
		}
		if turn >= 0 && turn < len(r.deeds) {
			s += weightDeed * r.deeds[turn][e]
		}
		sal := r.salience[e]
		if w := r.scopeOf(e); w > 0 {
			sal = scopeGlobal * (sal + w)
			inScope = append(inScope, cand{e, s + weightSalience*sal})
		}
		cands = append(cands, cand{e, s + weightSalience*sal})
	}
	if len(inScope) > 0 {
		cands = inScope
	} else if placeHeads[head] && r.scope != nil {
		// "this country" is the story's: a place of another story is
		// no better than the phrase as written
		cands = nil
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

// affiliated is how surely an organisation is a person's: 1 when the
// graph ties one of the person's roles to it ("Arizona Cardinals QB Kyler
// Murray"), one half when a paragraph names both, else 0.
func affiliated(person, org *Entity) float64 {
	if person == nil {
		return 0
	}
	for _, h := range person.RoleOf {
		if strings.EqualFold(h, org.Name) {
			return 1
		}
	}
	for _, p := range person.Paragraphs {
		if containsInt(org.Paragraphs, p) {
			return 0.5
		}
	}
	return 0
}

// compatible says whether an entity can be what a pronoun class or a role
// head denotes, and with what adjustment.
func compatible(e *Entity, class pronounClass, head string) (float64, bool) {
	if head != "" {
		if hasRole(e, head) {
			return bonusRole, true
		}
		if orgRoles[head] && e.Kind == KindOrganisation && (!typedOrgHeads[head] || nameHas(e, head)) {
			return 0, true
		}
		if placeHeads[head] && e.Kind == KindPlace && !isFacility(e) && !(countryHeads[head] && e.ev.locality > 0) {
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

// Per-turn scope. A background that holds several stories (a round-up of
// matches, a list of companies) is discussed one story at a time, and a
// turn's references denote the entities of the story it is about. The
// story is found from the text: the paragraphs that share the most
// content words and word pairs (IDF over the background's paragraphs)
// with the turn and, at half weight, with the other turns of its exchange
// (exchanges), plus the paragraphs of the entities those turns name; a
// turn that says "he" or "she" of nobody it names weighs down paragraphs
// without such a person. Paragraphs scoring at least scopeShare of the
// best one form the turn's scope, with the paragraph before each (where a
// story's names are often introduced). A turn that shares nothing with the
// background has no scope, and the whole background is searched.
const (
	scopeShare     = 0.5
	scopeNeighbour = 0.5 // weight of the other turns of the exchange
	scopeNamed     = 1.0 // weight of a paragraph naming an entity the turns name
	scopeGlobal    = 2.0 // weight of salience plus the scope weight, within the scope
	scopeNoGender  = 0.5 // a paragraph without a person of the turn's pronoun's gender
)

// ScopeTurns computes the scope of every turn of a discussion; Resolve
// then prefers the entities of the turn's scope.
func (r *Resolver) ScopeTurns(turns []schemas.Turn) {
	paras := r.g.paras
	n := len(paras)
	r.scopes = make([]map[int]float64, len(turns))
	r.ex = exchanges(turns)
	if n == 0 {
		return
	}
	terms := make([]map[string]int, n)
	df := map[string]int{}
	for i, p := range paras {
		terms[i] = scopeTerms(p.Text)
		for w := range terms[i] {
			df[w]++
		}
	}
	idf := func(w string) float64 { return math.Log(float64(n+1) / float64(df[w])) }
	norms := make([]float64, n)
	for i := range paras {
		for w, c := range terms[i] {
			x := float64(c) * idf(w)
			norms[i] += x * x
		}
		norms[i] = math.Sqrt(norms[i])
	}
	turnTerms := make([]map[string]int, len(turns))
	turnEnts := make([][]*Entity, len(turns))
	for t, tu := range turns {
		turnTerms[t] = scopeTerms(tu.Utterance)
		turnEnts[t] = r.g.EntitiesIn(tu.Utterance)
	}
	r.deeds = r.deedScores(turnTerms, idf, df, n)
	ex := r.ex
	for t := range turns {
		q := map[string]float64{}
		named := map[int]float64{}
		for u := range turns {
			if ex[u] != ex[t] {
				continue
			}
			wt := 1.0
			if u != t {
				wt = scopeNeighbour
			}
			for w := range turnTerms[u] {
				q[w] = math.Max(q[w], wt)
			}
			for _, e := range turnEnts[u] {
				for _, p := range e.Paragraphs {
					named[p] = math.Max(named[p], wt/float64(len(e.Paragraphs)))
				}
			}
		}
		score := make([]float64, n)
		best := 0.0
		for i := range paras {
			if norms[i] > 0 {
				for w, qw := range q {
					if c := terms[i][w]; c > 0 && df[w] < n {
						x := idf(w)
						score[i] += qw * float64(c) * x * x
					}
				}
				score[i] /= norms[i]
			}
			best = math.Max(best, score[i])
		}
		if best > 0 {
			for i := range score {
				score[i] /= best
			}
		}
		for i, p := range paras {
			score[i] += scopeNamed * named[p.Index]
		}
		// a turn that says "she" (or "he") and names no one of that
		// gender is about a story with such a person: a paragraph whose
		// story (it and the one before) has none weighs less
		if want := r.turnGender(turns[t].Utterance, turnEnts[t]); want != GenderUnknown {
			has := make([]bool, n)
			for _, e := range r.g.Entities {
				if e.Kind != KindPerson || e.Gender != want {
					continue
				}
				for i, p := range paras {
					if containsInt(e.Paragraphs, p.Index) {
						has[i] = true
					}
				}
			}
			for i := range paras {
				if !has[i] && !(i > 0 && has[i-1]) {
					score[i] *= scopeNoGender
				}
			}
		}
		best = 0
		for _, s := range score {
			best = math.Max(best, s)
		}
		if best == 0 {
			continue
		}
		sc := map[int]float64{}
		for i, p := range paras {
			if score[i] >= scopeShare*best {
				w := score[i] / best
				sc[p.Index] = math.Max(sc[p.Index], w)
				if i > 0 {
					prev := paras[i-1].Index
					sc[prev] = math.Max(sc[prev], w/2)
				}
			}
		}
		r.scopes[t] = sc
	}
}

// scopeTerms are a text's content words (stemmed, as SelectBackground
// counts them) and the pairs of consecutive ones ("regular season"), a
// pair being rarer and so weightier evidence than its words.
func scopeTerms(text string) map[string]int {
	return termsOf(text, scopeStem)
}

// termsOf counts a text's content words and word pairs, each stemmed by
// stem.
func termsOf(text string, stem func(string) string) map[string]int {
	out := map[string]int{}
	prev := ""
	for _, w := range bgWords(text) {
		lw := strings.ToLower(w)
		parts := []string{lw}
		if strings.Contains(lw, "-") && !bgIsNumber(strings.ReplaceAll(lw, "-", "")) {
			// a compound is written with or without its hyphen
			// ("shoot-out", "shootout") and its words stand alone
			// ("three-touchdown", "three touchdowns")
			out[bgStem(strings.ReplaceAll(lw, "-", ""))]++
			parts = strings.Split(lw, "-")
		}
		for _, part := range parts {
			part = cardinal(part)
			if bgStopWords[part] || len([]rune(part)) < 3 && !bgIsNumber(part) {
				prev = ""
				continue
			}
			st := stem(part)
			out[st]++
			if prev != "" {
				out[prev+" "+st]++
			}
			prev = st
		}
	}
	return out
}

// scopeStem stems a word for matching a turn with its story: bgStem, then
// an irregular past as its present ("came from behind", "coming from
// behind"), the American "-ize" as the British "-ise" ("equalize",
// "equalising"), and a short stem's final "e" dropped ("come", "coming").
func scopeStem(w string) string {
	if p, ok := irregularPast[w]; ok {
		w = p
	}
	st := bgStem(w)
	if strings.HasSuffix(st, "iz") {
		st = strings.TrimSuffix(st, "iz") + "is"
	}
	if len(st) == 4 && strings.HasSuffix(st, "e") && !strings.HasSuffix(st, "ee") {
		st = strings.TrimSuffix(st, "e")
	}
	return st
}

// irregularPast maps common English irregular past forms to their
// present.
var irregularPast = map[string]string{
	"came": "come", "won": "win", "lost": "lose", "held": "hold", "took": "take", "gave": "give", "ran": "run",
	"fell": "fall", "left": "leave", "saw": "see", "went": "go", "got": "get", "made": "make", "kept": "keep",
	"led": "lead", "began": "begin", "broke": "break", "chose": "choose", "drew": "draw", "drawn": "draw",
	"threw": "throw", "thrown": "throw", "struck": "strike", "stood": "stand", "spent": "spend", "sent": "send",
	"brought": "bring", "bought": "buy", "caught": "catch", "fought": "fight", "sold": "sell", "paid": "pay",
	"met": "meet", "rose": "rise", "risen": "rise", "shot": "shoot", "beaten": "beat", "taken": "take",
	"given": "give", "fallen": "fall", "chosen": "choose", "broken": "break", "stole": "steal", "stolen": "steal",
	"wrote": "write", "written": "write", "hit": "hit", "built": "build", "felt": "feel", "found": "find",
	"grew": "grow", "grown": "grow", "knew": "know", "known": "know", "swam": "swim", "flew": "fly",
}

// ordinals are written as their cardinals for matching: "the fourth
// consecutive time" and "four consecutive times", "the 25th minute" and
// "after 25 minutes" say the same. ("first" and "second" also mean order
// in time and are left alone.)
var ordinals = map[string]string{
	"third": "three", "fourth": "four", "fifth": "five", "sixth": "six", "seventh": "seven",
	"eighth": "eight", "ninth": "nine", "tenth": "ten", "eleventh": "eleven", "twelfth": "twelve",
}

func cardinal(w string) string {
	if c, ok := ordinals[w]; ok {
		return c
	}
	for _, suf := range []string{"st", "nd", "rd", "th"} {
		if d := strings.TrimSuffix(w, suf); d != w && bgIsNumber(d) {
			return d
		}
	}
	return w
}

// scopeOf is the weight (0 to 1) of an entity in the current turn's
// scope: that of its best paragraph there; -1 when the turn has no scope.
func (r *Resolver) scopeOf(e *Entity) float64 {
	if r.scope == nil {
		return -1
	}
	w := 0.0
	for _, p := range e.Paragraphs {
		w = math.Max(w, r.scope[p])
	}
	return w
}

// replyOpeners open a turn that answers the one before: agreement,
// disagreement, a concession ("No, …", "Indeed, …", "Well, but …").
var replyOpeners = regexp.MustCompile(`(?i)^\W*(?:` + alternation("reply_openers", "", false) + `)\b`)

// exchanges groups a discussion's turns into exchanges: a turn that opens
// with a reply (replyOpeners) or with a third-person pronoun (it names
// nothing new: "They deserve praise") continues the exchange of the turn
// before, any other turn opens a new one. An exchange is about one
// story.
func exchanges(turns []schemas.Turn) []int {
	ex := make([]int, len(turns))
	for t := range turns {
		switch {
		case t == 0:
		case replyOpeners.MatchString(turns[t].Utterance) || opensWithPronoun(turns[t].Utterance):
			ex[t] = ex[t-1]
		default:
			ex[t] = ex[t-1] + 1
		}
	}
	return ex
}

// turnGender is the gender of the third-person pronouns a turn uses
// ("she", "her" → Female) when it uses one gender only and names nobody
// of it; GenderUnknown otherwise.
func (r *Resolver) turnGender(utterance string, named []*Entity) Gender {
	male, female := false, false
	for _, t := range tokenize(utterance) {
		switch c, _ := classifyPronoun(strings.ToLower(t.Text)); c {
		case pronMale:
			male = true
		case pronFemale:
			female = true
		}
	}
	want := GenderUnknown
	switch {
	case male && !female:
		want = Male
	case female && !male:
		want = Female
	default:
		return GenderUnknown
	}
	for _, e := range named {
		if e.Kind == KindPerson && e.Gender == want {
			return GenderUnknown
		}
	}
	return want
}

var reflexives = wordSet("reflexives")

// verbBefore: a word a reflexive object follows ("blamed themselves",
// "proved itself"): a past form or one of the verbs that take one.
func verbBefore(w string) bool {
	lw := strings.ToLower(w)
	return strings.HasSuffix(lw, "ed") || reflexiveVerbs[lw] || auxiliaries[lw] || nonHeadFollowers[lw]
}

var reflexiveVerbs = wordSet("reflexive_verbs")

// deedScores: for each turn, the entities after whose mentions the
// background writes the turn's own words — a turn says "his goal in the
// 25th minute" of the player the background says "replied after 25
// minutes" — as the share of the turn's IDF mass found there (0 to 1).
// Only words rarer than half the paragraphs count: common words say
// nothing about who did what.
func (r *Resolver) deedScores(turnTerms []map[string]int, idf func(string) float64, df map[string]int, n int) []map[*Entity]float64 {
	ctx := map[*Entity]map[string]bool{}
	for _, p := range r.g.paras {
		for _, sent := range SplitSentences(p.Text) {
			ts := tokenize(sent)
			for i := 0; i < len(ts); {
				e, k := r.g.match(ts, i)
				if e == nil {
					i++
					continue
				}
				// what the sentence says after the mention up to the next
				// name, unless a preposition or a conjunction follows the
				// name or a preposition precedes it (it is no subject
				// then: "defeat by RB Leipzig a fortnight ago …"): what
				// the entity did
				// ("Ronan Hale replied after 25 minutes", "Jodie Grinham
				// - the latter competing while seven months pregnant";
				// not "… of the Los Angeles Rams as his …")
				var ws []string
				if i+k < len(ts) && notVerbs[strings.ToLower(ts[i+k].Text)] || i > 0 && objectPreps[strings.ToLower(ts[i-1].Text)] {
					i += k
					continue
				}
				for j := i + k; j < len(ts); j++ {
					if x, _ := r.g.match(ts, j); x != nil {
						break
					}
					ws = append(ws, ts[j].Text)
				}
				if ctx[e] == nil {
					ctx[e] = map[string]bool{}
				}
				for w := range scopeTerms(strings.Join(ws, " ")) {
					ctx[e][w] = true
				}
				i += k
			}
		}
	}
	out := make([]map[*Entity]float64, len(turnTerms))
	for t, tt := range turnTerms {
		// the rarer words and word pairs, in a fixed order so sums do
		// not vary; the mass counts every word of the turn (one the
		// background lacks as the rarest), so that one shared word is a
		// small share (a shared pair adds to it: at most 1 in all)
		var rare, all []string
		for w := range tt {
			if !strings.Contains(w, " ") {
				all = append(all, w)
			}
			if df[w] > 0 && 2*df[w] <= n {
				rare = append(rare, w)
			}
		}
		sort.Strings(rare)
		sort.Strings(all)
		mass := 0.0
		for _, w := range all {
			x := math.Log(float64(n + 1))
			if df[w] > 0 {
				x = idf(w)
			}
			mass += x * x
		}
		if len(rare) == 0 || mass == 0 {
			continue
		}
		sc := map[*Entity]float64{}
		for e, c := range ctx {
			x := 0.0
			for _, w := range rare {
				if c[w] {
					x += idf(w) * idf(w)
				}
			}
			if x > 0 {
				sc[e] = math.Min(1, x/mass)
			}
		}
		out[t] = sc
	}
	return out
}

// quantifiers open a noun phrase of their own: after "that" they show it
// is a conjunction ("that neither team scored"), not a determiner.
var quantifiers = wordSet("quantifiers")

// notVerbs are the function words that follow a name that is no
// subject: prepositions, conjunctions, relatives.
var notVerbs = wordSet("not_verbs")

// pluralSubjectBefore reports whether the statement's words before a
// "they" hold a plural common noun as a clause's subject ("the armed
// robberies are …", "these measures will …") and no name after it.
func pluralSubjectBefore(ts []token) bool {
	found := false
	for j := 1; j+1 < len(ts); j++ {
		if ts[j].Name {
			found = false
			continue
		}
		w := strings.ToLower(ts[j].Text)
		if !isLowerWord(ts[j].Text) || !strings.HasSuffix(w, "s") || strings.HasSuffix(w, "ss") || len(w) < 4 || !auxiliaries[strings.ToLower(ts[j+1].Text)] {
			continue
		}
		for k := j - 1; k >= 0 && k >= j-3; k-- {
			d := strings.ToLower(ts[k].Text)
			if d == "the" || d == "these" || d == "those" {
				found = true
				break
			}
			if !isLowerWord(ts[k].Text) {
				break
			}
		}
	}
	return found
}

// clauseMates are the entities a statement names, not as a possessive,
// in the clause of the pronoun at i: no conjunction, relative, comma or
// verb of speech between the name and the pronoun.
func (r *Resolver) clauseMates(ts []token, i int) map[*Entity]bool {
	out := map[*Entity]bool{}
	bound := func(a, b int) bool {
		for k := a; k < b; k++ {
			w := strings.ToLower(ts[k].Text)
			if clauseBreaks[w] || speechVerbs[w] || beliefVerbs[w] || !isWord(ts[k].Text) && w != "'s" {
				return true
			}
		}
		return false
	}
	for j := 0; j < len(ts); j++ {
		e, n := r.g.match(ts, j)
		if e == nil {
			continue
		}
		end := j + n
		possessive := end < len(ts) && (ts[end].Text == "'s" || ts[end].Text == "'")
		switch {
		case possessive:
		case end <= i && !bound(end, i):
			out[e] = true
		case j > i && !bound(i+1, j):
			out[e] = true
		}
		j = end - 1
	}
	return out
}

// namesIn are the entities a statement writes by name.
func (r *Resolver) namesIn(ts []token) map[*Entity]bool {
	out := map[*Entity]bool{}
	for j := 0; j < len(ts); j++ {
		if e, n := r.g.match(ts, j); e != nil {
			out[e] = true
			j += n - 1
		}
	}
	return out
}

// clauseBreaks part a sentence's clauses.
var clauseBreaks = wordSet("clause_breaks")

// typedOrgHeads name a kind of organisation: "the court" is an
// organisation whose name says court ("Maidstone Crown Court"), not any
// organisation of the story ("the government" is no "Supreme Court").
var typedOrgHeads = wordSet("typed_org_heads")

// nameHas reports whether one of an entity's names holds a word.
func nameHas(e *Entity, w string) bool {
	for _, n := range append([]string{e.Name}, e.Aliases...) {
		for _, f := range strings.Fields(strings.ToLower(n)) {
			if f == w || f == w+"s" {
				return true
			}
		}
	}
	return false
}

// opensWithPronoun: the text's first word is a third-person pronoun.
func opensWithPronoun(text string) bool {
	ts := tokenize(text)
	if len(ts) == 0 {
		return false
	}
	c, _ := classifyPronoun(strings.ToLower(ts[0].Text))
	return c != notPronoun
}

// objectPreps before a name make it a preposition's object.
var objectPreps = wordSet("object_preps")

// asApposition is the head noun of an "as" phrase that ends, with a
// comma, right before position i ("as an official body, it should …",
// "as the coach, she …"): the phrase describes what the pronoun at i
// denotes. "" when there is none.
func asApposition(ts []token, i int) string {
	if i < 3 || ts[i-1].Text != "," {
		return ""
	}
	for j := i - 2; j >= 1 && j >= i-5; j-- {
		w := strings.ToLower(ts[j].Text)
		if !isLowerWord(ts[j].Text) {
			return ""
		}
		if w == "a" || w == "an" || w == "the" {
			if j-1 >= 0 && strings.EqualFold(ts[j-1].Text, "as") && j < i-2 {
				return strings.ToLower(ts[i-2].Text)
			}
			return ""
		}
	}
	return ""
}

// stativeVerbs after a modal keep "it" an expletive or a weather "it"
// ("it would be impossible", "it may seem", "it will take time").
var stativeVerbs = wordSet("stative_verbs")

// modalAction: at i a modal followed by a lexical verb that is no
// stative one ("it should make judgments", "it will ban them"): "it" is
// then the agent of a deed, a reference, not an expletive.
func modalAction(ts []token, i int) bool {
	switch strings.ToLower(ts[i].Text) {
	case "should", "would", "will", "could", "can", "must", "might", "may":
	default:
		return false
	}
	j := i + 1
	for j < len(ts) && (strings.EqualFold(ts[j].Text, "not") || strings.HasSuffix(strings.ToLower(ts[j].Text), "ly")) {
		j++
	}
	if j >= len(ts) || !isLowerWord(ts[j].Text) {
		return false
	}
	w := strings.ToLower(ts[j].Text)
	if w == "make" && j+1 < len(ts) && strings.EqualFold(ts[j+1].Text, "sense") {
		return false // "it would make sense to …"
	}
	return !stativeVerbs[w] && !roleStop[w] && !nonHeadFollowers[w]
}

// polityPossessions are what a country or a region has and an
// organisation or a person does not: "their economy", "their inflation
// rate".
var polityPossessions = wordSet("polity_possessions")

// polityReference reports whether the plural pronoun at i denotes a
// country or a region: a possessive before (up to two words before) a
// polity's possession ("their overall inflation", "their job market" is
// not), or a subject whose copular predicate is a country, a nation or a
// region ("they are not a developed country").
func polityReference(ts []token, i int, poss bool) bool {
	if poss {
		for j := i + 1; j < len(ts) && j <= i+3; j++ {
			w := strings.ToLower(ts[j].Text)
			if !isLowerWord(ts[j].Text) || roleStop[w] {
				return false
			}
			if polityPossessions[w] || w == "market" && j > i+1 && laborWords[strings.ToLower(ts[j-1].Text)] {
				return true
			}
		}
		return false
	}
	if !strings.EqualFold(ts[i].Text, "they") {
		return false
	}
	j := i + 1
	if j >= len(ts) || !(strings.EqualFold(ts[j].Text, "are") || strings.EqualFold(ts[j].Text, "were")) {
		return false
	}
	j++
	if j < len(ts) && strings.EqualFold(ts[j].Text, "not") {
		j++
	}
	if j >= len(ts) || !(strings.EqualFold(ts[j].Text, "a") || strings.EqualFold(ts[j].Text, "an")) {
		return false
	}
	for k := j + 1; k < len(ts) && k <= j+3; k++ {
		w := strings.ToLower(ts[k].Text)
		if !isLowerWord(ts[k].Text) {
			return false
		}
		if placeHeads[w] {
			return countryHeads[w] || w == "region" || w == "state"
		}
	}
	return false
}

// laborWords before "market" make it a polity's ("their job market").
var laborWords = wordSet("labor_words")

// polityStatement reports whether a statement's plural pronouns denote a
// country or a region: one of them does (polityReference), and they all
// denote the same ("their disaster recovery efforts are challenging,
// especially considering they are not a developed country").
func polityStatement(ts []token) bool {
	for i, t := range ts {
		if c, poss := classifyPronoun(strings.ToLower(t.Text)); c == pronPlural && polityReference(ts, i, poss) {
			return true
		}
	}
	return false
}

// partsOf reports whether the background writes an entity's name as the
// modifier of the plural of a place head ("the UK regions", "US
// states"): the entity is then the whole those places are parts of, not
// what "this region" denotes.
func (r *Resolver) partsOf(e *Entity, head string) bool {
	plural := head + "s"
	if strings.HasSuffix(head, "y") {
		plural = strings.TrimSuffix(head, "y") + "ies"
	}
	for _, n := range append([]string{e.Name}, e.Aliases...) {
		for _, p := range r.g.paras {
			for _, w := range []string{n + " " + plural, n + "'s " + plural} {
				if i := strings.Index(p.Text, w); i >= 0 && (i+len(w) == len(p.Text) || !isLetter(p.Text[i+len(w)])) {
					return true
				}
			}
		}
	}
	return false
}

func isLetter(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}
