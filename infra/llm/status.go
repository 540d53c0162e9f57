package llm

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"unicode/utf8"
)

// maxErrorBody bounds how much of an error answer's body an error carries.
const maxErrorBody = 512

// StatusError is a failed model call with the HTTP answer the transport
// saw: the status and the start of the body. The provider client turns
// some error bodies into an error with no message and no status (an
// OpenAI-compatible server answering {"error":"boom"} with 500), so the
// decorator adds what was on the wire: a logged error always names the
// status and the cause, and retries see a 5xx as a 5xx.
type StatusError struct {
	// Code is the HTTP status code and Status its text ("500 Internal
	// Server Error").
	Code   int
	Status string
	// Body is the start of the answer's body, trimmed.
	Body string
	// Err is the provider client's error.
	Err error
}

func (e *StatusError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "HTTP %s", e.Status)
	cause := ""
	if e.Err != nil {
		cause = strings.TrimSpace(e.Err.Error())
	}
	if e.Body != "" && !strings.Contains(cause, e.Body) {
		fmt.Fprintf(&b, ", body %q", e.Body)
	}
	if cause != "" {
		b.WriteString(": " + cause)
	}
	return b.String()
}

func (e *StatusError) Unwrap() error { return e.Err }

// StatusCode is the HTTP status code.
func (e *StatusError) StatusCode() int { return e.Code }

type httpRecordKey struct{}

// httpRecord is the last error answer of one attempt, filled in by
// statusTransport for the attempt whose context carries it.
type httpRecord struct {
	mu     sync.Mutex
	code   int
	status string
	body   string
}

// annotate adds the recorded answer to err; err unchanged when the
// attempt got no error answer. An error with no message names its type, so
// that no error reads empty.
func (r *httpRecord) annotate(err error) error {
	r.mu.Lock()
	code, status, body := r.code, r.status, r.body
	r.mu.Unlock()
	if code == 0 {
		if err.Error() == "" {
			return fmt.Errorf("%T with no message: %w", err, err)
		}
		return err
	}
	return &StatusError{Code: code, Status: status, Body: body, Err: err}
}

// statusTransport records the status and the start of the body of every
// error answer (status ≥ 400) into the httpRecord of the request's
// context, leaving the body readable in full for the client.
type statusTransport struct{ next http.RoundTripper }

func (t statusTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil || resp.StatusCode < 400 {
		return resp, err
	}
	rec, ok := req.Context().Value(httpRecordKey{}).(*httpRecord)
	if !ok {
		return resp, nil
	}
	head, rerr := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(head), resp.Body), resp.Body}
	body := strings.Join(strings.Fields(string(head)), " ")
	for !utf8.ValidString(body) && body != "" {
		body = body[:len(body)-1]
	}
	if rerr != nil && body == "" {
		body = "(unreadable: " + rerr.Error() + ")"
	}
	rec.mu.Lock()
	rec.code, rec.status, rec.body = resp.StatusCode, resp.Status, body
	rec.mu.Unlock()
	return resp, nil
}
