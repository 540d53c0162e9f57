package cli

import (
	"context"
	"io/fs"
	"testing"

	"github.com/annalist-dev/annalist/consumers/linker"
	"github.com/annalist-dev/annalist/internal/eval"
	"github.com/annalist-dev/annalist/internal/profile"
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
	rep, err := fitLinking(context.Background(), dirs, eval.LinkingOptions{HeldOutEvery: every, Seed: 1, CrossVolume: true,
		Fit: linker.FitConfig{Without: linkingWithout}}, false)
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
			t.Errorf("liezhuan/%s differs from the model fitted again: run `annalist eval linking --fit internal/profile/data/liezhuan`", name)
		}
	}
	if rep.CrossValidated.AUC < 0.95 {
		t.Errorf("cross-validated AUC %.4f", rep.CrossValidated.AUC)
	}
}
