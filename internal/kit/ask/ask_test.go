package ask_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/cloudwego/eino/schema"

	"github.com/annalist-dev/annalist/internal/kit/ask"
	"github.com/annalist-dev/annalist/internal/kit/llmtest"
	"github.com/annalist-dev/annalist/internal/kit/modeljson"
)

var files = fstest.MapFS{
	"q.v1.tmpl": {Data: []byte(`{{define "system"}}
  Answer {"n": <number>} with n = {{.Want}}.
{{end}}{{define "user"}}Question {{.Want}}.
{{if .Feedback}}Your previous answer was rejected: {{.Feedback}}
{{end}}{{end}}`)},
	"nouser.tmpl": {Data: []byte(`{{define "system"}}x{{end}}`)},
}

var prompt = ask.MustParseFS("q.v1", nil, files, "q.v1.tmpl")

type data struct {
	Want     int
	Feedback string
}

type answer struct {
	N int `json:"n"`
}

var errOdd = errors.New("n is odd")

// request asks for n = want and accepts an even answer.
func request(want int) ask.Request[answer, int] {
	return ask.Request[answer, int]{
		Prompt: prompt,
		Data:   func(feedback string) any { return data{Want: want, Feedback: feedback} },
		Validate: func(a answer) (int, error) {
			if a.N%2 != 0 {
				return 0, errOdd
			}
			return a.N, nil
		},
	}
}

func TestRender(t *testing.T) {
	msgs, err := prompt.Render(data{Want: 4})
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 2 || msgs[0].Role != schema.System || msgs[1].Role != schema.User ||
		msgs[0].Content != `Answer {"n": <number>} with n = 4.` || msgs[1].Content != "Question 4." {
		t.Fatalf("messages %v", msgs)
	}
	if prompt.Version() != "q.v1" {
		t.Errorf("version %q", prompt.Version())
	}
	if _, err := ask.ParseFS("x.v1", nil, files, "nouser.tmpl"); err == nil || !strings.Contains(err.Error(), `"user"`) {
		t.Errorf("a prompt without a user template: %v", err)
	}
}

func TestJSON(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name     string
		model    *llmtest.Model
		attempts int
		want     int
		calls    int
		rejected []string // the reason of each rejection, in order
		err      error
	}{
		{"good answer", llmtest.Answers(`{"n": 4}`), 0, 4, 1, nil, nil},
		{"fenced", llmtest.Answers("```json\n{\"n\": 4}\n```"), 0, 4, 1, nil, nil},
		{"malformed, then good", llmtest.Answers(`n = 4`, `{"n": 4}`), 0, 4, 2, []string{"not the JSON object"}, nil},
		{"invalid, then good", llmtest.Answers(`{"n": 3}`, `{"n": 4}`), 0, 4, 2, []string{"n is odd"}, nil},
		{"unknown field", llmtest.Answers(`{"n": 4, "why": "x"}`, `{"n": 4}`), 0, 4, 2, []string{"unknown field"}, nil},
		{"trailing text", llmtest.Answers(`{"n": 4} hope this helps`, `{"n": 4}`), 0, 4, 2, []string{"text after the JSON object"}, nil},
		{"rejected to the end", llmtest.Repeat(`{"n": 3}`), 3, 0, 3, []string{"n is odd", "n is odd", "n is odd"}, ask.ErrRejected},
		{"model error", llmtest.Answers(llmtest.Fail, `{"n": 4}`), 0, 0, 1, nil, llmtest.ErrUnavailable},
		{"model error after a rejection", llmtest.Answers(`{"n": 3}`, llmtest.Fail), 0, 0, 2, []string{"n is odd"}, llmtest.ErrUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := request(4)
			req.Attempts = tt.attempts
			var reasons []string
			req.OnReject = func(attempt int, reason error) {
				if attempt != len(reasons)+1 {
					t.Errorf("rejection reported for attempt %d, want %d", attempt, len(reasons)+1)
				}
				reasons = append(reasons, reason.Error())
			}
			got, calls, err := ask.JSON(ctx, tt.model, req)
			if !errors.Is(err, tt.err) || (tt.err == nil) != (err == nil) {
				t.Fatalf("error %v, want %v", err, tt.err)
			}
			if got != tt.want || calls != tt.calls || tt.model.Calls() != tt.calls {
				t.Errorf("got %d in %d calls (model saw %d), want %d in %d", got, calls, tt.model.Calls(), tt.want, tt.calls)
			}
			if len(reasons) != len(tt.rejected) {
				t.Fatalf("rejections %q, want %q", reasons, tt.rejected)
			}
			users := tt.model.Users()
			for i, r := range tt.rejected {
				if !strings.Contains(reasons[i], r) {
					t.Errorf("rejection %d: %q, want it to say %q", i+1, reasons[i], r)
				}
				if i+1 < len(users) && !strings.Contains(users[i+1], "rejected: "+reasons[i]) {
					t.Errorf("prompt %d does not carry the reason %q:\n%s", i+2, reasons[i], users[i+1])
				}
			}
			if strings.Contains(users[0], "rejected") {
				t.Errorf("the first prompt carries feedback:\n%s", users[0])
			}
		})
	}
}

func TestJSONRejectedError(t *testing.T) {
	_, _, err := ask.JSON(context.Background(), llmtest.Answers(`{"n": 3}`, `{"n": 4} {}`), request(4))
	var rej *ask.RejectedError
	if !errors.As(err, &rej) || rej.Answers != 2 || !errors.Is(err, modeljson.ErrTrailing) || !errors.Is(err, ask.ErrMalformed) {
		t.Fatalf("error %v (%#v), want 2 answers rejected, the last one malformed", err, rej)
	}
	if err.Error() != "2 answers rejected, last: "+rej.Reason.Error() {
		t.Errorf("error text %q", err)
	}
	_, _, err = ask.JSON(context.Background(), llmtest.Answers(`{"n": 3}`), ask.Request[answer, int]{
		Prompt: prompt, Data: request(4).Data, Validate: request(4).Validate, Attempts: 1})
	if !errors.Is(err, errOdd) || err.Error() != "answer rejected: n is odd" {
		t.Errorf("one attempt: %v", err)
	}
}

func TestJSONRetryModelErrors(t *testing.T) {
	req := request(4)
	req.RetryModelErrors = true
	m := llmtest.Answers(`{"n": 3}`, llmtest.Fail, `{"n": 4}`)
	req.Attempts = 3
	got, calls, err := ask.JSON(context.Background(), m, req)
	if err != nil || got != 4 || calls != 3 {
		t.Fatalf("got %d in %d calls, %v", got, calls, err)
	}
	if u := m.Users(); !strings.Contains(u[1], "rejected") || strings.Contains(u[2], "rejected") {
		t.Errorf("the attempt after a model error carries feedback, or the one after a rejection none:\n%q", u)
	}

	req.Attempts = 2
	boom := errors.New("upstream 503")
	m = llmtest.Failing(boom)
	if _, calls, err := ask.JSON(context.Background(), m, req); !errors.Is(err, boom) || calls != 2 {
		t.Errorf("model errors to the end: %v after %d calls, want the model's error after 2", err, calls)
	}
}

func TestJSONContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m := llmtest.Repeat(`{"n": 4}`)
	if _, calls, err := ask.JSON(ctx, m, request(4)); !errors.Is(err, context.Canceled) || calls != 0 || m.Calls() != 0 {
		t.Errorf("cancelled context: %v after %d calls", err, calls)
	}
	// A model error once the context is done ends the question even when
	// model errors are retried.
	ctx, cancel = context.WithCancel(context.Background())
	m = llmtest.Func(func(llmtest.Call) (string, error) {
		cancel()
		return "", context.Canceled
	})
	req := request(4)
	req.RetryModelErrors = true
	if _, calls, err := ask.JSON(ctx, m, req); !errors.Is(err, context.Canceled) || calls != 1 {
		t.Errorf("cancelled during the call: %v after %d calls", err, calls)
	}
}

func TestJSONNoMessageIsMalformed(t *testing.T) {
	m := llmtest.New(func(context.Context, llmtest.Call) (*schema.Message, error) { return nil, nil })
	_, calls, err := ask.JSON(context.Background(), m, request(4))
	if !errors.Is(err, ask.ErrRejected) || !errors.Is(err, ask.ErrMalformed) || calls != 2 {
		t.Errorf("no message: %v after %d calls", err, calls)
	}
}

func TestJSONNoModel(t *testing.T) {
	if _, calls, err := ask.JSON(context.Background(), nil, request(4)); !errors.Is(err, ask.ErrNoModel) || calls != 0 {
		t.Errorf("no model: %v after %d calls", err, calls)
	}
}
