package en

import (
	"embed"
	"strings"
)

// wordFiles holds the English word lists of the fact reader, one file
// per list under data/: one word or phrase a line, after header lines
// starting with '#' that say what the list holds and which rule reads it.
//
//go:embed data/*.txt
var wordFiles embed.FS

// wordList returns the words of data/<name>.txt in file order, without
// its comment and blank lines. A list the package names and does not
// embed is a build mistake, so it panics.
func wordList(name string) []string {
	b, err := wordFiles.ReadFile("data/" + name + ".txt")
	if err != nil {
		panic("en: word list " + name + ": " + err.Error())
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
