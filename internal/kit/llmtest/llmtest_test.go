package llmtest_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/annalist-dev/annalist/internal/kit/llmtest"
)

var prompt = []*schema.Message{schema.SystemMessage("be brief"), schema.UserMessage("hello")}

// texts calls m n times and returns the answers, "error: …" for a failed
// call.
func texts(m *llmtest.Model, n int) []string {
	var out []string
	for range n {
		msg, err := m.Generate(context.Background(), prompt)
		if err != nil {
			out = append(out, "error: "+err.Error())
			continue
		}
		out = append(out, msg.Content)
	}
	return out
}

func TestScripts(t *testing.T) {
	boom := errors.New("boom")
	for _, tt := range []struct {
		name string
		m    *llmtest.Model
		want string
	}{
		{"answers in order", llmtest.Answers("a", llmtest.Fail, "b"), "a|error: " + llmtest.ErrUnavailable.Error() + "|b|error: " + llmtest.ErrNoAnswer.Error()},
		{"the last repeated", llmtest.Repeat("a", "b"), "a|b|b|b"},
		{"a function of the call", llmtest.Func(func(c llmtest.Call) (string, error) {
			return c.User() + strings.Repeat("!", c.N), nil
		}), "hello!|hello!!|hello!!!|hello!!!!"},
		{"failing", llmtest.Failing(boom), "error: boom|error: boom|error: boom|error: boom"},
		{"sequence of replies", llmtest.Sequence(llmtest.Text("x"), llmtest.Text(llmtest.Fail)),
			"x|error: " + llmtest.ErrUnavailable.Error() + "|error: " + llmtest.ErrUnavailable.Error() + "|error: " + llmtest.ErrUnavailable.Error()},
	} {
		if got := strings.Join(texts(tt.m, 4), "|"); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.name, got, tt.want)
		}
		if tt.m.Calls() != 4 {
			t.Errorf("%s: %d calls recorded", tt.name, tt.m.Calls())
		}
	}
}

func TestRecords(t *testing.T) {
	m := llmtest.Repeat("ok")
	texts(m, 2)
	if s, u, p := m.Systems(), m.Users(), m.Prompts(); len(s) != 2 || s[1] != "be brief" || u[0] != "hello" ||
		p[0] != "system: be brief\nuser: hello\n" {
		t.Errorf("systems %q users %q prompts %q", s, u, p)
	}
	if c := m.Call(1); c.N != 2 || len(c.Messages) != 2 {
		t.Errorf("call %+v", c)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.Generate(ctx, prompt); !errors.Is(err, context.Canceled) || m.Calls() != 2 {
		t.Errorf("a call with a done context: %v, %d calls recorded", err, m.Calls())
	}
}

func TestStream(t *testing.T) {
	m := llmtest.New(func(context.Context, llmtest.Call) (*schema.Message, error) {
		msg := schema.AssistantMessage("hello", nil)
		msg.ResponseMeta = &schema.ResponseMeta{Usage: &schema.TokenUsage{PromptTokens: 3, CompletionTokens: 1}}
		return msg, nil
	})
	sr, err := m.Stream(context.Background(), prompt)
	if err != nil {
		t.Fatal(err)
	}
	defer sr.Close()
	var parts []string
	var usage *schema.TokenUsage
	for {
		msg, err := sr.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, msg.Content)
		if msg.ResponseMeta != nil {
			usage = msg.ResponseMeta.Usage
		}
	}
	if strings.Join(parts, "") != "hello" || len(parts) < 2 || usage == nil || usage.PromptTokens != 3 {
		t.Errorf("parts %q usage %+v", parts, usage)
	}
	if _, err := llmtest.Failing(io.ErrUnexpectedEOF).Stream(context.Background(), prompt); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("a failing stream: %v", err)
	}
}
