package linker

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/internal/era"
	"github.com/annalist-dev/annalist/internal/graph"
	"github.com/annalist-dev/annalist/schemas"
)

// Mention is one surface of a person found in a chunk, as stored in
// kg:{t}:chunklinks:<chunk>: Entity is the person it was resolved to, ""
// when the context did not decide; Start and End are rune offsets in the
// chunk's text.
type Mention struct {
	Entity     string      `json:"entity"`
	Surface    string      `json:"surface"`
	Start      int         `json:"start"`
	End        int         `json:"end"`
	Score      float64     `json:"score"`
	Candidates []Candidate `json:"candidates"`
}

// Candidate is a person a mention's surface may denote, with the score the
// chunk's context gave it.
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
	// him (native place, courtesy and art names, examination, dates, kin;
	// not offices, which the extractor also reads in entries about a
	// native office or a state);
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

// Weights of the context evidence. A candidate is resolved when its score
// reaches resolveAt and leads the next by margin; the numbers say how many
// independent pieces of evidence that takes.
const (
	wEntry     = 4.0 // the chunk belongs to the candidate's own entry
	wDoc       = 1.0 // the candidate was first seen in the chunk's document
	wNeighbour = 2.0 // per unambiguous co-mentioned KG neighbour (at most two)
	wPlace     = 1.5 // the candidate's native place is named in the chunk
	wEraIn     = 1.0 // an era date of the chunk falls in the candidate's life
	wEraOut    = -3.0
	wFullName  = 1.0 // the canonical name (for an alias) or the surname precedes
	resolveAt  = 2.0
	margin     = 2.0
)

// chunkContext is what the chunk says beyond the mention itself.
type chunkContext struct {
	c     schemas.Chunk
	years []int
}

// score scores candidate p of match m in chunk cc; unique are the entities
// of the chunk's other single-candidate mentions.
func score(cc chunkContext, m match, p *profile, unique []string) float64 {
	s := 0.0
	if cc.c.EntryChunk != "" && p.entryChunk == cc.c.EntryChunk {
		s += wEntry
	}
	if p.firstDoc != "" && p.firstDoc == cc.c.DocID {
		s += wDoc
	}
	n := 0
	for _, u := range unique {
		if u != p.id && p.neighbours[u] && n < 2 {
			s += wNeighbour
			n++
		}
	}
	for _, pl := range p.places {
		if strings.Contains(cc.c.Text, pl) {
			s += wPlace
			break
		}
	}
	if p.lo != 0 && len(cc.years) > 0 {
		in := false
		for _, y := range cc.years {
			if y >= p.lo && y <= p.hi {
				in = true
			}
		}
		if in {
			s += wEraIn
		} else {
			s += wEraOut
		}
	}
	if m.surface != p.name && (strings.Contains(cc.c.Text, p.name) || precededBySurname(cc.c.Text, m, p.name)) {
		s += wFullName
	}
	return s
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

// decide resolves a mention from its scored candidates. A single candidate
// must be a person the graph knows something about (at least one
// biographical fact: the chunker also anchors entries about states and
// tribes, and the extractor makes unresolved heads of phrases that are no
// names), and one the graph never anchored to an entry must have a
// courtesy or art name and context evidence. Then a canonical name of
// three or more characters of an anchored person needs no more. A shorter
// canonical name needs either context evidence or a clean left edge (bounded: the match starts
// the text, follows punctuation, or follows an office title of the
// chunk's profile, 侍郎唐胄): two characters are also common words (不成文)
// and the tail of a longer name or title the dictionary does not hold
// (王文端, the posthumous name of 王直). An alias needs context evidence,
// because a courtesy name met with no surname or full name nearby says
// little about whom it names. Of several candidates, the best must reach
// resolveAt and lead the next by margin.
func decide(m match, cands []Candidate, profiles map[string]*profile, bounded bool) (string, float64) {
	if len(cands) == 0 {
		return "", 0
	}
	best := cands[0]
	if len(cands) > 1 {
		if best.Score >= resolveAt && best.Score-cands[1].Score >= margin {
			return best.Entity, best.Score
		}
		return "", best.Score
	}
	p := profiles[best.Entity]
	if best.Score < 0 || p == nil || p.facts == 0 || !anchored(best.Entity) && !p.alias {
		return "", best.Score
	}
	canonical := m.surface == p.name
	switch {
	case best.Score >= resolveAt:
		return best.Entity, best.Score
	case canonical && anchored(best.Entity) && utf8.RuneCountInString(m.surface) >= 3:
		return best.Entity, best.Score
	case canonical && anchored(best.Entity) && bounded && best.Score >= resolveAt-1:
		return best.Entity, best.Score
	}
	return "", best.Score
}

// bounded reports whether the match at rune offset start of rs has a clean
// left edge: the start of the text, punctuation or space, or one of
// titles (office terms of two or more characters) ending right before it.
func bounded(rs []rune, start int, titles []string) bool {
	if start == 0 {
		return true
	}
	if r := rs[start-1]; unicode.IsPunct(r) || unicode.IsSpace(r) || unicode.IsSymbol(r) {
		return true
	}
	before := string(rs[max(0, start-8):start])
	for _, t := range titles {
		if strings.HasSuffix(before, t) {
			return true
		}
	}
	return false
}
