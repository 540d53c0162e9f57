// Package modeljson reads the structured answers the LLM engine asks models
// for: exactly one JSON object, optionally inside a Markdown code fence,
// with no unknown fields and nothing after it. Every agent that parses a
// model's answer (chunker, extractor, writer, verifier, solvers) asks
// through internal/kit/ask, which decodes it here, so "strict" means the same
// thing everywhere.
package modeljson

import (
	"encoding/json"
	"errors"
	"io"
	"strings"
)

// ErrTrailing reports text after the JSON value. Branch on it with
// errors.Is.
var ErrTrailing = errors.New("trailing data: text after the JSON object")

// Decode decodes the one JSON value of answer into v. A Markdown code
// fence around it (``` or ```json) is removed first. Unknown fields are an
// error; so is anything after the value (wrapping ErrTrailing).
func Decode(answer string, v any) error {
	s := strings.TrimSpace(answer)
	if rest, ok := strings.CutPrefix(s, "```"); ok {
		rest = strings.TrimPrefix(rest, "json")
		s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "```"))
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return ErrTrailing
	}
	return nil
}
