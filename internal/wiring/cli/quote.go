package cli

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/annalist-dev/annalist/internal/lang/quotes"
	"github.com/annalist-dev/annalist/internal/wiring/app"
)

// QuoteOutput is one quotation of `annalist quote TOPIC_OR_TEXT --json`:
// its text byte for byte as the collection holds it, its author as the
// collection names them, the ranking's score, whether the score passes
// the cut a page's quotation must pass (quotes.Model.Cut), the chunk that
// holds it (the citation) and its tags.
type QuoteOutput struct {
	Text    string   `json:"text"`
	Author  string   `json:"author"`
	Score   float64  `json:"score"`
	Fits    bool     `json:"fits"`
	ChunkID string   `json:"chunk_id"`
	Tags    []string `json:"tags"`
}

// cmdQuote is `annalist quote TOPIC_OR_TEXT [--n N]`: the quotations of
// the ingested collection that fit a topic or a text, best first.
func cmdQuote(ctx context.Context, io IO, args []string) error {
	fs := newFlagSet("quote", io.Stderr)
	var s service
	s.register(fs)
	n := fs.Int("n", 5, "quotations to return")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || strings.TrimSpace(pos[0]) == "" {
		return fmt.Errorf("%w: want `quote TOPIC_OR_TEXT`", errUsage)
	}
	if *n <= 0 {
		return fmt.Errorf("%w: --n must be positive", errUsage)
	}
	a, log, err := s.open(ctx, io, app.Needs{Redis: true, Vectors: true})
	if err != nil {
		first := err
		if a, log, err = s.open(ctx, io, app.Needs{Redis: true}); err != nil {
			return errors.Join(first, err)
		}
		log.Warn().Err(first).Msg("vector store unavailable: quotations are found by their tags alone")
	}
	defer a.Close()
	f, err := a.QuoteFinder()
	if err != nil {
		return err
	}
	ranked, err := f.Find(ctx, s.tenant, pos[0], *n, nil)
	if err != nil {
		return err
	}
	out := quoteOutputs(ranked)
	if s.json {
		return writeJSON(io.Stdout, out)
	}
	if len(out) == 0 {
		fmt.Fprintf(io.Stdout, "no quotation fits %q\n", pos[0])
	}
	for _, q := range out {
		mark := " "
		if q.Fits {
			mark = "*"
		}
		fmt.Fprintf(io.Stdout, "%.3f%s “%s” — %s  [%s]\n", q.Score, mark, q.Text, q.Author, q.ChunkID)
	}
	return nil
}

func quoteOutputs(ranked []quotes.Ranked) []QuoteOutput {
	out := make([]QuoteOutput, len(ranked))
	for i, r := range ranked {
		tags := r.Tags
		if tags == nil {
			tags = []string{}
		}
		out[i] = QuoteOutput{Text: r.Text, Author: r.Author, Score: math.Round(r.Score*1e4) / 1e4, Fits: r.Fits, ChunkID: r.ChunkID, Tags: tags}
	}
	return out
}
