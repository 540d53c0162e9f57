package discussion

import "strings"

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
var eventHeads = toSet(`match game fight bout race final clash encounter tie contest duel showdown`)

// opponentHeads name the other side of the story's contest.
var opponentHeads = toSet(`opponent opponents rival rivals opposition`)

// listConnectors may stand between two names of one list or contest.
var listConnectors = toSet(`and vs vs. v v. versus against beat beats defeated defeat edged thrashed over to with , & -`)

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
}

var contestWords = toSet(`vs vs. v v. versus against beat beats beating defeated defeat defeating edged thrashed over lost lose losing
between face faces facing`)

// sideWords may follow a team's name inside a list ("the US men's team and
// Mexico").
var sideWords = toSet(`men women 's ' team side squad club national`)

// lists finds, in the supporting paragraphs (every paragraph when they
// name no list), the lists of entities of a kind named together, in text
// order: consecutive names joined only by connectors, scores or the
// name's own "the". A person whose gender the text does not show may be
// a team ("Paris Saint-Germain") where a contest joins the names.
func (r *Resolver) lists(k groupKind) []nameList {
	if r.focus != nil {
		if l := r.listsIn(k, r.focus); len(l) > 0 {
			return l
		}
	}
	return r.listsIn(k, nil)
}

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
					if !(listConnectors[w] || contestWords[w] || w == "the" || isDigitWord(w) || k == groupTeams && sideWords[w]) {
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

// group returns the one list of n entities of a kind the supporting
// paragraphs name, or nil when there is none or more than one distinct.
func (r *Resolver) group(k groupKind, n int) []*Entity {
	var found []*Entity
	for _, l := range r.lists(k) {
		if len(l.es) != n {
			continue
		}
		if found != nil && !sameSet(found, l.es) {
			return nil
		}
		found = l.es
	}
	return found
}

// pair is the story's contest: the first pair of teams the supporting
// paragraphs name together, else of people a contest word joins.
func (r *Resolver) pair() []*Entity {
	for _, k := range []groupKind{groupTeams, groupPeople} {
		for _, l := range r.lists(k) {
			if len(l.es) == 2 && (k == groupTeams || l.contest) {
				return l.es
			}
		}
	}
	return nil
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
// head; or "both" and the head alone. It returns the head's kind, the
// size, and the tokens it spans.
func groupPhrase(ts []token, i int) (groupKind, int, int) {
	lw := strings.ToLower(ts[i].Text)
	j := i
	n := 0
	if lw == "the" || lw == "these" || lw == "those" || lw == "both" {
		if lw == "both" {
			n = 2
		}
		j++
	} else {
		return groupNone, 0, 0
	}
	for j < len(ts) {
		w := strings.ToLower(ts[j].Text)
		if v, ok := numberWords[w]; ok {
			n = v
			j++
			continue
		}
		break
	}
	if n == 0 || j >= len(ts) {
		return groupNone, 0, 0
	}
	if strings.ToLower(ts[j].Text) == "other" {
		return groupNone, 0, 0
	}
	k := groupHeads[strings.ToLower(ts[j].Text)]
	if k == groupNone {
		return groupNone, 0, 0
	}
	return k, n, j + 1 - i
}

// resolveGroup rewrites a group reference, an event reference or an
// opponent reference at token i, if it is one the story answers. It
// returns the members it names and the tokens consumed (0: none).
func (r *Resolver) resolveGroup(out []token, i, turn int, participant string) ([]*Entity, int) {
	lw := strings.ToLower(out[i].Text)
	if k, n, span := groupPhrase(out, i); span > 0 {
		var ws []string
		for x := i; x < i+span; x++ {
			ws = append(ws, out[x].Text)
		}
		res := Resolution{Turn: turn, Phrase: strings.Join(ws, " ")}
		g := r.group(k, n)
		if g == nil && n == 2 && k == groupTeams {
			g = r.pair()
		}
		if g == nil {
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
		r.history = append(r.history, historyItem{other, turn, participant})
		return []*Entity{other}, 2
	}
	return nil, 0
}
