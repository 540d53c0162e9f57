package extractor

import (
	"sort"
	"strconv"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
)

// Methods recorded on triplets.
const (
	MethodRegex    = "regex"     // hand-made pattern
	MethodLLMRegex = "llm_regex" // regex synthesised by the model and validated
	MethodLLM      = "llm"       // plan B: direct extraction by the model
)

// fact is a triplet before it is tied to its chunk: spans are byte offsets
// into the chunk text.
type fact struct {
	head, headType string
	rel            string
	tail, tailType string
	quals          map[string]string
	start, end     int
	method         string
	pattern        string
	conf           float64
}

func (f fact) key() string { return f.head + "\x00" + f.rel + "\x00" + f.tail }

// triplets turns facts into triplets of chunk c: evidence spans become rune
// offsets, facts are ordered by position, and a (head, relation, tail)
// stated twice in one chunk is kept once, at its first evidence.
func triplets(c schemas.Chunk, facts []fact) []schemas.Triplet {
	sort.SliceStable(facts, func(i, j int) bool {
		if facts[i].start != facts[j].start {
			return facts[i].start < facts[j].start
		}
		return facts[i].rel < facts[j].rel
	})
	seen := make(map[string]bool, len(facts))
	out := make([]schemas.Triplet, 0, len(facts))
	var cur runeCursor
	cur.text = c.Text
	for _, f := range facts {
		if seen[f.key()] {
			continue
		}
		seen[f.key()] = true
		start, end := cur.at(f.start), 0
		end = start + utf8.RuneCountInString(c.Text[f.start:f.end])
		id := pipeline.ContentID(c.ChunkID, f.head, f.rel, f.tail, strconv.Itoa(start), strconv.Itoa(end))
		out = append(out, schemas.Triplet{
			TripletID:  id,
			Head:       f.head,
			HeadType:   f.headType,
			Relation:   f.rel,
			Tail:       f.tail,
			TailType:   f.tailType,
			Qualifiers: f.quals,
			ChunkID:    c.ChunkID,
			DocID:      c.DocID,
			Entry:      c.Entry,
			EntryChunk: c.EntryChunk,
			Span:       schemas.Span{Start: start, End: end},
			Evidence:   c.Text[f.start:f.end],
			Method:     f.method,
			Pattern:    f.pattern,
			Confidence: f.conf,
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
