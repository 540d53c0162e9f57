package claims

import (
	"sort"

	"github.com/annalist-dev/annalist/internal/lang/text"
	"github.com/annalist-dev/annalist/internal/lang/zh/era"
	"github.com/annalist-dev/annalist/schemas"
)

// refDoc is one reference, prepared for matching.
type refDoc struct {
	ref   schemas.Reference
	rs    []rune
	norm  normText
	dates []dateSpan
	// passages are the indices of the document's passages in the index.
	passages []int
}

// passage is one sentence of a reference.
type passage struct {
	doc        int
	start, end int // rune offsets in the reference text
	ns, ne     int // the same range in the normalized text
	toks       text.TokenSet
}

// Index is a reference set prepared for checking: its references with
// their prepared texts, and a postings list of their passages' tokens.
// Read-only once built, so one index serves concurrent checks.
type Index struct {
	docs     []refDoc
	passages []passage
	byChunk  map[string]int
	// postings lists, per token, the passages holding it, in order: a
	// sentence is scored against every passage of its reference set, and
	// a topic page's set holds thousands, so a token's passages are
	// counted from here instead of merging the sentence's tokens with
	// every passage's.
	postings map[uint64][]int32
}

// jaccards returns the token Jaccard of a with every passage, as
// a.Jaccard(passage.toks) would.
func (x *Index) jaccards(a text.TokenSet) []float64 {
	out := make([]float64, len(x.passages))
	if len(a) == 0 {
		return out
	}
	inter := make([]int32, len(x.passages))
	for _, t := range a {
		for _, p := range x.postings[t] {
			inter[p]++
		}
	}
	for p, n := range inter {
		if n > 0 {
			out[p] = float64(n) / float64(len(a)+x.passages[p].toks.Len()-int(n))
		}
	}
	return out
}

// Docs is the number of references indexed (references with an empty text
// or a chunk id seen before are left out).
func (x *Index) Docs() int { return len(x.docs) }

// Doc is the i-th reference indexed.
func (x *Index) Doc(i int) schemas.Reference { return x.docs[i].ref }

// DocOf is the position of chunk id's reference among those indexed.
func (x *Index) DocOf(chunkID string) (int, bool) {
	i, ok := x.byChunk[chunkID]
	return i, ok
}

// Passages is the number of passages (sentences) of the references
// indexed.
func (x *Index) Passages() int { return len(x.passages) }

// Passage is passage p: the reference it is in (as Doc numbers it) and its
// rune span in that reference's text.
func (x *Index) Passage(p int) (doc, start, end int) {
	ps := x.passages[p]
	return ps.doc, ps.start, ps.end
}

// Jaccards is the token Jaccard (text.TokenSet) of a with every passage,
// by passage number.
func (x *Index) Jaccards(a text.TokenSet) []float64 { return x.jaccards(a) }

// Prepared is a reference text prepared for matching: what a reference
// set's index holds of it, shared by every set that holds the same chunk
// text: its runes, normalized text, dates and passages. Read-only once
// built.
type Prepared struct {
	rs    []rune
	norm  normText
	dates []dateSpan
	// passages are its sentences; doc is left zero.
	passages []passage
}

// Prepare prepares a reference text, reading its dates with tab.
func Prepare(tab *era.Table, txt string) *Prepared {
	p := &Prepared{rs: []rune(txt), norm: normalize(txt), dates: findDates(tab, txt)}
	for _, sp := range text.SentencesRunes(p.rs) {
		ns := sort.SearchInts(p.norm.pos, sp.Start)
		ne := sort.SearchInts(p.norm.pos, sp.End)
		if ne <= ns {
			continue
		}
		p.passages = append(p.passages, passage{
			start: sp.Start, end: sp.End, ns: ns, ne: ne, toks: text.NewTokenSet(string(p.rs[sp.Start:sp.End])),
		})
	}
	return p
}

// NewIndex indexes refs from their prepared texts, which prep gives (a
// caller keeps prepared texts between reference sets that share chunks).
func NewIndex(refs *schemas.ReferenceSet, prep func(schemas.Reference) *Prepared) *Index {
	x := &Index{byChunk: make(map[string]int, len(refs.References)), postings: map[uint64][]int32{}}
	for _, r := range refs.References {
		if _, dup := x.byChunk[r.ChunkID]; dup || r.Text == "" {
			continue
		}
		di := len(x.docs)
		x.byChunk[r.ChunkID] = di
		p := prep(r)
		doc := refDoc{ref: r, rs: p.rs, norm: p.norm, dates: p.dates, passages: make([]int, 0, len(p.passages))}
		for _, ps := range p.passages {
			doc.passages = append(doc.passages, len(x.passages))
			for _, t := range ps.toks {
				x.postings[t] = append(x.postings[t], int32(len(x.passages)))
			}
			ps.doc = di
			x.passages = append(x.passages, ps)
		}
		x.docs = append(x.docs, doc)
	}
	return x
}

// evidence is the evidence of doc's runes [s, e).
func (x *Index) evidence(doc, s, e int) schemas.Evidence {
	d := &x.docs[doc]
	if s < 0 {
		s = 0
	}
	if e > len(d.rs) {
		e = len(d.rs)
	}
	return schemas.Evidence{ChunkID: d.ref.ChunkID, Span: schemas.Span{Start: s, End: e}, Text: string(d.rs[s:e])}
}

// passageEvidence is the evidence of a whole passage.
func (x *Index) passageEvidence(p int) schemas.Evidence {
	ps := x.passages[p]
	return x.evidence(ps.doc, ps.start, ps.end)
}

// passageAt is the passage of doc that holds rune offset r, or -1.
func (x *Index) passageAt(doc, r int) int {
	for _, p := range x.docs[doc].passages {
		if x.passages[p].start <= r && r < x.passages[p].end {
			return p
		}
	}
	return -1
}
