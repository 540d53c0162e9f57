package schemas

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxIDChars bounds an id's length in characters.
const MaxIDChars = 200

// ValidID checks an id against the project's one id grammar, shared by
// document, chunk and request ids whoever makes them (the API, the CLI,
// the producers, the stages): 1–200 characters, each a letter or digit of
// any script or one of '.', '_', ':', '-'; never "..". Ids become parts of
// Redis keys, Kafka keys, file names of exports and URL path segments, so
// the grammar leaves out '/', '\', spaces, braces, control characters and
// anything else a path or a key would give a meaning to. The ids the
// project generates (producers.DocID, chunk ids "<doc id>-NNNN", request
// ids "r…") are of this grammar by construction, and a test holds them to
// it. what names the id in the error ("doc_id"); the error wraps
// ErrInvalid.
func ValidID(what, id string) error {
	if id == "" {
		return fmt.Errorf("%w: %s is empty", ErrInvalid, what)
	}
	if !utf8.ValidString(id) {
		return fmt.Errorf("%w: %s is not UTF-8", ErrInvalid, what)
	}
	if n := utf8.RuneCountInString(id); n > MaxIDChars {
		return fmt.Errorf("%w: %s of %d characters (at most %d)", ErrInvalid, what, n, MaxIDChars)
	}
	if strings.Contains(id, "..") {
		return fmt.Errorf("%w: %s %q contains \"..\"", ErrInvalid, what, truncateID(id))
	}
	for i, r := range id {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '.' || r == '_' || r == ':' || r == '-') {
			return fmt.Errorf("%w: %s %q: character %q at byte %d is not allowed (letters, digits, '.', '_', ':', '-')",
				ErrInvalid, what, truncateID(id), r, i)
		}
	}
	return nil
}

// truncateID shortens an id quoted in an error, so a refused 100 k
// character id does not come back whole in the answer.
func truncateID(id string) string {
	const keep = 64
	if utf8.RuneCountInString(id) <= keep {
		return id
	}
	return string([]rune(id)[:keep]) + "…"
}

// TextHash is the fingerprint of a document's text the document store
// keeps beside its metadata: a document id names one text, and an attempt
// to store another text under it is told apart by this value.
func TextHash(text string) string {
	h := sha256.Sum256([]byte(text))
	return hex.EncodeToString(h[:16])
}
