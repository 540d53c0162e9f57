package zh

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/internal/lang/profile"
)

// TestKinNamedIsThePattern: the scan finds what the pattern it replaces
// finds, on texts written to exercise overlaps, words that are prefixes of
// others and kinship words with no name after them.
func TestKinNamedIsThePattern(t *testing.T) {
	kin := []profile.KinWord{{Word: "从子"}, {Word: "子"}, {Word: "孙"}, {Word: "弟"}, {Word: "族弟"}}
	var alt []string
	for _, k := range kin {
		alt = append(alt, regexp.QuoteMeta(k.Word))
	}
	re := regexp.MustCompile(`(?:` + strings.Join(alt, "|") + `)(\p{Han}{2})`)
	for _, text := range []string{
		"敬修孙同敞请复武荫。",
		"从子某某，字子明。子子孙孙。",
		"弟，族弟甲乙丙。孙",
		"子a子乙丙子丁",
		"",
		"子子子子子",
	} {
		var want []string
		for _, m := range re.FindAllStringSubmatch(text, -1) {
			want = append(want, m[1])
		}
		if got := kinNamed(text, kin); !slices.Equal(got, want) {
			t.Errorf("kinNamed(%q) = %q, the pattern finds %q", text, got, want)
		}
	}
}
