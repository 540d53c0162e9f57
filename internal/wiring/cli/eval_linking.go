package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/annalist-dev/annalist/consumers/chunker"
	"github.com/annalist-dev/annalist/consumers/linker"
	"github.com/annalist-dev/annalist/internal/evaluation/dataset"
	"github.com/annalist-dev/annalist/internal/evaluation/eval"
)

// evalLinking is `annalist eval linking [--data DIR]... [--held-out]
// [--fit DIR]`: it fits the linker's mention model on the biography
// volumes of each DIR whose file number is not a multiple of its
// --held-out-every, reports its cross-validated and fitted scores, with
// --held-out its score on the held-out volumes, and with --fit writes the
// model into a profile directory. Its defaults are how the liezhuan
// profile's model was fitted: `annalist eval linking --fit
// internal/lang/profile/data/liezhuan` fits it again.
func evalLinking(ctx context.Context, io IO, args []string) error {
	fs := newFlagSet("eval linking", io.Stderr)
	var c common
	c.register(fs)
	var dirs dirList
	fs.Var(&dirs, "data", "biography volumes with a listing on line 1 (repeat the flag for several folders; default: the mingshi-liezhuan and qingshigao-liezhuan evaluation data)")
	var every intList
	fs.Var(&every, "held-out-every", "hold out the volumes whose file number is a multiple of this (0: none); repeat it to give each --data its own, in order (the last one given applies to the folders after it; default 5 for the first folder, 3 for the next, as the project's held-out splits)")
	heldOut := fs.Bool("held-out", false, "also score the model on the held-out volumes")
	out := fs.String("fit", "", "write the fitted model into this profile directory (mention_model.tsv and mention_chars.tsv)")
	seed := fs.Uint64("seed", 1, "seed of the random spans and the folds")
	l2 := fs.Float64("l2", 0, "ridge penalty of the fit (0: the fit's default)")
	random := fs.Int("random", 0, "random spans drawn per name occurrence (0: 2)")
	cross := fs.Bool("cross-volume", true, "take the names every volume of a split lists as names wherever they occur in it")
	without := fs.String("without", strings.Join(linkingWithout, ","), "comma-separated feature families (prefixes such as l2:,v:) to leave out of the model")
	minCount := fs.Int("min-count", 0, "features seen fewer times count as their rare class (0: the fit's default)")
	unlisted := fs.String("unlisted", unlistedCounts, "the volumes without a listing on line 1, whose names are the subjects of the main entries the chunker opens: "+
		"counts (they add to the character counts the shape is read from), fit (they are fitted on too) or none")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return fmt.Errorf("%w: want `eval linking [--data DIR]... [--held-out] [--fit DIR]`", errUsage)
	}
	for _, k := range every {
		if k < 0 {
			return fmt.Errorf("%w: --held-out-every must not be negative", errUsage)
		}
	}
	if len(dirs) == 0 {
		if dirs = linkingData(); len(dirs) == 0 {
			return fmt.Errorf("%w: --data DIR is required", errUsage)
		}
	}
	if len(every) == 0 {
		every = intList{5, 3}
	}
	opts := eval.LinkingOptions{HeldOutEvery: every, Seed: *seed, CrossVolume: *cross, RandomPerName: *random,
		Fit: linker.FitConfig{L2: *l2, MinCount: *minCount}}
	if err := setUnlisted(&opts, *unlisted); err != nil {
		return err
	}
	if *without != "" {
		opts.Fit.Without = strings.Split(*without, ",")
	}
	rep, err := fitLinking(ctx, dirs, opts, *heldOut)
	if err != nil {
		return err
	}
	if *out != "" {
		model, chars := linkingFiles(rep, dirs, every)
		if err := os.WriteFile(filepath.Join(*out, "mention_model.tsv"), []byte(model), 0o644); err != nil {
			return fmt.Errorf("write the mention model: %w", err)
		}
		if err := os.WriteFile(filepath.Join(*out, "mention_chars.tsv"), []byte(chars), 0o644); err != nil {
			return fmt.Errorf("write the mention model's counts: %w", err)
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

// The uses of the volumes without a listing (`eval linking --unlisted`).
// The shipped model counts their names' characters and is not fitted on
// them: the chunker's subjects teach the shape of names no listing
// writes (a prince's 崇王见泽, a woman's 戚家妇), but as labels for the
// regression they are noisier than a listing, and fitted on, the
// linker's precision read by eye fell from 96 to 88 of 100.
const (
	unlistedNone   = "none"
	unlistedCounts = "counts"
	unlistedFit    = "fit"
)

// setUnlisted sets opts for a use of the volumes without a listing.
func setUnlisted(opts *eval.LinkingOptions, use string) error {
	switch use {
	case unlistedNone:
		return nil
	case unlistedCounts, unlistedFit:
		opts.Chunk = chunker.New(chunker.Config{}).Chunk
		opts.ChunkCounts = use == unlistedCounts
		return nil
	}
	return fmt.Errorf("%w: --unlisted is none, counts or fit, not %q", errUsage, use)
}

// linkingWithout are the features the shipped model leaves out: the
// surface's own characters. The linker matches names the graph attests
// (an entry opened with them), so what it asks is whether this occurrence
// is the name standing there, which its context says; how names are
// written is the chunker's and the extractor's evidence when they make a
// person, not the linker's.
var linkingWithout = []string{"v:last", "l2:"}

// linkingData are the evaluation folders the mention model is fitted on
// by default: the biography volumes of both histories that are present.
func linkingData() []string {
	var out []string
	for _, d := range []string{"mingshi-liezhuan", "qingshigao-liezhuan"} {
		if p := dataset.Path(d); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// fitLinking reads the volumes' examples and fits and scores the model.
func fitLinking(ctx context.Context, dirs []string, opts eval.LinkingOptions, heldOut bool) (eval.LinkingReport, error) {
	vols, err := eval.LinkingExamples(ctx, dirs, opts)
	if err != nil {
		return eval.LinkingReport{}, err
	}
	return eval.Linking(ctx, vols, opts, heldOut)
}

// linkingFiles are the fitted model's profile files: mention_model.tsv
// and mention_chars.tsv.
func linkingFiles(rep eval.LinkingReport, dirs []string, every intList) (model, chars string) {
	return modelTSV(rep, dirs, every), charsTSV(rep.Model.Chars)
}

// modelTSV is the model as a profile's mention_model.tsv: a header saying
// how it was made, then feature and weight per line, sorted.
func modelTSV(rep eval.LinkingReport, dirs []string, every intList) string {
	var b strings.Builder
	b.WriteString("# The linker's mention model (consumers/linker.Model): feature, weight.\n")
	b.WriteString("# Fitted by `annalist eval linking --fit` on the volumes of")
	for i, d := range baseNames(dirs) {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, " %s (numbers not multiples of %d)", d, every.at(i))
	}
	b.WriteString(";\n")
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

// charsTSV is the model's character counts as a profile's
// mention_chars.tsv: character, then its occurrences in the text and in
// the distinct names as first, last, inner and head character; "total"
// holds the sums.
func charsTSV(c linker.CharCounts) string {
	var b strings.Builder
	b.WriteString("# The character counts of the linker's mention model (consumers/linker.CharCounts):\n")
	b.WriteString("# character, occurrences in the text, in the distinct names as first, last, inner, head character.\n")
	b.WriteString("# Written with mention_model.tsv by `annalist eval linking --fit`. Do not edit by hand.\n")
	rows := c.Rows()
	keys := make([]string, 0, len(rows))
	for k := range rows {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		b.WriteString(k)
		for _, n := range rows[k] {
			b.WriteString("\t" + strconv.FormatInt(n, 10))
		}
		b.WriteString("\n")
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

// intList is a repeatable integer flag.
type intList []int

func (l *intList) String() string { return fmt.Sprint([]int(*l)) }
func (l *intList) Set(v string) error {
	n, err := strconv.Atoi(v)
	if err != nil {
		return err
	}
	*l = append(*l, n)
	return nil
}

// at is the i-th value, or the last one given.
func (l intList) at(i int) int {
	if len(l) == 0 {
		return 0
	}
	return l[min(i, len(l)-1)]
}
