package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/annalist-dev/annalist/internal/evaluation/dataset"
	"github.com/annalist-dev/annalist/internal/evaluation/eval"
	"github.com/annalist-dev/annalist/internal/lang/quotes"
	"github.com/annalist-dev/annalist/internal/wiring/app"
	"github.com/annalist-dev/annalist/producers"
	"github.com/annalist-dev/annalist/schemas"
)

// EvalQuotes is the JSON of `annalist eval quotes`.
type EvalQuotes struct {
	eval.QuotesReport
	Data string `json:"data"`
	Seed uint64 `json:"seed"`
	// Untagged says which quotations were ingested without their tags
	// (--untagged): "held-out", or "dev" (the held-out split's scores are
	// then those of the untagged development fifth).
	Untagged string `json:"untagged"`
	// Refused are the records the collection's ingestion refused, with
	// the reason.
	Refused []string `json:"refused,omitempty"`
}

// quotesFile is the collection's file in a folder of the quotable data.
const quotesFile = "quotable_quotes.json"

// evalQuotes is `annalist eval quotes --data DIR_OR_FILE`: it ingests the
// collection into a fresh embedded data directory, the tags of the
// held-out quotations (quotes.HeldOut) withheld, asks the finder of
// `annalist quote` for five quotations for random tags and for the most
// frequent ones, ranking within all quotations, the development ones and
// the held-out ones, and scores verbatim text, attribution and
// precision@5 against the collection (eval.Quotes). With --untagged dev
// the held-out quotations are not read at all: the development ones are
// ingested, a fifth of them (quotes.DevSplitID) without their tags, and
// that fifth takes the held-out split's place, the setting to develop the
// search for untagged quotations in.
func evalQuotes(ctx context.Context, io IO, args []string) error {
	fs := newFlagSet("eval quotes", io.Stderr)
	var s service
	s.register(fs)
	data := fs.String("data", "", "a quotable file or a folder holding "+quotesFile+" (default: "+dataset.EnvVar+"/quotes)")
	topics := fs.Int("topics", 50, "tags drawn at random as queries")
	top := fs.Int("top", 10, "most frequent tags (but --exclude) asked as well")
	exclude := fs.String("exclude", "Famous Quotes", "tag left out of the most frequent")
	seed := fs.Uint64("seed", 1, "seed of the random draw of tags")
	keep := fs.Bool("keep", false, "keep the evaluation's data directory instead of deleting it")
	untagged := fs.String("untagged", "held-out", "quotations ingested without their tags: held-out, or dev (a fifth of the development ones; the held-out ones are left out)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 || len(pos) == 1 && pos[0] != "quotes" {
		return fmt.Errorf("%w: want `eval quotes --data DIR_OR_FILE`", errUsage)
	}
	if *untagged != "held-out" && *untagged != "dev" {
		return fmt.Errorf("%w: --untagged %q: want held-out or dev", errUsage, *untagged)
	}
	if *topics < 0 || *top < 0 {
		return fmt.Errorf("%w: --topics and --top must not be negative", errUsage)
	}
	path := *data
	if path == "" {
		path = dataset.Path("quotes")
	}
	if path == "" {
		return fmt.Errorf("%w: --data DIR_OR_FILE is required", errUsage)
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, quotesFile)
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	recs, err := quotes.Parse(f)
	f.Close()
	if err != nil {
		return err
	}
	if *untagged == "dev" {
		// The development quotations under the ids whose HeldOut is the
		// development fifth's: eval.Quotes splits by them.
		var dev []quotes.Record
		for _, r := range recs {
			if !quotes.HeldOut(r.ID) {
				r.ID = quotes.DevSplitID(r.ID)
				dev = append(dev, r)
			}
		}
		recs = dev
	}
	ingested := make([]quotes.Record, len(recs))
	held := map[[2]string]bool{}
	for i, r := range recs {
		ingested[i] = r
		if quotes.HeldOut(r.ID) {
			ingested[i].Tags = nil
			held[[2]string{r.Content, r.Author}] = true
		}
	}
	body, err := json.Marshal(ingested)
	if err != nil {
		return err
	}
	a, log, closeApp, err := s.openOfflineIngestion(ctx, io, "eval quotes", "eval-quotes-", *keep, app.IngestStages())
	if err != nil {
		return err
	}
	defer closeApp()
	res, err := a.Ingest(ctx, s.tenant, true, true, func(ctx context.Context, sink producers.Sink) (producers.Summary, error) {
		return producers.IngestQuotes(ctx, bytes.NewReader(body), filepath.Base(path), s.tenant, sink)
	})
	if err != nil {
		return err
	}
	log.Info().Int("documents", res.Documents).Int("refused", len(res.Errors)).Msg("collection ingested")
	finder, err := a.QuoteFinder()
	if err != nil {
		return err
	}
	sys := quoteSystem{f: finder, tenant: s.tenant, held: held}
	rep, err := eval.Quotes(ctx, sys, recs, eval.QuotesOptions{Random: *topics, Seed: *seed, Top: *top, Exclude: *exclude})
	if err != nil {
		return err
	}
	out := EvalQuotes{QuotesReport: rep, Data: path, Seed: *seed, Untagged: *untagged, Refused: res.Errors}
	if s.json {
		return writeJSON(io.Stdout, out)
	}
	fmt.Fprintf(io.Stdout, "%d records (%d untagged: %s), %d queries, %d quotations returned\n", rep.Records, rep.HeldOutRecords, *untagged, rep.Queries, rep.Returned)
	fmt.Fprintf(io.Stdout, "verbatim %.4f, attributed %.4f\n", rep.VerbatimRate, rep.AttributedRate)
	for _, p := range []struct {
		name string
		m    eval.QuotePrecision
	}{{"random tags", rep.Random}, {"top tags", rep.Top}} {
		fmt.Fprintf(io.Stdout, "precision@5, %s: all %.4f (%d tags), tagged %.4f (%d), untagged %.4f (%d)\n",
			p.name, p.m.All, p.m.TagsAll, p.m.Dev, p.m.TagsDev, p.m.HeldOut, p.m.TagsHeldOut)
	}
	for _, t := range rep.TopTags {
		fmt.Fprintf(io.Stdout, "  %-14s %4d quotations: all %.2f  tagged %.2f  untagged %.2f (%d)\n", t.Tag, t.Quotes, t.All, t.Dev, t.HeldOut, t.HeldOutQuotes)
	}
	return nil
}

// quoteSystem is the quotation finder as eval.Quotes measures it: a
// quotation's split is its record's (held: text and author of the
// held-out records).
type quoteSystem struct {
	f      *quotes.Finder
	tenant string
	held   map[[2]string]bool
}

func (q quoteSystem) Quote(ctx context.Context, query string, n int, split string) ([]eval.QuoteHit, error) {
	var keep func(schemas.Chunk) bool
	switch split {
	case eval.QuoteSplitDev:
		keep = func(c schemas.Chunk) bool { return !q.held[[2]string{c.Text, c.Subject}] }
	case eval.QuoteSplitHeldOut:
		keep = func(c schemas.Chunk) bool { return q.held[[2]string{c.Text, c.Subject}] }
	}
	ranked, err := q.f.Find(ctx, q.tenant, query, n, keep)
	if err != nil {
		return nil, err
	}
	out := make([]eval.QuoteHit, len(ranked))
	for i, r := range ranked {
		out[i] = eval.QuoteHit{Text: r.Text, Author: r.Author, ChunkID: r.ChunkID}
	}
	return out, nil
}
