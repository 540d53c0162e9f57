// Package datasettest is the test side of package dataset: tests that need
// the public evaluation data skip cleanly when it is absent. It is its own
// package so that the binary, which links dataset, never links testing.
package datasettest

import (
	"testing"

	"github.com/annalist-dev/annalist/internal/dataset"
)

// Require returns dataset.Path(sub) or skips the test with a message
// naming what is missing.
func Require(t testing.TB, sub string) string {
	t.Helper()
	p := dataset.Path(sub)
	if p == "" {
		t.Skipf("evaluation data %q not found (set %s or place shared/data beside the repository)", sub, dataset.EnvVar)
	}
	return p
}
