package chunker

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"text/template"
	"unicode"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/internal/kit/ask"
	"github.com/annalist-dev/annalist/internal/kit/logging"
	"github.com/annalist-dev/annalist/internal/lang/text"
	"github.com/annalist-dev/annalist/internal/lang/zh/segment"
)

// PromptVersion names the prompt templates in use; it is logged with every
// fallback so an answer can be traced to the prompt that asked for it.
const PromptVersion = "liezhuan.v1"

//go:embed prompts/liezhuan.v1.tmpl
var promptFS embed.FS

// ErrInvalidAnswer marks a window whose every model answer failed
// validation: not one JSON object of the expected shape, or boundaries
// that do not fall in order on sentence starts of the text. The error
// also wraps ask.ErrRejected and the last answer's reason.
var ErrInvalidAnswer = errors.New("invalid chunking answer")

type demo struct {
	Listing string `json:"listing"`
	Text    string `json:"text"`
	Answer  answer `json:"answer"`
}

// answer is the JSON the model must return.
type answer struct {
	Entries []answerEntry `json:"entries"`
}

type answerEntry struct {
	Subject  string `json:"subject"`
	Anchor   string `json:"anchor"`
	Relative bool   `json:"relative,omitempty"`
}

type promptData struct {
	Demos    []demo
	Listing  string
	Window   string
	Feedback string
}

// prompts holds the parsed prompt. It is embedded and fixed, so parsing
// it can only fail on a broken build; the tests render it. The
// demonstrations are the profile's (entryRules.demos).
type prompts struct {
	prompt *ask.Prompt
}

func loadPrompts() (*prompts, error) {
	p, err := ask.ParseFS(PromptVersion, template.FuncMap{
		"inc": func(i int) int { return i + 1 },
		"json": func(v any) (string, error) {
			b, err := json.Marshal(v)
			return string(b), err
		},
	}, promptFS, "prompts/liezhuan.v1.tmpl")
	if err != nil {
		return nil, err
	}
	return &prompts{prompt: p}, nil
}

// llmMarks asks the model for the entries of a liezhuan document, one
// window of at most WindowChars at a time (windows end at paragraph or
// sentence ends). Each window gets up to LLMAttempts calls; a retry
// carries the reason the previous answer was rejected, and a model error
// costs an attempt too (the alternative is falling back at once). Any
// window without a valid answer fails the whole document, and the caller
// falls back to the offline engine: mixing engines inside one document
// would make its boundaries depend on which window failed.
func (c *Chunker) llmMarks(ctx context.Context, docID string, d *docText, er *entryRules) ([]segment.Mark, int, error) {
	p, err := c.promptSet()
	if err != nil {
		return nil, 0, err
	}
	marks, listing := er.Structure(d.seg)
	listed := strings.Join(listing, "\n")
	starts := sentenceStarts(d)
	windowCuts := append([]int{0}, d.cut(0, len(d.rs), c.cfg.WindowChars, c.cfg.WindowChars)...)
	calls := 0
	for w, ws := range windowCuts {
		we := len(d.rs)
		if w+1 < len(windowCuts) {
			we = windowCuts[w+1]
		}
		window := string(d.rs[ws:we])
		got, n, err := ask.JSON(ctx, c.model, ask.Request[answer, []segment.Mark]{
			Prompt: p.prompt,
			Data: func(feedback string) any {
				return promptData{Demos: er.demos, Listing: listed, Window: window, Feedback: feedback}
			},
			Validate:         func(a answer) ([]segment.Mark, error) { return answerMarks(a, d, ws, we, starts) },
			Attempts:         c.cfg.LLMAttempts,
			RetryModelErrors: true,
			OnReject: func(attempt int, reason error) {
				if attempt < c.cfg.LLMAttempts {
					c.log.Debug().Str(logging.FieldDocID, docID).Int("window", w).Err(reason).Msg("chunker: retrying the model")
				}
			},
		})
		calls += n
		switch {
		case errors.Is(err, ask.ErrRejected):
			return nil, calls, fmt.Errorf("window %d [%d,%d): %w: %w", w, ws, we, ErrInvalidAnswer, err)
		case err != nil && ctx.Err() != nil:
			return nil, calls, ctx.Err()
		case err != nil:
			return nil, calls, fmt.Errorf("ask the model for window %d: %w", w, err)
		}
		marks = append(marks, got...)
	}
	return marks, calls, nil
}

func (c *Chunker) promptSet() (*prompts, error) {
	c.promptOnce.Do(func() { c.prompts, c.promptErr = loadPrompts() })
	return c.prompts, c.promptErr
}

// sentenceStarts marks the offsets where a sentence's first visible
// character stands: the only places an entry may begin.
func sentenceStarts(d *docText) []bool {
	ok := make([]bool, len(d.rs)+1)
	for _, sp := range d.sentences {
		p := sp.Start
		for p < sp.End && unicode.IsSpace(d.rs[p]) {
			p++
		}
		ok[p] = true
	}
	return ok
}

// maxAnchorRunes and maxSubjectRunes bound the fields of an answer.
const (
	maxAnchorRunes  = 40
	maxSubjectRunes = 10
)

// answerMarks validates the model's answer for the window [ws, we) of d
// (decoded strictly by ask.JSON: one JSON object, optionally inside a
// Markdown code fence, with no unknown fields) and turns it into marks:
// every anchor must occur in the window after the previous entry's start
// and begin at a sentence start; the subject must be a name that opens the
// entry. Boundaries are therefore in range and strictly increasing, so the
// pieces they make tile the text.
func answerMarks(a answer, d *docText, ws, we int, starts []bool) ([]segment.Mark, error) {
	window := d.rs[ws:we]
	var out []segment.Mark
	prev := -1
	for i, e := range a.Entries {
		anchor := []rune(e.Anchor)
		n := utf8.RuneCountInString(e.Subject)
		switch {
		case len(anchor) == 0 || len(anchor) > maxAnchorRunes:
			return nil, fmt.Errorf("entry %d: anchor of %d characters, want 1 to %d", i, len(anchor), maxAnchorRunes)
		case n == 0 || n > maxSubjectRunes || !allNameRunes(e.Subject):
			return nil, fmt.Errorf("entry %d: subject %q is not a name", i, e.Subject)
		}
		at := text.IndexRunes(window, anchor, prev+1)
		if at < 0 {
			if text.IndexRunes(window, anchor, 0) >= 0 {
				return nil, fmt.Errorf("entry %d: anchor %q is not after the previous entry (entries overlap or are out of order)", i, e.Anchor)
			}
			return nil, fmt.Errorf("entry %d: anchor %q is not in the text", i, e.Anchor)
		}
		pos := ws + at
		if !starts[pos] {
			return nil, fmt.Errorf("entry %d: anchor %q starts inside a sentence at offset %d", i, e.Anchor, pos)
		}
		if !opensWith(d.rs[pos:min(len(d.rs), pos+n+4)], e.Subject) {
			return nil, fmt.Errorf("entry %d: subject %q does not open the entry at offset %d", i, e.Subject, pos)
		}
		kind := segment.MarkEntry
		if e.Relative {
			kind = segment.MarkSub
		}
		out = append(out, segment.Mark{Pos: pos, Kind: kind, Subject: e.Subject})
		prev = at
	}
	return out, nil
}

func allNameRunes(s string) bool {
	for _, r := range s {
		if !segment.IsNameRune(r) {
			return false
		}
	}
	return true
}

// opensWith reports whether the head of an entry names the subject: it
// contains the subject's last character (the given name's end; relatives
// are often written by the given name alone).
func opensWith(head []rune, subject string) bool {
	rs := []rune(subject)
	return text.IndexRunes(head, rs[len(rs)-1:], 0) >= 0
}
