package cli

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/annalist-dev/annalist/consumers/linker"
	"github.com/annalist-dev/annalist/internal/dataset"
	"github.com/annalist-dev/annalist/internal/eval"
)

// evalLinking is `annalist eval linking --data DIR... [--held-out]
// [--fit FILE]`: it fits the linker's mention model on the biography
// volumes of DIR (those whose file number is not a multiple of
// --held-out-every), reports its cross-validated and fitted scores, with
// --held-out its score on the held-out volumes, and with --fit writes the
// model as a profile's mention_model.tsv.
func evalLinking(ctx context.Context, io IO, args []string) error {
	fs := newFlagSet("eval linking", io.Stderr)
	var c common
	c.register(fs)
	var dirs dirList
	fs.Var(&dirs, "data", "biography volumes with a listing on line 1 (repeat the flag for several folders; default: the mingshi-liezhuan evaluation data)")
	every := fs.Int("held-out-every", 5, "hold out the volumes whose file number is a multiple of this (0: none)")
	heldOut := fs.Bool("held-out", false, "also score the model on the held-out volumes")
	out := fs.String("fit", "", "write the fitted model to this file (a profile's mention_model.tsv)")
	seed := fs.Uint64("seed", 1, "seed of the random spans and the folds")
	l2 := fs.Float64("l2", 0, "ridge penalty of the fit (0: the fit's default)")
	minCount := fs.Int("min-count", 0, "features seen fewer times count as their rare class (0: the fit's default)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return fmt.Errorf("%w: want `eval linking --data DIR... [--held-out] [--fit FILE]`", errUsage)
	}
	if *every < 0 {
		return fmt.Errorf("%w: --held-out-every must not be negative", errUsage)
	}
	if len(dirs) == 0 {
		d := dataset.Path("mingshi-liezhuan")
		if d == "" {
			return fmt.Errorf("%w: --data DIR is required", errUsage)
		}
		dirs = append(dirs, d)
	}
	opts := eval.LinkingOptions{HeldOutEvery: *every, Seed: *seed, Fit: linker.FitConfig{L2: *l2, MinCount: *minCount}}
	vols, err := eval.LinkingExamples(ctx, dirs, opts)
	if err != nil {
		return err
	}
	rep, err := eval.Linking(ctx, vols, opts, *heldOut)
	if err != nil {
		return err
	}
	if *out != "" {
		if err := os.WriteFile(*out, []byte(modelTSV(rep, dirs, *every)), 0o644); err != nil {
			return fmt.Errorf("write the mention model: %w", err)
		}
	}
	if c.json {
		return writeJSON(io.Stdout, rep)
	}
	cv := rep.CrossValidated
	fmt.Fprintf(io.Stdout, "%d volumes (%d held out), %d features; cross-validated over %d folds: AUC %.4f, log loss %.4f, precision %.4f, recall %.4f\n",
		rep.Volumes, rep.HeldOutVolumes, rep.Features, rep.Folds, cv.AUC, cv.LogLoss, cv.Precision, cv.Recall)
	if h := rep.HeldOut; h != nil {
		fmt.Fprintf(io.Stdout, "held out: AUC %.4f, log loss %.4f, precision %.4f, recall %.4f\n", h.AUC, h.LogLoss, h.Precision, h.Recall)
	}
	return nil
}

// modelTSV is the model as a profile's mention_model.tsv: a header saying
// how it was made, then feature and weight per line, sorted.
func modelTSV(rep eval.LinkingReport, dirs []string, every int) string {
	var b strings.Builder
	b.WriteString("# The linker's mention model (consumers/linker.Model): feature, weight.\n")
	b.WriteString("# Fitted by `annalist eval linking --fit` on the volumes of " + strings.Join(baseNames(dirs), ", ") +
		" whose number is not a multiple of " + strconv.Itoa(every) + ";\n")
	fmt.Fprintf(&b, "# cross-validated AUC %.4f over %d folds, %d volumes. Do not edit by hand: fit again.\n",
		rep.CrossValidated.AUC, rep.Folds, rep.Volumes)
	w := rep.Model.Weights()
	keys := make([]string, 0, len(w))
	for k := range w {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "%s\t%s\n", strconv.Quote(k), strconv.FormatFloat(w[k], 'g', 6, 64))
	}
	return b.String()
}

func baseNames(dirs []string) []string {
	out := make([]string, len(dirs))
	for i, d := range dirs {
		parts := strings.Split(strings.TrimRight(d, "/"), "/")
		out[i] = parts[len(parts)-1]
	}
	return out
}
