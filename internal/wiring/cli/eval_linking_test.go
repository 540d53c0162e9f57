package cli

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/annalist-dev/annalist/consumers/chunker"
	"github.com/annalist-dev/annalist/consumers/linker"
	"github.com/annalist-dev/annalist/internal/evaluation/eval"
	"github.com/annalist-dev/annalist/internal/lang/profile"
)

// TestShippedMentionModel is the golden check of the liezhuan profile's
// mention model: fitted again on the evaluation data with the command's
// defaults, it is the files the profile ships, byte for byte.
func TestShippedMentionModel(t *testing.T) {
	dirs := linkingData()
	if len(dirs) != 2 {
		t.Skip("the mingshi-liezhuan and qingshigao-liezhuan evaluation data are not here (ANNALIST_DATA)")
	}
	every := intList{5, 3}
	opts := eval.LinkingOptions{HeldOutEvery: every, Seed: 1, CrossVolume: true, Fit: linker.FitConfig{Without: linkingWithout}}
	if err := setUnlisted(&opts, unlistedCounts); err != nil {
		t.Fatal(err)
	}
	rep, err := fitLinking(context.Background(), dirs, opts, false)
	if err != nil {
		t.Fatal(err)
	}
	model, chars := linkingFiles(rep, dirs, every)
	for name, want := range map[string]string{"mention_model.tsv": model, "mention_chars.tsv": chars} {
		got, err := fs.ReadFile(profile.Data(), "liezhuan/"+name)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("liezhuan/%s differs from the model fitted again: run `annalist eval linking --fit internal/lang/profile/data/liezhuan`", name)
		}
	}
	if rep.CrossValidated.AUC < 0.95 {
		t.Errorf("cross-validated AUC %.4f", rep.CrossValidated.AUC)
	}
}

// TestLinkingExamplesOfUnlistedVolumes: a category volume lists nobody on
// line 1, so without the chunker it gives no examples; with it, the
// princes the chunker opens entries for are its names.
func TestLinkingExamplesOfUnlistedVolumes(t *testing.T) {
	dir := t.TempDir()
	vol := "◎诸王一\n○太祖诸子一\n秦愍王樉晋恭王棡\n" +
		"秦愍王樉，太祖第二子。洪武三年封。十一年就藩西安。樉少聪敏，好学。二十八年薨。\n" +
		"晋恭王棡，太祖第三子。洪武三年封。十一年就藩太原。棡修目美髯，顾盼有威。三十一年薨。\n"
	if err := os.WriteFile(filepath.Join(dir, "004.txt"), []byte(vol), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	vols, err := eval.LinkingExamples(ctx, []string{dir}, eval.LinkingOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(vols) != 0 {
		t.Fatalf("without the chunker: %d volumes, want none (no listing on line 1)", len(vols))
	}
	vols, err = eval.LinkingExamples(ctx, []string{dir}, eval.LinkingOptions{Seed: 1, Chunk: chunker.New(chunker.Config{}).Chunk})
	if err != nil {
		t.Fatal(err)
	}
	if len(vols) != 1 {
		t.Fatalf("with the chunker: %d volumes, want 1", len(vols))
	}
	names := map[string]bool{}
	occurrences := 0
	for _, e := range vols[0].Examples {
		if e.Name {
			names[string(e.Text[e.Start:e.End])] = true
			occurrences++
		}
	}
	for _, want := range []string{"秦愍王樉", "晋恭王棡"} {
		if !names[want] {
			t.Errorf("no name example of %s; names %v", want, names)
		}
	}
	// As the shipped model uses them: names that only count characters.
	opts := eval.LinkingOptions{Seed: 1}
	if err := setUnlisted(&opts, unlistedCounts); err != nil {
		t.Fatal(err)
	}
	vols, err = eval.LinkingExamples(ctx, []string{dir}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(vols) != 1 || len(vols[0].Examples) != occurrences {
		t.Fatalf("counts only: %d volumes, want 1 with the %d name occurrences alone", len(vols), occurrences)
	}
	for _, e := range vols[0].Examples {
		if !e.Name || !e.CountOnly {
			t.Errorf("counts only: example %s (name %v, count-only %v)", string(e.Text[e.Start:e.End]), e.Name, e.CountOnly)
		}
	}
	if err := setUnlisted(&opts, "all"); err == nil {
		t.Error("--unlisted all accepted")
	}
}
