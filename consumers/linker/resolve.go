package linker

import (
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/internal/lang/zh/era"
	"github.com/annalist-dev/annalist/internal/ports/graph"
	"github.com/annalist-dev/annalist/schemas"
)

// Mention is one surface of a person found in a chunk, as stored in
// kg:{t}:chunklinks:<chunk>: Entity is the person it was resolved to, ""
// when the context did not decide; Start and End are rune offsets in the
// chunk's text.
//
// Score is the resolved (or best) candidate's probability; Name the
// probability that the surface names a person here at all (the sum over
// the candidates). Review is the review item a mention the chunk could
// not decide was sent to, and Decided the decision a person took on it
// ("" while open).
type Mention struct {
	Entity     string      `json:"entity"`
	Surface    string      `json:"surface"`
	Start      int         `json:"start"`
	End        int         `json:"end"`
	Score      float64     `json:"score"`
	Name       float64     `json:"name,omitempty"`
	Candidates []Candidate `json:"candidates"`
	Review     string      `json:"review,omitempty"`
	Decided    bool        `json:"decided,omitempty"`
}

// Candidate is a person a mention's surface may denote, with the
// probability the chunk's context gave it.
type Candidate struct {
	Entity string  `json:"entity"`
	Score  float64 `json:"score"`
}

// profile is what resolution reads of a candidate.
type profile struct {
	id, name, entryChunk, firstDoc string
	neighbours                     map[string]bool
	places                         []string
	lo, hi                         int // years the person can be named in; 0 when unknown
	// facts counts the facts only a person has that the graph holds about
	// him (native place, courtesy and art names, examination, dates, his
	// kin or his being another's kin; not offices, which the extractor
	// also reads in entries about a native office or a state);
	// alias says one of them is a courtesy or art name: the extractor saw
	// "X，字Y", which only a person's introduction says.
	facts int
	alias bool
}

func newProfile(e graph.Entity, eras *era.Table) *profile {
	p := &profile{id: e.ID, name: e.Name, entryChunk: e.EntryChunk, firstDoc: e.FirstDoc, neighbours: map[string]bool{}}
	var years []int
	add := func(rel, tail string) {
		for _, d := range eras.Find(tail) {
			if d.Gregorian == 0 {
				continue
			}
			switch rel {
			case schemas.RelJinshi:
				years = append(years, d.Gregorian-40, d.Gregorian+60)
			case schemas.RelBirth:
				years = append(years, d.Gregorian, d.Gregorian+90)
			case schemas.RelDeath:
				years = append(years, d.Gregorian-90, d.Gregorian)
			}
		}
	}
	for _, ed := range e.Edges {
		switch ed.Relation {
		case schemas.RelNativePlace, schemas.RelJinshi, schemas.RelBirth, schemas.RelDeath, schemas.RelDeathAge,
			schemas.RelRelative, schemas.RelCourtesyName, schemas.RelArtName, schemas.RelAlias:
			if ed.HeadID == e.ID {
				p.facts++
				p.alias = p.alias || schemas.AliasRelation(ed.Relation)
			}
		}
		if ed.TailID != "" && ed.TailID != e.ID && strings.HasPrefix(ed.TailID, schemas.EntityPerson+":") {
			p.neighbours[ed.TailID] = true
		}
		switch ed.Relation {
		case schemas.RelNativePlace:
			if utf8.RuneCountInString(ed.Tail) >= 2 {
				p.places = append(p.places, ed.Tail)
			}
		case schemas.RelJinshi, schemas.RelBirth, schemas.RelDeath:
			add(ed.Relation, ed.Tail)
		}
	}
	for _, ed := range e.Incoming {
		if ed.HeadID != "" && ed.HeadID != e.ID {
			p.neighbours[ed.HeadID] = true
			if ed.Relation == schemas.RelRelative && strings.HasPrefix(ed.HeadID, schemas.EntityPerson+":") {
				// Another person's kin (父开 in 解缙's entry): a fact
				// of his life, which a state or a phrase has not.
				p.facts++
			}
		}
	}
	if len(years) > 0 {
		p.lo, p.hi = slices.Min(years), slices.Max(years)
	}
	return p
}

// anchored reports whether id is a person anchored to a biography entry
// (person:<name>@<hash>), rather than a surface the graph could not
// resolve (person:<surface>).
func anchored(id string) bool { return strings.Contains(id, "@") }

// The evidence of the chunk about a candidate, as log-likelihood ratios
// of "the match names this candidate" (natural log): each is about the
// odds one independent piece of evidence of its kind gives.
const (
	wEntry     = 4.0 // the chunk belongs to the candidate's own entry
	wDoc       = 1.0 // the candidate was first seen in the chunk's document
	wNeighbour = 2.0 // per unambiguous co-mentioned KG neighbour (at most two)
	wPlace     = 1.5 // the candidate's native place is named in the chunk
	wEraIn     = 1.0 // an era date of the chunk falls in the candidate's life
	wEraOut    = -3.0
	wFullName  = 1.0 // the canonical name (for an alias) or the surname precedes
	// wOtherOwner: the surface is a courtesy or art name the text gives
	// to the person written right before it ("朱守仁者，字元夫"), who is not
	// the candidate: only a writing of his name the graph does not know
	// would leave it his.
	wOtherOwner = -6.0
	// wNoFacts: the graph holds no biographical fact about the candidate
	// (the chunker also opens entries on states and tribes, and the
	// extractor makes persons of phrases it could not resolve), so a
	// match of his name is less likely a person at all.
	wNoFacts = -2.0
)

// Link prior: the share of a surface's occurrences that are names,
// estimated from the corpus as the linker meets it. The linker counts
// every occurrence of a surface it matched by the bin of its mention
// model's reading of the context (graph.SurfaceStat, kept in the graph);
// the share is the maximum-likelihood mixing weight of names among them
// (an EM fixed point over the bins), shrunk by priorWeight occurrences
// towards the profile's prior share of names among the occurrences of an
// attested name (profile NamePrior, measured on a corpus: `annalist eval
// mentions` reports the median share over the surfaces it counted), or
// neutralPrior when the profile sets none. A surface the corpus writes
// often as part of something else (士英 of 马士英, 天启 the era, 用之)
// soon has a low share; one written a few times keeps the prior.
const (
	priorWeight  = 2.0
	neutralPrior = 0.5
	emRounds     = 50
)

// binLLR is the log-likelihood ratio a bin of graph.SurfaceStat stands
// for (its middle), and binOf the bin of a ratio.
func binLLR(k int) float64 { return float64(k-graph.LLRBins/2) + 0.5 }

func binOf(llr float64) int {
	return min(max(int(math.Floor(llr))+graph.LLRBins/2, 0), graph.LLRBins-1)
}

// NameShare is the share of names among a surface's counted occurrences
// (the EM fixed point, without a prior), 0 for none counted.
func NameShare(st graph.SurfaceStat) float64 {
	if st.Occurrences() == 0 {
		return 0
	}
	return mixShare(st, neutralPrior, 0)
}

// mixShare is the share w of names that makes the counted occurrences
// most likely, shrunk towards base by weight occurrences: the fixed point
// of w = (Σ posterior(w) + weight·base) / (n + weight).
func mixShare(st graph.SurfaceStat, base, weight float64) float64 {
	n := float64(st.Occurrences())
	if n+weight == 0 {
		return base
	}
	w := base
	for range emRounds {
		sum := weight * base
		for k, c := range st.Bins {
			if c > 0 {
				sum += float64(c) * sigmoid(logit(w)+binLLR(k))
			}
		}
		next := sum / (n + weight)
		if math.Abs(next-w) < 1e-6 {
			return next
		}
		w = next
	}
	return w
}

// linkPrior is the log-odds that an occurrence of a surface with counts
// st is a name, given the prior share base.
func linkPrior(st graph.SurfaceStat, base float64) float64 {
	return logit(min(max(mixShare(st, base, priorWeight), 0.01), 0.99))
}

// chunkContext is what the chunk says beyond the mention itself.
type chunkContext struct {
	c     schemas.Chunk
	rs    []rune
	years []int
	// markers are the profile's words that introduce a courtesy name
	// right after the person's name (linker.alias_markers: 字).
	markers []string
}

// evidence is the chunk's evidence for candidate p of match m, a sum of
// log-likelihood ratios; unique are the entities of the chunk's other
// single-candidate mentions. pro is the part that speaks for the
// candidate (his entry, his document, his neighbours, his place, his
// years, his full name nearby), without what speaks against him.
func evidence(cc chunkContext, m match, p *profile, unique []string) (sum, pro float64) {
	if cc.c.EntryChunk != "" && p.entryChunk == cc.c.EntryChunk {
		pro += wEntry
	}
	if p.firstDoc != "" && p.firstDoc == cc.c.DocID {
		pro += wDoc
	}
	n := 0
	for _, u := range unique {
		if u != p.id && p.neighbours[u] && n < 2 {
			pro += wNeighbour
			n++
		}
	}
	for _, pl := range p.places {
		if strings.Contains(cc.c.Text, pl) {
			pro += wPlace
			break
		}
	}
	against := 0.0
	if p.lo != 0 && len(cc.years) > 0 {
		in := false
		for _, y := range cc.years {
			if y >= p.lo && y <= p.hi {
				in = true
			}
		}
		if in {
			pro += wEraIn
		} else {
			against += wEraOut
		}
	}
	if m.surface != p.name && (strings.Contains(cc.c.Text, p.name) || precededBySurname(cc.c.Text, m, p.name)) {
		pro += wFullName
	}
	if owner := aliasOwner(cc, m); owner != "" && m.surface != p.name {
		// "子楗，字士启": 士启 here is 楗's courtesy name, whoever else
		// bears it.
		switch {
		case ownedBy(owner, p.name):
			pro += wFullName
		case utf8.RuneCountInString(owner) >= 2:
			// One character other than his surname is a word that
			// qualifies the courtesy name ("一字节之", "改字世显").
			against += wOtherOwner
		}
	}
	if p.facts == 0 {
		against += wNoFacts
	}
	return pro + against, pro
}

// aliasOwner returns the words written right before a courtesy name the
// text introduces at match m ("子楗，字士启", "朱守仁者，字元夫", "夏言，字公谨"):
// up to six characters before the profile's marker (字), a comma and a
// closing 者 left out; "" when the match does not follow a marker.
func aliasOwner(cc chunkContext, m match) string {
	rs := cc.rs
	for _, mk := range cc.markers {
		k := []rune(mk)
		i := m.start - len(k)
		if i < 0 || string(rs[i:m.start]) != mk {
			continue
		}
		i--
		if i >= 0 && (rs[i] == '，' || rs[i] == ',') {
			i--
		}
		if i >= 0 && rs[i] == '者' {
			i--
		}
		j := i
		for j >= 0 && i-j < 6 && isHan(rs[j]) {
			j--
		}
		return string(rs[j+1 : i+1])
	}
	return ""
}

// ownedBy reports whether the words before a courtesy name end with the
// person's name or with his given name (the name without its first
// character, or without a compound surname's two: both are tried), or
// are his surname alone ("徐字好古" for 徐善述).
func ownedBy(owner, name string) bool {
	rs := []rune(name)
	if strings.HasSuffix(owner, name) || len(rs) > 1 && owner == string(rs[:1]) {
		return true
	}
	for k := 1; k <= 2 && len(rs)-k >= 1; k++ {
		if strings.HasSuffix(owner, string(rs[k:])) {
			return true
		}
	}
	return false
}

// precededBySurname reports whether the rune before the match is the first
// rune of name (叶进卿 for the courtesy name 进卿 of 叶向高).
func precededBySurname(text string, m match, name string) bool {
	if m.start == 0 || name == "" {
		return false
	}
	first, _ := utf8.DecodeRuneInString(name)
	i := 0
	for _, r := range text {
		if i == m.start-1 {
			return r == first
		}
		i++
	}
	return false
}

// posteriors turns a match's evidence into probabilities. The match is
// either no name here or names one of the candidates: odds[k] is the
// log-odds that it is a name (the surface's link prior and the mention
// model's reading of this occurrence, as the candidate's name or alias)
// plus the chunk's evidence for candidate k; the prior odds of a name
// are shared evenly among the candidates. The result is each
// candidate's probability, in the order given.
func posteriors(odds []float64) []float64 {
	if len(odds) == 0 {
		return nil
	}
	split := math.Log(float64(len(odds)))
	// Softmax over {no name: 0, candidate k: o_k}, stable.
	top := 0.0
	os := make([]float64, len(odds))
	for k, o := range odds {
		os[k] = o - split
		top = max(top, os[k])
	}
	sum := math.Exp(-top)
	for _, o := range os {
		sum += math.Exp(o - top)
	}
	out := make([]float64, len(odds))
	for k, o := range os {
		out[k] = math.Exp(o-top) / sum
	}
	return out
}

// Decisions of a mention: a candidate's probability reaches linkAt, or
// the mention is left with its candidates and scores. A mention that is
// likely a name (reviewAt) of which no candidate reaches linkAt is one
// the chunk cannot decide: it goes to the review queue, where a person
// confirms it.
const (
	linkAt   = 0.5
	reviewAt = 0.5
)

// decide resolves a mention from its candidates' probabilities (sorted,
// best first): the best when it reaches linkAt; review says the
// mention is undecided but likely a name.
func decide(cands []Candidate) (entity string, score float64, review bool) {
	if len(cands) == 0 {
		return "", 0, false
	}
	best := cands[0]
	if best.Score >= linkAt {
		return best.Entity, best.Score, false
	}
	total := 0.0
	for _, c := range cands {
		total += c.Score
	}
	return "", best.Score, total >= reviewAt
}

// decideSame links a mention the candidates split between them when they
// may be one person the graph holds twice: persons anchored to different
// entries that bear the surface as their own name and whose known native
// places and years do not disagree (a man with an entry in the History
// and a heading in an archive book). Together they win when their
// probabilities sum to linkAt, and the mention goes to the best of them
// (the most biographical facts, then the best score, then the id);
// candidates of whom the graph knows different places or lifetimes stay
// apart. Otherwise the decision given (entity, score, review) stands.
func decideSame(surface string, cands []Candidate, profiles map[string]*profile, entity string, score float64, review bool) (string, float64, bool) {
	if len(cands) < 2 {
		return entity, score, review
	}
	lead := profiles[cands[0].Entity]
	if lead == nil || lead.name != surface {
		return entity, score, review
	}
	group := []Candidate{cands[0]}
	sum := cands[0].Score
	for _, c := range cands[1:] {
		p := profiles[c.Entity]
		if p == nil || p.name != surface || !compatible(lead, p) {
			continue
		}
		group = append(group, c)
		sum += c.Score
	}
	if len(group) < 2 || sum < linkAt {
		return entity, score, review
	}
	best := group[0]
	for _, c := range group[1:] {
		a, b := profiles[c.Entity], profiles[best.Entity]
		if a.facts > b.facts || a.facts == b.facts && c.Score > best.Score {
			best = c
		}
	}
	return best.Entity, sum, false
}

// compatible reports whether what the graph knows of two persons leaves
// them possibly one: their native places, when both are known, name one
// place (samePlace), and their lifetimes, when both are known, overlap.
func compatible(a, b *profile) bool {
	if len(a.places) > 0 && len(b.places) > 0 {
		shared := false
		for _, x := range a.places {
			shared = shared || slices.ContainsFunc(b.places, func(y string) bool { return samePlace(x, y) })
		}
		if !shared {
			return false
		}
	}
	if a.lo != 0 && b.lo != 0 && (a.hi < b.lo || b.hi < a.lo) {
		return false
	}
	return true
}

// samePlace reports whether two writings of a native place can name one
// place: a place is written from the province down to the county, with
// more or fewer of the levels between ("晋江", "福建泉州晋江"; "浙江山阴",
// "浙江绍兴山阴"), so two writings name one place when they end with the
// same county, the last two characters of both.
func samePlace(a, b string) bool {
	ra, rb := []rune(a), []rune(b)
	if len(ra) < 2 || len(rb) < 2 {
		return a == b
	}
	return string(ra[len(ra)-2:]) == string(rb[len(rb)-2:])
}
