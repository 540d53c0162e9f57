package pages_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/annalist-dev/annalist/infra/pages"
	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
	"github.com/annalist-dev/annalist/schemas"
)

// A request still queued at its deadline reads as failed, with the
// reason, to every reader, and Wait returns at the deadline instead of
// waiting for a page that does not come; a page finished later is stored
// as a version, but the request stays failed.
func TestRequestFailsAtItsDeadline(t *testing.T) {
	ctx := context.Background()
	s := pages.New(redistest.Client(t))
	now := time.Now().UTC()
	st := pages.RequestStatus{RequestID: "r-late", Kind: schemas.KindBiography, Subject: "叶向高",
		State: pages.RequestQueued, RequestedAt: now.Format(time.RFC3339Nano),
		Deadline: now.Add(300 * time.Millisecond).Format(time.RFC3339Nano)}
	if err := s.SetRequest(ctx, "t", st); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Request(ctx, "t", "r-late"); err != nil || got.State != pages.RequestQueued || got.Deadline != st.Deadline {
		t.Fatalf("before the deadline: %+v, %v", got, err)
	}
	wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	start := time.Now()
	out, err := s.Wait(wctx, "t", "r-late")
	if err != nil {
		t.Fatalf("wait: %v", err)
	}
	if waited := time.Since(start); waited > 2*time.Second {
		t.Errorf("wait returned %s after a deadline of 300ms", waited)
	}
	if out[0].State != pages.RequestFailed || !strings.Contains(out[0].Error, "deadline exceeded after 300ms") {
		t.Fatalf("status at the deadline: %+v", out[0])
	}
	// A page that arrives late is a version of the page, not the outcome.
	p, _, err := s.Publish(ctx, "t", schemas.Page{Subject: "叶向高", Kind: schemas.KindBiography, RequestID: "r-late",
		Sentences: []schemas.PageSentence{{Text: "x", Citations: []schemas.Citation{{ChunkID: "c1"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Finish(ctx, "t", schemas.Request{RequestID: "r-late", Kind: schemas.KindBiography, Subject: "叶向高"}, &p, ""); err != nil {
		t.Fatal(err)
	}
	got, err := s.Request(ctx, "t", "r-late")
	if err != nil || got.State != pages.RequestFailed || got.Error != out[0].Error || got.Deadline != st.Deadline {
		t.Fatalf("after a late page: %+v, %v; want it still failed", got, err)
	}
	if cur, err := s.Current(ctx, "t", "叶向高"); err != nil || cur.Version != 1 {
		t.Fatalf("late page: %+v, %v", cur, err)
	}
}

// The first final state wins: a published request is not failed after.
func TestFinishedRequestKeepsItsOutcome(t *testing.T) {
	ctx := context.Background()
	s := pages.New(redistest.Client(t))
	r := schemas.Request{RequestID: "r1", Kind: schemas.KindBiography, Subject: "叶向高"}
	if err := s.SetRequest(ctx, "t", pages.RequestStatus{RequestID: "r1", State: pages.RequestQueued}); err != nil {
		t.Fatal(err)
	}
	p := schemas.Page{Subject: "叶向高", Version: 3}
	if err := s.Finish(ctx, "t", r, &p, ""); err != nil {
		t.Fatal(err)
	}
	if err := s.Finish(ctx, "t", r, nil, "too late"); err != nil {
		t.Fatal(err)
	}
	if err := s.SetRequest(ctx, "t", pages.RequestStatus{RequestID: "r1", State: pages.RequestQueued}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Request(ctx, "t", "r1")
	if err != nil || got.State != pages.RequestPublished || got.Version != 3 || got.Error != "" {
		t.Fatalf("status %+v, %v", got, err)
	}
}
