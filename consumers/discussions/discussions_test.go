package discussions_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/consumers/discussions"
	"github.com/annalist-dev/annalist/infra/discussionstore"
	"github.com/annalist-dev/annalist/infra/pages"
	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/pipeline/pipelinetest"
	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
)

// recorder records requests queued in the real page store, as the app's
// adapter does, and refuses kinds other than discussion_summary with an
// error wrapping schemas.ErrInvalid, as the kind registry does; fail, when
// set, is returned instead (an outage).
type recorder struct {
	pages *pages.Store
	fail  error
}

func (r *recorder) Accept(ctx context.Context, tenant string, req schemas.Request) error {
	if r.fail != nil {
		return r.fail
	}
	if req.Kind != schemas.KindDiscussionSummary {
		return fmt.Errorf("%w: kind %s is not registered", schemas.ErrInvalid, req.Kind)
	}
	return r.pages.SetRequest(ctx, tenant, pages.RequestStatus{RequestID: req.RequestID, Kind: req.Kind,
		Subject: req.Subject, State: pages.RequestQueued, RequestedAt: req.RequestedAt})
}

// failingStore is a store whose Redis is down.
type failingStore struct{}

func (failingStore) Put(context.Context, string, schemas.Discussion) (bool, error) {
	return false, errors.New("dial tcp 127.0.0.1:1: connection refused")
}

func discussion(id string) schemas.Discussion {
	return schemas.Discussion{ID: id,
		Background: []schemas.Paragraph{
			{Index: 1, Text: "Simona Halep won the French Open on Saturday."},
			{Index: 2, Text: "Her coach Darren Cahill praised her patience."},
		},
		Turns: []schemas.Turn{
			{Participant: "Person1", Utterance: "She deserved it."},
			{Participant: "Person2", Utterance: "Her coach did a great job."},
		}}
}

// onDiscussions places an input on the discussions topic.
var onDiscussions = pipelinetest.Topic(topology.Discussions)

// A discussion is stored, its paragraphs leave as English documents of
// its collection, and its summary request is recorded queued and leaves
// last; delivered again, the same messages leave under the same ids; sent
// again with one paragraph changed, the unchanged paragraph is the same
// document, the changed one a new document, and the request a new one.
func TestDiscussionIsStoredIngestedAndRequested(t *testing.T) {
	ctx := context.Background()
	c := redistest.Client(t)
	ds, ps := discussionstore.New(c), pages.New(c)
	st, err := discussions.New(ds, &recorder{pages: ps})
	if err != nil {
		t.Fatal(err)
	}
	tenant := "t-disc-" + t.Name()
	d := discussion("42")
	out, err := st.Handle(ctx, pipelinetest.Input(d, onDiscussions, pipelinetest.Tenant(tenant), pipelinetest.Event("ev1")))
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 3 {
		t.Fatalf("outputs = %+v, want two documents and a request", out)
	}
	for i, o := range out[:2] {
		doc, ok := pipeline.As[schemas.Document](o.Msg)
		if !ok || o.Topic != topology.Documents {
			t.Fatalf("output %d = %s %T, want a document", i, o.Topic, o.Msg)
		}
		p := d.Background[i]
		if doc.Text != p.Text || doc.Collection != "discussion:42" || doc.Lang != "en" ||
			doc.Source != fmt.Sprintf("discussions/42/p%d", p.Index) || doc.Title == "" || o.EventID == "" {
			t.Errorf("document %d = %+v (event %q)", i, doc, o.EventID)
		}
		if err := schemas.ValidID("doc_id", doc.DocID); err != nil || doc.Validate() != nil {
			t.Errorf("document %d id %q: %v", i, doc.DocID, err)
		}
	}
	req, ok := pipeline.As[schemas.Request](out[2].Msg)
	if !ok || out[2].Topic != topology.Requests || req.Kind != schemas.KindDiscussionSummary || req.Subject != "42" ||
		req.Validate() != nil || out[2].EventID != req.RequestID {
		t.Fatalf("last output = %s %+v (event %q), want the summary request under its id", out[2].Topic, out[2].Msg, out[2].EventID)
	}
	status, err := ps.Request(ctx, tenant, req.RequestID)
	if err != nil || status.State != pages.RequestQueued || status.Subject != "42" || status.Kind != schemas.KindDiscussionSummary {
		t.Fatalf("request status = %+v, %v; want queued", status, err)
	}
	got, found, err := ds.Discussion(ctx, tenant, "42")
	if err != nil || !found || len(got.Turns) != 2 || got.Background[1].Text != d.Background[1].Text {
		t.Fatalf("stored = %+v found=%v err=%v", got, found, err)
	}

	again, err := st.Handle(ctx, pipelinetest.Input(d, onDiscussions, pipelinetest.Tenant(tenant), pipelinetest.Event("ev2")))
	if err != nil {
		t.Fatal(err)
	}
	for i := range out {
		if again[i].EventID != out[i].EventID {
			t.Errorf("redelivered output %d has event id %q, first %q", i, again[i].EventID, out[i].EventID)
		}
	}
	if r2, _ := pipeline.As[schemas.Request](again[2].Msg); r2.RequestID != req.RequestID {
		t.Errorf("redelivered request id %s, first %s", r2.RequestID, req.RequestID)
	}

	changed := discussion("42")
	changed.Background[1].Text = "Her coach Darren Cahill said she was patient."
	third, err := st.Handle(ctx, pipelinetest.Input(changed, onDiscussions, pipelinetest.Tenant(tenant), pipelinetest.Event("ev3")))
	if err != nil {
		t.Fatal(err)
	}
	d0, _ := pipeline.As[schemas.Document](out[0].Msg)
	d1, _ := pipeline.As[schemas.Document](out[1].Msg)
	n0, _ := pipeline.As[schemas.Document](third[0].Msg)
	n1, _ := pipeline.As[schemas.Document](third[1].Msg)
	if n0.DocID != d0.DocID || n1.DocID == d1.DocID || n1.Source != d1.Source {
		t.Errorf("changed paragraph 2: ids %s %s, before %s %s; want paragraph 1's kept, 2's new under the same source",
			n0.DocID, n1.DocID, d0.DocID, d1.DocID)
	}
	if r3, _ := pipeline.As[schemas.Request](third[2].Msg); r3.RequestID == req.RequestID {
		t.Error("changed content asked for its summary under the first request id: no new version would be made")
	}
	if got, _, _ := ds.Discussion(ctx, tenant, "42"); got.Background[1].Text != changed.Background[1].Text {
		t.Errorf("the store holds %q, want the changed paragraph", got.Background[1].Text)
	}
}

// Bad input is permanent, with the reason; a store or recorder outage is
// transient.
func TestDiscussionFailures(t *testing.T) {
	ctx := context.Background()
	c := redistest.Client(t)
	ps := pages.New(c)
	st, err := discussions.New(discussionstore.New(c), &recorder{pages: ps})
	if err != nil {
		t.Fatal(err)
	}
	noTurns := discussion("7")
	noTurns.Turns = nil
	for name, tc := range map[string]struct {
		msg  schemas.Message
		want string
	}{
		"no id":          {discussion(""), "no id"},
		"bad id":         {discussion("a b"), "discussion id"},
		"no turns":       {noTurns, "no turn"},
		"not discussion": {schemas.Retraction{DocID: "x", Reason: schemas.RetractRetracted}, "not a discussion"},
	} {
		_, err := st.Handle(ctx, pipelinetest.Input(tc.msg, onDiscussions, pipelinetest.Tenant("t"), pipelinetest.Event("ev-"+name)))
		if !pipeline.IsPermanent(err) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want a permanent error saying %q", name, err, tc.want)
		}
	}
	down, err := discussions.New(failingStore{}, &recorder{pages: ps})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := down.Handle(ctx, pipelinetest.Input(discussion("8"), onDiscussions, pipelinetest.Tenant("t"), pipelinetest.Event("ev-down"))); err == nil || pipeline.IsPermanent(err) {
		t.Errorf("store down: %v, want a transient error", err)
	}
	outage, err := discussions.New(discussionstore.New(c), &recorder{pages: ps, fail: errors.New("redis: connection pool timeout")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := outage.Handle(ctx, pipelinetest.Input(discussion("9"), onDiscussions, pipelinetest.Tenant("t"), pipelinetest.Event("ev-out"))); err == nil || pipeline.IsPermanent(err) {
		t.Errorf("recorder down: %v, want a transient error", err)
	}
	if _, err := discussions.New(nil, &recorder{}); err == nil {
		t.Error("a stage without a store was built")
	}
}

func TestRequestIDsFollowContent(t *testing.T) {
	a, b := discussion("1"), discussion("1")
	if discussions.Request(a).RequestID != discussions.Request(b).RequestID {
		t.Error("the same discussion gets two request ids")
	}
	b.Turns[0].Utterance = "She did not deserve it."
	if discussions.Request(a).RequestID == discussions.Request(b).RequestID {
		t.Error("another turn, the same request id")
	}
	c := discussion("2")
	if discussions.Request(a).RequestID == discussions.Request(c).RequestID {
		t.Error("another id, the same request id")
	}
}
