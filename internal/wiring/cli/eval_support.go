package cli

import (
	"context"
	"fmt"

	"github.com/annalist-dev/annalist/infra/llm"
	"github.com/annalist-dev/annalist/internal/evaluation/dataset"
	"github.com/annalist-dev/annalist/internal/evaluation/eval"
	"github.com/annalist-dev/annalist/internal/kit/progress"
	"github.com/annalist-dev/annalist/internal/kit/supportllm"
)

// EvalSupport is the JSON of `annalist eval support`: the report of
// eval.Support (overall, dev and held-out figures, each with the
// majority baseline; the claims skipped; the SAFE anchor) and the run's
// setting; for the llm engine the judge's counters and the model's usage.
type EvalSupport struct {
	eval.SupportReport
	Data   string            `json:"data"`
	Engine string            `json:"engine"`
	Judge  *supportllm.Stats `json:"judge,omitempty"`
	LLM    *llm.Usage        `json:"llm,omitempty"`
}

// evalSupport is `annalist eval support --data FILE [--engine offline|llm]`:
// every claim of an ExpertQA JSON-lines file (default:
// expertqa/domain_test.jsonl of the evaluation data) that has evidence and
// an expert label of Complete, Partial or Incomplete is judged and scored
// against the label (eval.Support). It opens no service.
func evalSupport(ctx context.Context, io IO, args []string) error {
	fs := newFlagSet("eval support", io.Stderr)
	var c common
	c.register(fs)
	var e supportEngine
	e.register(fs)
	data := fs.String("data", "", "ExpertQA JSON lines (default: expertqa/domain_test.jsonl under "+dataset.EnvVar+")")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return fmt.Errorf("%w: want `eval support --data FILE [--engine offline|llm]`", errUsage)
	}
	log, err := c.logger(io.Stderr)
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	path := *data
	if path == "" {
		path = dataset.Path("expertqa/domain_test.jsonl")
	}
	if path == "" {
		return fmt.Errorf("%w: --data FILE is required", errUsage)
	}
	d, err := eval.ReadSupport(path)
	if err != nil {
		return err
	}
	judge, lj, model, err := e.open(ctx)
	if err != nil {
		return err
	}
	prog := progress.NewCounter("support", log)
	rep, err := eval.Support(ctx, d, func(ctx context.Context, claim string, evidence []string) (string, float64, error) {
		r, _, err := judge(ctx, claim, evidence)
		return r.Label, r.Score, err
	}, prog.Step)
	prog.Finish()
	if err != nil {
		return err
	}
	out := EvalSupport{SupportReport: rep, Data: path, Engine: e.engine}
	if lj != nil {
		st := lj.Stats()
		out.Judge = &st
		u := model.Usage()
		out.LLM = &u
	}
	if c.json {
		return writeJSON(io.Stdout, out)
	}
	for _, split := range []struct {
		name string
		s    eval.SupportScore
	}{{"overall", rep.Overall}, {"dev", rep.Dev}, {"held_out", rep.HeldOut}} {
		s := split.s
		fmt.Fprintf(io.Stdout, "%-8s %4d claims (complete %d)  agreement %.4f  balanced accuracy %.4f (recall complete %.4f, other %.4f)  majority %q: agreement %.4f\n",
			split.name, s.Items, s.Complete, s.Agreement, s.BalancedAccuracy, s.RecallComplete, s.RecallOther, s.Majority.Label, s.Majority.Agreement)
	}
	fmt.Fprintf(io.Stdout, "skipped %v; SAFE's agreement with humans: %.2f\n", rep.Skipped, rep.Anchor)
	return nil
}
