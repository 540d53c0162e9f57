package embed

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/annalist-dev/annalist/internal/kit/backoff"
)

// statusRecord receives the status code of the last HTTP attempt of a
// call, so the caller can tell a permanent rejection from a transient
// failure after the SDK has turned the response into an error.
type statusRecord struct{ code atomic.Int32 }

type statusKey struct{}

func withStatusRecord(ctx context.Context, st *statusRecord) context.Context {
	return context.WithValue(ctx, statusKey{}, st)
}

// retryTransport retries idempotent-to-repeat failures of one request: 429,
// 5xx, per-attempt timeouts and connection errors, with exponential backoff
// and Retry-After. Each attempt gets its own deadline, which lasts until
// the caller closes the response body.
type retryTransport struct {
	base    http.RoundTripper
	timeout time.Duration
	retries int
	backoff time.Duration
}

func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	st, _ := req.Context().Value(statusKey{}).(*statusRecord)
	wait := backoff.Exponential{Base: t.backoff, Cap: maxBackoff}
	for attempt := 0; ; attempt++ {
		r := req
		if attempt > 0 {
			body, err := req.GetBody()
			if err != nil {
				return nil, err
			}
			r = req.Clone(req.Context())
			r.Body = body
		}
		ctx, cancel := context.WithTimeout(req.Context(), t.timeout)
		resp, err := t.base.RoundTrip(r.WithContext(ctx))
		retry := false
		pause := wait.Delay(attempt + 1)
		switch {
		case err != nil:
			if req.Context().Err() != nil {
				cancel()
				return nil, err
			}
			retry = true
		case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
			retry = true
			if ra := retryAfter(resp.Header.Get("Retry-After")); ra > pause {
				pause = min(ra, maxBackoff)
			}
		}
		canRepeat := req.Body == nil || req.GetBody != nil
		if !retry || attempt >= t.retries || !canRepeat {
			if err != nil {
				cancel()
				return nil, err
			}
			if st != nil {
				st.code.Store(int32(resp.StatusCode))
			}
			resp.Body = &cancelBody{ReadCloser: resp.Body, cancel: cancel}
			return resp, nil
		}
		if resp != nil {
			io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			resp.Body.Close()
		}
		cancel()
		timer := time.NewTimer(pause)
		select {
		case <-req.Context().Done():
			timer.Stop()
			return nil, req.Context().Err()
		case <-timer.C:
		}
	}
}

// retryAfter parses a Retry-After header given in seconds or as an HTTP
// date; 0 when absent or unreadable.
func retryAfter(v string) time.Duration {
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil && s > 0 {
		return time.Duration(s) * time.Second
	}
	if at, err := http.ParseTime(v); err == nil {
		return time.Until(at)
	}
	return 0
}

// cancelBody releases an attempt's deadline when the body is closed.
type cancelBody struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}
