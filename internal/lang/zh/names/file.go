package names

import (
	"bufio"
	"bytes"
	"cmp"
	"embed"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// The fitted judges ship as data, one file per corpus profile:
// data/<profile>.tsv. A file holds comment lines (#), then rows of three
// tab-separated fields: the part ("chars" for the character model,
// "judge" for the evidence weights, "lexicon" for the characters of the
// listings, "surname" for the first characters of labelled names, "prior"
// for the priors of the contexts), the feature, character or context,
// the weight or count. "bias" is each model's
// intercept. TestFitted refits the file from the evaluation data and
// compares.

//go:embed data
var data embed.FS

var loaded sync.Map // profile name → *Judge (nil: none)

// For returns the fitted judge of a corpus profile, nil when the profile
// has none. A shipped file that does not read is a build defect and
// panics.
func For(profileName string) *Judge {
	if j, ok := loaded.Load(profileName); ok {
		return j.(*Judge)
	}
	var j *Judge
	b, err := data.ReadFile("data/" + profileName + ".tsv")
	if err == nil {
		if j, err = ReadJudge(bytes.NewReader(b)); err != nil {
			panic(fmt.Sprintf("names: data/%s.tsv: %v", profileName, err))
		}
	}
	got, _ := loaded.LoadOrStore(profileName, j)
	return got.(*Judge)
}

// Write writes j in the file format, after the comment lines given.
func (j *Judge) Write(w io.Writer, comments ...string) error {
	bw := bufio.NewWriter(w)
	for _, c := range comments {
		fmt.Fprintf(bw, "# %s\n", c)
	}
	fmt.Fprintf(bw, "chars\tbias\t%s\n", weight(j.chars.bias))
	keys := make([]string, 0, len(j.chars.w))
	for f := range j.chars.w {
		keys = append(keys, f)
	}
	slices.SortFunc(keys, cmp.Compare)
	for _, f := range keys {
		fmt.Fprintf(bw, "chars\t%s\t%s\n", f, weight(j.chars.w[f]))
	}
	fmt.Fprintf(bw, "judge\tbias\t%s\n", weight(j.bias))
	for k, name := range featureNames {
		fmt.Fprintf(bw, "judge\t%s\t%s\n", name, weight(j.w[k]))
	}
	chars := make([]rune, 0, len(j.lex))
	for r := range j.lex {
		chars = append(chars, r)
	}
	slices.Sort(chars)
	for _, r := range chars {
		fmt.Fprintf(bw, "lexicon\t%c\t%d\n", r, j.lex[r])
	}
	chars = chars[:0]
	for r := range j.surnames {
		chars = append(chars, r)
	}
	slices.Sort(chars)
	for _, r := range chars {
		fmt.Fprintf(bw, "surname\t%c\t%d\n", r, j.surnames[r])
	}
	for c, name := range contextNames {
		fmt.Fprintf(bw, "prior\t%s\t%s\n", name, weight(j.prior[c]))
	}
	return bw.Flush()
}

// ReadJudge reads a judge Write wrote.
func ReadJudge(r io.Reader) (*Judge, error) {
	j := &Judge{chars: &Model{w: map[string]float64{}}, lex: Lexicon{}, surnames: Lexicon{}}
	sc := bufio.NewScanner(r)
	line := 0
	seen := map[string]bool{}
	for sc.Scan() {
		line++
		t := sc.Text()
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		f := strings.Split(t, "\t")
		if len(f) != 3 {
			return nil, fmt.Errorf("line %d: want part, feature and weight", line)
		}
		x, err := strconv.ParseFloat(f[2], 64)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		key := f[0] + "\t" + f[1]
		if seen[key] {
			return nil, fmt.Errorf("line %d: %s %s twice", line, f[0], f[1])
		}
		seen[key] = true
		switch {
		case f[0] == "chars" && f[1] == "bias":
			j.chars.bias = x
		case f[0] == "chars":
			j.chars.w[f[1]] = x
		case f[0] == "judge" && f[1] == "bias":
			j.bias = x
		case f[0] == "lexicon" || f[0] == "surname":
			r := []rune(f[1])
			if len(r) != 1 || x != math.Trunc(x) || x < 1 {
				return nil, fmt.Errorf("line %d: a %s row wants one character and a count", line, f[0])
			}
			if f[0] == "lexicon" {
				j.lex[r[0]] = int(x)
			} else {
				j.surnames[r[0]] = int(x)
			}
		case f[0] == "prior":
			c := slices.Index(contextNames[:], f[1])
			if c < 0 {
				return nil, fmt.Errorf("line %d: unknown context %q", line, f[1])
			}
			j.prior[c] = x
		case f[0] == "judge":
			k := slices.Index(featureNames[:], f[1])
			if k < 0 {
				return nil, fmt.Errorf("line %d: unknown judge feature %q", line, f[1])
			}
			j.w[k] = x
		default:
			return nil, fmt.Errorf("line %d: unknown part %q", line, f[0])
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	for _, k := range []string{"chars\tbias", "judge\tbias"} {
		if !seen[k] {
			return nil, fmt.Errorf("no %s line", strings.ReplaceAll(k, "\t", " "))
		}
	}
	return j, nil
}
