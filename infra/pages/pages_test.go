package pages_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/annalist-dev/annalist/infra/pages"
	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
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
	if n, err := s.VersionCounts(ctx, "t", schemas.KindBiography, []string{"叶向高", "无名"}); err != nil || !slices.Equal(n, []int{2, 0}) {
		t.Fatalf("version counts = %v, %v; want [2 0]", n, err)
	}
	for chunk, want := range map[string]int{"c1": 1, "c3": 1, "c9": 0} {
		deps, err := s.Dependents(ctx, "t", nil, []string{chunk})
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

// Pages are keyed by kind and subject: a page of another kind about a
// subject is a page of its own, never the next version of the subject's
// biography; the biography keeps the keys it had before there were kinds,
// and each kind has its own dependency index.
func TestPageOfAnotherKindLeavesTheBiography(t *testing.T) {
	ctx := context.Background()
	c := redistest.Client(t)
	s := pages.New(c)
	if _, _, err := s.Publish(ctx, "t", page("r-bio", "c1")); err != nil {
		t.Fatal(err)
	}
	ans := page("r-answer", "c2")
	ans.Kind = schemas.KindAnswer
	ans.Sentences[0].Text = "叶向高，福清人。"
	got, created, err := s.Publish(ctx, "t", ans)
	if err != nil || !created || got.Version != 1 || got.Kind != schemas.KindAnswer {
		t.Fatalf("answer page = %+v created=%v err=%v; want its own version 1", got, created, err)
	}
	if cur, err := s.Current(ctx, "t", "叶向高"); err != nil || cur.Version != 1 || cur.RequestID != "r-bio" {
		t.Fatalf("biography after the answer = %+v, %v; want version 1 of r-bio", cur, err)
	}
	if vs, err := s.Versions(ctx, "t", "叶向高"); err != nil || len(vs) != 1 {
		t.Fatalf("biography versions = %+v, %v; want one", vs, err)
	}
	if cur, err := s.CurrentOf(ctx, "t", schemas.KindAnswer, "叶向高"); err != nil || cur.RequestID != "r-answer" {
		t.Fatalf("current answer = %+v, %v", cur, err)
	}
	if vs, err := s.VersionsOf(ctx, "t", schemas.KindAnswer, "叶向高"); err != nil || len(vs) != 1 || vs[0].RequestID != "r-answer" {
		t.Fatalf("answer versions = %+v, %v", vs, err)
	}
	if _, err := s.CurrentOf(ctx, "t", schemas.KindTopicPage, "叶向高"); !errors.Is(err, pages.ErrNotFound) {
		t.Fatalf("topic page never published: err = %v; want ErrNotFound", err)
	}
	// The keys: a biography's are those of stores written before kinds.
	for key, want := range map[string]string{"page:{t}:叶向高": "r-bio", "page:{t}:answer:叶向高": "r-answer"} {
		b, err := c.Get(ctx, key).Bytes()
		if err != nil || !strings.Contains(string(b), `"request_id":"`+want+`"`) {
			t.Errorf("key %s = %s, %v; want the page of %s", key, b, err, want)
		}
	}
	for _, tc := range []struct {
		kind, chunk string
		want        []string
	}{
		{schemas.KindBiography, "c1", []string{"叶向高"}},
		{schemas.KindBiography, "c2", nil},
		{schemas.KindAnswer, "c2", []string{"叶向高"}},
		{schemas.KindAnswer, "c1", nil},
	} {
		deps, err := s.DependentsOf(ctx, "t", tc.kind, tc.chunk)
		if err != nil || !slices.Equal(deps, tc.want) {
			t.Errorf("%s pages citing %s = %v, %v; want %v", tc.kind, tc.chunk, deps, err, tc.want)
		}
	}
	if subs, err := s.Subjects(ctx, "t"); err != nil || !slices.Equal(subs, []string{"叶向高"}) {
		t.Errorf("biography subjects = %v, %v", subs, err)
	}
	if subs, err := s.SubjectsOf(ctx, "t", schemas.KindAnswer); err != nil || !slices.Equal(subs, []string{"叶向高"}) {
		t.Errorf("answer subjects = %v, %v", subs, err)
	}
	// A request's status leads to the page of its kind; a status written
	// without a kind is a biography's.
	for _, tc := range []struct {
		kind, want string
	}{{schemas.KindAnswer, "r-answer"}, {"", "r-bio"}, {schemas.KindBiography, "r-bio"}} {
		st := pages.RequestStatus{RequestID: "x", Kind: tc.kind, State: pages.RequestPublished, Page: "叶向高", Version: 1}
		p, err := s.Published(ctx, "t", st)
		if err != nil || p.RequestID != tc.want {
			t.Errorf("page of a %q request = %+v, %v; want %s's", tc.kind, p, err, tc.want)
		}
	}
	if _, err := s.Published(ctx, "t", pages.RequestStatus{RequestID: "x", State: pages.RequestFailed}); !errors.Is(err, pages.ErrNotFound) {
		t.Errorf("page of a failed request: err = %v; want ErrNotFound", err)
	}
}

func TestWaitSeesFinishBeforeAndAfterItStarts(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := redistest.Client(t)
	s := pages.New(c)
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
	// "late" finishes once Wait is subscribed to the completion channel
	// (seen on the server), so Wait has started before it.
	finished := make(chan error, 1)
	go func() {
		for {
			n, err := c.PubSubNumSub(ctx, "req:{t}:done").Result()
			if err != nil {
				finished <- err
				return
			}
			if n["req:{t}:done"] > 0 {
				break
			}
			select {
			case <-ctx.Done():
				finished <- ctx.Err()
				return
			case <-time.After(time.Millisecond):
			}
		}
		finished <- s.Finish(ctx, "t", schemas.Request{RequestID: "late", Subject: "x"}, nil, "unknown subject")
	}()
	st, err := s.Wait(ctx, "t", "early", "late")
	if ferr := <-finished; ferr != nil {
		t.Fatal(ferr)
	}
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
