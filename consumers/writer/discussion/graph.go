package discussion

import (
	"sort"
	"strings"

	"github.com/annalist-dev/annalist/schemas"
)

// Gender of an entity as the background text shows it.
type Gender int

// Genders; GenderUnknown when the text gives no cue.
const (
	GenderUnknown Gender = iota
	Male
	Female
)

// Kind is an entity's type.
type Kind int

// Kinds. KindOther covers events, things and names the rules cannot place.
const (
	KindOther Kind = iota
	KindPerson
	KindOrganisation
	KindPlace
	KindEvent
)

// Entity is one entity of a discussion's background.
type Entity struct {
	// Name is the canonical name: the longest form the background writes.
	Name string
	// Aliases are the other forms that name it: surnames, acronyms, the
	// parts of a team's name ("Las Vegas", "Aces").
	Aliases []string
	// Roles are the role nouns and descriptions tied to it in the
	// background: "goalkeeper", "coach", "the romanian star", "club".
	Roles  []string
	Gender Gender
	Plural bool
	Kind   Kind
	// FirstParagraph is the paragraph_index it is first named in;
	// Paragraphs every paragraph that names or describes it.
	FirstParagraph int
	Paragraphs     []int
	// Mentions counts its mentions in the background (names and
	// descriptions): its salience.
	Mentions int
	// the: how often the background writes "the" before the name.
	the int
}

// Graph is a discussion's small knowledge graph of its background: the
// entities the paragraphs name, with aliases, roles, gender, number and
// kind. It is built from the text alone; nothing outside the discussion.
type Graph struct {
	Entities []*Entity
	alias    map[string]*Entity // lower-cased name or alias → entity
	maxAlias int                // most words of any alias
	paras    []schemas.Paragraph
}

// Lookup returns the entity a name or alias denotes (case-insensitive).
func (g *Graph) Lookup(name string) *Entity {
	return g.alias[normName(name)]
}

// ParagraphEntities returns the entities a paragraph names or describes.
func (g *Graph) ParagraphEntities(index int) []*Entity {
	var out []*Entity
	for _, e := range g.Entities {
		for _, p := range e.Paragraphs {
			if p == index {
				out = append(out, e)
				break
			}
		}
	}
	return out
}

// EntitiesIn returns the entities a text names (by name or alias, longest
// match first), each once, in order of first mention.
func (g *Graph) EntitiesIn(text string) []*Entity {
	var out []*Entity
	seen := map[*Entity]bool{}
	ts := tokenize(text)
	for i := 0; i < len(ts); {
		e, n := g.match(ts, i)
		if e == nil {
			i++
			continue
		}
		if !seen[e] {
			seen[e] = true
			out = append(out, e)
		}
		i += n
	}
	return out
}

// match finds the longest alias starting at token i.
func (g *Graph) match(ts []token, i int) (*Entity, int) {
	if !isCapitalised(ts[i].Text) || !isWord(ts[i].Text) {
		return nil, 0
	}
	for n := g.maxAlias; n >= 1; n-- {
		if i+n > len(ts) {
			continue
		}
		var ws []string
		for k := i; k < i+n; k++ {
			ws = append(ws, ts[k].Text)
		}
		if !isCapitalised(ws[n-1]) {
			continue
		}
		if e := g.alias[normName(strings.Join(ws, " "))]; e != nil {
			return e, n
		}
	}
	return nil, 0
}

func normName(s string) string {
	s = strings.ToLower(strings.ReplaceAll(strings.TrimSpace(s), "’", "'"))
	return strings.TrimPrefix(s, "the ")
}

// Words that make a name an organisation or an event.
var (
	orgWords = toSet(`club fc afc united city court federation agency association league committee council ministry department
bank company inc corp corporation group university college party network government commission union tribunal times news
post journal sport sports soccer football team foundation institute authority office board police army navy service
airlines motors organisation organization fund trust media records studios press cnn bbc fifa uefa nba nfl wnba
ioc itf itia wada usada cas nhl mlb`)
	eventWords = toSet(`open cup championship championships games olympics final finals series prix derby tournament
masters world war election summit conference festival awards trophy`)
	placeWords = toSet(`stadium arena park street river island county state province city square airport`)
	// role heads that describe organisations rather than people
	orgRoles = toSet(`club team side institution organisation organization federation agency court company body government
league tribunal association committee council outfit franchise hosts visitors champions leaders`)
	femaleWords = toSet(`she her hers herself woman women mother wife daughter sister queen princess actress mrs ms lady girl`)
	maleWords   = toSet(`he him his himself man men father husband son brother king prince actor mr sir boy`)
)

// roleStop are lower-case words that are not role nouns before a name.
var roleStop = toSet(`the a an and or but of for to from by with in on at as than that which who is was are were be been
has have had said says told after before since when while against over into about his her their its our my your this these
those it he she they we also only just not more most very so then`)

type sentence struct {
	para   int
	tokens []token
	names  []mention
	ents   []*Entity // entity of each name
}

// BuildGraph builds the knowledge graph of a discussion's background:
// every capitalised name of the paragraphs, shorter forms merged into the
// longest name that ends or begins with them (a surname into the full name,
// a city into its team), acronyms in brackets after a name, role nouns
// before a name ("coach Sandy Brondello") and appositions after it,
// descriptions that open a sentence ("The Spaniard …") tied to the
// previous sentence's subject, gender from the pronouns that follow a
// person's name, number from "they" after an organisation.
func BuildGraph(d schemas.Discussion) *Graph {
	lowerSeen := map[string]bool{}
	var sents []*sentence
	for _, p := range d.Background {
		for _, s := range SplitSentences(p.Text) {
			ts := tokenize(s)
			for k, t := range ts {
				if k > 0 && isLowerWord(t.Text) {
					lowerSeen[t.Text] = true
				}
			}
			sents = append(sents, &sentence{para: p.Index, tokens: ts})
		}
	}
	for _, t := range d.Turns {
		for _, t := range tokenize(t.Utterance) {
			if isLowerWord(t.Text) {
				lowerSeen[t.Text] = true
			}
		}
	}
	count := map[string]int{}
	for _, s := range sents {
		s.names = findNames(s.tokens, lowerSeen)
		for _, m := range s.names {
			count[m.Name]++
		}
	}
	// Canonical names: longest first; a shorter name that is the last or
	// the first words of a longer one is its alias.
	names := make([]string, 0, len(count))
	for n := range count {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		wi, wj := len(strings.Fields(names[i])), len(strings.Fields(names[j]))
		if wi != wj {
			return wi > wj
		}
		return names[i] < names[j]
	})
	g := &Graph{alias: map[string]*Entity{}, paras: d.Background}
	first := map[string]int{}
	for _, s := range sents {
		for _, m := range s.names {
			if _, ok := first[m.Name]; !ok {
				first[m.Name] = len(first)
			}
		}
	}
	for _, n := range names {
		if g.alias[normName(n)] != nil {
			continue
		}
		var owner *Entity
		for _, e := range g.Entities {
			if partOf(n, e.Name) && (owner == nil || first[e.Name] < first[owner.Name]) {
				owner = e
			}
		}
		if owner != nil {
			owner.Aliases = append(owner.Aliases, n)
			g.alias[normName(n)] = owner
			continue
		}
		e := &Entity{Name: n}
		g.Entities = append(g.Entities, e)
		g.alias[normName(n)] = e
	}
	g.annotate(sents)
	// a person's surname names them where the background never writes it
	// alone, unless it is another entity's name or two people share it
	surnames := map[string][]*Entity{}
	for _, e := range g.Entities {
		ws := strings.Fields(e.Name)
		if e.Kind == KindPerson && len(ws) >= 2 {
			last := normName(ws[len(ws)-1])
			surnames[last] = append(surnames[last], e)
		}
	}
	for last, es := range surnames {
		if len(es) == 1 && g.alias[last] == nil {
			g.alias[last] = es[0]
			es[0].Aliases = append(es[0].Aliases, strings.Fields(es[0].Name)[len(strings.Fields(es[0].Name))-1])
		}
	}
	for k := range g.alias {
		if n := len(strings.Fields(k)); n > g.maxAlias {
			g.maxAlias = n
		}
	}
	// Entities in order of first mention.
	sort.SliceStable(g.Entities, func(i, j int) bool {
		return g.Entities[i].FirstParagraph < g.Entities[j].FirstParagraph
	})
	return g
}

// partOf reports whether short is the last words of long (a surname, a
// team's nickname) or, unless short is an acronym, its first words (a
// team's city).
func partOf(short, long string) bool {
	sw, lw := strings.Fields(strings.ToLower(short)), strings.Fields(strings.ToLower(long))
	if len(sw) >= len(lw) {
		return false
	}
	suffix := strings.Join(lw[len(lw)-len(sw):], " ") == strings.Join(sw, " ")
	prefix := strings.Join(lw[:len(sw)], " ") == strings.Join(sw, " ")
	if suffix {
		return !eventWords[sw[len(sw)-1]] && !orgWords[sw[len(sw)-1]]
	}
	return prefix && !isAllCaps(short) && !nameConnectors[lw[len(sw)]]
}

func (g *Graph) annotate(sents []*sentence) {
	male, female, they, it := map[*Entity]int{}, map[*Entity]int{}, map[*Entity]int{}, map[*Entity]int{}
	paraSeen := map[*Entity]map[int]bool{}
	addPara := func(e *Entity, p int) {
		if paraSeen[e] == nil {
			paraSeen[e] = map[int]bool{}
			e.FirstParagraph = p
		}
		if !paraSeen[e][p] {
			paraSeen[e][p] = true
			e.Paragraphs = append(e.Paragraphs, p)
		}
	}
	addRole := func(e *Entity, r string) {
		r = strings.ToLower(strings.TrimSpace(r))
		if r == "" {
			return
		}
		for _, x := range e.Roles {
			if x == r {
				return
			}
		}
		e.Roles = append(e.Roles, r)
	}
	people := func(e *Entity) bool { return e != nil && e.Kind == KindPerson }
	var prevSubject *Entity
	var lastPerson *Entity
	for _, s := range sents {
		s.ents = make([]*Entity, len(s.names))
		for k, m := range s.names {
			e := g.alias[normName(m.Name)]
			s.ents[k] = e
			e.Mentions++
			if m.Start > 0 && strings.EqualFold(s.tokens[m.Start-1].Text, "the") {
				e.the++
			}
			addPara(e, s.para)
		}
		g.classify(s)
		ts := s.tokens
		// acronyms in brackets after a name; role nouns before; appositions after
		for k, m := range s.names {
			e := s.ents[k]
			if m.End+2 < len(ts) && ts[m.End].Text == "(" && ts[m.End+2].Text == ")" && isAllCaps(ts[m.End+1].Text) {
				ac := ts[m.End+1].Text
				if old := g.alias[normName(ac)]; old != nil && old != e {
					g.merge(e, old)
				}
				g.alias[normName(ac)] = e
				e.Aliases = append(e.Aliases, ac)
			}
			for b := m.Start - 1; b >= 0 && b >= m.Start-3; b-- {
				w := ts[b].Text
				lw := strings.ToLower(w)
				if titleWords[lw] {
					addRole(e, lw)
					continue
				}
				if !isLowerWord(w) || roleStop[lw] || strings.HasSuffix(lw, "ed") || strings.HasSuffix(lw, "ing") {
					break
				}
				addRole(e, lw)
				if b > 0 && isCapitalised(ts[b-1].Text) {
					break
				}
			}
			if m.End+1 < len(ts) && ts[m.End].Text == "," {
				b := m.End + 1
				for b < len(ts) && b < m.End+8 && (isLowerWord(ts[b].Text) || ts[b].Text == "No." || isDigitWord(ts[b].Text)) {
					lw := ts[b].Text
					if lw == "of" || lw == "who" || lw == "which" || lw == "said" || lw == "has" || lw == "is" || lw == "was" {
						break
					}
					if !roleStop[lw] {
						addRole(e, lw)
					}
					b++
				}
			}
		}
		// pronoun votes: a gendered pronoun after a name in the sentence goes
		// to the nearest person-like name before it; a sentence that opens
		// with a pronoun votes for the previous sentence's subject.
		var subject *Entity
		if len(s.names) > 0 && s.names[0].Start <= 3 {
			subject = s.ents[0]
		}
		for i, t := range ts {
			lw := strings.ToLower(t.Text)
			isF, isM := femaleWords[lw] && isPronoun(lw), maleWords[lw] && isPronoun(lw)
			isThey := lw == "they" || lw == "their" || lw == "them"
			isIt := lw == "its"
			if !isF && !isM && !isThey && !isIt {
				continue
			}
			var ante *Entity
			for k := len(s.names) - 1; k >= 0; k-- {
				if s.names[k].End <= i && (isThey || isIt || s.ents[k].Kind != KindOrganisation && s.ents[k].Kind != KindEvent) {
					ante = s.ents[k]
					if isF || isM {
						// the subject wins over a later non-person name
						if subject != nil && subject.Kind != KindOrganisation && s.names[0].End <= i {
							ante = subject
						}
					}
					break
				}
			}
			if ante == nil && i <= 1 {
				ante = prevSubject
			}
			if ante == nil {
				continue
			}
			switch {
			case isF:
				female[ante]++
			case isM:
				male[ante]++
			case isThey:
				they[ante]++
			case isIt:
				it[ante]++
			}
		}
		// a description opening the sentence ("The Spaniard …", "The
		// two-time grand slam champion …") or standing as its subject after
		// a clause ("…, the Romanian star faded") describes the previous
		// subject.
		for i := 0; i < len(ts); i++ {
			if strings.ToLower(ts[i].Text) != "the" || !(i == 0 || ts[i-1].Text == ",") {
				continue
			}
			j := i + 1
			for j < len(ts) && j < i+6 && (isLowerWord(ts[j].Text) || isDigitWord(ts[j].Text) || (isCapitalised(ts[j].Text) && isDemonymLike(ts, j))) {
				j++
			}
			if j == i+1 || j >= len(ts) || !isLowerWord(ts[j-1].Text) {
				continue
			}
			head := strings.ToLower(ts[j-1].Text)
			if roleStop[head] || ts[j].Text == "of" || isCapitalised(ts[j].Text) && !isVerbish(ts, j) {
				continue
			}
			var words []string
			for k := i + 1; k < j; k++ {
				words = append(words, strings.ToLower(ts[k].Text))
			}
			var target *Entity
			if orgRoles[head] {
				target = lastOrg(sents, s)
			} else if i == 0 && people(prevSubject) {
				target = prevSubject
			} else if people(lastPerson) {
				target = lastPerson
			}
			if target != nil {
				addRole(target, head)
				addRole(target, strings.Join(words, " "))
				target.Mentions++
				addPara(target, s.para)
			}
		}
		if subject != nil {
			prevSubject = subject
		}
		for k := len(s.ents) - 1; k >= 0; k-- {
			if s.ents[k].Kind == KindPerson {
				lastPerson = s.ents[k]
				break
			}
		}
	}
	for _, e := range g.Entities {
		switch {
		case female[e] > male[e]:
			e.Gender = Female
		case male[e] > female[e]:
			e.Gender = Male
		}
		if e.Gender != GenderUnknown && e.Kind == KindOther {
			e.Kind = KindPerson
		}
		if e.Kind == KindOrganisation && they[e] > it[e] {
			e.Plural = true
		}
		if e.Kind == KindOther && they[e] > 0 && they[e] > it[e] {
			e.Kind, e.Plural = KindOrganisation, true
		}
	}
}

func (g *Graph) merge(into, from *Entity) {
	for k, v := range g.alias {
		if v == from {
			g.alias[k] = into
		}
	}
	into.Aliases = append(into.Aliases, from.Name)
	into.Aliases = append(into.Aliases, from.Aliases...)
	into.Mentions += from.Mentions
	for i, e := range g.Entities {
		if e == from {
			g.Entities = append(g.Entities[:i], g.Entities[i+1:]...)
			break
		}
	}
}

func lastOrg(sents []*sentence, upto *sentence) *Entity {
	var found *Entity
	for _, s := range sents {
		for k := range s.names {
			if s.ents[k] != nil && s.ents[k].Kind == KindOrganisation {
				found = s.ents[k]
			}
		}
		if s == upto {
			break
		}
	}
	return found
}

func isPronoun(w string) bool {
	switch w {
	case "he", "him", "his", "himself", "she", "her", "hers", "herself":
		return true
	}
	return false
}

func isDigitWord(w string) bool {
	r := []rune(w)
	return len(r) > 0 && r[0] >= '0' && r[0] <= '9'
}

func isDemonymLike(ts []token, j int) bool {
	return isDemonym(ts[j].Text) || (j+1 < len(ts) && isLowerWord(ts[j+1].Text))
}

// isVerbish: the word after a description is a verb (lower case) rather
// than the name it introduces.
func isVerbish(ts []token, j int) bool { return isLowerWord(ts[j].Text) }

// classify sets the kind of the entities a sentence names, from their
// names' words and the words around them.
func (g *Graph) classify(s *sentence) {
	for k, m := range s.names {
		e := s.ents[k]
		if e.Kind != KindOther {
			continue
		}
		ws := strings.Fields(strings.ToLower(e.Name))
		last := ws[len(ws)-1]
		switch {
		case eventWords[last]:
			e.Kind = KindEvent
		case isAllCaps(e.Name) && len(ws) == 1:
			if e.Name == "US" || e.Name == "UK" || e.Name == "USA" || e.Name == "UAE" {
				e.Kind = KindPlace
			} else {
				e.Kind = KindOrganisation
			}
		case anyIn(ws, orgWords):
			e.Kind = KindOrganisation
		case placeWords[last]:
			e.Kind = KindPlace
		case m.Start > 0 && strings.EqualFold(s.tokens[m.Start-1].Text, "the") && strings.HasSuffix(last, "s") && !strings.HasSuffix(last, "ss"):
			e.Kind, e.Plural = KindOrganisation, true
		case m.Start > 0 && (titleWords[strings.ToLower(s.tokens[m.Start-1].Text)]):
			e.Kind = KindPerson
		case len(ws) >= 2 && len(ws) <= 3 && allNameWords(strings.Fields(e.Name)) && !(m.Start > 0 && strings.EqualFold(s.tokens[m.Start-1].Text, "the")):
			e.Kind = KindPerson
		}
	}
}

func allNameWords(ws []string) bool {
	for _, w := range ws {
		if !isCapitalised(w) || isAllCaps(w) || isDigitWord(w) {
			return false
		}
	}
	return true
}

func anyIn(ws []string, set map[string]bool) bool {
	for _, w := range ws {
		if set[w] {
			return true
		}
	}
	return false
}
