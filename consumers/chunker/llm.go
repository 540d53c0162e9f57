package chunker

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"text/template"
	"unicode"
	"unicode/utf8"

	"github.com/cloudwego/eino/schema"

	"github.com/annalist-dev/annalist/internal/logging"
	"github.com/annalist-dev/annalist/internal/modeljson"
)

// PromptVersion names the prompt templates in use; it is logged with every
// fallback so an answer can be traced to the prompt that asked for it.
const PromptVersion = "liezhuan.v1"

//go:embed prompts/liezhuan.v1.tmpl prompts/liezhuan.v1.demos.json
var promptFS embed.FS

// ErrInvalidAnswer marks a model answer that fails validation: not one
// JSON object of the expected shape, or boundaries that do not fall in
// order on sentence starts of the text.
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

// prompts holds the parsed templates and demonstrations. They are embedded
// and fixed, so parsing them can only fail on a broken build; the tests
// render them.
type prompts struct {
	tmpl  *template.Template
	demos []demo
}

func loadPrompts() (*prompts, error) {
	raw, err := promptFS.ReadFile("prompts/liezhuan.v1.demos.json")
	if err != nil {
		return nil, fmt.Errorf("read demonstrations: %w", err)
	}
	var demos []demo
	if err := json.Unmarshal(raw, &demos); err != nil {
		return nil, fmt.Errorf("parse demonstrations: %w", err)
	}
	t, err := template.New("").Funcs(template.FuncMap{
		"inc": func(i int) int { return i + 1 },
		"json": func(v any) (string, error) {
			b, err := json.Marshal(v)
			return string(b), err
		},
	}).ParseFS(promptFS, "prompts/liezhuan.v1.tmpl")
	if err != nil {
		return nil, fmt.Errorf("parse prompt template: %w", err)
	}
	return &prompts{tmpl: t, demos: demos}, nil
}

func (p *prompts) render(listing, window, feedback string) (system, user string, err error) {
	data := promptData{Demos: p.demos, Listing: listing, Window: window, Feedback: feedback}
	var sb, ub bytes.Buffer
	if err := p.tmpl.ExecuteTemplate(&sb, "system", data); err != nil {
		return "", "", fmt.Errorf("render prompt %s: %w", PromptVersion, err)
	}
	if err := p.tmpl.ExecuteTemplate(&ub, "user", data); err != nil {
		return "", "", fmt.Errorf("render prompt %s: %w", PromptVersion, err)
	}
	return strings.TrimSpace(sb.String()), strings.TrimSpace(ub.String()), nil
}

// llmMarks asks the model for the entries of a liezhuan document, one
// window of at most WindowChars at a time (windows end at paragraph or
// sentence ends). Each window gets up to LLMAttempts answers; a retry
// carries the reason the previous answer was rejected. Any window without
// a valid answer fails the whole document, and the caller falls back to
// the offline engine: mixing engines inside one document would make its
// boundaries depend on which window failed.
func (c *Chunker) llmMarks(ctx context.Context, docID string, d *docText) ([]mark, int, error) {
	p, err := c.promptSet()
	if err != nil {
		return nil, 0, err
	}
	ls := lines(d.rs)
	list := make([]bool, len(ls))
	marks := structureMarks(d.rs, ls, list)
	var listing []string
	for i, sp := range ls {
		if list[i] {
			listing = append(listing, strings.TrimSpace(string(d.rs[sp.Start:sp.End])))
		}
	}
	starts := sentenceStarts(d)
	windowCuts := append([]int{0}, d.cut(0, len(d.rs), c.cfg.WindowChars, c.cfg.WindowChars)...)
	calls := 0
	for w, ws := range windowCuts {
		we := len(d.rs)
		if w+1 < len(windowCuts) {
			we = windowCuts[w+1]
		}
		var feedback string
		var got []mark
		for attempt := 0; attempt < c.cfg.LLMAttempts; attempt++ {
			if err := ctx.Err(); err != nil {
				return nil, calls, err
			}
			system, user, err := p.render(strings.Join(listing, "\n"), string(d.rs[ws:we]), feedback)
			if err != nil {
				return nil, calls, err
			}
			calls++
			msg, err := c.model.Generate(ctx, []*schema.Message{schema.SystemMessage(system), schema.UserMessage(user)})
			if err != nil {
				if ctx.Err() != nil {
					return nil, calls, ctx.Err()
				}
				feedback = ""
				err = fmt.Errorf("model call for window %d: %w", w, err)
				if attempt+1 == c.cfg.LLMAttempts {
					return nil, calls, err
				}
				continue
			}
			if msg == nil {
				err = fmt.Errorf("%w: window %d: empty response", ErrInvalidAnswer, w)
			} else {
				got, err = parseAnswer(msg.Content, d, ws, we, starts)
			}
			if err == nil {
				break
			}
			err = fmt.Errorf("window %d [%d,%d): %w", w, ws, we, err)
			if attempt+1 == c.cfg.LLMAttempts {
				return nil, calls, err
			}
			feedback = err.Error()
			c.log.Debug().Str(logging.FieldDocID, docID).Int("window", w).Err(err).Msg("chunker: retrying the model")
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

// parseAnswer validates the model's answer for the window [ws, we) of d
// and turns it into marks. The answer must be exactly one JSON object
// (optionally inside a Markdown code fence) with no unknown fields; every
// anchor must occur in the window after the previous entry's start and
// begin at a sentence start; the subject must be a name that opens the
// entry. Boundaries are therefore in range and strictly increasing, so the
// pieces they make tile the text.
func parseAnswer(content string, d *docText, ws, we int, starts []bool) ([]mark, error) {
	var a answer
	if err := modeljson.Decode(content, &a); errors.Is(err, modeljson.ErrTrailing) {
		return nil, fmt.Errorf("%w: text after the JSON object", ErrInvalidAnswer)
	} else if err != nil {
		return nil, fmt.Errorf("%w: not the JSON object asked for: %v", ErrInvalidAnswer, err)
	}
	window := d.rs[ws:we]
	var out []mark
	prev := -1
	for i, e := range a.Entries {
		anchor := []rune(e.Anchor)
		n := utf8.RuneCountInString(e.Subject)
		switch {
		case len(anchor) == 0 || len(anchor) > maxAnchorRunes:
			return nil, fmt.Errorf("%w: entry %d: anchor of %d characters, want 1 to %d", ErrInvalidAnswer, i, len(anchor), maxAnchorRunes)
		case n == 0 || n > maxSubjectRunes || !allNameRunes(e.Subject):
			return nil, fmt.Errorf("%w: entry %d: subject %q is not a name", ErrInvalidAnswer, i, e.Subject)
		}
		at := indexRunes(window, anchor, prev+1)
		if at < 0 {
			if indexRunes(window, anchor, 0) >= 0 {
				return nil, fmt.Errorf("%w: entry %d: anchor %q is not after the previous entry (entries overlap or are out of order)", ErrInvalidAnswer, i, e.Anchor)
			}
			return nil, fmt.Errorf("%w: entry %d: anchor %q is not in the text", ErrInvalidAnswer, i, e.Anchor)
		}
		pos := ws + at
		if !starts[pos] {
			return nil, fmt.Errorf("%w: entry %d: anchor %q starts inside a sentence at offset %d", ErrInvalidAnswer, i, e.Anchor, pos)
		}
		if !opensWith(d.rs[pos:min(len(d.rs), pos+n+4)], e.Subject) {
			return nil, fmt.Errorf("%w: entry %d: subject %q does not open the entry at offset %d", ErrInvalidAnswer, i, e.Subject, pos)
		}
		kind := markEntry
		if e.Relative {
			kind = markSub
		}
		out = append(out, mark{pos: pos, kind: kind, subject: e.Subject})
		prev = at
	}
	return out, nil
}

func allNameRunes(s string) bool {
	for _, r := range s {
		if !isNameRune(r) {
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
	return indexRunes(head, rs[len(rs)-1:], 0) >= 0
}
