package claims

import (
	"embed"
	"strings"
)

// data holds the word lists the rules read: one entry per line, lines
// starting with # (each file's header) and blank lines skipped.
//
//go:embed data/*.txt
var data embed.FS

// wordList is the list data/name holds, in the file's order.
func wordList(name string) []string {
	b, err := data.ReadFile("data/" + name)
	if err != nil {
		panic("claims: " + err.Error())
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		out = append(out, l)
	}
	return out
}

// charSet is the characters data/name lists, one a line, as one string.
func charSet(name string) string { return strings.Join(wordList(name), "") }
