package discourse

import (
	"regexp"
	"strconv"
	"strings"
)

// A group reference names several background entities at once: "the two
// teams", "both sides", "these two players", "these three companies". It
// denotes a list of entities of the head's kind that the supporting
// paragraphs name together ("X and Y", "X vs Y", "X beat Y", "A, B and
// C"), when exactly one such list has the reference's size; otherwise it
// is left as written. The story's pair (the first two-entity list of
// teams, or of people) also completes "this match" ("the match between X
// and Y") and "the opponent" (the member of the pair the statement does
// not already name, or that was not named last).

// groupKind is the kind of entity a plural head noun denotes.
type groupKind int

const (
	groupNone groupKind = iota
	groupTeams
	groupPeople
	groupOrgs
	groupPlaces
)

var groupHeads = map[string]groupKind{
	"teams": groupTeams, "clubs": groupTeams, "sides": groupTeams, "squads": groupTeams,
	"players": groupPeople, "athletes": groupPeople, "people": groupPeople, "men": groupPeople,
	"women": groupPeople, "stars": groupPeople, "drivers": groupPeople, "boxers": groupPeople,
	"fighters": groupPeople, "candidates": groupPeople, "leaders": groupPeople, "politicians": groupPeople,
	"referees": groupPeople, "individuals": groupPeople, "suspects": groupPeople,
	"companies": groupOrgs, "firms": groupOrgs, "organisations": groupOrgs, "organizations": groupOrgs,
	"parties": groupOrgs, "brands": groupOrgs, "stocks": groupOrgs, "banks": groupOrgs,
	"countries": groupPlaces, "nations": groupPlaces, "areas": groupPlaces, "regions": groupPlaces,
	"cities": groupPlaces, "counties": groupPlaces, "places": groupPlaces,
}

var numberWords = map[string]int{"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "both": 2}

// eventHeads are the nouns of "this match": the story's contest.
var eventHeads = wordSet("event_heads")

// opponentHeads name the other side of the story's contest.
var opponentHeads = wordSet("opponent_heads")

// listConnectors may stand between two names of one list or contest.
var listConnectors = wordSet("list_connectors")

func fitsGroup(e *Entity, k groupKind) bool {
	switch k {
	case groupTeams:
		return e.Kind == KindOrganisation || e.Kind == KindPlace || e.Kind == KindOther && e.Gender == GenderUnknown
	case groupPeople:
		return e.Kind == KindPerson
	case groupOrgs:
		return e.Kind == KindOrganisation || e.Kind == KindOther && e.Gender == GenderUnknown
	case groupPlaces:
		return e.Kind == KindPlace || e.Kind == KindOther && e.Gender == GenderUnknown
	}
	return false
}

// nameList is a list of entities named together; contest when a contest
// word joins them ("vs", "beat", "against", "between X and Y").
type nameList struct {
	es      []*Entity
	contest bool
	para    int // the paragraph_index that names it
}

var contestWords = wordSet("contest_words")

// partWords may stand before a place's name inside a list ("East
// Sussex, West Sussex and parts of southern Surrey").
var partWords = wordSet("part_words")

// sideWords may follow a team's name inside a list ("the US men's team and
// Mexico").
var sideWords = wordSet("side_words")

// listsIn finds, in the paragraphs in (every paragraph when nil), the
// lists of entities of a kind named together, in text order: consecutive
// names joined only by connectors, scores or the name's own "the". A
// person whose gender the text does not show may be a team ("Paris
// Saint-Germain") where a contest joins the names.
func (r *Resolver) listsIn(k groupKind, in map[int]bool) []nameList {
	var out []nameList
	for _, p := range r.g.paras {
		if in != nil && !in[p.Index] {
			continue
		}
		for _, s := range SplitSentences(p.Text) {
			ts := tokenize(s)
			var cur nameList
			gapOK, contest, weak := false, false, false
			flush := func() {
				if len(cur.es) >= 2 && (!weak || cur.contest) {
					cur.para = p.Index
					out = append(out, cur)
				}
				cur, weak = nameList{}, false
			}
			for i := 0; i < len(ts); {
				e, n := r.g.match(ts, i)
				if e == nil {
					w := strings.ToLower(ts[i].Text)
					if contestWords[w] {
						contest = true
					}
					// a role noun may stand before a person of the list
					// ("Sophomore Lamees Abid, junior Kylie Chindavong and
					// junior Reese Ruska")
					roleBefore := k == groupPeople && personRoles[w] && i+1 < len(ts) && isCapitalised(ts[i+1].Text)
					if !(listConnectors[w] || contestWords[w] || w == "the" || isDigitWord(w) || roleBefore || k == groupTeams && sideWords[w] || k == groupPlaces && partWords[w]) {
						flush()
						contest = false
					}
					gapOK = gapOK || listConnectors[w] || contestWords[w] || isDigitWord(w)
					i++
					continue
				}
				fits := fitsGroup(e, k)
				loose := !fits && k == groupTeams && e.Kind == KindPerson && e.Gender == GenderUnknown
				if !fits && !loose {
					flush()
				} else if len(cur.es) == 0 || gapOK && !containsEntity(cur.es, e) {
					if len(cur.es) == 0 {
						cur.contest = contest
					} else if contest {
						cur.contest = true
					}
					cur.es = append(cur.es, e)
					weak = weak || loose
				}
				contest = false
				gapOK = false
				i += n
			}
			flush()
		}
	}
	return out
}

func containsEntity(es []*Entity, e *Entity) bool {
	for _, x := range es {
		if x == e {
			return true
		}
	}
	return false
}

// group returns the one list of n entities of a kind the story names, or
// nil when there is none or more than one distinct.
//
// The lists are looked for in the turn's scope, then the supporting
// paragraphs, then the whole background: the first of these that names a
// list of that size decides.
func (r *Resolver) group(k groupKind, n int) []*Entity {
	return r.groupWithout(k, n, nil)
}

// otherGroup is the list a group with "other" denotes ("the other two
// players"): one of that size in which nobody the discussion named in
// this turn or the one before stands, found as group finds lists; nil
// when the discussion named nobody of that kind there (other than
// whom?).
func (r *Resolver) otherGroup(k groupKind, n, turn int) []*Entity {
	named := map[*Entity]bool{}
	for _, h := range r.history {
		if h.turn >= turn-1 && fitsGroup(h.e, k) {
			named[h.e] = true
		}
	}
	if len(named) == 0 {
		return nil
	}
	return r.groupWithout(k, n, named)
}

// groupWithout is group, lists holding an excluded entity left out.
func (r *Resolver) groupWithout(k groupKind, n int, exclude map[*Entity]bool) []*Entity {
	var areas []map[int]bool
	if r.scope != nil {
		in := map[int]bool{}
		for p := range r.scope {
			in[p] = true
		}
		areas = append(areas, in)
	}
	if r.focus != nil {
		areas = append(areas, r.focus)
	}
	areas = append(areas, nil)
	for _, in := range areas {
		var found []*Entity
		for _, l := range r.listsIn(k, in) {
			if len(l.es) != n || anyEntity(l.es, exclude) {
				continue
			}
			if found != nil && !sameSet(found, l.es) {
				return nil
			}
			found = l.es
		}
		if found != nil {
			return found
		}
	}
	return nil
}

// pair is the story's contest: a pair of teams named together ("X and
// Y", "X beat Y"), else of people a contest word joins, else two teams a
// sentence names with a contest word between them ("Detroit to a 3-1 win
// over the Houston Astros") — looked for in the turn's scope, then the
// supporting paragraphs, then the whole background; among several, the
// one with the side the discussion named last, else the one of the
// paragraph the turn is most about.
func (r *Resolver) pair() []*Entity {
	var areas []map[int]bool
	if r.scope != nil {
		in := map[int]bool{}
		for p := range r.scope {
			in[p] = true
		}
		areas = append(areas, in)
	}
	if r.focus != nil {
		areas = append(areas, r.focus)
	}
	areas = append(areas, nil)
	var byArea [][]nameList
	for _, in := range areas {
		var pairs []nameList
		for _, k := range []groupKind{groupTeams, groupPeople} {
			for _, l := range r.listsIn(k, in) {
				if len(l.es) == 2 && (k == groupTeams || l.contest) {
					pairs = append(pairs, l)
				}
			}
		}
		// pairs a contest word joins in a sentence come after the
		// lists, for the side the discussion named to find its contest
		for _, l := range r.contestIn(in) {
			dup := false
			for _, q := range pairs {
				dup = dup || sameSet(q.es, l.es)
			}
			if !dup {
				pairs = append(pairs, l)
			}
		}
		byArea = append(byArea, pairs)
	}
	// the contest of the side the discussion named last (in this turn or
	// the one before), else the one of the paragraph the turn is most
	// about, else the first
	for k := len(r.history) - 1; k >= 0 && r.history[k].turn >= r.turn-1; k-- {
		for _, pairs := range byArea {
			for _, l := range pairs {
				if containsEntity(l.es, r.history[k].e) {
					return l.es
				}
			}
		}
	}
	for _, pairs := range byArea {
		if len(pairs) == 0 {
			continue
		}
		best := pairs[0]
		for _, l := range pairs[1:] {
			if r.scope[l.para] > r.scope[best.para] {
				best = l
			}
		}
		return best.es
	}
	return nil
}

// contestGap is the most words between two teams that a contest word
// joins in one sentence ("Detroit to a 3-1 win over the Houston Astros").
const contestGap = 10

// contestIn finds the pairs of teams of the paragraphs in (every
// paragraph when nil) that one sentence names with a contest word between
// them and no other name.
func (r *Resolver) contestIn(in map[int]bool) []nameList {
	var out []nameList
	side := func(x *Entity) groupKind {
		switch {
		case fitsGroup(x, groupTeams):
			return groupTeams
		case fitsGroup(x, groupPeople):
			return groupPeople
		}
		return groupNone
	}
	for _, p := range r.g.paras {
		if in != nil && !in[p.Index] {
			continue
		}
		for _, s := range SplitSentences(p.Text) {
			ts := tokenize(s)
			// the last side of each kind, where it ended, and whether a
			// contest word or a score stands since: a name of the
			// other kind between two sides does not part them
			// ("Arizona Cardinals QB Kyler Murray was perfect in their
			// 41-10 demolition of the Los Angeles Rams")
			prev := map[groupKind]*Entity{}
			prevEnd := map[groupKind]int{}
			contest := map[groupKind]bool{}
			for i := 0; i < len(ts); {
				e, n := r.g.match(ts, i)
				if e == nil {
					// a scorer is no side ("Kylie Chindavong scored on a
					// penalty kick against Armstrong")
					if scoreWords[strings.ToLower(ts[i].Text)] {
						prev = map[groupKind]*Entity{}
					}
					// a contest word does not join across a clause break
					// ("a shock lead against the champions when Romain del
					// Castillo converted")
					if contestBreaks[strings.ToLower(ts[i].Text)] {
						for k := range contest {
							contest[k] = false
						}
					}
					// a score is a contest's
					if contestWords[strings.ToLower(ts[i].Text)] || isScore(ts[i].Text) {
						for k := range prev {
							contest[k] = true
						}
					}
					i++
					continue
				}
				k := side(e)
				if k == groupNone {
					prev = map[groupKind]*Entity{}
				} else {
					if q := prev[k]; q != nil && q != e && contest[k] && i-prevEnd[k] <= contestGap {
						out = append(out, nameList{es: []*Entity{q, e}, contest: true, para: p.Index})
					}
					prev[k], prevEnd[k], contest[k] = e, i+n, false
					// the other kind's name is not counted in its gap
					for o := range prevEnd {
						if o != k {
							prevEnd[o] += n
						}
					}
				}
				i += n
			}
		}
	}
	return out
}

func sameSet(a, b []*Entity) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !containsEntity(b, x) {
			return false
		}
	}
	return true
}

// joinNames writes a list of entities: "X and Y", "X, Y and Z".
func (r *Resolver) joinNames(es []*Entity) string {
	var ns []string
	for _, e := range es {
		ns = append(ns, r.surface(e, false))
	}
	if len(ns) == 1 {
		return ns[0]
	}
	return strings.Join(ns[:len(ns)-1], ", ") + " and " + ns[len(ns)-1]
}

// groupPhrase recognises a group reference at token i: a determiner
// ("the", "these", "those", "both"), a number word or "both", then a plural
// head; or "both" and the head alone; "other" may stand before or after
// the number ("the other two players", "these three other players"). It
// returns the head's kind, the size, and the tokens it spans; other
// reports the "other".
func groupPhrase(ts []token, i int) (k groupKind, n int, span int, other bool) {
	lw := strings.ToLower(ts[i].Text)
	j := i
	if lw == "the" || lw == "these" || lw == "those" || lw == "both" {
		if lw == "both" {
			n = 2
		}
		j++
	} else {
		return groupNone, 0, 0, false
	}
	for j < len(ts) {
		w := strings.ToLower(ts[j].Text)
		if v, ok := numberWords[w]; ok {
			n = v
			j++
			continue
		}
		if w == "other" && !other && lw != "both" {
			other = true
			j++
			continue
		}
		break
	}
	if n == 0 || j >= len(ts) {
		return groupNone, 0, 0, false
	}
	k = groupHeads[strings.ToLower(ts[j].Text)]
	if k == groupNone {
		return groupNone, 0, 0, false
	}
	return k, n, j + 1 - i, other
}

// resolveGroup rewrites a group reference, an event reference or an
// opponent reference at token i, if it is one the story answers. It
// returns the members it names and the tokens consumed (0: none).
func (r *Resolver) resolveGroup(out []token, i, turn int, participant string) ([]*Entity, int) {
	lw := strings.ToLower(out[i].Text)
	if k, n, span, other := groupPhrase(out, i); span > 0 {
		var ws []string
		for x := i; x < i+span; x++ {
			ws = append(ws, out[x].Text)
		}
		res := Resolution{Turn: turn, Phrase: strings.Join(ws, " ")}
		var g []*Entity
		if other {
			// "the other two players": a list of that size without
			// the ones the discussion just named
			g = r.otherGroup(k, n, turn)
		} else {
			g = r.group(k, n)
		}
		if g == nil && n == 2 && k == groupTeams && !other {
			g = r.pair()
		}
		if g == nil && k == groupOrgs {
			g = r.byFigure(render(out), n)
		}
		if g == nil {
			// a later "they" means this group, which is unknown
			r.lastGroup = nil
			res.Reasons = "no list of that size"
			r.Resolutions = append(r.Resolutions, res)
			return nil, 0
		}
		res.Entity, res.Members = g[0], g
		r.Resolutions = append(r.Resolutions, res)
		out[i].Text = r.joinNames(g)
		out[i].Name = true
		for x := i + 1; x < i+span; x++ {
			out[x].Text = ""
		}
		for _, e := range g {
			r.history = append(r.history, historyItem{e, turn, participant})
		}
		r.lastGroup = &groupUse{members: g, hist: len(r.history), turn: turn}
		// "the trade war between these two countries": a relation
		// between the members, said of them together, not of each; so
		// is a reciprocal predicate ("these two teams are evenly
		// matched", "… like each other")
		if !(i > 0 && relationPreps[strings.ToLower(out[i-1].Text)]) && !reciprocal(out[i+span:]) {
			r.slots = append(r.slots, groupSlot{pos: i, named: true})
		}
		return g, span
	}
	if i+1 >= len(out) {
		return nil, 0
	}
	head := strings.ToLower(out[i+1].Text)
	if (lw == "this" || lw == "that") && eventHeads[head] {
		next := ""
		if i+2 < len(out) {
			next = strings.ToLower(out[i+2].Text)
		}
		if next == "between" || next == "against" || next == "of" || i+2 < len(out) && isLowerWord(out[i+2].Text) && !nonHeadFollowers[next] && !auxiliaries[next] {
			return nil, 0
		}
		p := r.pair()
		res := Resolution{Turn: turn, Phrase: out[i].Text + " " + out[i+1].Text}
		if p == nil {
			res.Reasons = "no contest in the story"
			r.Resolutions = append(r.Resolutions, res)
			return nil, 0
		}
		res.Entity, res.Members = p[0], p
		r.Resolutions = append(r.Resolutions, res)
		out[i].Text = "the"
		out[i+1].Text = out[i+1].Text + " between " + r.joinNames(p)
		return p, 2
	}
	if (lw == "the" || lw == "their" || lw == "his" || lw == "her" || lw == "its") && opponentHeads[head] {
		p := r.pair()
		res := Resolution{Turn: turn, Phrase: out[i].Text + " " + out[i+1].Text}
		if p == nil {
			res.Reasons = "no contest in the story"
			r.Resolutions = append(r.Resolutions, res)
			return nil, 0
		}
		// the side already named in the statement, else the one the
		// discussion named last, is not the opponent
		var side *Entity
		for _, t := range out[:i] {
			for _, e := range p {
				if t.Text == r.surface(e, false) || t.Text == e.Name {
					side = e
				}
			}
		}
		if side == nil {
			for k := len(r.history) - 1; k >= 0; k-- {
				if containsEntity(p, r.history[k].e) {
					side = r.history[k].e
					break
				}
			}
		}
		if side == nil || lw != "the" && lw != "their" {
			res.Reasons = "no side named"
			r.Resolutions = append(r.Resolutions, res)
			return nil, 0
		}
		other := p[0]
		if other == side {
			other = p[1]
		}
		res.Entity = other
		r.Resolutions = append(r.Resolutions, res)
		out[i].Text = r.surface(other, false)
		out[i].Name = true
		out[i+1].Text = ""
		// the opponent is named after its side, which stays the more
		// recent: a later "he" still means the side, the subject
		r.history = append(r.history, historyItem{other, turn, participant}, historyItem{side, turn, participant})
		return []*Entity{other}, 2
	}
	return nil, 0
}

// A group the discussion named ("these two players") is what a later
// "they" or "their" denotes while no organisation has been named since,
// within the turn or the next one. A statement about a group is an
// opinion about each member, so it is written once per member (the gold
// opinions of KGDS do the same: "these two players performed well" →
// one statement per player).

// groupUse is the last group reference resolved.
type groupUse struct {
	members []*Entity
	hist    int // length of the history after it
	turn    int
}

// groupSlot is a token of the current statement that denotes the last
// group: the group phrase itself (named) or a plural pronoun bound to it.
type groupSlot struct {
	pos        int
	named      bool
	possessive bool
	object     bool
}

// bindGroup reports whether a plural pronoun denotes the last group.
func (r *Resolver) bindGroup(turn int) bool {
	g := r.lastGroup
	if g == nil || turn-g.turn > 1 {
		return false
	}
	// a new exchange is about a story of its own
	if turn < len(r.ex) && g.turn < len(r.ex) && r.ex[turn] != r.ex[g.turn] {
		return false
	}
	for _, h := range r.history[g.hist:] {
		if h.e.Kind == KindOrganisation && !containsEntity(g.members, h.e) {
			return false
		}
	}
	return true
}

// singularAux is the singular of a plural verb form after a subject.
var singularAux = map[string]string{
	"are": "is", "were": "was", "have": "has", "do": "does", "don't": "doesn't",
	"aren't": "isn't", "weren't": "wasn't", "haven't": "hasn't", "they're": "is",
}

// perMember writes a statement whose tokens denote the last group once
// per member: the first slot gets the member's name, later ones a
// pronoun of its gender and number; a plural verb after a singular
// member becomes singular, and "both" or "all" after it is dropped.
func (r *Resolver) perMember(out []token) [][]token {
	if len(r.slots) == 0 || r.lastGroup == nil {
		return [][]token{out}
	}
	var res [][]token
	for _, e := range r.lastGroup.members {
		c := make([]token, len(out))
		copy(c, out)
		singular := !e.Plural
		for k, sl := range r.slots {
			var w string
			// the first slot is the member's name, a later one its
			// pronoun, except that a gendered pronoun ("he" for
			// "they") would be a word the turn does not have: the
			// name again
			named := k == 0 || e.Kind == KindPerson && e.Gender != GenderUnknown && !e.Plural
			switch {
			case named && sl.possessive:
				w = possessive(r.surface(e, false))
			case named:
				w = r.surface(e, false)
			default:
				w = memberPronoun(e, sl.possessive, sl.object)
			}
			c[sl.pos].Text = w
			c[sl.pos].Name = named
			if sl.possessive || sl.object || !singular {
				continue
			}
			n := sl.pos + 1
			for n < len(c) && c[n].Text == "" {
				n++
			}
			if n < len(c) {
				lw := strings.ToLower(c[n].Text)
				if lw == "both" || lw == "all" {
					c[n].Text = ""
				} else if v, ok := singularAux[lw]; ok {
					c[n].Text = v
				} else if presentVerb(lw) {
					c[n].Text = thirdPerson(c[n].Text)
				}
			}
		}
		res = append(res, c)
	}
	return res
}

// modals and adverbs after a subject that are not a present-tense verb.
var notPresent = wordSet("not_present")

// presentVerb: the word after a subject pronoun is a present-tense verb
// in the plural ("they deserve"), not a past, a modal or an adverb.
func presentVerb(w string) bool {
	return isLowerWord(w) && !notPresent[w] && !roleStop[w] && !strings.HasSuffix(w, "ed") && !strings.HasSuffix(w, "s") &&
		!strings.HasSuffix(w, "ly") && !strings.Contains(w, "'")
}

// Companies reported one per paragraph ("X, listed on …, reported a
// revenue of $… and a net income of $…, with a market capitalization of
// $…") are told apart by a statement's criterion: "these three companies
// … their profit margins exceed 9%" denotes the companies whose net income
// over revenue exceeds 9%, "… price-to-sales ratios below 0.5" those whose
// market capitalisation over revenue is below 0.5. The group resolves
// only when exactly as many companies meet the criterion as the
// reference counts.

var (
	figureRE = regexp.MustCompile(`(?i)(revenue|net income|market cap(?:italization|italisation)?)\b[^$]{0,40}?(-)?\$\s?([\d.,]+)\s*(trillion|billion|million)`)
	// criterionRE: a ratio, then a comparison and a threshold
	criterionRE = regexp.MustCompile(`(?i)(profit margins?|price[- ]to[- ]sales(?: ratios?)?)\b[^.;]{0,60}?\b(exceeds?|exceeding|above|over|higher than|more than|greater than|below|under|less than|lower than)\s+(\d+(?:\.\d+)?)\s*(%)?`)
)

var scale = map[string]float64{"trillion": 1e12, "billion": 1e9, "million": 1e6}

// figures reads a paragraph's revenue, net income and market
// capitalisation, in dollars; absent figures are missing from the map.
func figures(text string) map[string]float64 {
	out := map[string]float64{}
	for _, m := range figureRE.FindAllStringSubmatch(text, -1) {
		v, err := strconv.ParseFloat(strings.ReplaceAll(m[3], ",", ""), 64)
		if err != nil {
			continue
		}
		if m[2] == "-" {
			v = -v // "a net income of -$6.0 billion": a loss
		}
		key := strings.ToLower(m[1])
		if strings.HasPrefix(key, "market") {
			key = "cap"
		}
		if _, ok := out[key]; !ok {
			out[key] = v * scale[strings.ToLower(m[4])]
		}
	}
	return out
}

// byFigure returns the n organisations, one per paragraph (the first a
// paragraph names), whose figures meet the statement's criterion, or nil
// when the statement states none or the count differs.
func (r *Resolver) byFigure(statement string, n int) []*Entity {
	c := criterionRE.FindStringSubmatch(statement)
	if c == nil {
		return nil
	}
	limit, err := strconv.ParseFloat(c[3], 64)
	if err != nil {
		return nil
	}
	margin := strings.HasPrefix(strings.ToLower(c[1]), "profit")
	above := true
	switch strings.ToLower(c[2]) {
	case "below", "under", "less than", "lower than":
		above = false
	}
	var out []*Entity
	for _, p := range r.g.paras {
		f := figures(p.Text)
		rev, ok := f["revenue"]
		if !ok || rev == 0 {
			continue
		}
		var v float64
		if margin {
			inc, ok := f["net income"]
			if !ok {
				continue
			}
			v = 100 * inc / rev
		} else {
			cp, ok := f["cap"]
			if !ok {
				continue
			}
			v = cp / rev
		}
		if above && v <= limit || !above && v >= limit {
			continue
		}
		var e *Entity
		for _, x := range r.g.EntitiesIn(p.Text) {
			if fitsGroup(x, groupOrgs) {
				e = x
				break
			}
		}
		if e == nil || containsEntity(out, e) {
			continue
		}
		out = append(out, e)
	}
	if len(out) != n {
		return nil
	}
	return out
}

// memberPronoun is the pronoun for one member of a group that is not a
// person of known gender: "their" for a plural organisation or a person,
// "its" for a singular organisation.
func memberPronoun(e *Entity, possessive, object bool) string {
	switch {
	case e.Plural || e.Kind == KindPerson:
		if possessive {
			return "their"
		}
		if object {
			return "them"
		}
		return "they"
	}
	if possessive {
		return "its"
	}
	return "it"
}

// relationPreps before a group make what is said a relation between its
// members ("the gap between these two teams", "the battle among these
// three teams"): one statement, not one per member.
var relationPreps = wordSet("relation_preps")

// reciprocal reports whether a statement's words say what holds only of
// several together: "matched", "equal", "similar", "alike", "each
// other", "one another".
func reciprocal(ts []token) bool {
	for i, t := range ts {
		w := strings.ToLower(t.Text)
		if reciprocalWords[w] {
			return true
		}
		if i+1 < len(ts) && (w == "each" || w == "one") && strings.EqualFold(ts[i+1].Text, "other") ||
			w == "one" && i+1 < len(ts) && strings.EqualFold(ts[i+1].Text, "another") {
			return true
		}
	}
	return false
}

var reciprocalWords = wordSet("reciprocal_words")

// anyEntity reports whether one of es is in the set.
func anyEntity(es []*Entity, set map[*Entity]bool) bool {
	for _, e := range es {
		if set[e] {
			return true
		}
	}
	return false
}
