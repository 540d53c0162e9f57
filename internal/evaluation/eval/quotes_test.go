package eval_test

import (
	"context"
	"testing"

	"github.com/annalist-dev/annalist/internal/evaluation/eval"
	"github.com/annalist-dev/annalist/internal/lang/quotes"
)

// fixedQuotes answers every query with the same hits.
type fixedQuotes []eval.QuoteHit

func (f fixedQuotes) Quote(context.Context, string, int, string) ([]eval.QuoteHit, error) {
	return f, nil
}

var quoteRecords = []quotes.Record{
	{ID: "a", Content: "Still water runs deep.", Author: "Ann Lee", Tags: []string{"Calm", "Water"}},
	{ID: "b", Content: "Run, and the road runs with you.", Author: "Bo Ray", Tags: []string{"Running"}},
	{ID: "c", Content: "Rain is the sky remembering the sea.", Author: "Ann Lee", Tags: []string{"Water"}},
}

// The scorer catches a text altered by one word and a text given to
// another author, and counts a fitting quotation for its tag only.
func TestQuotesScoresVerbatimAttributionAndPrecision(t *testing.T) {
	sys := fixedQuotes{
		{Text: "Still water runs deep.", Author: "Ann Lee"},
		{Text: "Still water runs deeper.", Author: "Ann Lee"},
		{Text: "Rain is the sky remembering the sea.", Author: "Bo Ray"},
		{Text: "Rain is the sky remembering the sea.", Author: "Ann Lee"},
	}
	rep, err := eval.Quotes(context.Background(), sys, quoteRecords, eval.QuotesOptions{Top: 1, Exclude: "Running"})
	if err != nil {
		t.Fatal(err)
	}
	// One topic (Water, the most frequent) in three splits, four hits each.
	if rep.Queries != 3 || rep.Returned != 12 || rep.Verbatim != 9 || rep.Attributed != 6 {
		t.Fatalf("queries %d returned %d verbatim %d attributed %d; want 3, 12, 9, 6", rep.Queries, rep.Returned, rep.Verbatim, rep.Attributed)
	}
	if rep.VerbatimRate != 0.75 || rep.AttributedRate != 0.5 || len(rep.Unverbatim) != 3 || len(rep.Misattributed) != 3 {
		t.Errorf("rates %v %v, failures %d %d", rep.VerbatimRate, rep.AttributedRate, len(rep.Unverbatim), len(rep.Misattributed))
	}
	if len(rep.TopTags) != 1 || rep.TopTags[0].Tag != "Water" || rep.TopTags[0].All != 0.4 {
		t.Errorf("top tags %+v; want Water with precision@5 2/5", rep.TopTags)
	}
}

// The random draw is fixed by the seed and the most frequent tags leave
// out the excluded one.
func TestQuoteTopics(t *testing.T) {
	r1, top, count := eval.QuoteTopics(quoteRecords, eval.QuotesOptions{Random: 2, Seed: 7, Top: 2, Exclude: "Water"})
	r2, _, _ := eval.QuoteTopics(quoteRecords, eval.QuotesOptions{Random: 2, Seed: 7})
	if len(r1) != 2 || r1[0] != r2[0] || r1[1] != r2[1] {
		t.Errorf("random %v then %v with one seed", r1, r2)
	}
	if len(top) != 2 || top[0] != "Calm" || top[1] != "Running" || count["Water"] != 2 {
		t.Errorf("top %v, count %v", top, count)
	}
}
