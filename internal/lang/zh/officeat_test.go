package zh

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestOfficeAtIsThePattern: officeAt finds what the pattern it stands for
// finds, on texts that mix the verbs, their parts, punctuation, runes
// beyond the Basic Multilingual Plane and invalid bytes.
func TestOfficeAtIsThePattern(t *testing.T) {
	re := regexp.MustCompile(`^(` + strings.Join(officeVerbs, "|") + `)(\p{Han}{1,20})`)
	pieces := append(slices.Clone(officeVerbs), "功", "至", "礼部尚书", "，", "。", "a", "𠀀", "\xe4\xb8", "\xff", "官")
	rng := rand.New(rand.NewPCG(7, 8))
	for range 50000 {
		var b strings.Builder
		for k := rng.IntN(10); k > 0; k-- {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		text := b.String()
		if got, want := officeAt(text), re.FindStringSubmatchIndex(text); !slices.Equal(got, want) {
			t.Fatalf("officeAt(%q) = %v, the pattern finds %v", text, got, want)
		}
	}
}
