package pages_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/annalist-dev/annalist/infra/pages"
	"github.com/annalist-dev/annalist/infra/redis/redistest"
	"github.com/annalist-dev/annalist/schemas"
)

func page(req string, chunks ...string) schemas.Page {
	p := schemas.Page{Subject: "叶向高", Kind: schemas.KindBiography, RequestID: req, Version: 1}
	for _, c := range chunks {
		p.Sentences = append(p.Sentences, schemas.PageSentence{Text: "叶向高，字进卿。", Status: "supported",
			Citations: []schemas.Citation{{ChunkID: c, Text: "…"}}})
	}
	return p
}

func TestPublishIsIdempotentPerRequest(t *testing.T) {
	ctx := context.Background()
	s := pages.New(redistest.Client(t))
	p1, created, err := s.Publish(ctx, "t", page("r1", "c1", "c2"))
	if err != nil || !created || p1.Version != 1 {
		t.Fatalf("first publish = v%d created=%v err=%v; want v1 created", p1.Version, created, err)
	}
	again, created, err := s.Publish(ctx, "t", page("r1", "c1", "c2"))
	if err != nil || created || again.Version != 1 {
		t.Fatalf("republish = v%d created=%v err=%v; want the stored v1", again.Version, created, err)
	}
	p2, created, err := s.Publish(ctx, "t", page("r2", "c3"))
	if err != nil || !created || p2.Version != 2 {
		t.Fatalf("second request = v%d created=%v err=%v; want v2", p2.Version, created, err)
	}
	cur, err := s.Current(ctx, "t", "叶向高")
	if err != nil || cur.Version != 2 || cur.RequestID != "r2" {
		t.Fatalf("current = %+v, %v; want version 2 of r2", cur, err)
	}
	v1, err := s.Version(ctx, "t", "叶向高", 1)
	if err != nil || v1.RequestID != "r1" || len(v1.Sentences) != 2 {
		t.Fatalf("version 1 = %+v, %v", v1, err)
	}
	vs, err := s.Versions(ctx, "t", "叶向高")
	if err != nil || len(vs) != 2 || vs[0].Version != 1 || vs[1].Version != 2 {
		t.Fatalf("versions = %+v, %v", vs, err)
	}
	for chunk, want := range map[string]int{"c1": 1, "c3": 1, "c9": 0} {
		deps, err := s.Dependents(ctx, "t", chunk)
		if err != nil || len(deps) != want {
			t.Fatalf("dependents of %s = %v, %v; want %d", chunk, deps, err, want)
		}
	}
	if _, err := s.Current(ctx, "other", "叶向高"); !errors.Is(err, pages.ErrNotFound) {
		t.Fatalf("another tenant's page: err = %v; want ErrNotFound", err)
	}
	if _, err := s.Version(ctx, "t", "叶向高", 7); !errors.Is(err, pages.ErrNotFound) {
		t.Fatalf("missing version: err = %v; want ErrNotFound", err)
	}
}

func TestWaitSeesFinishBeforeAndAfterItStarts(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s := pages.New(redistest.Client(t))
	for _, id := range []string{"early", "late"} {
		if err := s.SetRequest(ctx, "t", pages.RequestStatus{RequestID: id, Subject: "x", State: pages.RequestQueued}); err != nil {
			t.Fatal(err)
		}
	}
	p, _, err := s.Publish(ctx, "t", page("early", "c1"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Finish(ctx, "t", schemas.Request{RequestID: "early", Subject: "x"}, &p, ""); err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(50 * time.Millisecond)
		_ = s.Finish(ctx, "t", schemas.Request{RequestID: "late", Subject: "x"}, nil, "unknown subject")
	}()
	st, err := s.Wait(ctx, "t", "early", "late")
	if err != nil {
		t.Fatal(err)
	}
	if st[0].State != pages.RequestPublished || st[0].Version != 1 || st[1].State != pages.RequestFailed || st[1].Error != "unknown subject" {
		t.Fatalf("statuses = %+v", st)
	}
	// A queued status does not overwrite a final one.
	if err := s.SetRequest(ctx, "t", pages.RequestStatus{RequestID: "early", Subject: "x", State: pages.RequestQueued}); err != nil {
		t.Fatal(err)
	}
	if r, err := s.Request(ctx, "t", "early"); err != nil || r.State != pages.RequestPublished {
		t.Fatalf("after a late queued status: %+v, %v", r, err)
	}
}

func TestReviewsOpenDecideAndBecomeDecisions(t *testing.T) {
	ctx := context.Background()
	s := pages.New(redistest.Client(t))
	r := schemas.Review{ReviewID: "rv1", Subject: "叶向高", Relation: "native_place", Question: "native place?",
		Options: []schemas.ReviewOption{{Value: "福清", ChunkID: "c1"}, {Value: "侯官", ChunkID: "c2"}}}
	for i := 0; i < 2; i++ {
		if err := s.OpenReview(ctx, "t", r); err != nil {
			t.Fatal(err)
		}
	}
	open, err := s.Reviews(ctx, "t", pages.ReviewOpen)
	if err != nil || len(open) != 1 {
		t.Fatalf("open reviews = %+v, %v; want one (opening twice is once)", open, err)
	}
	if _, err := s.Decide(ctx, "t", "rv1", "长乐"); !errors.Is(err, pages.ErrInvalidDecision) {
		t.Fatalf("decision outside the options: err = %v", err)
	}
	if _, err := s.Decide(ctx, "t", "nope", "福清"); !errors.Is(err, pages.ErrNotFound) {
		t.Fatalf("unknown review: err = %v", err)
	}
	if _, err := s.Decide(ctx, "t", "rv1", "福清"); err != nil {
		t.Fatal(err)
	}
	// Reopening a decided review leaves the decision.
	if err := s.OpenReview(ctx, "t", r); err != nil {
		t.Fatal(err)
	}
	ds, err := s.Decisions(ctx, "t", "叶向高")
	if err != nil || len(ds) != 1 {
		t.Fatalf("decisions = %+v, %v", ds, err)
	}
	d := ds[0]
	if d.Value != "福清" || d.ChunkID != "c1" || len(d.Rejected) != 1 || d.Rejected[0] != "侯官" || d.Relation != "native_place" {
		t.Fatalf("decision = %+v", d)
	}
	if open, _ := s.Reviews(ctx, "t", pages.ReviewOpen); len(open) != 0 {
		t.Fatalf("open after decision = %+v", open)
	}
}
