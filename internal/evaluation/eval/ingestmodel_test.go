package eval_test

import (
	"context"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/annalist-dev/annalist/consumers/chunker"
	"github.com/annalist-dev/annalist/consumers/extractor"
	"github.com/annalist-dev/annalist/infra/llm"
	"github.com/annalist-dev/annalist/infra/memory"
	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
	"github.com/annalist-dev/annalist/internal/evaluation/eval"
	"github.com/annalist-dev/annalist/schemas"
)

// ingestVolume is a volume written for the scripted model: two entries
// whose courtesy name follows 表字 (the hand-made patterns know ，字), one
// whose 字 clause ends with ； and whose native place is "…人也" (forms the
// model reads whether or not the hand-made patterns do), and one without a
// courtesy name.
const ingestVolume = "林远周敬郑恒吴达\n" +
	"林远，表字子文，吴县人。举万历五年进士，授吴江知县。\n" +
	"周敬，表字伯安，华亭人。举万历八年进士，授行人。\n" +
	"郑恒，字叔平；昆阳人也。授南京户部主事。\n" +
	"吴达，长洲人。授户部主事，迁郎中。\n"

// The bench's scripted server answered through the real OpenAI client on
// loopback: the chunker's anchors, the extractor's regexes, memory reuse.
func TestIngestModelThroughTheOpenAIClient(t *testing.T) {
	ctx := context.Background()
	m := eval.NewIngestModel()
	srv, err := eval.Serve(m)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := srv.Close(); err != nil {
			t.Error(err)
		}
	}()
	if !strings.HasPrefix(srv.BaseURL(), "http://127.0.0.1:") {
		t.Fatalf("base url %s is not on loopback", srv.BaseURL())
	}
	chat, err := llm.NewChatModel(ctx, llm.Config{BaseURL: srv.BaseURL(), Model: "scripted"})
	if err != nil {
		t.Fatal(err)
	}
	ch := chunker.New(chunker.Config{}, chunker.WithModel(chat))
	res, err := ch.Segment(ctx, schemas.Document{DocID: "v1", Text: ingestVolume, Profile: "liezhuan"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Method != chunker.MethodLLM || res.Fallback != "" || res.LLMCalls != 1 {
		t.Fatalf("chunking: method %s, fallback %q, %d calls; want the model's anchors in one call",
			res.Method, res.Fallback, res.LLMCalls)
	}
	var subjects []string
	for _, c := range res.Chunks {
		if c.Subject != "" {
			subjects = append(subjects, c.Subject)
		}
	}
	if strings.Join(subjects, " ") != "林远 周敬 郑恒 吴达" {
		t.Fatalf("subjects = %v", subjects)
	}

	mem := memory.NewRegexes(redistest.Client(t), 0)
	ex := extractor.New(extractor.Config{}, extractor.WithModel(chat), extractor.WithMemory(mem))
	got := map[string]string{}
	for _, c := range res.Chunks {
		ts, err := ex.Extract(ctx, "t", c)
		if err != nil {
			t.Fatal(err)
		}
		for _, tr := range ts {
			if tr.Relation == schemas.RelCourtesyName || tr.Relation == schemas.RelNativePlace {
				got[tr.Head+" "+tr.Relation] = tr.Tail + " " + tr.Method
			}
		}
	}
	want := map[string]string{
		"林远 courtesy_name": "子文 " + extractor.MethodLLMRegex,
		"周敬 courtesy_name": "伯安 " + extractor.MethodLLMRegex,
		"郑恒 courtesy_name": "叔平",
		"郑恒 native_place":  "昆阳",
	}
	for k, w := range want {
		// 郑恒's facts come from the hand-made patterns or the model's.
		if g := got[k]; g != w && !strings.HasPrefix(g, w+" ") {
			t.Errorf("%s = %q, want %q", k, g, w)
		}
	}
	if _, ok := got["吴达 courtesy_name"]; ok {
		t.Errorf("吴达 has no courtesy name, got %q", got["吴达 courtesy_name"])
	}
	st := ex.Stats()
	// 林远's 表字 regex serves 周敬 from memory; 吴达's text has no 字: not
	// asked.
	if st.CallsSaved != 1 || st.GapsNoCue != 1 || st.RegexLearned < 1 || st.PlanBCalls != 0 {
		t.Errorf("stats = %+v", st)
	}
	calls := m.Calls()
	if calls[eval.IngestAnchors] != 1 || int64(calls[eval.IngestRegex]) != st.RegexCalls || calls[eval.IngestPlanB] != 0 {
		t.Errorf("server calls %v, extractor %+v", calls, st)
	}
	if u := m.Unexpected(); len(u) != 0 {
		t.Errorf("refused prompts: %v", u)
	}
}

func TestIngestModelRefusesOtherPrompts(t *testing.T) {
	m := eval.NewIngestModel()
	_, err := m.Generate(context.Background(), []*schema.Message{
		schema.SystemMessage("You write one sentence of a biography."), schema.UserMessage("Subject: 林远"),
	})
	if err == nil || len(m.Unexpected()) != 1 {
		t.Fatalf("err %v, unexpected %v; want a refusal", err, m.Unexpected())
	}
}
