package llm

import (
	"encoding/json"
	"strings"

	"github.com/cloudwego/eino/schema"
)

// AnswerKind classifies a model's answer by whether a JSON object can be
// read from it. Every agent of the LLM engine asks for exactly one JSON
// object (internal/kit/ask), so this is the first half of "usable"; whether
// the object has the fields asked for is the caller's check.
type AnswerKind int

const (
	// AnswerJSON is one JSON object, alone or inside a Markdown code
	// fence, as the strict decoder of the agents reads it.
	AnswerJSON AnswerKind = iota
	// AnswerRepaired is a JSON object found inside other text: prose
	// before or after it, a code fence followed by remarks, a second
	// value after it. ExtractJSON returns the object alone.
	AnswerRepaired
	// AnswerUnusable holds no complete JSON object: prose only, an empty
	// answer, or an object cut off (the answer stopped at the token
	// limit, or the model never closed it).
	AnswerUnusable
)

func (k AnswerKind) String() string {
	switch k {
	case AnswerJSON:
		return "json"
	case AnswerRepaired:
		return "repaired"
	default:
		return "unusable"
	}
}

// FinishLength is the finish_reason of an answer stopped by the token
// limit (max_tokens) rather than by the model.
const FinishLength = "length"

// ExtractJSON finds the JSON object an answer carries. An answer that is
// one JSON object (trimmed, or inside one ``` or ```json fence) is
// AnswerJSON and returned unchanged. Otherwise the first balanced
// {...} that is valid JSON is returned alone as AnswerRepaired: a model
// that wraps its object in prose ("Here is the JSON: {...} Hope this
// helps") or writes several values still answers the question once. An
// answer with no complete object is AnswerUnusable and returned
// unchanged.
func ExtractJSON(answer string) (string, AnswerKind) {
	s := strings.TrimSpace(answer)
	if isObject(unfence(s)) {
		return answer, AnswerJSON
	}
	for i := 0; i < len(s); i++ {
		if s[i] != '{' {
			continue
		}
		end := matchBrace(s, i)
		if end < 0 {
			// No closing brace for this one: an inner '{' can still open
			// a complete object.
			continue
		}
		if obj := s[i : end+1]; isObject(obj) {
			return obj, AnswerRepaired
		}
	}
	return answer, AnswerUnusable
}

// unfence removes one Markdown code fence around s (``` or ```json).
func unfence(s string) string {
	rest, ok := strings.CutPrefix(s, "```")
	if !ok {
		return s
	}
	rest = strings.TrimPrefix(rest, "json")
	return strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "```"))
}

func isObject(s string) bool {
	return strings.HasPrefix(s, "{") && json.Valid([]byte(s))
}

// matchBrace returns the index of the '}' closing the '{' at s[open],
// skipping braces inside JSON strings, or -1.
func matchBrace(s string, open int) int {
	depth, inString, escaped := 0, false, false
	for i := open; i < len(s); i++ {
		c := s[i]
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{':
			depth++
		case c == '}':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// classify sorts an answer and, unless raw, replaces a repaired answer's
// content with the object it carries. The message is copied, never
// changed in place: the inner model may hand the same message to others.
// A truncated answer (finish_reason length) that still holds a complete
// object is kept as that object; one without is unusable.
func classify(msg *schema.Message, raw bool) (*schema.Message, AnswerKind, bool) {
	truncated := msg.ResponseMeta != nil && msg.ResponseMeta.FinishReason == FinishLength
	obj, kind := ExtractJSON(msg.Content)
	if kind == AnswerRepaired && !raw {
		c := *msg
		c.Content = obj
		msg = &c
	}
	return msg, kind, truncated
}
