package cli_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// --quotes is for topic pages drafted in this process: with another kind,
// or with --no-wait, it is a usage error (exit 2) with its reason.
func TestGenerateQuotesUsage(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	for _, args := range [][]string{
		{"generate", "biography", "叶向高", "--quotes"},
		{"generate", "topic", "sea", "--quotes", "--no-wait"},
	} {
		_, stderr, code := run(t, append(args, "--data-dir", data, "--log-level", "error")...)
		if code != 2 || !strings.Contains(stderr, "--quotes") {
			t.Errorf("%q: exit %d, stderr %q; want 2 naming --quotes", args, code, stderr)
		}
	}
}
