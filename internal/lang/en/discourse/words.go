package discourse

import (
	"embed"
	"regexp"
	"strings"

	"github.com/annalist-dev/annalist/internal/lang/wordlist"
)

// wordFiles holds the package's English word lists, one file per list
// under data/ (internal/lang/wordlist says the shape).
//
//go:embed data/*.txt
var wordFiles embed.FS

// words reads the lists of wordFiles (internal/lang/wordlist).
var words = wordlist.New(wordFiles, "data", "discourse")

// wordList returns the words of data/<name>.txt in file order.
func wordList(name string) []string { return words.List(name) }

// wordSet returns the words of data/<name>.txt as a set.
func wordSet(name string) map[string]bool { return words.Set(name) }

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
