package cli

import (
	"context"
	"fmt"

	"github.com/annalist-dev/annalist/consumers/chunker"
	"github.com/annalist-dev/annalist/internal/evaluation/dataset"
	"github.com/annalist-dev/annalist/internal/evaluation/eval"
	"github.com/annalist-dev/annalist/internal/kit/progress"
)

func cmdEval(ctx context.Context, io IO, args []string) error {
	// Suites that run the pipeline take the service flags: hand them the
	// command line without the suite's name.
	for i, a := range args {
		suite := map[string]func(context.Context, IO, []string) error{
			"retrieval": evalRetrieval, "injection": evalInjection, "mentions": evalMentions, "topics": evalTopics, "kgds": evalKGDS, "extraction": evalExtraction, "linking": evalLinking, "support": evalSupport, "quotes": evalQuotes, "answers": evalAnswers}[a]
		if suite != nil {
			return suite(ctx, io, append(append([]string{}, args[:i]...), args[i+1:]...))
		}
	}
	fs := newFlagSet("eval", io.Stderr)
	var c common
	c.register(fs)
	data := fs.String("data", "", "evaluation data folder (segmentation: liezhuan volumes, e.g. "+dataset.EnvVar+"/mingshi-liezhuan)")
	failures := fs.Bool("failures", false, "include per-volume failures in the JSON")
	noListing := fs.Bool("no-listing", false, "segmentation: hide line 1 (the listing of names) from the chunker; the scores still read it")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("%w: want a suite: segmentation, extraction, retrieval, injection, mentions, topics, linking, kgds, support, quotes or answers", errUsage)
	}
	log, err := c.logger(io.Stderr)
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	switch pos[0] {
	case "segmentation":
		dir := *data
		if dir == "" {
			dir = dataset.Path("mingshi-liezhuan")
		}
		if dir == "" {
			return fmt.Errorf("%w: --data DIR is required", errUsage)
		}
		ch := chunker.New(chunker.Config{})
		prog := progress.NewCounter("segmentation", log)
		report, err := eval.SegmentationWith(ctx, dir, ch.Chunk, eval.SegmentationOptions{NoListing: *noListing}, prog.Step)
		prog.Finish()
		if err != nil {
			return err
		}
		if !*failures {
			report.Failures = nil
		}
		if c.json {
			return writeJSON(io.Stdout, report)
		}
		fmt.Fprintf(io.Stdout, "volumes %d (named %d), exact %d (%.1f%%)\n", report.Volumes, report.VolumesNamed, report.VolumesExact, 100*report.ExactRate)
		fmt.Fprintf(io.Stdout, "name recall %.4f (%d/%d), name precision %.4f (%d/%d entry chunks)\n",
			report.NameRecall, report.NamesFound, report.NamesListed, report.NamePrecision, report.EntryChunksListed, report.EntryChunks)
		fmt.Fprintf(io.Stdout, "entry openings: recall %.4f (%d/%d), precision %.4f (%d/%d chunks with a subject, %d attached)\n",
			report.Entries.Recall, report.Entries.Found, report.Entries.Gold, report.Entries.Precision,
			report.Entries.Correct, report.Entries.Chunks, report.AttachedChunks)
		fmt.Fprintf(io.Stdout, "subjects, attached ones counted: precision %.4f (%d/%d names, %d of %d attached)\n",
			report.SubjectPrecision, report.SubjectsNamed, report.Subjects, report.AttachedNamed, report.AttachedChunks)
		for _, n := range report.NotNames {
			fmt.Fprintf(io.Stdout, "  not a name (%s): %s  %s %s  %s\n", n.Reason, n.Subject, n.Volume, n.Chunk, n.Text)
		}
		return nil
	default:
		return fmt.Errorf("%w: unknown suite %q (want segmentation)", errUsage, pos[0])
	}
}
