package cli_test

import (
	"encoding/json"
	"testing"
)

func TestEvalExtractionJSON(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "001.txt", volume)
	out, stderr, code := run(t, "eval", "extraction", "--data", dir, "--json", "--log-level", "error")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var r struct {
		All struct {
			Volumes   int                       `json:"volumes"`
			Entries   int                       `json:"entries"`
			Relations map[string]map[string]any `json:"relations"`
		} `json:"all"`
		HeldOut struct {
			Volumes int `json:"volumes"`
		} `json:"held_out"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if r.All.Volumes != 1 || r.HeldOut.Volumes != 1 || r.All.Entries == 0 {
		t.Fatalf("report %s", out)
	}
	for _, rel := range []string{"courtesy_name", "native_place", "jinshi", "death", "death_age"} {
		if _, ok := r.All.Relations[rel]; !ok {
			t.Errorf("no %s in %s", rel, out)
		}
	}
	if _, _, code := run(t, "eval", "extraction", "--data", dir, "extra"); code != 2 {
		t.Errorf("a positional argument: exit %d, want 2", code)
	}
}
