package claims

import (
	"embed"
	"strings"

	"github.com/annalist-dev/annalist/internal/lang/wordlist"
)

// data holds the word lists the rules read, one file per list under data/
// (internal/lang/wordlist says the shape).
//
//go:embed data/*.txt
var data embed.FS

// words reads the lists of data (internal/lang/wordlist).
var words = wordlist.New(data, "data", "claims")

// wordList is the list data/<name>.txt holds, in the file's order.
func wordList(name string) []string { return words.List(name) }

// charSet is the characters data/<name>.txt lists, one a line, as one
// string.
func charSet(name string) string { return strings.Join(wordList(name), "") }
