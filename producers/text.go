package producers

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/internal/lang/profile"
)

// CheckText is the one text rule for documents, applied by every source
// (files, JSONL, HTTP) before a document is accepted: the text is valid
// UTF-8 and holds no control character but tab, newline and carriage
// return. ANSI escape sequences begin with ESC, a control character, so
// they are refused with the rest: stored raw, they would reach terminals
// and logs through every chunk and citation. name names the document in
// the error, which gives the byte offset of the first offending byte and
// wraps ErrInput.
func CheckText(name, text string) error {
	for i, r := range text {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(text[i:], "\uFFFD"):
			return fmt.Errorf("%w: document %q: invalid UTF-8 at byte %d", ErrInput, name, i)
		case r == '\t' || r == '\n' || r == '\r':
		case unicode.IsControl(r):
			return fmt.Errorf("%w: document %q: control character %U at byte %d (only tab, newline and carriage return are allowed)",
				ErrInput, name, r, i)
		}
	}
	return nil
}

// checkJSONText applies the UTF-8 half of the text rule to a raw JSON
// record before it is decoded: encoding/json replaces invalid bytes and
// unpaired surrogate escapes ("\ud800") with U+FFFD, so after decoding the
// damage can no longer be seen. The offset is in the record.
func checkJSONText(name string, raw []byte) error {
	if !utf8.Valid(raw) {
		off := 0
		for off < len(raw) {
			r, n := utf8.DecodeRune(raw[off:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			off += n
		}
		return fmt.Errorf("%w: %s: invalid UTF-8 at byte %d of the record", ErrInput, name, off)
	}
	// Backslashes occur only inside strings in valid JSON, so a scan of
	// escapes needs no tracking of where strings begin.
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' || i+1 >= len(raw) {
			continue
		}
		if raw[i+1] != 'u' {
			i++
			continue
		}
		u, ok := hex4(raw, i+2)
		if !ok {
			i++
			continue
		}
		switch {
		case u >= 0xD800 && u <= 0xDBFF:
			lo, ok := -1, false
			if i+7 < len(raw) && raw[i+6] == '\\' && raw[i+7] == 'u' {
				lo, ok = hex4(raw, i+8)
			}
			if !ok || lo < 0xDC00 || lo > 0xDFFF {
				return fmt.Errorf("%w: %s: unpaired surrogate escape at byte %d of the record (invalid UTF-16, not text)", ErrInput, name, i)
			}
			i += 11
		case u >= 0xDC00 && u <= 0xDFFF:
			return fmt.Errorf("%w: %s: unpaired surrogate escape at byte %d of the record (invalid UTF-16, not text)", ErrInput, name, i)
		default:
			i += 5
		}
	}
	return nil
}

// hex4 reads four hex digits at b[i:].
func hex4(b []byte, i int) (int, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	v := 0
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | int(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | int(c-'a'+10)
		case c >= 'A' && c <= 'F':
			v = v<<4 | int(c-'A'+10)
		default:
			return 0, false
		}
	}
	return v, true
}

// CheckProfile refuses a profile name the embedded profiles do not define
// (empty means detect and is accepted). The chunker would dead-letter
// such a document after it was acknowledged; the sources refuse it first,
// with the list a user can choose from.
func CheckProfile(name string) error {
	if name == "" {
		return nil
	}
	names := profile.Default().Names()
	if slices.Contains(names, name) {
		return nil
	}
	return fmt.Errorf("%w: unknown profile %q (profiles: %s)", ErrInput, name, strings.Join(names, ", "))
}
