package zh

import (
	"embed"

	"github.com/annalist-dev/annalist/internal/lang/wordlist"
)

// wordFiles holds the classical-Chinese word lists of the fact reader,
// one file per list under data/ (internal/lang/wordlist says the shape).
// The count tables beside them (clause_roles.tsv, place_chars.tsv) are
// read on their own.
//
//go:embed data/*.txt
var wordFiles embed.FS

// words reads the lists of wordFiles (internal/lang/wordlist).
var words = wordlist.New(wordFiles, "data", "zh")

// wordList returns the words of data/<name>.txt in file order.
func wordList(name string) []string { return words.List(name) }

// wordSet returns the words of data/<name>.txt as a set.
func wordSet(name string) map[string]bool { return words.Set(name) }
