package names

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/internal/evaluation/dataset/datasettest"
	"github.com/annalist-dev/annalist/internal/lang/profile"
)

var update = flag.Bool("update", false, "refit data/liezhuan.tsv from the evaluation data and write it")

// fitOptions are the options the shipped model is fitted with; folds the
// number of cross-validation folds.
var fitOptions = FitOptions{L2: 1e-2, MinCount: 2}

const fitFolds = 5

// devVolumes are the development volumes of the two corpora of
// biographies: every volume but those held out for evaluation (History
// of Ming volumes whose number is a multiple of 5, Draft History of Qing
// volumes whose number is a multiple of 3), in name order, each with its
// group ("<corpus>/<file>").
func devVolumes(t *testing.T) (texts, groups []string) {
	t.Helper()
	for _, c := range []struct {
		sub  string
		held int
	}{{"mingshi-liezhuan", 5}, {"qingshigao-liezhuan", 3}} {
		dir := datasettest.Require(t, c.sub)
		files, err := filepath.Glob(filepath.Join(dir, "*.txt"))
		if err != nil {
			t.Fatal(err)
		}
		sort.Strings(files)
		for _, f := range files {
			n, err := strconv.Atoi(strings.TrimSuffix(filepath.Base(f), ".txt"))
			if err != nil || n%c.held == 0 {
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			texts = append(texts, string(b))
			groups = append(groups, c.sub+"/"+filepath.Base(f))
		}
	}
	return texts, groups
}

// fitLiezhuan fits the liezhuan judge on the development volumes.
func fitLiezhuan(t *testing.T) (*Judge, JudgeReport, *Words) {
	t.Helper()
	p, ok := profile.Default().Get(profile.Liezhuan)
	if !ok {
		t.Fatal("no liezhuan profile")
	}
	words := WordsOf(p)
	texts, groups := devVolumes(t)
	var runs []Run
	lex := map[string]Lexicon{}
	surnames := Lexicon{}
	for i, s := range texts {
		runs = append(runs, Runs(s, groups[i], words)...)
		lex[groups[i]] = Lexicon{}
		lex[groups[i]].Add(s)
		words.Surnames(s, surnames)
	}
	j, rep := FitJudge(runs, lex, surnames, fitFolds, fitOptions)
	return j, rep, words
}

// TestFitted refits the shipped liezhuan judge from the development
// volumes and checks the file is what the fit writes, and that the
// cross-validated figures hold: go test ./internal/lang/zh/names -run TestFitted
// -update writes the file anew.
func TestFitted(t *testing.T) {
	j, rep, _ := fitLiezhuan(t)
	t.Logf("%s", rep)
	var buf bytes.Buffer
	err := j.Write(&buf,
		"The liezhuan name judge: a character model and the weights of the evidence around a run (internal/lang/zh/names).",
		"Fitted by: go test ./internal/lang/zh/names -run TestFitted -update (the development volumes of the History of Ming",
		"and the Draft History of Qing: all but the Ming volumes numbered by multiples of 5 and the Qing ones by multiples of 3).",
		"Out of fold ("+strconv.Itoa(fitFolds)+" folds by volume): "+rep.String())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("data", profile.Liezhuan+".tsv")
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
		t.Errorf("%s is not what the fit writes (go test ./internal/lang/zh/names -run TestFitted -update)", path)
	}
	if rep.Chars.Accuracy < 0.93 || rep.NamesKept < 0.98 || rep.OthersTurned < 0.8 {
		t.Errorf("cross-validated figures fell: %s", rep)
	}
}
