package en

import (
	"embed"

	"github.com/annalist-dev/annalist/internal/lang/wordlist"
)

// wordFiles holds the English word lists of the fact reader, one file per
// list under data/ (internal/lang/wordlist says the shape).
//
//go:embed data/*.txt
var wordFiles embed.FS

// words reads the lists of wordFiles (internal/lang/wordlist).
var words = wordlist.New(wordFiles, "data", "en")

// wordList returns the words of data/<name>.txt in file order.
func wordList(name string) []string { return words.List(name) }

// wordSet returns the words of data/<name>.txt as a set.
func wordSet(name string) map[string]bool { return words.Set(name) }
