package cli

import (
	"encoding/json"
	"io"
)

// writeJSON prints v as one JSON value followed by a newline. Non-ASCII
// text stays readable (no \u escapes for CJK).
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
