package cli_test

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/annalist-dev/annalist/internal/evaluation/dataset/datasettest"
)

// On the quotable collection every returned quotation is verbatim and
// correctly attributed, and the most frequent tags' quotations are found
// by their tags.
func TestEvalQuotesOnTheCollection(t *testing.T) {
	dir := datasettest.Require(t, "quotes")
	out, stderr, code := run(t, "eval", "quotes", "--data", dir, "--topics", "10", "--top", "5", "--json",
		"--data-dir", filepath.Join(t.TempDir(), "data"), "--log-level", "error")
	if code != 0 {
		t.Fatalf("exit %d\nstderr %s", code, stderr)
	}
	var rep struct {
		Returned       int     `json:"returned"`
		VerbatimRate   float64 `json:"verbatim_rate"`
		AttributedRate float64 `json:"attribution_rate"`
		Top            struct {
			Dev float64 `json:"dev"`
		} `json:"top_tags"`
		TopTags []struct{} `json:"top_tag_scores"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("stdout %q: %v", out, err)
	}
	if rep.Returned == 0 || rep.VerbatimRate != 1 || rep.AttributedRate != 1 || len(rep.TopTags) != 5 {
		t.Fatalf("returned %d, verbatim %v, attribution %v, %d top tags", rep.Returned, rep.VerbatimRate, rep.AttributedRate, len(rep.TopTags))
	}
	if rep.Top.Dev < 0.6 {
		t.Errorf("precision@5 of the most frequent tags among the development quotations %.3f, want at least 0.6", rep.Top.Dev)
	}
}
