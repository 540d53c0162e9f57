package support_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/annalist-dev/annalist/internal/evaluation/dataset/datasettest"
	"github.com/annalist-dev/annalist/internal/evaluation/eval"
	"github.com/annalist-dev/annalist/internal/lang/en/support"
)

var update = flag.Bool("update", false, "refit data/model.tsv from the evaluation data and write it")

// fitOptions are the options the shipped model is fitted with.
var fitOptions = support.FitOptions{L2: 1, Folds: 5}

// goldLabel maps an ExpertQA support label to the judge's.
var goldLabel = map[string]string{"Complete": support.Complete, "Partial": support.Partial, "Incomplete": support.Missing}

// devExamples are the ExpertQA claims that are not held out, as fitting
// examples grouped by question.
func devExamples(t *testing.T) []support.Example {
	t.Helper()
	path := datasettest.Require(t, "expertqa/domain_test.jsonl")
	d, err := eval.ReadSupport(path)
	if err != nil {
		t.Fatal(err)
	}
	var ex []support.Example
	for _, it := range d.Items {
		if it.HeldOut {
			continue
		}
		ex = append(ex, support.Example{Features: support.Features(it.Claim, it.Evidence), Label: goldLabel[it.Support], Group: it.Question})
	}
	return ex
}

// TestFitted refits the shipped judge on the development claims of
// ExpertQA and checks the file is what the fit writes and that the
// cross-validated figures hold: go test ./internal/lang/en/support -run
// TestFitted -update writes the file anew.
func TestFitted(t *testing.T) {
	ex := devExamples(t)
	m, rep := support.Fit(ex, fitOptions)
	t.Logf("out of fold: %s", rep)
	var buf bytes.Buffer
	err := m.Write(&buf,
		"The claim-support judge: a logistic model of complete support over features of a claim against its evidence (internal/lang/en/support).",
		"Fitted by: go test ./internal/lang/en/support -run TestFitted -update, on ExpertQA (expertqa/domain_test.jsonl): the claims with evidence",
		"labelled Complete (positive), Partial or Incomplete, of the questions whose FNV-1a 32-bit hash is not 0 modulo 5 (those are held out);",
		"ridge "+strconv.FormatFloat(fitOptions.L2, 'g', -1, 64)+" on standardised features. The complete cut maximises the balanced accuracy of Complete",
		"against the rest, the missing cut that of Incomplete against the rest, both on out-of-fold scores.",
		"Out of fold ("+strconv.Itoa(rep.Folds)+" folds by question, cuts chosen on the other folds): "+rep.String())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("data", "model.tsv")
	if *update {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	shipped, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(shipped, buf.Bytes()) {
		t.Errorf("%s is not what the fit writes (go test ./internal/lang/en/support -run TestFitted -update)", path)
	}
	if rep.OutOfFold.BalancedAccuracy < 0.52 {
		t.Errorf("cross-validated balanced accuracy fell: %s", rep)
	}
}
