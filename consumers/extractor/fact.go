package extractor

import (
	"sort"
	"strconv"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/internal/lang/factkit"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
)

// Methods recorded on triplets.
const (
	MethodRegex    = factkit.MethodRegex // hand-made pattern
	MethodLLMRegex = "llm_regex"         // regex synthesised by the model and validated
	MethodLLM      = "llm"               // plan B: direct extraction by the model
)

// triplets turns facts into triplets of chunk c: evidence spans become rune
// offsets, facts are ordered by position, and a (head, relation, tail)
// stated twice in one chunk is kept once, at its first evidence.
func triplets(c schemas.Chunk, facts []factkit.Fact) []schemas.Triplet {
	sort.SliceStable(facts, func(i, j int) bool {
		if facts[i].Start != facts[j].Start {
			return facts[i].Start < facts[j].Start
		}
		return facts[i].Relation < facts[j].Relation
	})
	seen := make(map[string]bool, len(facts))
	out := make([]schemas.Triplet, 0, len(facts))
	var cur runeCursor
	cur.text = c.Text
	for _, f := range facts {
		if seen[f.Key()] {
			continue
		}
		seen[f.Key()] = true
		start, end := cur.at(f.Start), 0
		end = start + utf8.RuneCountInString(c.Text[f.Start:f.End])
		id := pipeline.ContentID(c.ChunkID, f.Head, f.Relation, f.Tail, strconv.Itoa(start), strconv.Itoa(end))
		out = append(out, schemas.Triplet{
			TripletID:  id,
			Head:       f.Head,
			HeadType:   f.HeadType,
			Relation:   f.Relation,
			Tail:       f.Tail,
			TailType:   f.TailType,
			Qualifiers: f.Qualifiers,
			ChunkID:    c.ChunkID,
			DocID:      c.DocID,
			Entry:      c.Entry,
			EntryChunk: c.EntryChunk,
			Span:       schemas.Span{Start: start, End: end},
			Evidence:   c.Text[f.Start:f.End],
			Method:     f.Method,
			Pattern:    f.Pattern,
			Confidence: f.Confidence,
		})
	}
	return out
}

// runeCursor converts byte offsets of one text into rune offsets, cheaply
// when the offsets come in increasing order.
type runeCursor struct {
	text string
	b, r int
}

func (c *runeCursor) at(b int) int {
	if b < c.b {
		c.b, c.r = 0, 0
	}
	c.r += utf8.RuneCountInString(c.text[c.b:b])
	c.b = b
	return c.r
}
