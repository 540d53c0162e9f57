package discourse

import (
	"sort"
	"strings"
	"unicode"

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
	Roles []string
	// RoleOf maps a role to the name of the entity it is held in or for,
	// where the background says so: "FIFA president Gianni Infantino",
	// "Gianni Infantino, the president of FIFA" and "FIFA's president
	// Gianni Infantino" each give Gianni Infantino "president" → "FIFA", so
	// a writer can say "the president of FIFA, Gianni Infantino". Nil when
	// no role names its organisation.
	RoleOf map[string]string
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
	// ev: the evidence its kind is decided from; roleOf the holders of
	// its roles until kinds are known.
	ev     evidence
	roleOf map[string]*Entity
}

// evidence is what the text says about an entity's kind: the pronouns
// that take it up, role nouns of people or of organisations tied to it,
// and the entities it is listed with.
type evidence struct {
	male, female, they, it int
	person, org            int
	// holder: written before a role noun and another name ("FIFA
	// president Gianni Infantino"); place: written after "in".
	holder, place int
	// speech: a speech verb follows it ("Quint said"); at: written after
	// "at" (a place, a club, a company: not a person).
	speech, at int
	// competitor: a side of a contest (joined to another name by a
	// score or a contest word)
	competitor int
	// locality: written before a comma and the place it lies in
	locality int
	// scoreline: one side of a result line ("Aberdeen 2-1 Airdrieonians")
	scoreline int
	partners  []*Entity // entities joined to it by "and", "vs"
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
		if !isCapitalised(ws[n-1]) && !(n > 1 && nameNumber(ts, i+n-1)) {
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
	orgWords   = wordSet("org_words")
	eventWords = wordSet("event_words")
	placeWords = wordSet("place_words")
	// role heads that describe organisations rather than people
	orgRoles    = wordSet("org_roles")
	femaleWords = wordSet("female_words")
	maleWords   = wordSet("male_words")
)

// roleStop are lower-case words that are not role nouns before a name.
var roleStop = wordSet("role_stop")

type sentence struct {
	para   int
	tokens []token
	names  []mention
	ents   []*Entity // entity of each name
}

// BuildGraph builds the knowledge graph of a discussion's background:
// every capitalised name of the paragraphs (a sentence-initial word the
// text shows to be a common word left out), shorter forms merged into the
// longest name that ends or begins with them (a surname into the full name,
// a city into its team), acronyms in brackets after a name or spelling
// one name's initials ("PSG"), role nouns
// before a name ("coach Sandy Brondello") and appositions after it, with
// the organisation a role is held in (RoleOf), descriptions that open a
// sentence ("The Spaniard …") tied to the previous sentence's subject.
// A name joined to another by one "of" or "for" is two names where the
// left does not head such names and the right stands alone elsewhere or
// the left has a full name's shape; a name that opens a longer one but is
// used alone as a place is its own entity. Gender, number and kind are
// decided from the evidence of every mention: the pronouns that follow a
// name, "the" before it, the role nouns tied to it, the names it is listed
// with ("and", "vs", "beat", "A, B and C", "X 2-1 Y"), the contests it
// is a side of ("a 4-1 victory at X"; not as a scorer), a result line it
// stands in ("X 1-2 Y:"), the frames of a home or away result, of a win
// over it and of a transfer (sideFrames), "its" after its own verb, "in",
// "at" or a compass adjective before it, a
// comma and a place after it (a locality), a plural verb, an
// organisation's possessions ("X's fans") or a score after its
// possessive, a role noun after it ("X QB"), a speech verb after it, a
// gendered title ("Mr X") and a men's or women's event it won.
func BuildGraph(d schemas.Discussion) *Graph {
	lx := newLexicon()
	var sents []*sentence
	for _, p := range d.Background {
		for _, s := range SplitSentences(p.Text) {
			ts := tokenize(s)
			lx.add(ts)
			sents = append(sents, &sentence{para: p.Index, tokens: ts})
		}
	}
	for _, t := range d.Turns {
		for _, s := range SplitSentences(t.Utterance) {
			lx.add(tokenize(s))
		}
	}
	alone := map[string]bool{}
	for _, s := range sents {
		s.names = findNames(s.tokens, lx)
		for _, m := range s.names {
			alone[normName(m.Name)] = true
		}
	}
	count := map[string]int{}
	placeLike := map[string]bool{}
	inPlace := map[string]bool{} // written after "in", "across" …
	for _, s := range sents {
		s.names = splitConnected(s.tokens, s.names, alone)
		for k, m := range s.names {
			count[m.Name]++
			if standsAsPlace(s, k) {
				placeLike[m.Name] = true
			}
			if m.Start > 0 && inWords[strings.ToLower(s.tokens[m.Start-1].Text)] {
				inPlace[m.Name] = true
			}
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
			// a name that opens a longer one but stands alone as a place or
			// an organisation elsewhere is its own entity ("Vestria" and
			// "Vestria Holm")
			// nor is a place written after "in" that ends a name of three
			// words or more ("Sussex Squad Nigeria", "in Nigeria")
			if placeLike[n] && (!suffixOf(n, e.Name) || inPlace[n] && len(strings.Fields(e.Name)) > 2) {
				continue
			}
			// a surname is written alone more often than a given name or
			// a city: the name it ends wins over the one it opens
			if partOf(n, e.Name) && (owner == nil || suffixOf(n, e.Name) && !suffixOf(n, owner.Name) ||
				suffixOf(n, e.Name) == suffixOf(n, owner.Name) && first[e.Name] < first[owner.Name]) {
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
	g.annotate(sents, lx)
	g.initialisms()
	// a person's surname names them where the background never writes it
	// alone, unless it is another entity's name or two people share it
	surnames := map[string][]*Entity{}
	for _, e := range g.Entities {
		ws := strings.Fields(e.Name)
		if e.Kind == KindPerson && len(ws) >= 2 && surnameLike(ws[len(ws)-1]) {
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
	for _, e := range g.Entities {
		e.Aliases = distinctAliases(e)
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

// splitConnected parts a name joined by one "of" or "for" into two
// ("Reid for Castelora", "Anna Koval of Vestria") when the left side
// does not end in a word that heads such names ("Bank of Elmore", "Court
// of Arbitration", "Gulf of Arland", "Prince of Vestria") and either
// the right side is a name the text writes alone or the left side has a
// person's full name's shape before "of".
func splitConnected(ts []token, ms []mention, alone map[string]bool) []mention {
	var out []mention
	for _, m := range ms {
		c := -1
		for k := m.Start + 1; k < m.End-1; k++ {
			if lw := ts[k].Text; nameConnectors[lw] {
				if c >= 0 || lw != "of" && lw != "for" {
					c = -2
					break
				}
				c = k
			}
		}
		if c < 0 {
			out = append(out, m)
			continue
		}
		left, right := ts[m.Start:c], ts[c+1:m.End]
		head := strings.ToLower(left[len(left)-1].Text)
		words := make([]string, len(left))
		for i, t := range left {
			words[i] = t.Text
		}
		personShape := ts[c].Text == "of" && len(left) >= 2 && len(left) <= 3 && allNameWords(words)
		if ofHead(head) || !alone[normName(joinTokens(right))] && !personShape {
			out = append(out, m)
			continue
		}
		out = append(out, mention{Name: joinTokens(left), Start: m.Start, End: c, Initial: m.Initial},
			mention{Name: joinTokens(right), Start: c + 1, End: m.End})
	}
	return out
}

// ofHead: a word that heads a name going on with "of" or "for".
func ofHead(w string) bool {
	return orgWords[w] || eventWords[w] || placeWords[w] || institutionHeads[w] || titleWords[w] || personRoles[w] ||
		ofHeads[w] || orgRoles[w]
}

var ofHeads = wordSet("of_heads")

// standsAsPlace: the k-th name of a sentence is used as a place or an
// organisation: after "in", "from" or "across", in a list "A, B and C"
// with a comma on each side, or before a role and a person's name
// ("Vestria foreign minister Vestria Holm").
func standsAsPlace(s *sentence, k int) bool {
	ts, m := s.tokens, s.names[k]
	if m.Start > 0 && (inWords[strings.ToLower(ts[m.Start-1].Text)] || strings.EqualFold(ts[m.Start-1].Text, "from")) {
		return true
	}
	if m.Start > 0 && ts[m.Start-1].Text == "," && m.End < len(ts) && (ts[m.End].Text == "," || ts[m.End].Text == "and") &&
		k > 0 && s.names[k-1].End == m.Start-1 {
		return true
	}
	for j := m.End; j < len(ts) && j < m.End+3; j++ {
		w := ts[j].Text
		if !isLowerWord(w) {
			return false
		}
		if (personRoles[w] || titleWords[w]) && j+1 < len(ts) && isCapitalised(ts[j+1].Text) && !notNames[strings.ToLower(ts[j+1].Text)] {
			return true
		}
	}
	return false
}

// suffixOf: short is the last words of long.
func suffixOf(short, long string) bool {
	sw, lw := strings.Fields(strings.ToLower(short)), strings.Fields(strings.ToLower(long))
	return len(sw) < len(lw) && strings.Join(lw[len(lw)-len(sw):], " ") == strings.Join(sw, " ")
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
		// what follows "of" in a name is another entity ("Bank of Elmore")
		if nameConnectors[lw[len(lw)-len(sw)-1]] {
			return false
		}
		return !eventWords[sw[len(sw)-1]] && !orgWords[sw[len(sw)-1]] && !institutionHeads[sw[len(sw)-1]]
	}
	return prefix && !isAllCaps(short) && !nameConnectors[lw[len(sw)]]
}

func (g *Graph) annotate(sents []*sentence, lx *lexicon) {
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
	people := func(e *Entity) bool { return e != nil && e.Kind == KindPerson }
	var prevSubject *Entity
	var lastPerson *Entity
	for _, s := range sents {
		s.ents = make([]*Entity, len(s.names))
		for k, m := range s.names {
			e := g.alias[normName(m.Name)]
			s.ents[k] = e
			e.Mentions++
			// "the X" counts where X heads its phrase, not in "the X era"
			modifier := m.End < len(s.tokens) && lx.noun[s.tokens[m.End].Text] && !lx.verb[s.tokens[m.End].Text] &&
				!verbLike(s.tokens[m.End].Text, lx)
			if !modifier && (m.Start > 0 && strings.EqualFold(s.tokens[m.Start-1].Text, "the") ||
				m.Start > 1 && strings.EqualFold(s.tokens[m.Start-2].Text, "the") && isYear(s.tokens[m.Start-1].Text)) {
				e.the++
			}
			addPara(e, s.para)
		}
		g.classify(s)
		ts := s.tokens
		for k, m := range s.names {
			e := s.ents[k]
			// an acronym in brackets after a name is its alias
			if m.End+2 < len(ts) && ts[m.End].Text == "(" && ts[m.End+2].Text == ")" && isAllCaps(ts[m.End+1].Text) {
				ac := ts[m.End+1].Text
				if old := g.alias[normName(ac)]; old != nil && old != e {
					g.merge(e, old)
				}
				g.alias[normName(ac)] = e
				e.Aliases = append(e.Aliases, ac)
			}
			// "Gourock, Inverclyde": a locality within the place after
			// the comma
			if m.End+1 < len(ts) && ts[m.End].Text == "," && k+1 < len(s.names) && s.names[k+1].Start == m.End+1 {
				e.ev.locality++
			}
			g.rolesBefore(s, k, lx)
			g.apposition(s, k, lx)
			g.usage(s, k, lx)
			g.sideFrames(s, k)
			// names listed together are of one kind
			if k+1 < len(s.names) && s.ents[k+1] != e {
				between := s.names[k+1].Start - m.End
				// "A, B and C": a comma joins only where the list goes on
				listGoesOn := k+2 < len(s.names) && s.names[k+2].Start-s.names[k+1].End == 1 &&
					(ts[s.names[k+1].End].Text == "," || ts[s.names[k+1].End].Text == "and" || ts[s.names[k+1].End].Text == "or")
				if between == 1 && (listJoiners[strings.ToLower(ts[m.End].Text)] || ts[m.End].Text == "," && listGoesOn) {
					f := s.ents[k+1]
					e.ev.partners = append(e.ev.partners, f)
					f.ev.partners = append(f.ev.partners, e)
				}
				// sides of a contest are of one kind and compete
				// ("Bayern thrashed Holstein Kiel 6-1", "a 4-1 victory
				// at Hoffenheim", "Aberdeen 2-1 Airdrieonians")
				if between <= contestSpan && contestBetween(ts[m.End:s.names[k+1].Start]) {
					f := s.ents[k+1]
					if between <= 3 {
						e.ev.partners = append(e.ev.partners, f)
						f.ev.partners = append(f.ev.partners, e)
					}
					e.ev.competitor++
					f.ev.competitor++
					if between == 1 {
						// "Hamilton Academical 1-2 Ross County": a
						// result line names two teams
						e.ev.scoreline++
						f.ev.scoreline++
					}
				}
			}
		}
		// pronoun votes: a gendered pronoun after a name in the sentence goes
		// to the nearest person-like name before it; a sentence that opens
		// with a pronoun votes for the previous sentence's subject.
		var subject *Entity
		if len(s.names) > 0 && s.names[0].Start <= 3 {
			subject = s.ents[0]
			// a holder before a role and its person ("Chicago
			// outfielder Zach DeLoach") is not the subject: the person
			// is
			if len(s.names) > 1 && s.names[1].Start == s.names[0].End+1 && s.ents[0].ev.holder > 0 {
				subject = s.ents[1]
			}
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
				// people are not written "the X": no he/she for such a mention
				theBefore := s.names[k].Start > 0 && strings.EqualFold(ts[s.names[k].Start-1].Text, "the") && !titled(s.names[k].Name)
				if s.names[k].End <= i && (isThey || isIt || !ungendered(s.ents[k]) && !theBefore) {
					ante = s.ents[k]
					if isF || isM {
						// the subject wins over a later non-person name
						// (not a subject the text treats as an organisation:
						// "Juventus have confirmed that … Rabiot will leave
						// … his contract")
						if subject != nil && !ungendered(subject) && s.names[0].End <= i && subject.ev.org+subject.ev.they == 0 {
							ante = subject
						}
					}
					break
				}
			}
			if ante == nil && i <= 1 {
				ante = prevSubject
			}
			// "had 52,000 visits last year, many of them": a plural
			// common noun between the name and "they" is what it takes up
			if isThey && ante != nil && i > 1 && pluralNounBetween(ts, s.names, i, lx) {
				ante = nil
			}
			if ante == nil {
				continue
			}
			// "Real Madrid began its title defense": a name whose own verb
			// is followed by "its" is no person
			if isIt {
				for k := range s.names {
					if s.ents[k] == ante && s.names[k].End+1 == i && isLowerWord(ts[i-1].Text) && !roleStop[ts[i-1].Text] && (verbLike(ts[i-1].Text, lx) || !lx.noun[ts[i-1].Text]) {
						ante.ev.org++
					}
				}
			}
			switch {
			case isF:
				ante.ev.female++
			case isM:
				ante.ev.male++
			case isThey:
				ante.ev.they++
			case isIt:
				ante.ev.it++
			}
		}
		// the winner of a men's or a women's event is a man or a woman
		// ("Marcel Hug won the men's wheelchair race")
		for i := 1; i+1 < len(ts); i++ {
			lw := strings.ToLower(ts[i].Text)
			if ts[i+1].Text != "'s" && ts[i+1].Text != "’s" || lw != "men" && lw != "women" {
				continue
			}
			for k := len(s.names) - 1; k >= 0; k-- {
				if s.names[k].End > i {
					continue
				}
				v := s.names[k].End
				if v+1 < i && strings.HasSuffix(strings.ToLower(ts[v].Text), "ly") {
					v++ // "comfortably winning"
				}
				if i-v <= 3 && !ungendered(s.ents[k]) && winVerbs[strings.ToLower(ts[v].Text)] {
					if lw == "men" {
						s.ents[k].ev.male++
					} else {
						s.ents[k].ev.female++
					}
				}
				break
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
			for j < len(ts) && j < i+6 && (isLowerWord(ts[j].Text) && !roleStop[ts[j].Text] && !lx.verb[ts[j].Text] || isDigitWord(ts[j].Text) || (isCapitalised(ts[j].Text) && isDemonymLike(ts, j))) {
				j++
			}
			if j == i+1 || j >= len(ts) || !isLowerWord(ts[j-1].Text) || !isLowerWord(ts[j].Text) {
				continue
			}
			head := strings.ToLower(ts[j-1].Text)
			if ts[j].Text == "of" || !verbLike(ts[j].Text, lx) {
				continue
			}
			var words []string
			for k := i + 1; k < j; k++ {
				words = append(words, strings.ToLower(ts[k].Text))
			}
			var target *Entity
			switch {
			case orgRoles[head]:
				target = lastOrg(sents, s)
			case !personNoun(head, lx):
				continue
			case i == 0 && people(prevSubject):
				target = prevSubject
			case people(lastPerson):
				target = lastPerson
			}
			if target != nil {
				addRole(target, head)
				addRole(target, strings.Join(words, " "))
				target.Mentions++
				addPara(target, s.para)
			}
		}
		switch {
		case subject != nil:
			prevSubject = subject
		case describedPersonSubject(ts, lx) && people(lastPerson):
			// "The 26-year-old started his career at Partizan": the
			// subject is the person last named, described
			prevSubject = lastPerson
		case len(s.ents) > 0:
			// a sentence that opens with a phrase ("In an interview
			// Monday, French President Emmanuel Macron said …"): its
			// first person is the subject a next "He" continues; without
			// a person, the first name not written "the X" (an
			// organisation's mention: "drafted by the Mercury … She is
			// …" continues the sentence's unnamed subject, not the team)
			prevSubject = nil
			for k, x := range s.ents {
				if prevSubject == nil && !(s.names[k].Start > 0 && strings.EqualFold(ts[s.names[k].Start-1].Text, "the") && !titled(s.names[k].Name)) &&
					// a preposition's object is no subject ("The 26-year-old
					// started his career at Partizan … In his …")
					!(s.names[k].Start > 0 && objectPreps[strings.ToLower(ts[s.names[k].Start-1].Text)]) {
					prevSubject = x
				}
			}
			for _, x := range s.ents {
				if x.Kind == KindPerson {
					prevSubject = x
					break
				}
			}
		}
		for k := len(s.ents) - 1; k >= 0; k-- {
			if s.ents[k].Kind == KindPerson {
				lastPerson = s.ents[k]
				break
			}
		}
	}
	g.decideKinds()
	g.settleRoleOf()
}

// ungendered: the kind its words give an entity takes no he or she.
func ungendered(e *Entity) bool {
	return e.Kind == KindOrganisation || e.Kind == KindEvent || e.Kind == KindPlace
}

// listJoiners join names of one kind: "X and Y", "X vs Y", "X beat Y".
var listJoiners = wordSet("list_joiners")

// usage reads what the words around the k-th name of a sentence say of
// its kind: a possessive before what only an organisation has ("X's
// fans", "X's players") or before a person's name ("X's Rosa Lind"), a
// plural verb right after it ("X are two points clear"), a person's role
// noun right after it ("as X QB", "X centre-back Tom Reid"), a speech
// verb after it ("X said").
func (g *Graph) usage(s *sentence, k int, lx *lexicon) {
	ts, m, e := s.tokens, s.names[k], s.ents[k]
	if m.End >= len(ts) {
		return
	}
	next := strings.ToLower(ts[m.End].Text)
	// a lone capitalised plural opening a sentence is likely a common noun
	// (not a name the text also capitalises inside a sentence: "Juventus
	// have confirmed")
	if m.Initial && !strings.Contains(m.Name, " ") && strings.HasSuffix(m.Name, "s") && !lx.capMid[m.Name] {
		return
	}
	listed := m.Start > 0 && (listJoiners[strings.ToLower(ts[m.Start-1].Text)] || ts[m.Start-1].Text == ",")
	switch {
	case next == "'s" || next == "'":
		if m.End+1 >= len(ts) {
			return
		}
		after := strings.ToLower(ts[m.End+1].Text)
		if orgPossessions[after] || isScore(after) ||
			m.End+2 < len(ts) && isLowerWord(ts[m.End+1].Text) && isScore(ts[m.End+2].Text) {
			e.ev.org++
		}
		if k+1 < len(s.names) && s.names[k+1].Start == m.End+1 && s.ents[k+1] != e && s.ents[k+1].Kind == KindPerson &&
			len(strings.Fields(s.names[k+1].Name)) >= 2 {
			e.ev.holder++
		}
	case pluralVerbs[next] && !listed && opensClause(ts, m.Start):
		e.ev.org++
		e.ev.they++
	case speechVerbs[next]:
		e.ev.speech++
	case isRoleAfterName(ts[m.End].Text, lx) && (m.End+1 == len(ts) || !isWord(ts[m.End+1].Text) ||
		k+1 < len(s.names) && s.names[k+1].Start == m.End+1 || afterRole[strings.ToLower(ts[m.End+1].Text)]):
		e.ev.holder++
	}
}

// sideFrames reads the frames that make the k-th name of a sentence a
// club or a company whatever its words: the other side of a home or an
// away result ("a 3-0 home defeat to Westbrook Rovers": people do not
// play at home), the beaten side of a win that is no person's, and the
// two ends of a transfer ("joined Harbour City from Northgate Athletic",
// "joins Nottingham Forest from Fiorentina": one joins an organisation
// from another).
func (g *Graph) sideFrames(s *sentence, k int) {
	ts, m, e := s.tokens, s.names[k], s.ents[k]
	at := func(i int) string {
		if i < 0 || i >= len(ts) {
			return ""
		}
		return strings.ToLower(ts[i].Text)
	}
	b := m.Start // the name, or its "the"
	if at(b-1) == "the" {
		b--
	}
	if contestPreps[at(b-1)] && contestNouns[at(b-2)] && venueWords[at(b-3)] {
		e.ev.scoreline++
		e.ev.competitor++
	}
	// "a 4-0 victory against Real Betis", "a 78-67 win over the New York
	// Liberty", "wins over Robbinsdale Armstrong": the beaten side is a
	// team, unless the win is a person's ("his victory over Andrew
	// Golota")
	if (at(b-1) == "over" || at(b-1) == "against") && contestNouns[at(b-2)] {
		o := b - 3
		if isScore(at(o)) {
			o--
		}
		if at(o) != "his" && at(o) != "her" {
			e.ev.scoreline++
			e.ev.competitor++
		}
	}
	if k+1 < len(s.names) && joinVerbs[at(m.Start-1)] && at(m.End) == "from" && s.names[k+1].Start == m.End+1 {
		e.ev.org++
		s.ents[k+1].ev.org++
	}
}

// describedPersonSubject: a sentence opens with "The" and a description
// of a person ("The 26-year-old started …", "The veteran striker has …")
// followed by its verb.
func describedPersonSubject(ts []token, lx *lexicon) bool {
	if len(ts) < 3 || !strings.EqualFold(ts[0].Text, "the") {
		return false
	}
	for j := 1; j < len(ts)-1 && j <= 3; j++ {
		w := strings.ToLower(ts[j].Text)
		if !isLowerWord(w) && !isDigitWord(w) {
			return false
		}
		if personNoun(w, lx) && !personNoun(ts[j+1].Text, lx) {
			return verbLike(ts[j+1].Text, lx)
		}
	}
	return false
}

// pluralNounBetween: a plural common noun stands between the last name
// before position i and i.
func pluralNounBetween(ts []token, names []mention, i int, lx *lexicon) bool {
	from := 0
	for _, m := range names {
		if m.End <= i {
			from = m.End
		}
	}
	for j := from; j < i; j++ {
		w := ts[j].Text
		if isLowerWord(w) && len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") &&
			!roleStop[w] && !lx.verb[w] && !descVerbs[w] && j > from && (lx.noun[w] || isDigitWord(ts[j-1].Text) || isLowerWord(ts[j-1].Text) && !roleStop[strings.ToLower(ts[j-1].Text)]) {
			return true
		}
	}
	return false
}

// venueWords say where a team played a result ("a home defeat to X").
var venueWords = wordSet("venue_words")

// joinVerbs open a transfer: "joined X from Y".
var joinVerbs = wordSet("join_verbs")

// opensClause: the name at ts[i] opens a sentence or a clause, so a verb
// after it is its own ("Verano are two points clear", not "the goods
// shipped across the Strait have been").
func opensClause(ts []token, i int) bool {
	if i > 0 && strings.EqualFold(ts[i-1].Text, "the") {
		i--
	}
	return i == 0 || ts[i-1].Text == "," || clauseOpeners[strings.ToLower(ts[i-1].Text)]
}

var clauseOpeners = wordSet("clause_openers")

// afterRole: prepositions that may follow "X manager" when X holds it.
var afterRole = wordSet("after_role")

// isScore: a result such as "3-1".
func isScore(w string) bool {
	i := strings.IndexByte(w, '-')
	return i > 0 && i < len(w)-1 && strings.Trim(w[:i], "0123456789") == "" && strings.Trim(w[i+1:], "0123456789") == ""
}

// isRoleAfterName: a person's role noun that, written right after a name,
// says the name is where the role is held ("Hawks QB", "Verano
// centre-back"): not a word the text uses as a verb, nor one that is as
// often an adverb.
func isRoleAfterName(w string, lx *lexicon) bool {
	lw := strings.ToLower(w)
	if lx.verb[lw] || ambiguousRoles[lw] {
		return false
	}
	if i := strings.LastIndexByte(lw, '-'); i > 0 && personRoles[lw[i+1:]] && !ambiguousRoles[lw[i+1:]] {
		return true
	}
	return personRoles[lw] && (isLowerWord(w) || isAllCaps(w))
}

var ambiguousRoles = wordSet("ambiguous_roles")

// sharedRoles are held by people and by teams alike: no evidence of kind.
var sharedRoles = wordSet("shared_roles")

// orgPossessions are what an organisation has and a person does not.
var orgPossessions = wordSet("org_possessions")

// pluralVerbs right after a name say it is a body of people.
var pluralVerbs = wordSet("plural_verbs")

// speechVerbs after a name say it speaks.
var speechVerbs = wordSet("speech_verbs")

// decideKinds settles gender, number and kind from the evidence of every
// mention: the pronouns that take a name up (he/she for people, it/they
// for organisations), the people's and organisations' role nouns tied to
// it, "the" before it (people are not written "the X"), and last the kind
// of the names it is listed with.
func (g *Graph) decideKinds() {
	for _, e := range g.Entities {
		ev := e.ev
		switch {
		case ev.female > ev.male:
			e.Gender = Female
		case ev.male > ev.female:
			e.Gender = Male
		}
		if e.Gender == GenderUnknown {
			// a gendered title says it ("Mr Jussab", "Ms Anderson")
			for _, r := range e.Roles {
				switch {
				case maleTitles[r]:
					e.Gender = Male
					ev.male++
				case femaleTitles[r]:
					e.Gender = Female
					ev.female++
				}
			}
		}
		gendered := ev.male + ev.female
		switch {
		case titled(e.Name):
		case e.Kind == KindPerson && gendered == 0 && ev.person == 0 && (ev.org > 0 || e.the > 0 || ev.it+ev.they > 1 || ev.holder > 0):
			e.Kind = KindOrganisation
		case (e.Kind == KindPerson || e.Kind == KindPlace) && gendered == 0 && ev.person+ev.speech+ev.place == 0 && ev.scoreline > 0:
			// "Ross County" in a result line is a team
			e.Kind = KindOrganisation
		case e.Kind == KindPerson && gendered == 0 && ev.person == 0 && ev.place > 0:
			e.Kind = KindPlace
		case e.Kind == KindPerson && gendered == 0 && ev.person == 0 && ev.at > 0 && ev.speech == 0:
			e.Kind = KindOrganisation
		case e.Kind == KindOther && ev.org > ev.person && gendered == 0:
			e.Kind = KindOrganisation
		case e.Kind == KindOther && gendered == 0 && ev.person == 0 && ev.speech == 0 && ev.competitor > 0:
			e.Kind = KindOrganisation
		case e.Kind == KindOther && ev.person+ev.org+ev.speech+ev.holder+ev.they+ev.it == 0 && ev.place > gendered:
			// a place may catch a pronoun vote meant for a person
			e.Kind = KindPlace
		case e.Kind == KindOther && (gendered > 0 || ev.person > ev.org) && e.the == 0:
			e.Kind = KindPerson
		case e.Kind == KindOther && ev.they > 0 && ev.they > ev.it:
			e.Kind = KindOrganisation
		case e.Kind == KindOther && gendered == 0 && ev.person == 0 && (ev.holder > 0 || ev.org > 0):
			e.Kind = KindOrganisation
		}
		if e.Kind != KindPerson {
			e.Gender = GenderUnknown
		}
		if e.Kind == KindOrganisation && ev.they > ev.it {
			e.Plural = true
		}
	}
	// a name typed a person on its words alone, with no person's evidence,
	// listed with organisations more than with people, is an organisation;
	// repeated until nothing changes, as a list is settled one by one
	for changed := true; changed; {
		changed = false
		for _, e := range g.Entities {
			if e.Kind != KindPerson || e.ev.male+e.ev.female+e.ev.person+e.ev.speech > 0 {
				continue
			}
			orgs, persons := 0, 0
			for _, f := range e.ev.partners {
				switch {
				case f.Kind == KindOrganisation:
					orgs++
				case f.Kind == KindPerson && f.ev.male+f.ev.female+f.ev.person > 0:
					persons++
				}
			}
			if orgs > persons {
				e.Kind = KindOrganisation
				e.Plural = e.ev.they > e.ev.it
				changed = true
			}
		}
	}
	// a single word that speaks ("Quint said"), with no organisation's or
	// place's evidence and not listed with organisations, is a person
	for _, e := range g.Entities {
		ev := e.ev
		if e.Kind != KindOther || ev.speech == 0 || ev.org+ev.it+ev.they+ev.holder+ev.place+e.the > 0 ||
			len(strings.Fields(e.Name)) != 1 || isAllCaps(e.Name) || isDemonym(e.Name) {
			continue
		}
		listedWithOrg := false
		for _, f := range ev.partners {
			listedWithOrg = listedWithOrg || f.Kind != KindPerson || f.ev.male+f.ev.female+f.ev.person == 0
		}
		if !listedWithOrg {
			e.Kind = KindPerson
			switch {
			case ev.female > ev.male:
				e.Gender = Female
			case ev.male > ev.female:
				e.Gender = Male
			}
		}
	}
}

// rolesBefore reads the role nouns before the k-th name of a sentence
// ("coach Sandy Brondello", "former world No. 1 Wozniacki") and the
// organisation a role is held in when a name or a possessive precedes it
// ("FIFA president Gianni Infantino", "Halep's coach Darren Cahill").
func (g *Graph) rolesBefore(s *sentence, k int, lx *lexicon) {
	ts, m, e := s.tokens, s.names[k], s.ents[k]
	if m.Start > 0 && inWords[strings.ToLower(ts[m.Start-1].Text)] && !(m.End < len(ts) && ts[m.End].Text == "'s") {
		e.ev.place++
	}
	// "northeastern British Columbia", "southern Minnesota": a part of a
	// place
	if m.Start > 0 && compassWords[strings.ToLower(ts[m.Start-1].Text)] {
		e.ev.place++
	}
	if m.Start > 0 && strings.EqualFold(ts[m.Start-1].Text, "at") {
		e.ev.at++
	}
	// a name before a role noun and another name holds that role: the
	// words before it describe the other name
	next := m.End + 1 // where the role's holder name starts
	if m.End+1 < len(ts) && ts[m.End+1].Text == "." && titleAbbreviations[strings.ToLower(ts[m.End].Text)] != "" {
		next++ // "Minnesota Gov. Tim Walz"
	}
	if n := m.End; n+1 < len(ts) && (isLowerWord(ts[n].Text) && roleNoun(ts[n].Text, lx) || titleWords[strings.ToLower(ts[n].Text)] || personRoles[strings.ToLower(ts[n].Text)]) &&
		k+1 < len(s.names) && s.names[k+1].Start == next {
		e.ev.holder++
		return
	}
	// "Governing body the FIA", "defending champions the Chiefs": an
	// organisation's role noun, then "the" and its name (not "the team
	// the Yankees beat", a relative clause after a determiner)
	if b := m.Start - 2; b >= 0 && strings.EqualFold(ts[b+1].Text, "the") && isLowerWord(ts[b].Text) && orgRoles[strings.ToLower(ts[b].Text)] &&
		!(b > 0 && determinersPoss[strings.ToLower(ts[b-1].Text)]) {
		addRole(e, strings.ToLower(ts[b].Text))
		e.ev.org++
		return
	}
	// "The club's chairman, Victor Lund, said …": a role noun, a comma
	// and the name in apposition
	if b := m.Start - 2; b >= 1 && ts[b+1].Text == "," && m.End < len(ts) && ts[m.End].Text == "," &&
		isLowerWord(ts[b].Text) && personNoun(ts[b].Text, lx) && !sharedRoles[ts[b].Text] &&
		(determinersPoss[strings.ToLower(ts[b-1].Text)] || isLowerWord(ts[b-1].Text) && roleNoun(ts[b-1].Text, lx)) {
		addRole(e, ts[b].Text)
		e.ev.person++
		return
	}
	var roles []string
	b := m.Start - 1
	lowest := m.Start - 3
	for ; b >= 0 && b >= lowest; b-- {
		lw := strings.ToLower(ts[b].Text)
		// "Minnesota Gov. Tim Walz": the abbreviation's point
		if lw == "." && b > 0 && titleAbbreviations[strings.ToLower(ts[b-1].Text)] != "" {
			lowest--
			continue
		}
		if full := titleAbbreviations[lw]; full != "" && b+1 < len(ts) && ts[b+1].Text == "." {
			lw = full
		}
		if titleWords[lw] || personRoles[lw] && isAllCaps(ts[b].Text) || isLowerWord(ts[b].Text) && !roleStop[lw] && roleNoun(lw, lx) && (len(roles) > 0 || roleHead(lw)) {
			roles = append(roles, lw)
			continue
		}
		break
	}
	if len(roles) == 0 {
		return
	}
	head := roles[0]
	for _, r := range roles {
		addRole(e, r)
	}
	if orgRoles[head] {
		e.ev.org++
	} else if personNoun(head, lx) && !sharedRoles[head] {
		e.ev.person++
	}
	// the holder: a name ending right before the roles, or its possessive
	if b >= 0 && ts[b].Text == "'s" {
		b--
	}
	for j := k - 1; j >= 0; j-- {
		if s.names[j].End-1 == b && s.ents[j] != e && !orgRoles[head] {
			setRoleOf(e, head, s.ents[j])
			break
		}
	}
}

// apposition reads a description after the k-th name of a sentence:
// "Brandt, the defending champion, …", "Gianni Infantino, president of
// FIFA, …", "Northgate, a mining company, …", "Cahill, Halep's coach, …".
// The phrase must end where an apposition ends (a comma, the sentence's
// end, "who", "which") or at "of"/"at"/"for" before the name of the
// entity the role is held in; its head is a noun by the text's evidence.
func (g *Graph) apposition(s *sentence, k int, lx *lexicon) {
	ts, m, e := s.tokens, s.names[k], s.ents[k]
	if m.End+1 >= len(ts) || ts[m.End].Text != "," {
		return
	}
	b := m.End + 1
	var holder *Entity
	if determinersPoss[strings.ToLower(ts[b].Text)] {
		b++
	} else if k+1 < len(s.names) && s.names[k+1].Start == b && s.names[k+1].End+1 < len(ts) && ts[s.names[k+1].End].Text == "'s" {
		holder = s.ents[k+1]
		b = s.names[k+1].End + 1
	}
	start := b
	for b < len(ts) && b < start+5 && (isLowerWord(ts[b].Text) && !roleStop[ts[b].Text] || isDigitWord(ts[b].Text) || ts[b].Text == "No." || titleWords[strings.ToLower(ts[b].Text)]) {
		b++
	}
	if b == start || b > len(ts) {
		return
	}
	head := strings.ToLower(ts[b-1].Text)
	if isDigitWord(head) || lx.verb[head] || strings.HasSuffix(head, "ing") || strings.HasSuffix(head, "ed") && !lx.noun[head] {
		return
	}
	switch {
	case b == len(ts):
	case ts[b].Text == "," || ts[b].Text == "." || ts[b].Text == ";" || ts[b].Text == ")" || ts[b].Text == "who" || ts[b].Text == "which" || ts[b].Text == "whose":
	case (ts[b].Text == "of" || ts[b].Text == "at" || ts[b].Text == "for") && holder == nil:
		for j := k + 1; j < len(s.names); j++ {
			if s.names[j].Start == b+1 || s.names[j].Start == b+2 && strings.EqualFold(ts[b+1].Text, "the") {
				holder = s.ents[j]
				break
			}
		}
		// "president of European rowing's governing body ERF": the name a
		// description of it leads to, where the apposition ends with it
		if holder == nil {
			holder = describedHolder(s, k, b+1, lx)
		}
		if holder == nil {
			return
		}
	default:
		return
	}
	if !roleNoun(head, lx) && !orgRoles[head] && !orgWords[head] || !roleHead(head) {
		return
	}
	var words []string
	for j := start; j < b; j++ {
		words = append(words, strings.ToLower(ts[j].Text))
	}
	if holder != nil && holder == e {
		holder = nil
	}
	addRole(e, head)
	if len(words) > 1 {
		addRole(e, strings.Join(words, " "))
	}
	switch {
	case orgRoles[head] || orgWords[head]:
		e.ev.org++
	case personNoun(head, lx) && !sharedRoles[head]:
		e.ev.person++
	}
	if holder != nil && !orgRoles[head] {
		setRoleOf(e, head, holder)
	}
}

// describedHolder finds, from token i, a name reached through a short
// description of it (lower-case nouns and possessives, no verbs) that ends
// the apposition: "of European rowing's governing body ERF,".
func describedHolder(s *sentence, k, i int, lx *lexicon) *Entity {
	ts := s.tokens
	for j := k + 1; j < len(s.names); j++ {
		n := s.names[j]
		if n.Start < i {
			continue
		}
		if n.Start-i > 6 {
			return nil
		}
		for t := i; t < n.Start; t++ {
			w := strings.ToLower(ts[t].Text)
			ok := w == "'s" || w == "the" || w == "'" || isLowerWord(w) && !roleStop[w] && !lx.verb[w] && !strings.HasSuffix(w, "ed")
			if !ok {
				return nil
			}
		}
		if n.End < len(ts) && !apposEnd[ts[n.End].Text] {
			return nil
		}
		return s.ents[j]
	}
	return nil
}

var apposEnd = wordSet("appos_end")

func addRole(e *Entity, r string) {
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

func setRoleOf(e *Entity, role string, holder *Entity) {
	if e.roleOf == nil {
		e.roleOf = map[string]*Entity{}
	}
	if _, ok := e.roleOf[role]; !ok && holder != e {
		e.roleOf[role] = holder
	}
}

// settleRoleOf keeps the roles whose holder is an organisation or a place
// (or a person through a possessive: "Halep's coach"), by canonical name.
func (g *Graph) settleRoleOf() {
	for _, e := range g.Entities {
		for role, h := range e.roleOf {
			if h.Kind == KindEvent || h.Kind == KindOther && isDemonym(lastWord(h.Name)) || strings.HasSuffix(h.Name, "ing") {
				continue
			}
			if e.RoleOf == nil {
				e.RoleOf = map[string]string{}
			}
			e.RoleOf[role] = h.Name
		}
	}
}

// titled: a title of a place names a person ("Princess of Wales").
func titled(name string) bool {
	ws := strings.Fields(strings.ToLower(name))
	return len(ws) > 2 && titleWords[ws[0]] && ws[1] == "of"
}

func lastWord(s string) string {
	ws := strings.Fields(s)
	if len(ws) == 0 {
		return ""
	}
	return ws[len(ws)-1]
}

// inWords before a name make it a place (or an organisation, an event):
// people are not "in" someone.
var inWords = wordSet("in_words")

// notRoles are modifiers, ordinals and directions that do not stand as a
// role's head.
var notRoles = wordSet("not_roles")

// roleHead: a word that can be the head of a role: not a modifier, an
// ordinal, a superlative, a "two-time" or a plural (unless an
// organisation's: "champions", "visitors").
func roleHead(w string) bool {
	if orgRoles[w] || personRoles[w] || titleWords[w] && w != "former" {
		return true
	}
	if notRoles[w] || strings.HasSuffix(w, "-time") || strings.HasSuffix(w, "-ever") || len(w) > 5 && strings.HasSuffix(w, "est") {
		return false
	}
	return !(strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss"))
}

// personRoles are nouns for people that no suffix rule finds.
var personRoles = wordSet("person_roles")

// agentSuffixes end nouns for people ("manager", "editor", "economist",
// "politician", "assistant", "president", "chairman").
var agentSuffixes = []string{"er", "or", "ist", "ian", "ant", "ent", "man", "woman", "eer"}

// personNoun: a noun that names a person by what they are or do.
func personNoun(w string, lx *lexicon) bool {
	if personRoles[w] || titleWords[w] || strings.HasSuffix(w, "-year-old") {
		return true
	}
	if lx.verb[w] || roleStop[w] || strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
		return false
	}
	for _, suf := range agentSuffixes {
		if strings.HasSuffix(w, suf) && len(w) > len(suf)+2 {
			return true
		}
	}
	return false
}

// roleNoun: a word the text shows to be a noun that can stand as a role
// before or after a name: a person's noun, an organisation's head, or a
// word the text writes after a determiner and never as a verb.
func roleNoun(w string, lx *lexicon) bool {
	if isDigitWord(w) || strings.HasSuffix(w, "ly") || strings.HasSuffix(w, "ing") {
		return false
	}
	if personNoun(w, lx) || orgRoles[w] {
		return true
	}
	return lx.noun[w] && !lx.verb[w] && !strings.HasSuffix(w, "ed")
}

// verbLike: the word after a description is its verb.
func verbLike(w string, lx *lexicon) bool {
	if lx.verb[w] || descVerbs[w] {
		return true
	}
	return strings.HasSuffix(w, "ed") || strings.HasSuffix(w, "s") && !lx.noun[w]
}

var descVerbs = wordSet("desc_verbs")

func isYear(w string) bool {
	return len(w) == 4 && isDigitWord(w) && strings.Trim(w, "0123456789") == ""
}

// distinctAliases returns an entity's aliases without repeats (case
// folded) and without its own name.
func distinctAliases(e *Entity) []string {
	seen := map[string]bool{normName(e.Name): true}
	var out []string
	for _, a := range e.Aliases {
		if n := normName(a); !seen[n] {
			seen[n] = true
			out = append(out, a)
		}
	}
	return out
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
		case titled(e.Name):
			e.Kind = KindPerson
		case eventWords[last]:
			e.Kind = KindEvent
		case isAllCaps(e.Name) && len(ws) == 1:
			if e.Name == "US" || e.Name == "UK" || e.Name == "USA" || e.Name == "UAE" {
				e.Kind = KindPlace
			} else {
				e.Kind = KindOrganisation
			}
		case anyIn(ws, polityWords) && !anyIn(ws[1:], orgWords):
			// "United States", "United Kingdom", "Republic of Ireland":
			// a state, though "United" also ends clubs' names
			e.Kind = KindPlace
		case anyIn(ws, orgWords):
			e.Kind = KindOrganisation
		case placeWords[last]:
			e.Kind = KindPlace
		case institutionHeads[last]:
			e.Kind = KindOrganisation
		case geoFirst[ws[0]] && len(ws) == 2 && !isDemonym(last):
			e.Kind = KindPlace
		case geoFirst[ws[0]] && strings.HasSuffix(last, "s") && !strings.HasSuffix(last, "ss"):
			e.Kind, e.Plural = KindOrganisation, true
		case geoFirst[ws[0]]:
		case m.Start > 0 && strings.EqualFold(s.tokens[m.Start-1].Text, "the") && strings.HasSuffix(last, "s") && !strings.HasSuffix(last, "ss"):
			e.Kind, e.Plural = KindOrganisation, true
		case m.Start > 0 && (titleWords[strings.ToLower(s.tokens[m.Start-1].Text)]):
			e.Kind = KindPerson
		case len(ws) >= 2 && len(ws) <= 3 && allNameWords(strings.Fields(e.Name)) && !(m.Start > 0 && strings.EqualFold(s.tokens[m.Start-1].Text, "the")):
			e.Kind = KindPerson
		}
	}
}

// polityWords name a state in a state's name.
var polityWords = wordSet("polity_words")

// geoFirst open the names of places (and of the teams named after them),
// never a person's name.
var geoFirst = wordSet("geo_first")

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

// contestSpan is the most words between two sides of a contest in one
// sentence ("Juventus were held to a surprise 1-1 home draw by
// Cagliari").
const contestSpan = 8

// contestVerbs join two sides by themselves ("X beat Y"); contestNouns
// only with a preposition after them ("a win at Y", "defeat by Y").
var contestVerbs = wordSet("contest_verbs")
var contestNouns = wordSet("contest_nouns")
var contestPreps = wordSet("contest_preps")

var scoreWords = wordSet("score_words")

// contestBetween reports whether the words between two names make them
// the sides of a contest: a score standing alone between them ("Aberdeen
// 2-1 Airdrieonians"), a contest verb, or a contest noun followed by its
// preposition.
func contestBetween(ts []token) bool {
	if len(ts) == 1 && isScore(ts[0].Text) {
		return true
	}
	for _, t := range ts {
		// a scorer is no side ("Wagner scored in a 1-1 draw to Park
		// Center")
		if scoreWords[strings.ToLower(t.Text)] {
			return false
		}
	}
	for i, t := range ts {
		lw := strings.ToLower(t.Text)
		if contestVerbs[lw] {
			return true
		}
		if contestNouns[lw] {
			for j, u := range ts[i+1:] {
				if contestPreps[strings.ToLower(u.Text)] {
					// the preposition's object is the next side, not a
					// name after a clause break ("a shock lead against
					// the champions when Romain del Castillo scored")
					return !clauseBreakIn(ts[i+1+j+1:])
				}
			}
		}
	}
	return false
}

// clauseBreakIn: a conjunction, a relative or a comma stands among the
// tokens.
func clauseBreakIn(ts []token) bool {
	for _, t := range ts {
		if contestBreaks[strings.ToLower(t.Text)] {
			return true
		}
	}
	return false
}

var contestBreaks = wordSet("contest_breaks")

// surnameLike: a name's last word can stand alone for it — not a single
// letter or a number ("Serie A", "League 2"), nor a generational suffix
// ("Vinicius Jr").
func surnameLike(w string) bool {
	lw := strings.ToLower(strings.TrimSuffix(w, "."))
	return len([]rune(lw)) > 1 && !bgIsNumber(lw) && !generational[lw]
}

var generational = wordSet("generational")

// winVerbs join a winner to the event won.
var winVerbs = wordSet("win_verbs")

// maleTitles and femaleTitles are role words that say a person's gender.
var (
	maleTitles   = wordSet("male_titles")
	femaleTitles = wordSet("female_titles")
)

var compassWords = wordSet("compass_words")

// titleAbbreviations are written with a point before a name ("Gov. Tim
// Walz"); the role is the word in full.
var titleAbbreviations = map[string]string{"gov": "governor", "sen": "senator", "rep": "representative", "gen": "general", "supt": "superintendent"}

// initialisms merges an acronym the text writes without brackets into the
// one name whose words' initials spell it ("PSG" for "Paris St-Germain",
// a hyphen parting words too): an organisation or a place, whatever the
// name's words suggested, unless a pronoun gave it a gender.
func (g *Graph) initialisms() {
	for _, a := range append([]*Entity(nil), g.Entities...) {
		if !isAllCaps(a.Name) || strings.ContainsAny(a.Name, " .&") || len(a.Name) < 2 || len(a.Name) > 5 {
			continue
		}
		var full *Entity
		n := 0
		for _, e := range g.Entities {
			if e != a && initials(e.Name) == a.Name {
				full = e
				n++
			}
		}
		if n != 1 {
			continue
		}
		for _, p := range a.Paragraphs {
			if !containsInt(full.Paragraphs, p) {
				full.Paragraphs = append(full.Paragraphs, p)
			}
		}
		sort.Ints(full.Paragraphs)
		if full.Kind == KindPerson && full.Gender == GenderUnknown {
			full.Kind = a.Kind
			if full.Kind == KindPerson || full.Kind == KindOther {
				full.Kind = KindOrganisation
			}
		}
		g.merge(full, a)
	}
}

// initials spells a name's words' first letters (words of two or more
// capitalised parts, split at spaces and hyphens), "" for a single word.
func initials(name string) string {
	ws := strings.FieldsFunc(name, func(r rune) bool { return r == ' ' || r == '-' })
	if len(ws) < 2 {
		return ""
	}
	var b strings.Builder
	for _, w := range ws {
		r := []rune(w)
		if !unicode.IsUpper(r[0]) {
			if nameConnectors[w] {
				continue
			}
			return ""
		}
		if isAllCaps(w) {
			return "" // "US Soccer" is no expansion of "US"
		}
		b.WriteRune(r[0])
	}
	return b.String()
}
