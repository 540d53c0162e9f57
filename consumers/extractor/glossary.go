package extractor

import (
	"fmt"
	"strings"

	"github.com/annalist-dev/annalist/internal/lang/factkit"
	"github.com/annalist-dev/annalist/internal/lang/zh/glossary"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
)

// ProfileGlossary is the profile of glossary chunks (one entry line each,
// internal/lang/zh/glossary's format).
const ProfileGlossary = glossary.Profile

// Pattern names of glossary triplets.
const (
	patternGlossaryCategory = "glossary.category"
	patternGlossaryAlias    = "glossary.alias"
)

// glossaryFacts turns each entry line of a glossary chunk into facts about
// its term (head type "term"): its category, with the definition as
// evidence, and each other name as an alias. The format is exact, so the
// confidence is full.
func glossaryFacts(text string) []factkit.Fact {
	var out []factkit.Fact
	idx := byteOffsets(text)
	for _, e := range glossary.Parse(text) {
		term := e.Term()
		out = append(out, factkit.Fact{Head: term, HeadType: glossary.HeadType, Relation: glossary.RelCategory,
			Tail: e.Category, TailType: schemas.EntityValue,
			Start: idx[e.DefinitionSpan.Start], End: idx[e.DefinitionSpan.End],
			Method: MethodRegex, Pattern: patternGlossaryCategory, Confidence: 1})
		for _, n := range e.Names[1:] {
			out = append(out, factkit.Fact{Head: term, HeadType: glossary.HeadType, Relation: schemas.RelAlias,
				Tail: n.Text, Start: idx[n.Span.Start], End: idx[n.Span.End],
				Method: MethodRegex, Pattern: patternGlossaryAlias, Confidence: 1})
		}
	}
	return out
}

// byteOffsets maps each rune offset of s, and len(s) in runes, to its byte
// offset.
func byteOffsets(s string) []int {
	out := make([]int, 0, len(s)+1)
	for i := range s {
		out = append(out, i)
	}
	return append(out, len(s))
}

// isGlossaryChunk reports whether c is read as a glossary entry rather than
// as prose.
func isGlossaryChunk(c schemas.Chunk) bool {
	return c.Profile == ProfileGlossary || c.Profile == "" && strings.EqualFold(c.Collection, glossary.Collection)
}

// extractGlossary is Extract for a glossary chunk: the entries' facts, and
// nothing the prose patterns would find in the definitions (a definition
// mentions offices and ranks but states no one's career).
func (e *Extractor) extractGlossary(c schemas.Chunk) ([]schemas.Triplet, error) {
	ts := triplets(c, glossaryFacts(c.Text))
	for _, t := range ts {
		if err := t.Validate(); err != nil {
			return nil, pipeline.Permanent(fmt.Errorf("extract glossary chunk %s: %w", c.ChunkID, err))
		}
	}
	e.stats.chunks.Add(1)
	e.stats.triplets.Add(int64(len(ts)))
	return ts, nil
}
