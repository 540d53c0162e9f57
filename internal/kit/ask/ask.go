// Package ask is the one way the LLM engine's agents talk to a model:
// render a versioned prompt, ask the chat model, decode the answer
// strictly (internal/kit/modeljson: one JSON object, no unknown fields,
// nothing after it), validate it, and on a malformed or invalid answer ask
// again with the reason, a bounded number of times. The chunker, the
// extractor (regex synthesis and plan B), the writer's drafter, the
// verifier's judge and the regenerate solver all ask through JSON, so a
// retry, a rejection and a model failure mean the same thing in each.
//
// Errors: a model or transport failure is returned as it is (transient:
// the runtime retries the message, and infra/llm has already retried 429s
// and 5xx); the answers rejected up to the last attempt are an error that
// wraps ErrRejected and the last reason, which the caller turns into its
// fallback or a permanent error. Render errors are programming errors in
// an embedded template and are returned as they are.
package ask

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"text/template"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/annalist-dev/annalist/internal/kit/modeljson"
)

// DefaultAttempts is the number of answers one question may take when
// Request.Attempts is not set: a rejected answer is asked again once.
const DefaultAttempts = 2

// ErrMalformed marks an answer that is not the JSON object asked for: not
// JSON, an unknown field, text after the object, or no message at all.
var ErrMalformed = errors.New("the answer is not the JSON object asked for")

// ErrRejected marks the end of a question whose every answer was rejected
// (malformed or invalid). Branch on it with errors.Is; the error also
// wraps the last answer's reason.
var ErrRejected = errors.New("every answer rejected")

// ErrNoModel is returned when there is no chat model to ask.
var ErrNoModel = errors.New("no chat model")

// RejectedError is the error JSON returns when its last attempt's answer
// was rejected.
type RejectedError struct {
	// Answers is how many answers were rejected.
	Answers int
	// Reason is why the last one was.
	Reason error
}

func (e *RejectedError) Error() string {
	if e.Answers == 1 {
		return fmt.Sprintf("answer rejected: %v", e.Reason)
	}
	return fmt.Sprintf("%d answers rejected, last: %v", e.Answers, e.Reason)
}

// Unwrap makes errors.Is find ErrRejected and the reason's own sentinels.
func (e *RejectedError) Unwrap() []error { return []error{ErrRejected, e.Reason} }

// Prompt is one version of a prompt: a template set that defines a
// "system" and a "user" template. A template file is never edited in
// place: a change is a new version, so an answer can be traced to the
// prompt that asked for it.
type Prompt struct {
	version string
	tmpl    *template.Template
}

// ParseFS parses the files of fsys that patterns match as prompt version;
// funcs are available to the templates.
func ParseFS(version string, funcs template.FuncMap, fsys fs.FS, patterns ...string) (*Prompt, error) {
	t, err := template.New(version).Funcs(funcs).ParseFS(fsys, patterns...)
	if err != nil {
		return nil, fmt.Errorf("parse prompt %s: %w", version, err)
	}
	for _, name := range []string{"system", "user"} {
		if t.Lookup(name) == nil {
			return nil, fmt.Errorf("parse prompt %s: no %q template", version, name)
		}
	}
	return &Prompt{version: version, tmpl: t}, nil
}

// MustParseFS is ParseFS for embedded templates, which are part of the
// build: it panics on an error, which every test of the agent catches.
func MustParseFS(version string, funcs template.FuncMap, fsys fs.FS, patterns ...string) *Prompt {
	p, err := ParseFS(version, funcs, fsys, patterns...)
	if err != nil {
		panic(err)
	}
	return p
}

// Version is the prompt's version, e.g. "draft.v1".
func (p *Prompt) Version() string { return p.version }

// Render executes the "system" and "user" templates with data and returns
// them as a system and a user message, each trimmed of surrounding white
// space.
func (p *Prompt) Render(data any) ([]*schema.Message, error) {
	var s, u bytes.Buffer
	if err := p.tmpl.ExecuteTemplate(&s, "system", data); err != nil {
		return nil, fmt.Errorf("render prompt %s system: %w", p.version, err)
	}
	if err := p.tmpl.ExecuteTemplate(&u, "user", data); err != nil {
		return nil, fmt.Errorf("render prompt %s user: %w", p.version, err)
	}
	return []*schema.Message{
		schema.SystemMessage(strings.TrimSpace(s.String())),
		schema.UserMessage(strings.TrimSpace(u.String())),
	}, nil
}

// Request is one question: the prompt, its data, and how an answer of
// type T (decoded strictly) is validated into the R the caller wants.
type Request[T, R any] struct {
	Prompt *Prompt
	// Data is the prompt data of one attempt. feedback is "" on the first
	// attempt; on a retry it is why the previous answer was rejected, and
	// the template shows it (every template of the project does so as
	// .Feedback).
	Data func(feedback string) any
	// Validate checks a decoded answer and returns what the caller keeps
	// of it. An error rejects the answer; its text is the feedback of the
	// next attempt, so it should tell the model what to change. Required.
	Validate func(answer T) (R, error)
	// Attempts bounds the model calls (default DefaultAttempts).
	Attempts int
	// RetryModelErrors makes a model error cost an attempt instead of
	// ending the question, for callers that fall back to an offline engine
	// on any failure and would rather ask once more than fall back on one
	// transient error. The attempt after a model error carries no
	// feedback. The last attempt's model error is still returned as it is,
	// and so is any error once ctx is done.
	RetryModelErrors bool
	// OnReject, when set, is called with each rejected answer's attempt
	// number (from 1) and reason, before the next attempt: for the
	// caller's logs and counters.
	OnReject func(attempt int, reason error)
}

// JSON asks m the question of req until an answer decodes and validates,
// at most req.Attempts times, and returns the validated value and the
// number of model calls made (also on error). See the package comment for
// what its errors mean.
func JSON[T, R any](ctx context.Context, m model.BaseChatModel, req Request[T, R]) (R, int, error) {
	var zero R
	if m == nil {
		return zero, 0, ErrNoModel
	}
	attempts := req.Attempts
	if attempts <= 0 {
		attempts = DefaultAttempts
	}
	calls, rejected := 0, 0
	var feedback string
	for attempt := 1; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return zero, calls, err
		}
		msgs, err := req.Prompt.Render(req.Data(feedback))
		if err != nil {
			return zero, calls, err
		}
		calls++
		msg, err := m.Generate(ctx, msgs)
		if err != nil {
			if !req.RetryModelErrors || attempt >= attempts || ctx.Err() != nil {
				return zero, calls, err
			}
			feedback = ""
			continue
		}
		v, reason := decode(msg, req.Validate)
		if reason == nil {
			return v, calls, nil
		}
		rejected++
		if req.OnReject != nil {
			req.OnReject(attempt, reason)
		}
		if attempt >= attempts {
			return zero, calls, &RejectedError{Answers: rejected, Reason: reason}
		}
		feedback = reason.Error()
	}
}

func decode[T, R any](msg *schema.Message, validate func(T) (R, error)) (R, error) {
	var zero R
	if msg == nil {
		return zero, fmt.Errorf("%w: the model returned no message", ErrMalformed)
	}
	var a T
	if err := modeljson.Decode(msg.Content, &a); err != nil {
		return zero, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	return validate(a)
}
