package cli

import (
	"flag"
	"io"
	"slices"
	"testing"
)

// TestBenchArgs: a run against a baseline gets the flags this command was
// given, but the ones about the alternation and the profiles, and --json.
func TestBenchArgs(t *testing.T) {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.String("data", "", "")
	fs.Int("n", 100, "")
	fs.String("baseline", "", "")
	fs.Int("repeat", 3, "")
	fs.Bool("json", false, "")
	fs.String("cpuprofile", "", "")
	if err := fs.Parse([]string{"--data", "vols", "--baseline=/b", "--repeat", "5", "--json", "--cpuprofile", "c.prof", "--n=400"}); err != nil {
		t.Fatal(err)
	}
	got := benchArgs(fs, "generate")
	want := []string{"bench", "generate", "--data=vols", "--n=400", "--json"}
	if !slices.Equal(got, want) {
		t.Errorf("benchArgs = %q, want %q", got, want)
	}
}

// TestMedians: each figure's median over the runs that report it, the
// mean of the middle two for an even count.
func TestMedians(t *testing.T) {
	got := medians([]map[string]float64{{"seconds": 3, "rate": 10}, {"seconds": 1}, {"seconds": 2, "rate": 30}, {"seconds": 10}})
	if got["seconds"] != 2.5 || got["rate"] != 20 || len(got) != 2 {
		t.Errorf("medians = %v, want seconds 2.5 and rate 20", got)
	}
}
