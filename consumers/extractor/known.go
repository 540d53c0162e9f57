package extractor

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/internal/lang/profile"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
)

// Persons reads what the extractor needs of the knowledge graph's persons
// and of the chunk store to read the facts of a person named in a chunk
// outside entries (infra/kg.Store and infra/redisdb.Chunks implement it
// together, see WithPersons).
type Persons interface {
	// PersonNames returns the surface forms of a person: the canonical
	// name, courtesy and art names, other aliases.
	PersonNames(ctx context.Context, tenant, id string) ([]string, error)
}

// ChunkReader reads stored chunks.
type ChunkReader interface {
	Get(ctx context.Context, tenant string, ids []string) ([]schemas.Chunk, error)
}

// WithPersons lets the extractor anchor facts to the known persons a chunk
// outside every entry names as the subject of a sentence (an archive
// book's "叶向高，万历十一年进士"): the narrative patterns then run on that
// sentence with the name, as written, as the head.
//
// It does so when a person is linked to the chunk — a kg-update naming
// the chunk among the person's Chunks (the entity linker's, or the
// kg-writer's for a fact) — not when the chunk first arrives. Which
// persons the graph knows when a chunk arrives depends on the order
// documents come in; which chunks end up linked to a person does not (the
// linker's backfill links chunks stored before a name, see
// consumers/linker), so the facts read this way are the same whatever
// that order. Without it a chunk outside entries yields only the facts of
// the people it introduces ("Name，字X，Place人").
func WithPersons(p Persons, chunks ChunkReader) Option {
	return func(e *Extractor) { e.persons, e.chunkReader = p, chunks }
}

// Linked returns the facts the chunks newly linked to a person (u.Chunks
// of a person's kg-update) give about that person where he opens a
// sentence of a chunk outside entries; nothing without WithPersons, for
// an update of another entity type, or for chunks inside entries (their
// heads are anchored to the entry). Errors reading the graph or the chunk
// store are transient.
func (e *Extractor) Linked(ctx context.Context, tenant string, u schemas.KGUpdate) ([]schemas.Triplet, error) {
	if e.persons == nil || e.chunkReader == nil || len(u.Chunks) == 0 || u.Type != schemas.EntityPerson {
		return nil, nil
	}
	if tenant == "" {
		tenant = schemas.DefaultTenant
	}
	outside, ids := e.knownOutside(tenant, e.notInside(tenant, u.Chunks))
	if len(ids) > 0 {
		cs, err := e.chunkReader.Get(ctx, tenant, ids)
		if err != nil {
			return nil, fmt.Errorf("read the chunks linked to %s: %w", u.EntityID, err)
		}
		for _, c := range cs {
			if !outsideEntries(c) {
				e.rememberInside(tenant, c.ChunkID)
				continue
			}
			if c.Validate() != nil {
				continue
			}
			prof := e.profileOf(c)
			if prof.Language != profile.LangChinese {
				continue
			}
			hz, err := e.han(prof)
			if err != nil {
				return nil, pipeline.Permanent(fmt.Errorf("extract chunk %s: %w", c.ChunkID, err))
			}
			_, secs := hz.extractHan(c.Text, "", c.SubEntry, beginsEntry(c))
			e.rememberOutside(tenant, c, secs)
			outside = append(outside, outsideChunk{c: c, secs: secs})
		}
	}
	if len(outside) == 0 {
		return nil, nil
	}
	// In the update's order, whichever were remembered.
	at := make(map[string]int, len(u.Chunks))
	for i, id := range u.Chunks {
		at[id] = i
	}
	slices.SortStableFunc(outside, func(a, b outsideChunk) int { return cmp.Compare(at[a.c.ChunkID], at[b.c.ChunkID]) })
	names, err := e.personNames(ctx, tenant, u.EntityID)
	if err != nil {
		return nil, fmt.Errorf("read the names of %s: %w", u.EntityID, err)
	}
	known := map[string]bool{}
	for _, n := range names {
		known[n] = true
	}
	var out []schemas.Triplet
	for _, o := range outside {
		c, secs := o.c, o.secs
		hz, err := e.han(e.profileOf(c))
		if err != nil {
			return nil, pipeline.Permanent(fmt.Errorf("extract chunk %s: %w", c.ChunkID, err))
		}
		var facts []fact
		knownFacts(hz, c.Text, secs, func(n string) bool { return known[n] }, func(f fact) { facts = append(facts, f) })
		for _, t := range triplets(c, facts) {
			if err := t.Validate(); err != nil {
				return nil, pipeline.Permanent(fmt.Errorf("extract chunk %s: %w", c.ChunkID, err))
			}
			out = append(out, t)
		}
	}
	e.stats.triplets.Add(int64(len(out)))
	return out, nil
}

// rememberInside records that chunk id of tenant lies inside an entry: a
// chunk id names one text, so the record holds for as long as the id.
func (e *Extractor) rememberInside(tenant, id string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.inside == nil || len(e.inside) >= maxInside {
		e.inside = map[string]struct{}{}
	}
	e.inside[tenant+"\x00"+id] = struct{}{}
}

// outsideChunk is a Chinese chunk outside every entry and the sections
// its headers attribute.
type outsideChunk struct {
	c    schemas.Chunk
	secs []section
}

// rememberOutside keeps chunk c of tenant, which lies outside every
// entry, with its sections: a chunk outside entries (an archive book's)
// names many persons, each of whom announces it when linked, so Linked
// reads it again and again.
func (e *Extractor) rememberOutside(tenant string, c schemas.Chunk, secs []section) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.outside == nil || len(e.outside) >= maxOutside {
		e.outside = map[string]outsideChunk{}
	}
	e.outside[tenant+"\x00"+c.ChunkID] = outsideChunk{c: c, secs: secs}
}

// knownOutside splits ids into the chunks remembered as outside entries
// and the ids to read.
func (e *Extractor) knownOutside(tenant string, ids []string) ([]outsideChunk, []string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	var known []outsideChunk
	var read []string
	for _, id := range ids {
		if o, ok := e.outside[tenant+"\x00"+id]; ok {
			known = append(known, o)
		} else {
			read = append(read, id)
		}
	}
	return known, read
}

// notInside are the ids this process has not seen inside an entry: the
// chunks Linked must read to know where they lie. During an ingestion the
// extractor sees a chunk before the linker links it, so most of a
// person's linked chunks are known to be inside his entry and are not
// read back.
func (e *Extractor) notInside(tenant string, ids []string) []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for _, id := range ids {
		if _, ok := e.inside[tenant+"\x00"+id]; !ok {
			out = append(out, id)
		}
	}
	return out
}

// knownTimeLeads are clauses that may open a sentence before its subject
// without being one: "十二月，南礼主事周镳上言", "是年，叶向高…".
var knownTimeLeads = map[string]bool{
	"是年": true, "是岁": true, "是月": true, "是日": true, "是时": true, "时": true, "初": true,
	"明年": true, "其年": true, "未几": true, "既而": true, "已而": true, "久之": true, "至是": true,
}

// knownSentence is a sentence whose subject may be a known person: the
// names it may open with (longest first) and where they start.
type knownSentence struct {
	at, end int
	names   []string
}

// knownSentences lists the sentences of text that open (after a time
// clause at most) with a name-shaped word of two to four characters, and
// lie outside the sections the chunk's own headers attribute. others are
// the names the chunk introduces itself, never taken as known subjects.
func (hz *han) knownSentences(text string, secs []section, others map[string]bool) []knownSentence {
	var out []knownSentence
	sentenceStarts(text, func(at int, _ bool) {
		at += len(text[at:]) - len(strings.TrimLeft(text[at:], " 　\t"))
		end := len(text)
		if j := hanEndSet.index(text[at:]); j >= 0 {
			end = at + j
		}
		if at >= end || sectionAt(secs, at) != nil && sectionAt(secs, at).head != "" {
			return
		}
		if cl, _, ok := strings.Cut(text[at:end], "，"); ok && hz.timeLead(cl) {
			at += len(cl) + len("，")
		}
		var ks knownSentence
		ks.at, ks.end = at, end
		s := text[at:end]
		for n, i := 0, 0; i < len(s) && n < 4; n++ {
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
			if n >= 1 && nameLike(s[:i]) && !others[s[:i]] {
				ks.names = append([]string{s[:i]}, ks.names...)
			}
		}
		if len(ks.names) > 0 {
			out = append(out, ks)
		}
	})
	return out
}

// timeLead reports whether a clause is a date or a time word alone.
func (hz *han) timeLead(cl string) bool {
	if knownTimeLeads[cl] {
		return true
	}
	// Every time the patterns below read ends in one of these: a clause
	// that does not is no time, and the era pattern need not run.
	if r, _ := utf8.DecodeLastRuneInString(cl); !strings.ContainsRune("年中末初月春夏秋冬", r) {
		return false
	}
	if hz.times.of(cl).matchesAll(cl) {
		return true
	}
	t := strings.TrimSuffix(strings.TrimPrefix(cl, "闰"), "月")
	return t != cl && t != "" && strings.Trim(t, "正一二三四五六七八九十冬腊") == ""
}

// knownFacts finds the facts of the known persons that open sentences of
// a chunk outside entries: each such sentence becomes a section headed by
// the name as written (the KG writer resolves it by its aliases), and the
// jinshi, office and death patterns run on those sections only, with the
// checks that keep a clause about someone else from being his. Patterns
// are marked ".known".
func knownFacts(hz *han, text string, secs []section, known func(string) bool, add func(fact)) {
	others := map[string]bool{}
	if len(secs) > 0 {
		others = secs[0].others
	}
	var ksecs []section
	for _, k := range hz.knownSentences(text, secs, others) {
		for _, n := range k.names {
			if known(n) {
				ksecs = append(ksecs, section{start: k.at, end: k.end, head: n,
					full: utf8.RuneCountInString(n) >= 3, others: others})
				break
			}
		}
	}
	if len(ksecs) == 0 {
		return
	}
	mark := func(f fact) {
		f.pattern += ".known"
		if f.headType == "" {
			f.headType = schemas.EntityPerson
		}
		if f.method == "" {
			f.method = MethodRegex
		}
		add(f)
	}
	hz.jinshiFacts(text, ksecs, mark)
	hz.officeFacts(text, ksecs, mark)
	hz.deathFacts(text, ksecs, mark)
}

// outsideEntries reports whether a chunk belongs to no biography entry:
// its people are resolved by name in the KG, not anchored to an entry.
func outsideEntries(c schemas.Chunk) bool {
	return c.Entry == "" && c.EntryChunk == "" && c.Subject == "" && c.SubEntry == ""
}
