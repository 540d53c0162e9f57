package zh

import (
	"flag"
	"testing"
)

var updatePlaceChars = flag.Bool("update-place-chars", false, "rewrite data/place_chars.tsv from the development volumes")

// TestPlaceCharsTable checks that data/place_chars.tsv holds the counts
// of the development volumes: the Ming volumes whose number is not a
// multiple of 5 and the Qing volumes whose number is not a multiple of 3
// (the others are held out). -update-place-chars rewrites it.
func TestPlaceCharsTable(t *testing.T) {
	want := golden(t, PlaceCharsFile, NativePlaceChars(devVolumes(t)), *updatePlaceChars, "-update-place-chars")
	chars, err := parsePlaceChars(want)
	if err != nil {
		t.Fatal(err)
	}
	// The counts read places as places, and clauses as no places.
	hz := &han{placeChars: chars}
	for _, p := range []string{"福清", "常熟", "江西", "浙江建德", "河南永城"} {
		if !hz.placeWritten(p) {
			t.Errorf("%s, a native place of the corpus, does not read as one", p)
		}
	}
	// "复行人" (restored as 行人), "圣贤乏人", "古庙前遇病人".
	for _, p := range []string{"复行", "圣贤乏", "古庙前遇病"} {
		if hz.placeWritten(p) {
			t.Errorf("%s reads as a native place", p)
		}
	}
}
