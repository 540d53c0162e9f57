package schemas

import (
	"fmt"
	"strconv"
	"strings"
)

// AnswerDocument is one document an answer may cite, in ALCE's shape: a
// title and a passage. Answers cite documents by their 1-based place in
// the request's list, as ALCE writes [k].
type AnswerDocument struct {
	Title string `json:"title,omitempty"`
	Text  string `json:"text"`
}

// AnswerDocRef is the reference id (Reference.ChunkID, a draft's
// citation) of document k (1-based) of an answer's given documents;
// ParseAnswerDocRef reads it back.
func AnswerDocRef(k int) string { return "answerdoc:" + strconv.Itoa(k) }

// ParseAnswerDocRef reads a reference id written by AnswerDocRef: the
// document's 1-based place; ok is false for any other id.
func ParseAnswerDocRef(ref string) (k int, ok bool) {
	rest, found := strings.CutPrefix(ref, "answerdoc:")
	if !found {
		return 0, false
	}
	k, err := strconv.Atoi(rest)
	if err != nil || k < 1 || fmt.Sprint(k) != rest {
		return 0, false
	}
	return k, true
}
