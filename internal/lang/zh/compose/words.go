package compose

import (
	"embed"
	"fmt"
	"regexp"
	"strings"

	"github.com/annalist-dev/annalist/internal/lang/wordlist"
)

// wordFiles holds the package's word lists, one file per list under
// data/ (internal/lang/wordlist says the shape). The table of section
// titles beside them (section_titles.tsv) is read on its own.
//
//go:embed data/*.txt data/*.tsv
var wordFiles embed.FS

// words reads the lists of wordFiles (internal/lang/wordlist).
var words = wordlist.New(wordFiles, "data", "compose")

// alternation returns the words of data/<name>.txt as the alternatives of
// a regular expression, in file order, each quoted.
func alternation(name string) string {
	ws := words.List(name)
	for i, w := range ws {
		ws[i] = regexp.QuoteMeta(w)
	}
	return strings.Join(ws, "|")
}

// table returns the rows of data/<file>, a tab-separated table after its
// '#' header lines, each row of want fields. A table the package names
// and does not embed, or a row of another width, is a build mistake, so
// it panics.
func table(file string, want int) [][]string {
	b, err := wordFiles.ReadFile("data/" + file)
	if err != nil {
		panic("compose: table " + file + ": " + err.Error())
	}
	var out [][]string
	for _, line := range strings.Split(string(b), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != want {
			panic(fmt.Sprintf("compose: %s: want %d fields: %q", file, want, line))
		}
		out = append(out, f)
	}
	return out
}
