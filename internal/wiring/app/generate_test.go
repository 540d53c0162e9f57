package app_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/annalist-dev/annalist/infra/pages"
	"github.com/annalist-dev/annalist/internal/wiring/demo"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
)

// TestGenerateBiographiesEndToEnd runs both halves of the pipeline embedded
// on the demo corpus and checks the published pages: every sentence has a
// status and citations whose text is the cited chunk's, the stats carry
// the contract's counters, a second request makes version 2, and an
// unknown subject fails its request with a reason.
func TestGenerateBiographiesEndToEnd(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	a := open(t, t.TempDir())
	defer a.Close()
	ingestDemo(t, a)
	if err := a.Ready(ctx); err != nil {
		t.Fatalf("ready: %v", err)
	}
	items, err := demo.Documents()
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		info, ok, err := a.Chunks.Document(ctx, "default", it.Doc.DocID)
		if err != nil || !ok {
			t.Fatalf("document %s: ok=%v err=%v", it.Doc.DocID, ok, err)
		}
		for _, st := range []string{topology.StageChunker, topology.StageExtractor, topology.StageEmbedder} {
			if info.Stages[st] == "" {
				t.Errorf("document %s is not marked done by %s: %v", it.Doc.DocID, st, info.Stages)
			}
		}
	}
	reqs := []schemas.Request{
		{Kind: schemas.KindBiography, Subject: "陆文渊"},
		{Kind: schemas.KindBiography, Subject: "鸣远"}, // 严鹤龄's courtesy name
		{Kind: schemas.KindBiography, Subject: "Margaret Ellery"},
		{Kind: schemas.KindBiography, Subject: "陆文渊"},
		{Kind: schemas.KindBiography, Subject: "无名氏"},
	}
	res, err := a.Generate(ctx, "default", true, true, reqs)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res[:4] {
		if r.Status.State != pages.RequestPublished || r.Page == nil {
			t.Fatalf("request %d (%s): %+v", i, r.Request.Subject, r.Status)
		}
		p := r.Page
		if len(p.Sentences) < 3 {
			t.Errorf("%s: %d sentences", p.Subject, len(p.Sentences))
		}
		for _, s := range p.Sentences {
			if s.Status == "" || len(s.Citations) == 0 {
				t.Errorf("%s: sentence without status or citation: %+v", p.Subject, s)
			}
			for _, c := range s.Citations {
				chunks, err := a.Chunks.Get(ctx, "default", []string{c.ChunkID})
				if err != nil || len(chunks) != 1 || chunks[0].Text != c.Text {
					t.Errorf("%s: citation %s does not resolve to its chunk's text", p.Subject, c.ChunkID)
				}
			}
		}
		for _, k := range []string{"drafted", "corrected", "dropped", "llm_calls", "millis"} {
			if _, ok := p.Stats[k]; !ok {
				t.Errorf("%s: stats lack %s: %v", p.Subject, k, p.Stats)
			}
		}
		t.Logf("%s v%d: %d sentences, %v", p.Subject, p.Version, len(p.Sentences), p.Stats)
	}
	if res[1].Page.Subject != "严鹤龄" {
		t.Errorf("a request by courtesy name published under %q; want the canonical name", res[1].Page.Subject)
	}
	first := res[0].Page.Sentences[0].Text
	if !strings.Contains(first, "陆文渊") || !strings.Contains(first, "静之") {
		t.Errorf("first sentence of 陆文渊 = %q; want his name and courtesy name", first)
	}
	if res[0].Page.Version+res[3].Page.Version != 3 {
		t.Errorf("two requests for 陆文渊 made versions %d and %d; want 1 and 2", res[0].Page.Version, res[3].Page.Version)
	}
	if r := res[4]; r.Status.State != pages.RequestFailed || !strings.Contains(r.Status.Error, "unknown subject") {
		t.Errorf("unknown subject: %+v", r.Status)
	}
	// The trace id follows a request through every stage onto its page:
	// the request id by default, the caller's when given.
	if p := res[0].Page; p.TraceID != res[0].Request.RequestID {
		t.Errorf("page trace id %q; want the request id %q", p.TraceID, res[0].Request.RequestID)
	}
	traced, err := a.Generate(pipeline.WithTraceID(ctx, "trace-abc"), "default", true, true,
		[]schemas.Request{{Kind: schemas.KindBiography, Subject: "顾承泽"}})
	if err != nil || traced[0].Page == nil || traced[0].Page.TraceID != "trace-abc" {
		t.Fatalf("traced request: %+v, %v", traced, err)
	}
}
