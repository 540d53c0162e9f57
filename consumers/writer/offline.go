package writer

import (
	"cmp"
	"context"
	"hash/fnv"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/internal/lang/profile"
	"github.com/annalist-dev/annalist/internal/lang/text"
	"github.com/annalist-dev/annalist/internal/lang/zh/compose"
	"github.com/annalist-dev/annalist/internal/lang/zh/era"
	"github.com/annalist-dev/annalist/schemas"
)

// Engine names on Draft.Engine.
const (
	EngineOffline = "offline"
	EngineLLM     = "llm"
)

// Plan item kinds, in the conventional order of a biography.
const (
	ItemIdentity    = "identity"    // name, courtesy and art names, native place
	ItemBirth       = "birth"       // birth
	ItemExamination = "examination" // the jinshi examination, with the Gregorian year
	ItemCareer      = "career"      // offices held (历官 …)
	ItemHighest     = "highest"     // the highest office (官至 …)
	ItemNotable     = "notable"     // a notable act copied from the entry
	ItemDeath       = "death"       // death
	ItemPosthumous  = "posthumous"  // posthumous name (谥)
	// ItemElsewhere is a passage of another document about the subject
	// (an archive note, another work that names him), copied verbatim:
	// in time order among the life's items when its text dates it, else
	// in the page's part for evidence from other documents.
	ItemElsewhere = "elsewhere"
)

// PlanItem is one sentence of the offline plan: what it says (Kind, the KG
// facts and chunks it rests on) and the extractive wording.
type PlanItem struct {
	Kind      string
	Text      string
	Citations []string
	Facts     []schemas.Fact
	// Alternate is another sentence of the same kind, used when Text is
	// already on the page.
	Alternate *PlanItem
	// Section is the title of the page section the item is in: empty on a
	// page of one section (the life), the life's title or the title of
	// the part for evidence from other documents when the plan has that
	// part (sectionTitles, in the sources' language).
	Section string
	// year is the Gregorian year the item's text places it at (0: none),
	// by which the plan puts dated passages of other documents in time
	// order.
	year int
}

// OfflineConfig configures the offline drafter. The zero value is usable.
type OfflineConfig struct {
	// Era converts era dates to Gregorian years and dates the sentences a
	// page places in time order; nil means era.Default().
	Era *era.Table
	// MaxCopy bounds a sentence copied from a source, in characters
	// (default 80); MaxOpening bounds the entry's opening sentence copied
	// as the identity sentence (default 60), longer openings are
	// templated from the KG facts.
	MaxCopy, MaxOpening int
	// Profiles are the corpus profiles a reference set names (default
	// profile.Default()): the set's profile gives the plan, the wording
	// limits and the office grades.
	Profiles *profile.Set
}

func (c OfflineConfig) withDefaults() OfflineConfig {
	if c.Era == nil {
		c.Era = era.Default()
	}
	if c.MaxCopy <= 0 {
		c.MaxCopy = 80
	}
	if c.MaxOpening <= 0 {
		c.MaxOpening = 60
	}
	if c.Profiles == nil {
		c.Profiles = profile.Default()
	}
	return c
}

// maxPlans bounds the plan cache; past it the cache starts over.
const maxPlans = 512

// Offline is the extractive drafter of the offline engine: deterministic,
// no model. Every sentence is copied verbatim from a cited chunk or
// templated from KG facts whose chunks it cites, so the offline checker
// can support each of its facts; nothing is written that the references
// do not say. Safe for concurrent use.
type Offline struct {
	cfg   OfflineConfig
	mu    sync.Mutex
	plans map[uint64]planned
}

// planned is a plan and what its planner counted (PlanStats).
type planned struct {
	items []PlanItem
	stats map[string]int64
}

var _ Drafter = (*Offline)(nil)

// NewOffline returns the offline drafter.
func NewOffline(cfg OfflineConfig) *Offline {
	return &Offline{cfg: cfg.withDefaults(), plans: map[uint64]planned{}}
}

// Draft returns sentence index of the plan. A plan item already on the
// page word for word is replaced by its alternate; the career list leaves
// out offices accepted sentences already name (unless none would remain).
func (o *Offline) Draft(_ context.Context, refs *schemas.ReferenceSet, accepted []schemas.PageSentence, index int) (schemas.Draft, bool, error) {
	items := o.Plan(refs)
	if index < 0 || index >= len(items) {
		return schemas.Draft{}, true, nil
	}
	it := adjust(items[index], accepted)
	return schemas.Draft{Subject: refs.Subject, Index: index, Text: it.Text, Citations: slices.Clone(it.Citations),
		Facts: slices.Clone(it.Facts), Engine: EngineOffline, Origin: OriginWriter, Section: it.Section}, false, nil
}

// adjust fits a plan item to what the page already says.
func adjust(it PlanItem, accepted []schemas.PageSentence) PlanItem {
	said := func(s string) bool {
		for _, a := range accepted {
			if strings.Contains(a.Text, s) {
				return true
			}
		}
		return false
	}
	if said(strings.TrimRight(it.Text, "。.")) && it.Alternate != nil {
		alt := *it.Alternate
		alt.Section = it.Section
		return alt
	}
	if it.Kind != ItemCareer {
		return it
	}
	var keep []schemas.Fact
	for _, f := range it.Facts {
		if !said(f.Value) {
			keep = append(keep, f)
		}
	}
	if len(keep) == 0 || len(keep) == len(it.Facts) {
		return it
	}
	c := careerItem(keep)
	c.Section = it.Section
	return c
}

// Plan returns the plan of a page about the reference set's subject,
// computed once per reference set.
func (o *Offline) Plan(refs *schemas.ReferenceSet) []PlanItem { return o.planOf(refs).items }

// PlanStats returns what the planner of the reference set's page counted:
// the budgets it gave the life and the evidence from other documents,
// how much evidence there was, where it went and what was left out, by
// reason (the Stat… counters). The writer's loop adds them to the page's
// stats.
func (o *Offline) PlanStats(refs *schemas.ReferenceSet) map[string]int64 {
	return maps.Clone(o.planOf(refs).stats)
}

func (o *Offline) planOf(refs *schemas.ReferenceSet) planned {
	key := Fingerprint(refs)
	o.mu.Lock()
	pl, ok := o.plans[key]
	o.mu.Unlock()
	if ok {
		return pl
	}
	p := newPlanner(refs, o.cfg)
	pl = planned{items: p.plan(), stats: p.stats}
	o.mu.Lock()
	if len(o.plans) >= maxPlans {
		clear(o.plans)
	}
	o.plans[key] = pl
	o.mu.Unlock()
	return pl
}

// Fingerprint identifies a reference set's content: the same subject,
// chunks, facts, decisions and (a topic page's) outline give the same
// plan, so a drafter may compute its plan once per set and reuse it for
// every sentence of the request.
func Fingerprint(rs *schemas.ReferenceSet) uint64 {
	h := fnv.New64a()
	w := func(ss ...string) {
		for _, s := range ss {
			h.Write([]byte(s))
			h.Write([]byte{0})
		}
	}
	w(rs.Subject, rs.Name, rs.EntityID, rs.Lang, rs.Profile)
	w(rs.Aliases...)
	for _, r := range rs.References {
		w(r.ChunkID, strconv.Itoa(len(r.Text)))
	}
	for _, f := range rs.Facts {
		w(f.EdgeID, f.Relation, f.Value, f.ChunkID)
	}
	for _, d := range rs.Decisions {
		w(d.ReviewID, d.Relation, d.Value, d.ChunkID)
	}
	w("fresh")
	w(rs.Fresh...)
	if c := rs.Curation; c != nil {
		w("outline", c.Type)
		for _, sec := range c.Outline {
			w(sec.Title)
			for _, it := range sec.Items {
				w(it.Entity, it.Name, it.Chunk, strconv.Itoa(it.Span.Start), strconv.Itoa(it.Span.End),
					it.Relation, it.Value, strconv.Itoa(it.Period))
			}
		}
	}
	return h.Sum64()
}

// passage is a sentence of a chunk.
type passage struct {
	chunk      string
	start, end int // rune span in the chunk text, trimmed
	text       string
	lineStart  bool
}

// planner builds one plan.
type planner struct {
	refs  *schemas.ReferenceSet
	cfg   OfflineConfig
	prof  *profile.Profile
	w     profile.Writing
	rd    compose.Reader // reads the time and the clauses of the sources' sentences
	byID  map[string]schemas.Reference
	facts []schemas.KGFact // usable facts: chunk in the set, decisions applied
	names []string         // the subject's names and given names, longest first
	entry string           // the entry chunk
	body  []passage        // the subject's part of the entry, in order
	other []passage        // sentences of other own chunks of the entry's document that name the subject
	// elsewhere are the references of other documents than the entry's
	// (linked mentions, and own chunks there), in reference order.
	elsewhere []schemas.Reference
	used      map[string]bool  // passages taken, by chunk:start
	said      map[string]bool  // fact values stated by earlier items
	onPage    map[string]bool  // the life's sentences, by passageKey
	stats     map[string]int64 // the Stat… counters
}

func newPlanner(refs *schemas.ReferenceSet, cfg OfflineConfig) *planner {
	p := &planner{refs: refs, cfg: cfg, prof: profileOf(cfg.Profiles, refs), byID: map[string]schemas.Reference{},
		used: map[string]bool{}, said: map[string]bool{}, onPage: map[string]bool{}, stats: map[string]int64{}}
	p.w = p.prof.Writing
	p.rd = compose.NewReader(p.prof, cfg.Era)
	for _, r := range refs.References {
		p.byID[r.ChunkID] = r
	}
	p.facts = usableFacts(refs, p.byID)
	p.names = subjectNames(refs)
	p.entry = p.entryChunk()
	p.passages()
	return p
}

// profileOf is the profile a reference set is written with: the one it
// names, in its language (its first reference's when it does not say).
func profileOf(set *profile.Set, refs *schemas.ReferenceSet) *profile.Profile {
	lang := refs.Lang
	if lang == "" && len(refs.References) > 0 {
		lang = text.Lang(refs.References[0].Text)
	}
	return set.For(refs.Profile, lang)
}

// usableFacts are the subject's facts whose chunk is in the set, with the
// expert decisions applied: for a decided relation only the decided value
// is kept (and the rejected ones are dropped).
func usableFacts(refs *schemas.ReferenceSet, byID map[string]schemas.Reference) []schemas.KGFact {
	decided := map[string]schemas.Decision{}
	for _, d := range refs.Decisions {
		decided[d.Relation] = d
	}
	var out []schemas.KGFact
	for _, f := range refs.Facts {
		if _, ok := byID[f.ChunkID]; !ok || f.Value == "" {
			continue
		}
		if d, ok := decided[f.Relation]; ok && f.Relation != schemas.RelOffice && f.Value != d.Value {
			continue
		}
		out = append(out, f)
	}
	return out
}

// subjectNames are the names a sentence may call the subject by, longest
// first (compose.SubjectNames).
func subjectNames(refs *schemas.ReferenceSet) []string {
	return compose.SubjectNames(refs.Name, refs.Aliases)
}

func (p *planner) first(rel string) (schemas.KGFact, bool) {
	for _, f := range p.facts {
		if f.Relation == rel {
			return f, true
		}
	}
	return schemas.KGFact{}, false
}

func (p *planner) all(rel string) []schemas.KGFact {
	var out []schemas.KGFact
	for _, f := range p.facts {
		if f.Relation == rel {
			out = append(out, f)
		}
	}
	return out
}

// entryChunk is the chunk the subject's entry opens with: the first own
// reference that begins with one of the subject's names and holds one of
// his identity facts, else where the identity facts were read (an
// attached person's entry may open "同时朱国祯，字文宁", and a later
// document may open with his name: "朱国祯生于…"), else the first own
// reference that begins with one of his names, else the first fact's
// chunk, else the first own reference.
func (p *planner) entryChunk() string {
	identity := []string{schemas.RelCourtesyName, schemas.RelNativePlace, schemas.RelArtName}
	for _, r := range p.refs.References {
		if r.Source == schemas.SourceEntity && p.opensWithName(strings.TrimLeftFunc(r.Text, compose.IsBlank)) &&
			slices.ContainsFunc(p.facts, func(f schemas.KGFact) bool {
				return f.ChunkID == r.ChunkID && slices.Contains(identity, f.Relation)
			}) {
			return r.ChunkID
		}
	}
	for _, rel := range identity {
		if f, ok := p.first(rel); ok {
			return f.ChunkID
		}
	}
	for _, r := range p.refs.References {
		if r.Source == schemas.SourceEntity && p.opensWithName(strings.TrimLeftFunc(r.Text, compose.IsBlank)) {
			return r.ChunkID
		}
	}
	if len(p.facts) > 0 {
		return p.facts[0].ChunkID
	}
	for _, r := range p.refs.References {
		if r.Source == schemas.SourceEntity {
			return r.ChunkID
		}
	}
	return ""
}

// passages splits the subject's own chunks into sentences: the entry chunk
// and the own chunks that follow it without a gap in its document (chunk
// ids number a document's chunks in order) up to the first sub-entry,
// then the sentences that name the subject of the other own chunks of
// the entry's document. The references of other documents — the chunks
// the entity linker resolved to him, and own chunks there — are set
// aside for the part of the plan that gives evidence from other
// documents (fromElsewhere).
func (p *planner) passages() {
	entry, ok := p.byID[p.entry]
	var body []schemas.Reference
	var others []schemas.Reference
	for _, r := range p.refs.References {
		switch {
		case r.Source != schemas.SourceEntity && r.Source != schemas.SourceMention:
		case r.ChunkID == p.entry:
			body = append(body, r)
		case r.DocID != "" && r.DocID != entry.DocID:
			p.elsewhere = append(p.elsewhere, r)
		case r.Source != schemas.SourceEntity || !ok:
		case r.DocID == entry.DocID && r.DocID != "" && r.ChunkID >= entry.ChunkID:
			body = append(body, r)
		default:
			others = append(others, r)
		}
	}
	slices.SortFunc(body, func(a, b schemas.Reference) int { return cmp.Compare(a.ChunkID, b.ChunkID) })
	stop := false
	for i, r := range body {
		if i > 0 && !follows(body[i-1].ChunkID, r.ChunkID) {
			break // a later entry's chunk that mentions the subject
		}
		for j, ps := range split(r) {
			if p.w.SubEntries && (i > 0 || j > 0) && ps.lineStart && p.subEntry(ps.text) {
				stop = true
				break
			}
			p.body = append(p.body, ps)
		}
		if stop {
			break
		}
	}
	for _, r := range others {
		for _, ps := range split(r) {
			if p.mentions(ps.text) {
				p.other = append(p.other, ps)
			}
		}
	}
}

// follows reports whether chunk b comes right after chunk a in their
// document, by the chunker's numbering (<doc id>-<sequence>); ids not
// numbered so are taken to follow.
func follows(a, b string) bool {
	i, j := strings.LastIndexByte(a, '-'), strings.LastIndexByte(b, '-')
	if i < 0 || j < 0 || a[:i] != b[:j] {
		return true
	}
	x, errA := strconv.Atoi(a[i+1:])
	y, errB := strconv.Atoi(b[j+1:])
	if errA != nil || errB != nil {
		return true
	}
	return y == x+1
}

// split cuts a reference into trimmed sentences (compose.Sentences).
func split(r schemas.Reference) []passage {
	var out []passage
	for _, sn := range compose.Sentences(r.Text) {
		out = append(out, passage{chunk: r.ChunkID, start: sn.Start, end: sn.End, text: sn.Text, lineStart: sn.LineStart})
	}
	return out
}

// subEntry reports whether a sentence opens someone else's paragraph
// (compose.SubEntry).
func (p *planner) subEntry(s string) bool { return compose.SubEntry(s, p.refs.Name, p.names) }

func (p *planner) mentions(s string) bool { return compose.Mentions(s, p.names) }

// factsIn returns the usable facts whose evidence lies in the passage.
func (p *planner) factsIn(ps passage) []schemas.KGFact {
	var out []schemas.KGFact
	for _, f := range p.facts {
		if f.ChunkID == ps.chunk && f.Span.Start >= ps.start && f.Span.End <= ps.end && f.Span.End > f.Span.Start {
			out = append(out, f)
		}
	}
	return out
}

// passageOf is the body sentence holding a fact's evidence.
func (p *planner) passageOf(f schemas.KGFact) (passage, bool) {
	for _, src := range [][]passage{p.body, p.other} {
		for _, ps := range src {
			if ps.chunk == f.ChunkID && f.Span.Start >= ps.start && f.Span.End <= ps.end {
				return ps, true
			}
		}
	}
	if r, ok := p.byID[f.ChunkID]; ok {
		for _, ps := range split(r) {
			if f.Span.Start >= ps.start && f.Span.End <= ps.end {
				return ps, true
			}
		}
	}
	return passage{}, false
}

func key(ps passage) string { return ps.chunk + ":" + strconv.Itoa(ps.start) }

func (p *planner) say(fs ...schemas.KGFact) {
	for _, f := range fs {
		p.said[f.Relation+"\x00"+f.Value] = true
	}
}

func (p *planner) saidFact(f schemas.KGFact) bool { return p.said[f.Relation+"\x00"+f.Value] }

// copyItem is a sentence copied verbatim, citing its chunk, with the facts
// its evidence holds (or the sentence itself as the one fact).
func (p *planner) copyItem(kind string, ps passage) PlanItem {
	p.used[key(ps)] = true
	fs := p.factsIn(ps)
	p.say(fs...)
	it := PlanItem{Kind: kind, Text: ps.text, Citations: []string{ps.chunk}}
	for _, f := range fs {
		it.Facts = append(it.Facts, factOf(f))
	}
	if len(it.Facts) == 0 {
		it.Facts = []schemas.Fact{{Text: ps.text, ChunkID: ps.chunk}}
	}
	return it
}

// evidenceItem is a fact's evidence written as a sentence: verbatim, so as
// supported as the source, when the whole source sentence is too long.
func (p *planner) evidenceItem(kind string, f schemas.KGFact) PlanItem {
	p.say(f)
	return PlanItem{Kind: kind, Text: compose.EvidenceSentence(f.Evidence), Citations: []string{f.ChunkID}, Facts: []schemas.Fact{factOf(f)}}
}

// factItem copies the sentence of a fact's evidence when it is short
// enough, else writes the evidence itself.
func (p *planner) factItem(kind string, f schemas.KGFact) (PlanItem, bool) {
	if ps, ok := p.passageOf(f); ok && !p.used[key(ps)] && utf8.RuneCountInString(ps.text) <= p.maxCopy() {
		return p.copyItem(kind, ps), true
	}
	if f.Evidence == "" || !p.w.EvidenceSentences {
		// An evidence span of this language is a phrase, not a sentence
		// (English).
		return PlanItem{}, false
	}
	return p.evidenceItem(kind, f), true
}

// maxCopy is MaxCopy in characters of the sources' language: the
// profile's copy scale says how many (an English sentence takes about
// three letters for a Chinese character).
func (p *planner) maxCopy() int { return p.w.CopyScale * p.cfg.MaxCopy }

// relDate is the relation of the Gregorian year the offline engine adds
// beside an era date: derived from the sentence's dated fact, it is no
// fact of the knowledge graph.
const relDate = "date"

func factOf(f schemas.KGFact) schemas.Fact {
	t := f.Evidence
	if t == "" {
		t = f.Value
	}
	return schemas.Fact{Text: t, Relation: f.Relation, Value: f.Value, ChunkID: f.ChunkID}
}

func citationsOf(fs []schemas.Fact) []string {
	var out []string
	for _, f := range fs {
		if f.ChunkID != "" && !slices.Contains(out, f.ChunkID) {
			out = append(out, f.ChunkID)
		}
	}
	return out
}

// plan builds the items the profile's plan names, in its order (the
// conventional order of a biography: identity, birth, examination,
// career, highest office, notable acts, death, posthumous name): the
// life. The items before notable open the page, those after it close it;
// the notable acts are as many as the entry's length allows. Then the
// evidence of other documents (fromElsewhere) is placed: in the life by
// date, or in a part of its own after it (placeElsewhere).
func (p *planner) plan() []PlanItem {
	var head, tail []PlanItem
	atHead := true
	add := func(it PlanItem, ok bool) {
		if !ok || it.Text == "" {
			return
		}
		if atHead {
			head = append(head, it)
		} else {
			tail = append(tail, it)
		}
	}
	for _, item := range p.w.Plan {
		switch item {
		case profile.PlanIdentity:
			add(p.identity())
		case profile.PlanBirth:
			if f, ok := p.first(schemas.RelBirth); ok {
				add(p.factItem(ItemBirth, f))
			}
		case profile.PlanExamination:
			add(p.examination())
		case profile.PlanCareer:
			career, highest, ok := p.career()
			add(career, ok && len(career.Facts) > 0)
			add(highest, ok)
		case profile.PlanCareerSentences:
			for _, it := range p.careerSentences() {
				add(it, true)
			}
		case profile.PlanNotable:
			atHead = false
		case profile.PlanDeath:
			add(p.death())
		case profile.PlanPosthumous:
			add(p.posthumous())
		}
	}
	notable := p.notable()
	life := slices.Concat(head, notable, tail)
	for _, it := range life {
		p.onPage[passageKey(it.Text)] = true
	}
	chosen := p.fromElsewhere()
	if slices.ContainsFunc(chosen, func(a aside) bool { return a.year != 0 }) {
		p.dateLife(life, len(head)+len(notable))
	}
	return p.placeElsewhere(life, len(head)+len(notable), chosen)
}

// death is the sentence of the subject's death: that of its time, which
// the text usually closes with the age ("万历五年卒，年七十一"), else that
// of the age alone ("卒，年七十一"). The age is one of the item's facts when
// the sentence states it.
func (p *planner) death() (PlanItem, bool) {
	d, okD := p.first(schemas.RelDeath)
	a, okA := p.first(schemas.RelDeathAge)
	switch {
	case okD:
		it, ok := p.factItem(ItemDeath, d)
		if ok && okA && !p.saidFact(a) && strings.Contains(it.Text, a.Value) {
			p.say(a)
			it.Facts = append(it.Facts, factOf(a))
			it.Citations = citationsOf(it.Facts)
		}
		return it, ok
	case okA:
		return p.factItem(ItemDeath, a)
	}
	return PlanItem{}, false
}

// identity is the entry's opening sentence when it is short and names the
// subject, else "{Name}，字X，号Y，Z人。" from the KG facts.
func (p *planner) identity() (PlanItem, bool) {
	// Only the first passage can be the entry's opening.
	if len(p.body) > 0 && p.body[0].chunk == p.entry {
		ps := p.body[0]
		limit := p.w.CopyScale * p.cfg.MaxOpening
		if p.opensWithName(ps.text) && utf8.RuneCountInString(ps.text) <= limit && !p.overruled(ps.text) {
			return p.copyItem(ItemIdentity, ps), true
		}
	}
	var fs []schemas.KGFact
	var b strings.Builder
	b.WriteString(p.refs.Name)
	for _, part := range p.w.Identity {
		if f, ok := p.first(part.Relation); ok {
			b.WriteString(strings.Replace(part.Format, "%s", f.Value, 1))
			fs = append(fs, f)
		}
	}
	if len(fs) == 0 {
		return PlanItem{}, false
	}
	b.WriteString(p.w.IdentityEnd)
	p.say(fs...)
	it := PlanItem{Kind: ItemIdentity, Text: b.String()}
	for _, f := range fs {
		it.Facts = append(it.Facts, factOf(f))
	}
	it.Citations = citationsOf(it.Facts)
	return it, true
}

// overruled reports whether s states a value an expert decision ruled
// out: a rejected value, or another value of the decided relation than
// the one decided.
func (p *planner) overruled(s string) bool {
	for _, d := range p.refs.Decisions {
		for _, v := range d.Rejected {
			if v != "" && strings.Contains(s, v) {
				return true
			}
		}
		for _, f := range p.refs.Facts {
			if f.Relation == d.Relation && f.Value != d.Value && f.Value != "" && strings.Contains(s, f.Value) {
				return true
			}
		}
	}
	return false
}

// opensWithName reports whether s begins with a name of the subject
// (compose.OpensWithName).
func (p *planner) opensWithName(s string) bool { return compose.OpensWithName(s, p.refs.Name, p.names) }

// examination is the sentence of the jinshi fact, its era date with the
// Gregorian year (compose.Examination); the year is left out when the
// date is approximate or the era table cannot place it.
func (p *planner) examination() (PlanItem, bool) {
	f, ok := p.first(schemas.RelJinshi)
	if !ok {
		return PlanItem{}, false
	}
	p.say(f)
	it := PlanItem{Kind: ItemExamination, Citations: []string{f.ChunkID}, Facts: []schemas.Fact{factOf(f)}}
	g := compose.Gregorian(p.cfg.Era, f.Value)
	if g != 0 {
		it.Facts = append(it.Facts, schemas.Fact{Text: compose.GregorianText(g), Relation: relDate,
			Value: strconv.Itoa(g), ChunkID: f.ChunkID})
	}
	it.Text = compose.Examination(p.refs.Name, f.Value, g, compose.ExamPhrase(f.Value, f.Evidence, f.Qualifiers["rank"] != ""))
	return it, true
}

// career is the list of offices held (compose.Career) — up to three of
// the posts held before the highest, the first and the last of them
// included — and the highest office (compose.Highest). Honorary titles and titles the rank lexicon does not
// know are left out of the choice of the highest; the list takes any
// post. The highest is claimed only when the subject's entry names no
// office of a higher grade anywhere (the extractor may have missed the
// post he rose to); otherwise there is no "官至" sentence and the list
// runs to the last post.
func (p *planner) career() (career, highest PlanItem, ok bool) {
	var offices []schemas.KGFact
	seen := map[string]bool{}
	for _, f := range p.all(schemas.RelOffice) {
		if !seen[f.Value] && !p.prof.Offices.Honorary(f.Value) && !compose.Anaphoric(f.Value) {
			seen[f.Value] = true
			offices = append(offices, f)
		}
	}
	if len(offices) == 0 {
		return PlanItem{}, PlanItem{}, false
	}
	titles := make([]string, len(offices))
	for i, f := range offices {
		titles[i] = f.Value
	}
	hi := compose.HighestOffice(p.prof.Offices, titles)
	if hi >= 0 {
		g, _ := compose.Grade(p.prof.Offices, titles[hi])
		var body strings.Builder
		for _, ps := range p.body {
			body.WriteString(ps.text)
		}
		if compose.Outranked(p.prof.Offices, body.String(), g) {
			hi = -1
		}
	}
	var before []schemas.KGFact
	for i, f := range offices {
		if i != hi && (hi < 0 || i < hi) {
			before = append(before, f)
		}
	}
	before = spread(before, 3)
	if len(before) > 0 {
		var fs []schemas.Fact
		for _, f := range before {
			fs = append(fs, factOf(f))
		}
		p.say(before...)
		career = careerItem(fs)
	}
	if hi >= 0 {
		f := offices[hi]
		p.say(f)
		highest = PlanItem{Kind: ItemHighest, Text: compose.Highest(f.Value), Citations: []string{f.ChunkID},
			Facts: []schemas.Fact{factOf(f)}}
	}
	return career, highest, true
}

func careerItem(fs []schemas.Fact) PlanItem {
	vals := make([]string, len(fs))
	for i, f := range fs {
		vals[i] = f.Value
	}
	return PlanItem{Kind: ItemCareer, Text: compose.Career(vals), Citations: citationsOf(fs),
		Facts: fs}
}

// spread keeps at most n items, evenly spaced, the first and last
// included.
func spread[T any](xs []T, n int) []T {
	if len(xs) <= n {
		return xs
	}
	out := make([]T, 0, n)
	for i := range n {
		out = append(out, xs[i*(len(xs)-1)/(n-1)])
	}
	return out
}

// careerSentences copies the sentences that state offices (at most two):
// the career of a profile whose offices are phrases (English), not titles
// to list.
func (p *planner) careerSentences() []PlanItem {
	var out []PlanItem
	for _, f := range p.all(schemas.RelOffice) {
		if len(out) == 2 || p.saidFact(f) {
			continue
		}
		ps, ok := p.passageOf(f)
		if !ok || p.used[key(ps)] || utf8.RuneCountInString(ps.text) > p.maxCopy() {
			continue
		}
		out = append(out, p.copyItem(ItemCareer, ps))
	}
	return out
}

// posthumous copies the sentence giving the posthumous name
// (compose.PosthumousAt) unless the death sentence has it; of a long
// sentence, the clause alone.
func (p *planner) posthumous() (PlanItem, bool) {
	for _, ps := range p.body {
		at := compose.PosthumousAt(ps.text)
		if p.used[key(ps)] {
			if at >= 0 {
				return PlanItem{}, false
			}
			continue
		}
		if at < 0 || compose.PosthumousUnfit(ps.text) {
			continue
		}
		if utf8.RuneCountInString(ps.text) <= p.cfg.MaxCopy {
			return p.copyItem(ItemPosthumous, ps), true
		}
		clause, sentence := compose.PosthumousClause(ps.text, at)
		p.used[key(ps)] = true
		return PlanItem{Kind: ItemPosthumous, Text: sentence, Citations: []string{ps.chunk},
			Facts: []schemas.Fact{{Text: clause, ChunkID: ps.chunk}}}, true
	}
	return PlanItem{}, false
}

type candidate struct {
	ps    passage
	score int
	order int
}

// notable picks the notable acts: sentences of the subject's own entry
// (then of other chunks of its document that name him), copied verbatim,
// scored for the facts they carry that the page has not stated yet — KG
// facts, dates, memorials (疏), posthumous names (谥) — and for naming the
// subject. The entry's length sets how many (budget of its sentences);
// the best are taken, those that score at least two before the others,
// and keep the text's order.
func (p *planner) notable() []PlanItem {
	maxCopy := p.maxCopy()
	var cands []candidate
	for i, ps := range slices.Concat(p.body, p.other) {
		n := utf8.RuneCountInString(ps.text)
		if p.used[key(ps)] || n < 8 || n > maxCopy || !compose.EndsSentence(ps.text) || p.overruled(ps.text) {
			continue
		}
		// The profile's skip words: deaths have their own sentence, a
		// colon opens a quotation the sentence would cut off, the
		// subject's examination has its own sentence.
		if slices.ContainsFunc(p.w.NotableSkip, func(w string) bool { return strings.Contains(ps.text, w) }) {
			continue
		}
		score := 0
		for _, f := range p.factsIn(ps) {
			switch {
			case f.Relation == schemas.RelJinshi:
				score -= 100 // the examination has its own sentence
			case p.saidFact(f):
				score -= 2
			default:
				score += 2
			}
		}
		if p.w.NotableYears != nil {
			n := len(p.w.NotableYears.FindAllString(ps.text, -1))
			if p.w.NotableYearCap > 0 {
				n = min(p.w.NotableYearCap, n)
			}
			score += 2 * n
		}
		for _, b := range p.w.NotableBonus {
			if strings.Contains(ps.text, b.Word) {
				score += b.Points
			}
		}
		if p.mentions(ps.text) {
			score++
		}
		cands = append(cands, candidate{ps: ps, score: score, order: i})
	}
	room := budget(len(p.body))
	p.stats[StatLifeBudget] = int64(room)
	ranked := slices.Clone(cands)
	slices.SortStableFunc(ranked, func(a, b candidate) int { return cmp.Compare(b.score, a.score) })
	var take []candidate
	for _, c := range ranked {
		if c.score < 0 {
			break
		}
		if len(take) >= room {
			p.leaveOut(LeftOutLifeBudget, 1)
			continue
		}
		take = append(take, c)
	}
	// Alternates: the best sentences not taken, one per notable act.
	var spare []candidate
	for _, c := range ranked {
		if c.score >= 0 && !slices.ContainsFunc(take, func(t candidate) bool { return t.order == c.order }) {
			spare = append(spare, c)
		}
	}
	slices.SortFunc(take, func(a, b candidate) int { return cmp.Compare(a.order, b.order) })
	out := make([]PlanItem, 0, len(take))
	for i, c := range take {
		it := p.copyItem(ItemNotable, c.ps)
		if i < len(spare) {
			alt := p.copyItem(ItemNotable, spare[i].ps)
			it.Alternate = &alt
		}
		out = append(out, it)
	}
	return out
}
