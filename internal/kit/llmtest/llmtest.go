// Package llmtest is the scripted chat model the tests of the LLM engine
// use in place of a provider: an eino model.BaseChatModel that answers
// from a script — canned answers in order, the last one repeated, a
// function of the call, or an error — with answers as right or as wrong as
// the test needs, and records every prompt it was sent.
//
// Only tests import it (the binary links no test code); it imports no
// provider SDK, so infra/llm can wrap it like the real client.
package llmtest

import (
	"context"
	"errors"
	"strings"
	"sync"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
)

// Fail is an answer that fails its call with ErrUnavailable instead of
// answering: a script can put a transport failure between answers.
const Fail = "\x00llmtest: fail"

var (
	// ErrUnavailable is the error of a Fail answer.
	ErrUnavailable = errors.New("llmtest: 503 service unavailable")
	// ErrNoAnswer fails the calls after the answers of Answers ran out.
	ErrNoAnswer = errors.New("llmtest: no answer left")
)

// Call is one call the model received.
type Call struct {
	// N numbers the calls from 1.
	N        int
	Messages []*schema.Message
}

// System is the content of the call's system message.
func (c Call) System() string { return c.content(schema.System) }

// User is the content of the call's last user message.
func (c Call) User() string { return c.content(schema.User) }

func (c Call) content(role schema.RoleType) string {
	var s string
	for _, m := range c.Messages {
		if m.Role == role {
			s = m.Content
		}
	}
	return s
}

// Prompt is every message of the call, one "role: content" block each.
func (c Call) Prompt() string {
	var b strings.Builder
	for _, m := range c.Messages {
		b.WriteString(string(m.Role))
		b.WriteString(": ")
		b.WriteString(m.Content)
		b.WriteString("\n")
	}
	return b.String()
}

// Reply answers one call: the message, or the call's error.
type Reply func(ctx context.Context, c Call) (*schema.Message, error)

// Text is a Reply with the answer s (Fail fails the call).
func Text(s string) Reply {
	return func(context.Context, Call) (*schema.Message, error) {
		if s == Fail {
			return nil, ErrUnavailable
		}
		return schema.AssistantMessage(s, nil), nil
	}
}

// Model is a scripted chat model. It is safe for concurrent use; calls are
// numbered in the order they arrive.
type Model struct {
	reply Reply

	mu    sync.Mutex
	calls []Call
}

var _ model.BaseChatModel = (*Model)(nil)

// New returns a model whose every call is answered by reply.
func New(reply Reply) *Model { return &Model{reply: reply} }

// Answers returns a model that gives answers in order, one per call; calls
// after the last fail with ErrNoAnswer.
func Answers(answers ...string) *Model {
	return New(func(ctx context.Context, c Call) (*schema.Message, error) {
		if c.N > len(answers) {
			return nil, ErrNoAnswer
		}
		return Text(answers[c.N-1])(ctx, c)
	})
}

// Repeat returns a model that gives answers in order and the last one
// again when they run out.
func Repeat(answers ...string) *Model {
	replies := make([]Reply, len(answers))
	for i, a := range answers {
		replies[i] = Text(a)
	}
	return Sequence(replies...)
}

// Sequence returns a model that answers call i with replies[i], and later
// calls with the last reply.
func Sequence(replies ...Reply) *Model {
	return New(func(ctx context.Context, c Call) (*schema.Message, error) {
		if len(replies) == 0 {
			return nil, ErrNoAnswer
		}
		return replies[min(c.N, len(replies))-1](ctx, c)
	})
}

// Func returns a model that answers each call with f's text (or error).
func Func(f func(c Call) (string, error)) *Model {
	return New(func(ctx context.Context, c Call) (*schema.Message, error) {
		s, err := f(c)
		if err != nil {
			return nil, err
		}
		return Text(s)(ctx, c)
	})
}

// Failing returns a model whose every call fails with err.
func Failing(err error) *Model {
	return New(func(context.Context, Call) (*schema.Message, error) { return nil, err })
}

// Generate records the call and answers it from the script. A call with a
// done context fails with the context's error and is not recorded: it
// would not have reached a real model.
func (m *Model) Generate(ctx context.Context, in []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	c := Call{N: len(m.calls) + 1, Messages: in}
	m.calls = append(m.calls, c)
	m.mu.Unlock()
	return m.reply(ctx, c)
}

// Stream answers like Generate, delivered the way a provider streams: the
// content in two pieces, then a last message carrying the answer's
// response metadata (token usage) when it has any.
func (m *Model) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	msg, err := m.Generate(ctx, in, opts...)
	if err != nil {
		return nil, err
	}
	rs := []rune(msg.Content)
	half := len(rs) / 2
	chunks := []*schema.Message{
		schema.AssistantMessage(string(rs[:half]), nil),
		schema.AssistantMessage(string(rs[half:]), nil),
	}
	if msg.ResponseMeta != nil {
		chunks = append(chunks, &schema.Message{Role: schema.Assistant, ResponseMeta: msg.ResponseMeta})
	}
	return schema.StreamReaderFromArray(chunks), nil
}

// Calls is the number of calls recorded.
func (m *Model) Calls() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.calls)
}

// Call returns call i, counted from 0.
func (m *Model) Call(i int) Call {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.calls[i]
}

// Prompts are the calls' prompts (Call.Prompt), in order.
func (m *Model) Prompts() []string { return m.each(Call.Prompt) }

// Systems are the calls' system messages, in order.
func (m *Model) Systems() []string { return m.each(Call.System) }

// Users are the calls' user messages, in order.
func (m *Model) Users() []string { return m.each(Call.User) }

func (m *Model) each(f func(Call) string) []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]string, len(m.calls))
	for i, c := range m.calls {
		out[i] = f(c)
	}
	return out
}
