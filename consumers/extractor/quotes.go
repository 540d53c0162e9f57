package extractor

import (
	"fmt"
	"strings"

	"github.com/annalist-dev/annalist/internal/lang/factkit"
	"github.com/annalist-dev/annalist/internal/lang/quotes"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
)

// Pattern names of quotation triplets.
const (
	patternQuoteAuthor = "quote.author"
	patternQuoteTag    = "quote.tag"
)

// isQuoteChunk reports whether c is a quotation (profile quotes.Profile).
func isQuoteChunk(c schemas.Chunk) bool { return c.Profile == quotes.Profile }

// quoteFacts are the facts of a quotation chunk: its author said its
// words (a person, the whole chunk as evidence), and each tag of its
// title is a topic the chunk is about. The chunk states them exactly, so
// the confidence is full.
func quoteFacts(c schemas.Chunk) []factkit.Fact {
	end := len(c.Text)
	out := []factkit.Fact{{Head: c.Subject, HeadType: schemas.EntityPerson, Relation: quotes.RelSaid,
		Tail: c.Text, TailType: schemas.EntityValue, Start: 0, End: end,
		Method: MethodRegex, Pattern: patternQuoteAuthor, Confidence: 1}}
	for _, tag := range quotes.TagsOf(c.Subject, c.Title) {
		out = append(out, factkit.Fact{Head: tag, HeadType: quotes.HeadType, Relation: schemas.RelMention,
			Start: 0, End: end, Method: MethodRegex, Pattern: patternQuoteTag, Confidence: 1})
	}
	return out
}

// extractQuote is Extract for a quotation chunk: its author and tags, and
// nothing the prose patterns would read in the quotation's words (a
// quotation states no fact about its author's life).
func (e *Extractor) extractQuote(c schemas.Chunk) ([]schemas.Triplet, error) {
	if strings.TrimSpace(c.Subject) == "" {
		return nil, pipeline.Permanent(fmt.Errorf("extract quotation chunk %s: no author (subject)", c.ChunkID))
	}
	ts := triplets(c, quoteFacts(c))
	for _, t := range ts {
		if err := t.Validate(); err != nil {
			return nil, pipeline.Permanent(fmt.Errorf("extract quotation chunk %s: %w", c.ChunkID, err))
		}
	}
	e.stats.chunks.Add(1)
	e.stats.triplets.Add(int64(len(ts)))
	return ts, nil
}
