package discourse

import (
	"embed"
	"regexp"
	"strings"
)

// wordFiles holds the package's English word lists, one file per list
// under data/: one word or phrase a line, after header lines starting
// with '#' that say what the list holds and which rule reads it.
//
//go:embed data/*.txt
var wordFiles embed.FS

// wordList returns the words of data/<name>.txt in file order, without
// its comment and blank lines. A list the package names and does not
// embed is a build mistake, so it panics.
func wordList(name string) []string {
	b, err := wordFiles.ReadFile("data/" + name + ".txt")
	if err != nil {
		panic("discourse: word list " + name + ": " + err.Error())
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, line)
	}
	return out
}

// wordSet returns the words of data/<name>.txt as a set.
func wordSet(name string) map[string]bool {
	m := map[string]bool{}
	for _, w := range wordList(name) {
		m[w] = true
	}
	return m
}

// alternation returns the words of data/<name>.txt as the alternatives of
// a regular expression, in file order, each quoted and followed by
// suffix. A space inside a phrase matches a space; with anySpace it
// matches any run of white space.
func alternation(name, suffix string, anySpace bool) string {
	ws := wordList(name)
	for i, w := range ws {
		q := regexp.QuoteMeta(w)
		if anySpace {
			q = strings.ReplaceAll(q, " ", `\s+`)
		}
		ws[i] = q + suffix
	}
	return strings.Join(ws, "|")
}
