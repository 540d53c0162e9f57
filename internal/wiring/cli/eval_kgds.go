package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/annalist-dev/annalist/internal/evaluation/dataset"
	"github.com/annalist-dev/annalist/internal/evaluation/eval"
	"github.com/annalist-dev/annalist/internal/lang/en/discourse"
	"github.com/annalist-dev/annalist/schemas"
)

// EvalKGDS is the JSON of `annalist eval kgds`: the report of eval.KGDS
// (overall, dev and held_out scores; results per sample with --results)
// and the run's setting.
type EvalKGDS struct {
	eval.KGDSReport
	Data    string `json:"data"`
	Engine  string `json:"engine"`
	Samples int    `json:"samples"`
	// Seconds is the time spent summarising, SummariesPerSecond the
	// rate.
	Seconds            float64 `json:"seconds"`
	SummariesPerSecond float64 `json:"summaries_per_second"`
}

// evalKGDS is `annalist eval kgds --data FILE [--results]`: every KGDS
// sample of FILE (a JSON array or JSON lines; default: kgds/dev.json of
// the evaluation data) is summarised by the offline engine
// (discourse.Summarize) and scored (eval.KGDS). It opens no service.
func evalKGDS(ctx context.Context, io IO, args []string) error {
	fs := newFlagSet("eval kgds", io.Stderr)
	var c common
	c.register(fs)
	data := fs.String("data", "", "KGDS samples: a JSON array or JSON lines (default: kgds/dev.json under "+dataset.EnvVar+")")
	results := fs.Bool("results", false, "include every sample's result (selection, missed and extra entities) in the JSON")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return fmt.Errorf("%w: want `eval kgds --data FILE [--results]`", errUsage)
	}
	path := *data
	if path == "" {
		path = dataset.Path("kgds/dev.json")
	}
	if path == "" {
		return fmt.Errorf("%w: --data FILE is required", errUsage)
	}
	samples, err := eval.ReadKGDS(path)
	if err != nil {
		return err
	}
	start := time.Now()
	rep := eval.KGDS(samples, func(d schemas.Discussion) schemas.DiscussionSummary {
		return discourse.Summarize(d)
	})
	if err := ctx.Err(); err != nil {
		return err
	}
	out := EvalKGDS{KGDSReport: rep, Data: path, Engine: "offline", Samples: len(samples)}
	out.Seconds = time.Since(start).Seconds()
	if out.Seconds > 0 {
		out.SummariesPerSecond = float64(len(samples)) / out.Seconds
	}
	if !*results {
		out.Results = nil
	}
	if c.json {
		return writeJSON(io.Stdout, out)
	}
	for _, split := range []struct {
		name string
		s    eval.KGDSScore
	}{{"overall", out.Overall}, {"dev", out.Dev}, {"held_out", out.HeldOut}} {
		s := split.s
		fmt.Fprintf(io.Stdout, "%-8s %2d samples  BSP P %.2f R %.2f F1 %.2f (selected %.0f%%, gold %.0f%%)  entity recall %.3f precision %.3f (bold only %.3f)  pronoun share %.3f (gold %.3f)\n",
			split.name, s.Samples, 100*s.BSPPrecision, 100*s.BSPRecall, 100*s.BSPF1, 100*s.SelectedShare, 100*s.GoldShare,
			s.EntityRecall, s.EntityPrecision, s.EntityPrecisionBold, s.PronounShare, s.GoldPronounShare)
	}
	return nil
}
