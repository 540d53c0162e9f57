package cli

import (
	"context"
	"fmt"

	"github.com/annalist-dev/annalist/consumers/chunker"
	"github.com/annalist-dev/annalist/consumers/extractor"
	"github.com/annalist-dev/annalist/internal/evaluation/dataset"
	"github.com/annalist-dev/annalist/internal/evaluation/eval"
	"github.com/annalist-dev/annalist/internal/kit/progress"
	"github.com/annalist-dev/annalist/schemas"
)

// evalExtraction is `annalist eval extraction --data DIR [--failures]`:
// every volume under DIR is chunked and extracted offline, in process, as
// the pipeline's chunker and extractor stages do with their default
// configuration, and each entry person's courtesy name, native place,
// jinshi year, death and age at death are scored against the gold read
// from the entry's text (internal/evaluation/eval), on the volumes not held out, the
// held-out ones (every third numbered volume in file order, see
// eval.Extraction) and all; and the people named in parentheses on line 1
// are counted with the facts of their own.
func evalExtraction(ctx context.Context, io IO, args []string) error {
	fs := newFlagSet("eval extraction", io.Stderr)
	var c common
	c.register(fs)
	data := fs.String("data", "", "folder of liezhuan volumes (e.g. "+dataset.EnvVar+"/mingshi-liezhuan)")
	failures := fs.Bool("failures", false, "include the wrong, unsupported and missed values in the JSON")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return fmt.Errorf("%w: want `eval extraction --data DIR [--failures] [--json]`", errUsage)
	}
	dir := *data
	if dir == "" {
		dir = dataset.Path("mingshi-liezhuan")
	}
	if dir == "" {
		return fmt.Errorf("%w: --data DIR is required", errUsage)
	}
	log, err := c.logger(io.Stderr)
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	ch := chunker.New(chunker.Config{})
	ex := extractor.New(extractor.Config{})
	extract := func(ctx context.Context, ck schemas.Chunk) ([]schemas.Triplet, error) {
		return ex.Extract(ctx, c.tenant, ck)
	}
	prog := progress.NewCounter("extraction", log)
	report, err := eval.Extraction(ctx, dir, ch.Chunk, extract, prog.Step)
	prog.Finish()
	if err != nil {
		return err
	}
	if !*failures {
		report.Errors = nil
	}
	if c.json {
		return writeJSON(io.Stdout, report)
	}
	for _, sp := range []struct {
		name string
		s    eval.ExtractionSplit
	}{{"dev-rest", report.DevRest}, {"held-out", report.HeldOut}, {"all", report.All}} {
		fmt.Fprintf(io.Stdout, "%s: %d volumes, %d entries\n", sp.name, sp.s.Volumes, sp.s.Entries)
		for _, r := range eval.ExtractionRelations {
			x := sp.s.Relations[r]
			fmt.Fprintf(io.Stdout, "  %-14s precision %.3f (%d+%d/%d) gold-precision %.3f recall %.3f (%d/%d)\n",
				r, x.Precision, x.Correct, x.Supported, x.Predicted, x.PrecisionGold, x.Recall, x.Found, x.Gold)
		}
	}
	a := report.Attached
	fmt.Fprintf(io.Stdout, "attached: %d listed, %d with a fact (%.3f), %d in their own entry (%.3f); %d open a sentence, %d of them with a fact (%.3f)\n",
		a.Listed, a.WithFact, a.Share, a.OwnEntry, a.OwnEntryShare, a.Opening, a.OpeningWithFact, a.OpeningShare)
	return nil
}
