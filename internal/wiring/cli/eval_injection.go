package cli

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/annalist-dev/annalist/internal/evaluation/dataset"
	"github.com/annalist-dev/annalist/internal/evaluation/eval"
	"github.com/annalist-dev/annalist/internal/evaluation/inject"
	"github.com/annalist-dev/annalist/internal/kit/progress"
	"github.com/annalist-dev/annalist/internal/lang/zh/glossary"
	"github.com/annalist-dev/annalist/internal/wiring/app"
	"github.com/annalist-dev/annalist/internal/wiring/appsystem"
	"github.com/annalist-dev/annalist/producers"
)

// evalInjection is `annalist eval injection --data DIR --n N --seed S`: it
// ingests DIR into a fresh embedded data directory (offline engine), writes
// offline biographies of a seeded sample of the people with their own
// entry, injects one known error into each of N verified sentences and
// mixes in N untouched ones, and runs every case through the verifier,
// router and solvers in-process (internal/evaluation/eval). args are the eval
// command's arguments, with or without the suite's name.
func evalInjection(ctx context.Context, io IO, args []string) error {
	fs := newFlagSet("eval injection", io.Stderr)
	var s service
	s.register(fs)
	data := fs.String("data", "", "liezhuan volumes (default: "+dataset.EnvVar+"/mingshi-liezhuan)")
	var cfg eval.InjectionConfig
	fs.IntVar(&cfg.N, "n", 1000, "injected cases, and untouched sentences mixed with them")
	fs.Uint64Var(&cfg.Seed, "seed", 1, "seed of the subjects, sentences and injected values")
	fs.IntVar(&cfg.Subjects, "subjects", 0, "biographies to draw sentences from (default max(60, n/2))")
	fs.IntVar(&cfg.Workers, "workers", 0, "sentences checked at a time (default: the number of CPUs)")
	failures := fs.Bool("failures", false, "include examples of missed cases in the JSON")
	keep := fs.Bool("keep", false, "keep the evaluation's data directory instead of deleting it")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 || len(pos) == 1 && pos[0] != "injection" {
		return fmt.Errorf("%w: want `eval injection --data DIR [--n N] [--seed S]`", errUsage)
	}
	if cfg.N <= 0 || cfg.Subjects < 0 || cfg.Workers < 0 {
		return fmt.Errorf("%w: --n must be positive, --subjects and --workers not negative", errUsage)
	}
	dir, err := evalData(*data)
	if err != nil {
		return err
	}
	// The offline engine throughout: the evaluation measures the offline
	// verifier and solvers.
	a, log, closeApp, err := s.openOfflineIngestion(ctx, io, "eval injection", "eval-injection-", *keep, app.IngestStages())
	if err != nil {
		return err
	}
	defer closeApp()
	// The glossary the knowledge solver looks terms up in is part of the
	// system under test; it is ingested like any collection.
	g, err := producers.NewItem(glossary.Document())
	if err != nil {
		return err
	}
	if _, err := ingestDir(ctx, a, s.tenant, dir, "ingest", log, g); err != nil {
		return err
	}
	prog := progress.NewCounter("eval injection", log)
	cfg.Progress = prog.Step
	report, err := eval.Injection(ctx, &appsystem.Injection{App: a, Tenant: s.tenant}, cfg)
	prog.Finish()
	if err != nil {
		return err
	}
	if !*failures {
		report.Failures, report.Drafts.NotSupported = nil, nil
	}
	if *keep {
		log.Info().Str("data_dir", filepath.Clean(s.dataDir)).Msg("evaluation state kept")
	}
	if s.json {
		return writeJSON(io.Stdout, report)
	}
	w := io.Stdout
	d := report.Drafts
	fmt.Fprintf(w, "drafts: %d sentences of %d biographies, %d verified as supported (%.3f)\n",
		d.Sentences, d.Subjects-d.Failed, d.Supported, d.SupportedRate)
	fmt.Fprintf(w, "%-11s %5s %9s %8s %10s %8s\n", "type", "n", "detected", "routing", "corrected", "dropped")
	for _, t := range inject.Types() {
		ts := report.Types[t]
		if ts == nil {
			continue
		}
		fmt.Fprintf(w, "%-11s %5d %9.3f %8.3f %10.3f %8d\n", t, ts.N, ts.DetectionRecall, ts.RoutingAccuracy,
			ts.CorrectionAccuracy, ts.Dropped)
	}
	fmt.Fprintf(w, "detection precision %.3f, false positives %.3f of %d untouched\n",
		report.DetectionPrecision, report.FalsePositiveRate, report.Untouched.N)
	fmt.Fprintf(w, "published %d, residual errors %d (%.2f%%), dropped %d (%d injected, %d untouched)\n",
		report.Published, report.Residual, 100*report.ResidualErrorRate, report.Dropped,
		report.DroppedInjected, report.DroppedUntouched)
	return nil
}
