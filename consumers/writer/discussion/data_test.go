package discussion

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/schemas"
)

// kgdsSample is a KGDS record with its gold opinions.
type kgdsSample struct {
	schemas.Discussion
	CAO []string
}

func (s *kgdsSample) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, &s.Discussion); err != nil {
		return err
	}
	var g struct {
		CAO []string `json:"CAO"`
	}
	if err := json.Unmarshal(b, &g); err != nil {
		return err
	}
	s.CAO = g.CAO
	return nil
}

var boldRE = regexp.MustCompile(`\*\*(.+?)\*\*`)

// normEntity: case, a leading "the", a possessive 's.
func normEntity(s string) string {
	s = strings.ToLower(strings.TrimSpace(strings.ReplaceAll(s, "’", "'")))
	s = strings.TrimPrefix(s, "the ")
	s = strings.TrimSuffix(s, "'s")
	s = strings.TrimSuffix(s, "'")
	return strings.TrimSpace(s)
}

func containsWords(long, short string) bool {
	long, short = strings.ReplaceAll(long, "'s ", " "), strings.ReplaceAll(short, "'s ", " ")
	return strings.Contains(" "+long+" ", " "+short+" ")
}

var thirdPerson3 = toSet(`he she him her his hers they them their theirs himself herself themselves`)

func barePronoun(s string) bool {
	for _, w := range regexp.MustCompile(`[A-Za-z']+`).FindAllString(strings.ToLower(s), -1) {
		if thirdPerson3[w] {
			return true
		}
	}
	return false
}

type figures struct {
	n                                         int
	recall, recallStrict, precision, pronouns float64
	goldPronouns                              float64
	resolved, unresolved                      int
}

func (f *figures) add(s kgdsSample) {
	sum := Summarize(s.Discussion)
	gold := map[string]bool{}
	goldPron, goldN := 0, 0
	for _, c := range s.CAO {
		for _, m := range boldRE.FindAllStringSubmatch(c, -1) {
			gold[normEntity(m[1])] = true
		}
		goldN++
		if barePronoun(boldRE.ReplaceAllString(c, "$1")) {
			goldPron++
		}
	}
	ours := map[string]bool{}
	pron, n := 0, 0
	for _, p := range sum.Opinions {
		for _, o := range p.Sentences {
			n++
			if barePronoun(o.Text) {
				pron++
			}
			for _, e := range o.Entities {
				ours[normEntity(e)] = true
			}
		}
	}
	match := func(a, b string) bool { return a == b || containsWords(a, b) || containsWords(b, a) }
	if len(gold) > 0 {
		hit, strict := 0, 0
		for g := range gold {
			if ours[g] {
				strict++
			}
			for e := range ours {
				if match(g, e) {
					hit++
					break
				}
			}
		}
		f.recall += float64(hit) / float64(len(gold))
		f.recallStrict += float64(strict) / float64(len(gold))
	} else {
		f.recall++
		f.recallStrict++
	}
	if len(ours) > 0 {
		hit := 0
		for e := range ours {
			for g := range gold {
				if match(g, e) {
					hit++
					break
				}
			}
		}
		f.precision += float64(hit) / float64(len(ours))
	} else {
		f.precision++
	}
	if n > 0 {
		f.pronouns += float64(pron) / float64(n)
	}
	if goldN > 0 {
		f.goldPronouns += float64(goldPron) / float64(goldN)
	}
	f.n++
	r := NewResolver(BuildGraph(s.Discussion))
	r.Focus(sum.Background.Paragraphs)
	Opinions(s.Discussion, r.g, r)
	for _, res := range r.Resolutions {
		if res.Entity != nil {
			f.resolved++
		} else {
			f.unresolved++
		}
	}
}

func (f figures) mean() (recall, strict, precision, pronouns, gold float64) {
	n := float64(f.n)
	return f.recall / n, f.recallStrict / n, f.precision / n, f.pronouns / n, f.goldPronouns / n
}

// TestKGDSDev measures the opinion figures on KGDS dev (macro over
// samples): entity recall against the gold opinions' bold entities (a gold
// entity counts when one of ours equals it or one contains the other as
// whole words; "strict" counts equality only), entity precision (our
// entities the gold names), the share of opinion sentences with a bare
// third-person pronoun (ours and the gold's). Dev excludes the held-out
// fifth (HeldOut), reported separately.
func TestKGDSDev(t *testing.T) {
	path := os.Getenv("KGDS_DEV")
	if path == "" {
		path = filepath.Join("..", "..", "..", "..", "shared", "data", "kgds", "dev.json")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("KGDS dev data not available: %v", err)
	}
	var samples []kgdsSample
	if err := json.Unmarshal(b, &samples); err != nil {
		t.Fatalf("decode %s: %v", path, err)
	}
	var dev, held figures
	for _, s := range samples {
		if HeldOut(s.ID) {
			held.add(s)
		} else {
			dev.add(s)
		}
	}
	for _, x := range []struct {
		name string
		f    figures
	}{{"dev", dev}, {"held-out", held}} {
		r, rs, p, pr, gp := x.f.mean()
		t.Logf("%-8s n=%d entity recall %.3f (strict %.3f) precision %.3f pronoun share %.3f (gold %.3f) references resolved %d unresolved %d",
			x.name, x.f.n, r, rs, p, pr, gp, x.f.resolved, x.f.unresolved)
	}
	r, _, p, pr, _ := dev.mean()
	// the floors reached so far, well below the targets (recall
	// 0.85, precision 0.70, pronoun share 0.10)
	if r < 0.22 || p < 0.42 || pr > 0.18 {
		t.Errorf("dev figures below the floors: recall %.3f precision %.3f pronoun share %.3f", r, p, pr)
	}
}
