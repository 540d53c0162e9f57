package topic

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/annalist-dev/annalist/internal/lang/text"
	"github.com/annalist-dev/annalist/internal/lang/zh/era"
	"github.com/annalist-dev/annalist/internal/lang/zh/glossary"
	"github.com/annalist-dev/annalist/internal/ports/graph"
	"github.com/annalist-dev/annalist/schemas"
)

// Section titles that do not come from the sources' dates, by language.
var titles = map[string]map[string]string{
	"zh": {"undated": "年代未详", "definition": "释义", "uses": "用例", "jinshi": "进士", "year": "是年",
		"entry": "本传", "kin": "亲属", "circle": "交游", "named": "提及"},
	"en": {"undated": "Undated", "definition": "Definition", "uses": "Uses", "jinshi": "Jinshi", "year": "That year",
		"entry": "Life", "kin": "Family", "circle": "Associates", "named": "Mentioned by"},
}

func (st *curation) title(key string) string {
	lang := "zh"
	if st.c != nil && st.langGuess() == "en" {
		lang = "en"
	}
	return titles[lang][key]
}

// langGuess is the language of the first chunk read.
func (st *curation) langGuess() string {
	for _, id := range st.order {
		if ch, ok := st.chunks[id]; ok {
			return text.Lang(ch.Text)
		}
	}
	return text.Lang(st.topic)
}

// outline builds the curation's outline by its type, then prepends the
// glossary definition of the topic when a term node names it.
func (st *curation) outline(ctx context.Context, term graph.Entity) error {
	var err error
	switch st.cur.Type {
	case schemas.TopicPlace, schemas.TopicOffice:
		err = st.periodOutline(ctx)
	case schemas.TopicTime:
		err = st.yearOutline(ctx)
	case schemas.TopicPerson:
		err = st.personOutline(ctx)
	case schemas.TopicTerm:
		err = st.usesOutline(ctx, st.seed)
	case schemas.TopicText:
		st.textOutline()
	}
	if err != nil {
		return err
	}
	if term.ID != "" {
		if err := st.definition(ctx, term); err != nil {
			return err
		}
	}
	st.trim()
	return nil
}

// trim bounds the outline at the curator's item bound, dropping the last
// sections' last items.
func (st *curation) trim() {
	n := 0
	out := st.cur.Outline[:0]
	for _, s := range st.cur.Outline {
		if n >= st.c.maxItems {
			break
		}
		if len(s.Items) > st.c.maxItems-n {
			s.Items = s.Items[:st.c.maxItems-n]
		}
		n += len(s.Items)
		if len(s.Items) > 0 {
			out = append(out, s)
		}
	}
	st.cur.Outline = out
}

// keyItem is an item about a key entity with the edge that made it key.
type keyItem struct {
	item  schemas.OutlineItem
	era   string
	order int
}

// item builds the outline item of edge ed about the person named name:
// the sentence of ed's chunk that holds the evidence. It is keyed (the
// coverage review expects the person on the page) when the sentence the
// drafter copies names him.
func (st *curation) item(ed graph.Edge, id, name string) (schemas.OutlineItem, bool) {
	ch, ok := st.chunks[ed.ChunkID]
	if !ok {
		return schemas.OutlineItem{}, false
	}
	it := schemas.OutlineItem{Entity: id, Name: name, Chunk: ed.ChunkID, Span: ed.Span, Relation: ed.Relation,
		Value: ed.Tail}
	s := sentenceFor(ch.Text, it.Span, []string{name})
	return it, strings.Contains(s, name)
}

// items are the outline items of edge ed about the person id named name:
// the item of the evidence, preceded by the opening of his entry (its
// first sentence naming him) when the evidence's passage does not name him
// and his entry begins in another chunk. key says the page will name him.
func (st *curation) items(ed graph.Edge, id, name string) ([]schemas.OutlineItem, bool) {
	it, key := st.item(ed, id, name)
	if it.Chunk == "" {
		return nil, false
	}
	if key {
		return []schemas.OutlineItem{it}, true
	}
	entry := st.ents[id].EntryChunk
	ch, ok := st.chunks[entry]
	if entry == ed.ChunkID || !ok {
		return []schemas.OutlineItem{it}, false
	}
	rs := []rune(ch.Text)
	for _, sp := range text.SentencesRunes(rs) {
		if strings.Contains(string(rs[sp.Start:sp.End]), name) {
			op := schemas.OutlineItem{Entity: id, Name: name, Chunk: entry, Span: schemas.Span{Start: sp.Start, End: sp.End}}
			st.addChunk(entry, id)
			return []schemas.OutlineItem{op, it}, true
		}
	}
	return []schemas.OutlineItem{it}, false
}

// periodOf is the period of a key person: for a place topic, the year of
// his jinshi, else the first era date of his entry; for an office, the
// last era date before the evidence in its chunk (the date of the
// appointment as the narrative gives it), else his jinshi, else the first
// date of the entry.
func (st *curation) periodOf(person string, ed graph.Edge) (int, string) {
	var tries []func() (int, string)
	jinshi := func() (int, string) {
		e := st.ents[person]
		for _, x := range e.Edges {
			if x.Relation == schemas.RelJinshi {
				for _, d := range st.c.era.Find(x.Tail) {
					if d.Gregorian != 0 {
						return d.Gregorian, d.Era
					}
				}
			}
		}
		return 0, ""
	}
	entry := func() (int, string) {
		id := st.ents[person].EntryChunk
		if id == "" {
			id = ed.ChunkID
		}
		return firstDate(st.c.era, st.chunks[id].Text)
	}
	before := func() (int, string) {
		ch := st.chunks[ed.ChunkID]
		g, name := 0, ""
		for _, d := range st.c.era.Find(ch.Text) {
			if d.Start >= ed.Span.End {
				break
			}
			if d.Gregorian != 0 {
				g, name = d.Gregorian, d.Era
			}
		}
		return g, name
	}
	if st.cur.Type == schemas.TopicOffice {
		tries = []func() (int, string){before, jinshi, entry}
	} else {
		tries = []func() (int, string){jinshi, entry}
	}
	for _, f := range tries {
		if g, n := f(); g != 0 {
			return g, n
		}
	}
	return 0, ""
}

func firstDate(t *era.Table, s string) (int, string) {
	for _, d := range t.Find(s) {
		if d.Gregorian != 0 {
			return d.Gregorian, d.Era
		}
	}
	return 0, ""
}

// keyEdges are the seed's incoming edges of the key relation from kept
// people, one per person (the first in chunk order).
func (st *curation) keyEdges() []graph.Edge {
	rel := keyRelation(st.cur.Type)
	var out []graph.Edge
	had := map[string]bool{}
	eds := slices.Clone(st.seed.Incoming)
	slices.SortStableFunc(eds, func(a, b graph.Edge) int {
		return cmp.Or(cmp.Compare(a.ChunkID, b.ChunkID), cmp.Compare(a.Span.Start, b.Span.Start))
	})
	for _, ed := range eds {
		if ed.Relation != rel || !isPerson(ed.HeadID) || had[ed.HeadID] {
			continue
		}
		if _, kept := st.at[ed.HeadID]; !kept {
			continue
		}
		had[ed.HeadID] = true
		out = append(out, ed)
	}
	return out
}

// periodOutline: the people of a place or an office, grouped into sections
// by the reign era of their period, sections and items in Gregorian order,
// the undated last.
func (st *curation) periodOutline(ctx context.Context) error {
	eds := st.keyEdges()
	var need []string
	for _, ed := range eds {
		need = append(need, ed.ChunkID)
		if e, ok := st.ents[ed.HeadID]; ok && e.EntryChunk != "" {
			need = append(need, e.EntryChunk)
		}
	}
	if err := st.load(ctx, need); err != nil {
		return err
	}
	var ks []keyItem
	for i, ed := range eds {
		name := st.cur.Entities[st.at[ed.HeadID]].Name
		its, key := st.items(ed, ed.HeadID, name)
		if len(its) == 0 {
			continue
		}
		g, eraName := st.periodOf(ed.HeadID, ed)
		st.markKey(ed.HeadID, its[0].Chunk, key)
		for _, it := range its {
			it.Period = g
			ks = append(ks, keyItem{item: it, era: eraName, order: i})
		}
	}
	slices.SortStableFunc(ks, func(a, b keyItem) int {
		return cmp.Or(cmp.Compare(undated(a.item.Period), undated(b.item.Period)),
			cmp.Compare(a.item.Period, b.item.Period), cmp.Compare(a.order, b.order))
	})
	for _, k := range ks {
		title := k.era
		if k.item.Period == 0 {
			title = st.title("undated")
		}
		st.appendItem(title, k.item)
	}
	return st.elsewhere(ctx)
}

// Bounds of the passages elsewhere that name a place or an office.
const (
	// maxElsewhere is how many sentences the section holds.
	maxElsewhere = 8
	// maxLinkedPerKey is how many of a key person's linked chunks are read.
	maxLinkedPerKey = 40
)

// elsewhere: the passages of other chunks that name the topic, reached
// through the key people's mentions (the linker's links, one step further
// from the topic): a native retiring to his home county in a collection of
// notes, a holder of the office named in another's life. The documents
// whose arrival asked for the page again first, so the passage new
// evidence brings is on the page; at most maxElsewhere sentences, after
// the dated sections.
func (st *curation) elsewhere(ctx context.Context) error {
	l, ok := st.c.g.(Linked)
	if !ok {
		return nil
	}
	used := map[string]bool{}
	for _, sec := range st.cur.Outline {
		for _, it := range sec.Items {
			used[it.Chunk] = true
		}
	}
	var keys []string
	for _, e := range st.cur.Entities {
		if e.Key {
			keys = append(keys, e.ID)
		}
	}
	linked, err := l.LinkedOf(ctx, st.tenant, keys)
	if err != nil {
		return fmt.Errorf("chunks naming the key people: %w", err)
	}
	var ids []string
	for _, more := range linked {
		ids = append(ids, more[:min(len(more), maxLinkedPerKey)]...)
	}
	slices.Sort(ids)
	ids = slices.DeleteFunc(slices.Compact(ids), func(id string) bool { return used[id] })
	if err := st.load(ctx, ids); err != nil {
		return err
	}
	ids = slices.DeleteFunc(ids, func(id string) bool {
		ch, ok := st.chunks[id]
		return !ok || !contains(ch.Text, st.names)
	})
	slices.SortFunc(ids, func(a, b string) int {
		ca, cb := st.chunks[a], st.chunks[b]
		fa, fb := slices.Contains(st.fresh, ca.DocID), slices.Contains(st.fresh, cb.DocID)
		return cmp.Or(-cmp.Compare(b2i(fa), b2i(fb)), cmp.Compare(ca.DocID, cb.DocID), cmp.Compare(ca.Start, cb.Start))
	})
	n := 0
	for _, id := range ids {
		for _, it := range st.namingItems(id, 0) {
			if n == maxElsewhere {
				return nil
			}
			st.addChunk(id, schemas.SourceMention)
			st.appendItem(st.title("named"), it)
			n++
		}
	}
	return nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func undated(p int) int {
	if p == 0 {
		return 1
	}
	return 0
}

func (st *curation) markKey(id, chunk string, key bool) {
	if i, ok := st.at[id]; ok && key && !st.cur.Entities[i].Key {
		st.cur.Entities[i].Key = true
		st.cur.Entities[i].Chunk = chunk
	}
}

// appendItem adds it to the section titled title, the last section when
// it has that title, else a new one.
func (st *curation) appendItem(title string, it schemas.OutlineItem) {
	o := st.cur.Outline
	if n := len(o); n > 0 && o[n-1].Title == title {
		o[n-1].Items = append(o[n-1].Items, it)
		return
	}
	st.cur.Outline = append(o, schemas.OutlineSection{Title: title, Items: []schemas.OutlineItem{it}})
}

// yearOutline: the jinshi of the year, then what the sources say happened
// that year (the sentences naming the date in the chunks that name it).
func (st *curation) yearOutline(ctx context.Context) error {
	eds := st.keyEdges()
	var need []string
	for _, ed := range eds {
		need = append(need, ed.ChunkID, st.ents[ed.HeadID].EntryChunk)
	}
	if err := st.load(ctx, need); err != nil {
		return err
	}
	g, _ := firstDate(st.c.era, st.seed.Name)
	// evidence holds the jinshi items' evidence offsets by chunk: the
	// sentences holding them are on the page already.
	evidence := map[string][]int{}
	used := map[string]bool{}
	for _, ed := range eds {
		name := st.cur.Entities[st.at[ed.HeadID]].Name
		its, key := st.items(ed, ed.HeadID, name)
		if len(its) == 0 {
			continue
		}
		st.markKey(ed.HeadID, its[0].Chunk, key)
		for _, it := range its {
			it.Period = g
			st.appendItem(st.title("jinshi"), it)
			evidence[it.Chunk] = append(evidence[it.Chunk], it.Span.Start)
		}
	}
	chunks, err := st.namingChunks(ctx, st.seed)
	if err != nil {
		return err
	}
	for _, id := range chunks {
		for _, it := range st.namingItems(id, g) {
			s := sentenceFor(st.chunks[id].Text, it.Span, nil)
			if used[s] || slices.ContainsFunc(evidence[id], func(o int) bool { return o >= it.Span.Start && o < it.Span.End }) {
				continue
			}
			used[s] = true
			st.appendItem(st.title("year"), it)
		}
	}
	return nil
}

// namingChunks are the chunks that name e: its mentions, its edges'
// chunks and, through the linker, chunks of other documents; in document
// and text order.
func (st *curation) namingChunks(ctx context.Context, e graph.Entity) ([]string, error) {
	ids := slices.Clone(e.Chunks)
	for _, ed := range e.Incoming {
		ids = append(ids, ed.ChunkID)
	}
	if l, ok := st.c.g.(Linked); ok {
		more, err := l.LinkedOf(ctx, st.tenant, []string{e.ID})
		if err != nil {
			return nil, err
		}
		ids = append(ids, more[0]...)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	if err := st.load(ctx, ids); err != nil {
		return nil, err
	}
	ids = slices.DeleteFunc(ids, func(id string) bool { _, ok := st.chunks[id]; return !ok })
	slices.SortFunc(ids, func(a, b string) int {
		ca, cb := st.chunks[a], st.chunks[b]
		return cmp.Or(cmp.Compare(ca.DocID, cb.DocID), cmp.Compare(ca.Start, cb.Start), cmp.Compare(a, b))
	})
	for _, id := range ids {
		st.addChunk(id, e.ID)
	}
	return ids, nil
}

// namingItems are items for the sentences of chunk id that name the topic,
// each about the chunk's entry subject when the sentence names him.
func (st *curation) namingItems(id string, period int) []schemas.OutlineItem {
	ch := st.chunks[id]
	rs := []rune(ch.Text)
	var out []schemas.OutlineItem
	for _, sp := range text.SentencesRunes(rs) {
		s := string(rs[sp.Start:sp.End])
		if !contains(s, st.names) {
			continue
		}
		it := schemas.OutlineItem{Chunk: id, Span: schemas.Span{Start: sp.Start, End: sp.End}, Period: period}
		if ch.Entry != "" && strings.Contains(s, ch.Entry) {
			it.Name = ch.Entry
		}
		out = append(out, it)
	}
	return out
}

// personOutline: the person's entry opening, then their circle: relatives
// (edges of kin), the people their entry names and who name them, then
// the passages of other documents naming them.
func (st *curation) personOutline(ctx context.Context) error {
	e := st.seed
	if err := st.load(ctx, []string{e.EntryChunk}); err != nil {
		return err
	}
	if ch, ok := st.chunks[e.EntryChunk]; ok {
		rs := []rune(ch.Text)
		if sps := text.SentencesRunes(rs); len(sps) > 0 {
			st.appendItem(st.title("entry"), schemas.OutlineItem{Entity: e.ID, Name: e.Name, Chunk: ch.ChunkID,
				Span: schemas.Span{Start: sps[0].Start, End: sps[0].End}})
			st.addChunk(ch.ChunkID, e.ID)
		}
	}
	type circle struct {
		ed       graph.Edge
		id, name string
		kin      bool
	}
	var cs []circle
	for _, h := range hops(e) {
		if !isPerson(h.id) {
			continue
		}
		if _, kept := st.at[h.id]; !kept {
			continue
		}
		cs = append(cs, circle{ed: h.ed, id: h.id, name: st.cur.Entities[st.at[h.id]].Name,
			kin: h.ed.Relation == schemas.RelRelative})
	}
	var need []string
	for _, c := range cs {
		need = append(need, c.ed.ChunkID)
	}
	if err := st.load(ctx, need); err != nil {
		return err
	}
	done := map[string]bool{}
	for _, kin := range []bool{true, false} {
		for _, c := range cs {
			if c.kin != kin || done[c.id] {
				continue
			}
			it, key := st.item(c.ed, c.id, c.name)
			if it.Chunk == "" {
				continue
			}
			done[c.id] = true
			st.markKey(c.id, c.ed.ChunkID, key && kin)
			title := st.title("circle")
			if kin {
				title = st.title("kin")
			}
			st.appendItem(title, it)
		}
	}
	if l, ok := st.c.g.(Linked); ok {
		linked, err := l.LinkedOf(ctx, st.tenant, []string{e.ID})
		if err != nil {
			return err
		}
		ids := linked[0]
		if err := st.load(ctx, ids); err != nil {
			return err
		}
		entryDoc := st.chunks[e.EntryChunk].DocID
		for _, id := range ids {
			ch, ok := st.chunks[id]
			if !ok || ch.DocID == entryDoc {
				continue
			}
			st.addChunk(id, e.ID)
			for _, it := range st.namingItems(id, 0) {
				st.appendItem(st.title("named"), it)
				break
			}
		}
	}
	return nil
}

// glossaryProfile is the chunker profile of glossary documents.
const glossaryProfile = "glossary"

// usesOutline: the passages that name the term, outside the glossary.
func (st *curation) usesOutline(ctx context.Context, e graph.Entity) error {
	ids, err := st.namingChunks(ctx, e)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if st.chunks[id].Profile == glossaryProfile || st.isDefinition(e, id) {
			continue
		}
		for _, it := range st.namingItems(id, 0) {
			st.appendItem(st.title("uses"), it)
		}
	}
	return nil
}

func (st *curation) isDefinition(e graph.Entity, chunk string) bool {
	for _, ed := range e.Edges {
		if ed.Relation == glossary.RelCategory && ed.ChunkID == chunk {
			return true
		}
	}
	return false
}

// definition puts the glossary definition of term first on the page.
func (st *curation) definition(ctx context.Context, term graph.Entity) error {
	var it schemas.OutlineItem
	for _, ed := range term.Edges {
		if ed.Relation == glossary.RelCategory {
			it = schemas.OutlineItem{Entity: term.ID, Chunk: ed.ChunkID, Relation: ed.Relation, Value: ed.Tail}
			break
		}
	}
	if it.Chunk == "" {
		return nil
	}
	if err := st.load(ctx, []string{it.Chunk}); err != nil {
		return err
	}
	ch, ok := st.chunks[it.Chunk]
	if !ok {
		return nil
	}
	it.Span = schemas.Span{Start: 0, End: text.RuneLen(strings.TrimRight(ch.Text, "\n"))}
	st.addChunk(it.Chunk, term.ID)
	st.cur.Outline = append([]schemas.OutlineSection{{Title: st.title("definition"),
		Items: []schemas.OutlineItem{it}}}, st.cur.Outline...)
	return nil
}

// textOutline: the chunks found for a free-text topic clustered by the
// entry (or the document) they belong to, clusters in the order they were
// found; in each, the sentences naming the topic.
func (st *curation) textOutline() {
	type cluster struct {
		title string
		items []schemas.OutlineItem
	}
	var cl []*cluster
	at := map[string]*cluster{}
	for _, id := range st.order {
		ch, ok := st.chunks[id]
		if !ok {
			continue
		}
		key := ch.DocID
		title := ch.Entry
		if title == "" {
			title = ch.Subject
		}
		if title == "" {
			title = st.topic
		}
		c, ok := at[key]
		if !ok {
			c = &cluster{title: title}
			at[key] = c
			cl = append(cl, c)
		}
		c.items = append(c.items, st.namingItems(id, 0)...)
	}
	used := map[string]int{}
	for _, c := range cl {
		if len(c.items) == 0 {
			continue
		}
		title := c.title
		if used[title]++; used[title] > 1 {
			title = title + " (" + strconv.Itoa(used[title]) + ")"
		}
		st.cur.Outline = append(st.cur.Outline, schemas.OutlineSection{Title: title, Items: c.items})
	}
}
