package writer_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/consumers/writer"
	"github.com/annalist-dev/annalist/infra/memory"
	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
	"github.com/annalist-dev/annalist/internal/kit/llmtest"
	"github.com/annalist-dev/annalist/internal/ports/kind"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
)

// refsPlanner plans every request as one reference set.
type refsPlanner struct{ rs *schemas.ReferenceSet }

func (p refsPlanner) Plan(context.Context, string, schemas.Request) (*schemas.ReferenceSet, error) {
	return p.rs, nil
}

// llmLoop is the loop with the LLM engine on model m, the offline
// drafter as the kind's offline engine, planning 沈元亮's references.
func llmLoop(t *testing.T, m *llmtest.Model) (pipeline.Handler, *memory.Requests) {
	t.Helper()
	mem := memory.NewRequests(redistest.Client(t), 0)
	off := writer.NewOffline(writer.OfflineConfig{})
	var kinds kind.Registry
	if err := kinds.Register(kind.Spec{Name: schemas.KindBiography, Planner: refsPlanner{shen(t).rs}, Layout: oneSection,
		Drafters: map[string]kind.Drafter{kind.EngineOffline: off,
			kind.EngineLLM: writer.NewLLM(writer.LLMConfig{}, writer.WithModel(m), writer.WithPlan(off))}}); err != nil {
		t.Fatal(err)
	}
	return writer.NewLoop(&kinds, mem, writer.LoopConfig{Engine: kind.EngineLLM}).Handler(), mem
}

// A model that answers prose instead of the JSON asked for (what small
// local models often do) used to dead-letter the request after its
// retries; the sentence is now written by the offline drafter, says so,
// and the page goes on.
func TestLoopFallsBackOfflineOnAMalformedAnswer(t *testing.T) {
	ctx := context.Background()
	m := llmtest.Repeat("Ye Xianggao was a grand secretary of the Ming dynasty.")
	h, mem := llmLoop(t, m)
	in := func(msg schemas.Message) pipeline.Input {
		return pipeline.Input{Meta: schemas.Meta{Tenant: "t", EventID: "e"}, Msg: msg}
	}
	outs, err := h(ctx, in(schemas.Request{RequestID: "r-prose", Kind: schemas.KindBiography, Subject: "丙丁"}))
	if err != nil || len(outs) != 1 {
		t.Fatalf("request with a prose-answering model: %+v, %v", outs, err)
	}
	d := outs[0].Msg.(schemas.Draft)
	if d.Final || d.Engine != writer.EngineOffline || !strings.Contains(d.Fallback, "written offline") ||
		!strings.Contains(d.Fallback, "malformed model answer") {
		t.Fatalf("draft %+v; want the offline drafter's sentence with the reason", d)
	}
	if m.Calls() != 2 {
		t.Errorf("%d model calls, want 2 for the first sentence (the malformed answer is retried once with the reason)", m.Calls())
	}
	if _, err := h(ctx, in(supported(d))); err != nil {
		t.Fatal(err)
	}
	fs, err := mem.Sentences(ctx, "t", "r-prose")
	if err != nil || len(fs) != 1 || fs[0].Sentence.OfflineFallback != d.Fallback {
		t.Fatalf("final sentences %+v, %v; want the fallback recorded on the sentence", fs, err)
	}
	st, _, err := mem.State(ctx, "t", "r-prose")
	if err != nil || st.Counters["offline_fallbacks"] < 1 {
		t.Fatalf("counters %v, %v; want offline_fallbacks", st.Counters, err)
	}
}

// A model outage is not the answer's fault: the error is transient (the
// runtime retries it) and nothing is written offline in its place.
func TestLoopModelOutageIsTransient(t *testing.T) {
	h, _ := llmLoop(t, llmtest.Answers(llmtest.Fail))
	_, err := h(context.Background(), pipeline.Input{Meta: schemas.Meta{Tenant: "t", EventID: "e"},
		Msg: schemas.Request{RequestID: "r-down", Kind: schemas.KindBiography, Subject: "丙丁"}})
	if err == nil || pipeline.IsPermanent(err) {
		t.Fatalf("model outage: %v; want a transient error", err)
	}
}

type failures struct {
	reqs    []schemas.Request
	reasons []string
}

func (f *failures) Finish(_ context.Context, _ string, r schemas.Request, p *schemas.Page, reason string) error {
	if p == nil {
		f.reqs, f.reasons = append(f.reqs, r), append(f.reasons, reason)
	}
	return nil
}

// Every input the writer dead-letters fails its request with the reason,
// so no client waits for it: a kind not registered, a verdict of a request
// not in memory.
func TestLoopPermanentErrorFailsTheRequest(t *testing.T) {
	l := newLoop(t, 2, writer.LoopConfig{})
	f := &failures{}
	mem := memory.NewRequests(redistest.Client(t), 0)
	var kinds kind.Registry
	if err := kinds.Register(kind.Spec{Name: schemas.KindBiography, Planner: l.refs, Layout: oneSection,
		Drafters: map[string]kind.Drafter{kind.EngineOffline: l.d}}); err != nil {
		t.Fatal(err)
	}
	h := writer.NewLoop(&kinds, mem, writer.LoopConfig{}).WithFailures(f).Handler()
	for _, msg := range []schemas.Message{
		schemas.Request{RequestID: "r-topic", Kind: schemas.KindTopicPage, Subject: "倭寇"},
		supported(schemas.Draft{RequestID: "r-gone", Kind: schemas.KindBiography, Subject: "丙丁", Text: "s0"}),
	} {
		_, err := h(context.Background(), pipeline.Input{Meta: schemas.Meta{Tenant: "t", EventID: "e"}, Msg: msg})
		if !errors.Is(err, pipeline.ErrPermanent) {
			t.Fatalf("%T: %v; want permanent", msg, err)
		}
	}
	if len(f.reqs) != 2 || f.reqs[0].RequestID != "r-topic" || f.reqs[1].RequestID != "r-gone" ||
		!strings.Contains(f.reasons[0], "kind topic_page is not registered") || !strings.Contains(f.reasons[1], "not in agent memory") {
		t.Fatalf("failures recorded: %+v %q", f.reqs, f.reasons)
	}
	// A request that goes well records no failure.
	if _, err := h(context.Background(), pipeline.Input{Meta: schemas.Meta{Tenant: "t", EventID: "e"},
		Msg: schemas.Request{RequestID: "r-ok", Kind: schemas.KindBiography, Subject: "丙丁"}}); err != nil || len(f.reqs) != 2 {
		t.Fatalf("good request: %v, %d failures", err, len(f.reqs))
	}
}
