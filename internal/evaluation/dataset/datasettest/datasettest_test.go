package datasettest_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/internal/evaluation/dataset"
	"github.com/annalist-dev/annalist/internal/evaluation/dataset/datasettest"
)

// A dataset that is absent skips a test locally and fails it under CI.
func TestMissingDatasetSkipsLocallyAndFailsUnderCI(t *testing.T) {
	if os.Getenv("DATASETTEST_CHILD") == "1" {
		datasettest.Require(t, "no-such-dataset")
		return
	}
	for _, c := range []struct {
		ci   string
		want string
	}{{"", "--- SKIP"}, {"false", "--- SKIP"}, {"true", "--- FAIL"}} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestMissingDatasetSkipsLocallyAndFailsUnderCI$", "-test.v")
		cmd.Env = append(os.Environ(), "DATASETTEST_CHILD=1", "CI="+c.ci, dataset.EnvVar+"="+t.TempDir())
		out, _ := cmd.CombinedOutput()
		if !strings.Contains(string(out), c.want) {
			t.Errorf("CI=%q: want %s in\n%s", c.ci, c.want, out)
		}
	}
}
