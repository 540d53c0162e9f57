// Package datasettest is the test side of package dataset: tests that need
// the public evaluation data skip cleanly when it is absent, except under
// CI (the environment variable CI set, as CI services and .ci/run's callers
// set it), where a missing dataset fails them: a quality floor CI skipped
// would pass unseen. It is its own
// package so that the binary, which links dataset, never links testing.
package datasettest

import (
	"os"
	"testing"

	"github.com/annalist-dev/annalist/internal/evaluation/dataset"
)

// Require returns dataset.Path(sub), or fails the test under CI and skips
// it elsewhere, with a message naming what is missing.
func Require(t testing.TB, sub string) string {
	t.Helper()
	p := dataset.Path(sub)
	if p == "" && underCI() {
		t.Fatalf("evaluation data %q not found under CI (set %s or place shared/data beside the repository)", sub, dataset.EnvVar)
	}
	if p == "" {
		t.Skipf("evaluation data %q not found (set %s or place shared/data beside the repository)", sub, dataset.EnvVar)
	}
	return p
}

// underCI reports whether the tests run under CI: CI set to anything but
// "" or "false".
func underCI() bool {
	v := os.Getenv("CI")
	return v != "" && v != "false"
}
