package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"slices"
	"strings"
)

// BenchAgainst is `bench KIND --baseline BIN --repeat N`: the same
// benchmark run N times by this binary and N times by BIN, alternately
// (this, baseline, this, …), each run a fresh process, so that both meet
// the same machine in the same state. Every numeric figure the two
// report at the top level of their JSON is summarised by its median over
// the runs; Ratio is this binary's median over the baseline's (above 1:
// higher here, which is better for a rate and worse for a time).
type BenchAgainst struct {
	Kind     string               `json:"kind"`
	Repeat   int                  `json:"repeat"`
	This     string               `json:"this"`
	Baseline string               `json:"baseline"`
	Args     []string             `json:"args"`
	Median   map[string]float64   `json:"median"`
	Base     map[string]float64   `json:"baseline_median"`
	Ratio    map[string]float64   `json:"ratio"`
	Runs     []map[string]float64 `json:"runs"`
	BaseRuns []map[string]float64 `json:"baseline_runs"`
}

// benchNotPassed are the flags a bench against a baseline does not pass
// on to the runs it makes.
var benchNotPassed = []string{"baseline", "repeat", "json", "cpuprofile", "blockprofile", "mutexprofile"}

// benchArgs are the arguments of one run: the benchmark, the flags set on
// this command but those of benchNotPassed, and --json.
func benchArgs(fs *flag.FlagSet, kind string) []string {
	args := []string{"bench", kind}
	fs.Visit(func(f *flag.Flag) {
		if !slices.Contains(benchNotPassed, f.Name) {
			args = append(args, "--"+f.Name+"="+f.Value.String())
		}
	})
	return append(args, "--json")
}

// benchAgainst runs the alternation and reports it.
func benchAgainst(ctx context.Context, io IO, fs *flag.FlagSet, kind, baseline string, repeat int, asJSON bool) error {
	if repeat < 1 {
		return fmt.Errorf("%w: --repeat must be at least 1", errUsage)
	}
	this, err := os.Executable()
	if err != nil {
		return fmt.Errorf("bench against a baseline: this binary: %w", err)
	}
	if st, err := os.Stat(baseline); err != nil || st.IsDir() {
		return fmt.Errorf("%w: --baseline %s is not a binary", errUsage, baseline)
	}
	out := BenchAgainst{Kind: kind, Repeat: repeat, This: this, Baseline: baseline, Args: benchArgs(fs, kind)}
	for i := range repeat {
		for _, bin := range []string{this, baseline} {
			fmt.Fprintf(io.Stderr, "bench %s: run %d of %d with %s\n", kind, i+1, repeat, bin)
			figs, err := benchRun(ctx, bin, out.Args)
			if err != nil {
				return err
			}
			if bin == this {
				out.Runs = append(out.Runs, figs)
			} else {
				out.BaseRuns = append(out.BaseRuns, figs)
			}
		}
	}
	out.Median, out.Base = medians(out.Runs), medians(out.BaseRuns)
	out.Ratio = map[string]float64{}
	for k, v := range out.Median {
		if b, ok := out.Base[k]; ok && b != 0 {
			out.Ratio[k] = math.Round(v/b*1000) / 1000
		}
	}
	if asJSON {
		return writeJSON(io.Stdout, out)
	}
	keys := make([]string, 0, len(out.Ratio))
	for k := range out.Ratio {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	fmt.Fprintf(io.Stdout, "bench %s, %d runs each, medians: this / baseline = ratio\n", kind, repeat)
	for _, k := range keys {
		fmt.Fprintf(io.Stdout, "  %-28s %12.4g / %12.4g = %.3f\n", k, out.Median[k], out.Base[k], out.Ratio[k])
	}
	return nil
}

// benchRun runs one benchmark with bin and returns the numeric figures at
// the top level of its JSON.
func benchRun(ctx context.Context, bin string, args []string) (map[string]float64, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("bench run %s %s: %w: %s", bin, strings.Join(args, " "), err, lastLine(stderr.String()))
	}
	var all map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &all); err != nil {
		return nil, fmt.Errorf("bench run %s: its output is not one JSON object: %w", bin, err)
	}
	figs := map[string]float64{}
	for k, v := range all {
		if f, ok := v.(float64); ok {
			figs[k] = f
		}
	}
	return figs, nil
}

// medians is the median of each figure over the runs that report it.
func medians(runs []map[string]float64) map[string]float64 {
	by := map[string][]float64{}
	for _, r := range runs {
		for k, v := range r {
			by[k] = append(by[k], v)
		}
	}
	out := make(map[string]float64, len(by))
	for k, vs := range by {
		slices.Sort(vs)
		n := len(vs)
		if n%2 == 1 {
			out[k] = vs[n/2]
		} else {
			out[k] = (vs[n/2-1] + vs[n/2]) / 2
		}
	}
	return out
}

// lastLine is the last non-empty line of s, trimmed.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
