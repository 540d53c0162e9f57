package topic_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/annalist-dev/annalist/consumers/writer"
	"github.com/annalist-dev/annalist/consumers/writer/topic"
	"github.com/annalist-dev/annalist/infra/llm"
	"github.com/annalist-dev/annalist/internal/kit/ask"
	"github.com/annalist-dev/annalist/internal/kit/llmtest"
	"github.com/annalist-dev/annalist/internal/ports/kind"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
)

const (
	luText   = "陆文渊，字静之，号松岩，苏州吴县人。举嘉靖二十年进士，授翰林院编修。"
	zhouText = "周敬，字伯安，苏州吴县人。举万历八年进士，授行人。"
	luSent   = "陆文渊，字静之，号松岩，苏州吴县人。"
	zhouSent = "周敬，字伯安，苏州吴县人。"
)

// wuxian is the reference set of a place page: two natives of 吴县, one
// section each, as the curator plans it.
func wuxian() *schemas.ReferenceSet {
	return &schemas.ReferenceSet{
		Subject: "吴县", Name: "吴县", EntityID: "place:吴县", Lang: "zh",
		References: []schemas.Reference{
			{ChunkID: "lz-001", DocID: "d1", Text: luText, Score: 1},
			{ChunkID: "lz-002", DocID: "d1", Text: zhouText, Score: 0.9},
		},
		Curation: &schemas.Curation{
			Type:  schemas.TopicPlace,
			Seeds: []string{"place:吴县"},
			Entities: []schemas.CuratedEntity{
				{ID: "place:吴县", Name: "吴县", Type: "place"},
				{ID: "person:陆文渊", Name: "陆文渊", Type: "person", Depth: 1, Key: true, Chunk: "lz-001"},
				{ID: "person:周敬", Name: "周敬", Type: "person", Depth: 1, Key: true, Chunk: "lz-002"},
			},
			Outline: []schemas.OutlineSection{
				{Title: "嘉靖", Items: []schemas.OutlineItem{{Entity: "person:陆文渊", Name: "陆文渊", Chunk: "lz-001",
					Span: schemas.Span{Start: 12, End: 16}, Relation: schemas.RelNativePlace, Value: "苏州吴县", Period: 1541}}},
				{Title: "万历", Items: []schemas.OutlineItem{{Entity: "person:周敬", Name: "周敬", Chunk: "lz-002",
					Span: schemas.Span{Start: 7, End: 11}, Relation: schemas.RelNativePlace, Value: "苏州吴县", Period: 1580}}},
			},
		},
	}
}

func newLLM(m *llmtest.Model, cfg topic.LLMConfig) *topic.LLM {
	return topic.NewLLM(cfg, m, topic.NewOffline(topic.OfflineConfig{}))
}

func answer(text string, cites ...string) string {
	b, err := json.Marshal(map[string]any{"text": text, "citations": cites})
	if err != nil {
		panic(err)
	}
	return string(b)
}

// page is the page of the two sentences, as the loop gives it to review.
func page() []kind.Placed {
	return []kind.Placed{
		{Index: 0, Position: 0, PageSentence: schemas.PageSentence{Text: luSent, Section: "嘉靖",
			Citations: []schemas.Citation{{ChunkID: "lz-001"}}}},
		{Index: 1, Position: 1, PageSentence: schemas.PageSentence{Text: zhouSent, Section: "万历",
			Citations: []schemas.Citation{{ChunkID: "lz-002"}}}},
	}
}

func TestLLMWordsThePlanItem(t *testing.T) {
	refs := wuxian()
	items := topic.NewOffline(topic.OfflineConfig{}).Items(refs)
	if len(items) != 2 {
		t.Fatalf("the offline plan has %d items, want 2: %+v", len(items), items)
	}
	m := llmtest.Answers("```json\n" + answer("周敬者，字伯安，苏州吴县人也。", "lz-002") + "\n```")
	l := newLLM(m, topic.LLMConfig{})
	accepted := []schemas.PageSentence{{Text: luSent, Section: "嘉靖"}}
	d, done, err := l.Draft(context.Background(), refs, accepted, 1)
	if err != nil || done {
		t.Fatalf("done %v, err %v", done, err)
	}
	if d.Text != "周敬者，字伯安，苏州吴县人也。" || d.Engine != writer.EngineLLM || d.Origin != writer.OriginWriter ||
		d.Index != 1 || d.Subject != "吴县" || d.Section != items[1].Section {
		t.Errorf("draft %+v", d)
	}
	if len(d.Citations) != 1 || d.Citations[0] != "lz-002" {
		t.Errorf("citations %v", d.Citations)
	}
	if len(d.Facts) == 0 {
		t.Error("no facts")
	}
	for _, f := range d.Facts {
		if f.ChunkID != "lz-002" {
			t.Errorf("fact %+v rests on a chunk the draft does not cite", f)
		}
	}
	if l.Calls() != 1 {
		t.Errorf("%d calls", l.Calls())
	}
	c := m.Call(0)
	if !strings.HasPrefix(c.System(), "You write one sentence of a topic page about 吴县") {
		t.Errorf("system prompt %q", c.System())
	}
	for _, want := range []string{
		"Subject: 吴县\n",
		"[1] chunk lz-002:\n" + zhouText, // the item's own chunk first
		"[2] chunk lz-001:",
		"The page so far:\n## 嘉靖\n" + luSent,
		`Write sentence 2, in the section "` + items[1].Section + `"`,
		"The sources word it: " + items[1].Text + "\n",
		"It rests on: lz-002",
	} {
		if !strings.Contains(c.User(), want) {
			t.Errorf("prompt lacks %q:\n%s", want, c.User())
		}
	}
	if strings.Contains(c.User(), "rejected") {
		t.Errorf("a first prompt with feedback:\n%s", c.User())
	}
}

func TestLLMIsDoneAfterThePlan(t *testing.T) {
	m := llmtest.Answers()
	l := newLLM(m, topic.LLMConfig{})
	for _, k := range []int{2, 7, -1} {
		if _, done, err := l.Draft(context.Background(), wuxian(), nil, k); !done || err != nil {
			t.Errorf("index %d: done %v, err %v", k, done, err)
		}
	}
	if m.Calls() != 0 {
		t.Errorf("%d model calls past the plan", m.Calls())
	}
}

func TestLLMRetriesARejectedDraft(t *testing.T) {
	good := answer(luSent, "lz-001", " lz-001")
	for _, tc := range []struct{ name, bad, reason string }{
		{"not JSON", luSent, "not the JSON object"},
		{"unknown field", `{"text": "陆文渊，苏州吴县人。", "citations": ["lz-001"], "note": "x"}`, "unknown field"},
		{"citation not a reference", answer(luSent, "lz-009"), `citation "lz-009" is not the chunk id of a reference`},
		{"no citation", answer(luSent), "no citation"},
		{"empty", answer("  ", "lz-001"), "empty"},
		{"several lines", answer("陆文渊，\n苏州吴县人。", "lz-001"), "several lines"},
		{"two sentences", answer("陆文渊，苏州吴县人。举嘉靖二十年进士。", "lz-001"), "2 sentences"},
		{"too long", answer(strings.Repeat("陆", 201), "lz-001"), "more than one sentence"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := llmtest.Answers(tc.bad, good)
			l := newLLM(m, topic.LLMConfig{})
			d, _, err := l.Draft(context.Background(), wuxian(), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			if d.Text != luSent || len(d.Citations) != 1 || d.Citations[0] != "lz-001" {
				t.Errorf("draft %+v", d)
			}
			if l.Calls() != 2 {
				t.Fatalf("%d calls", l.Calls())
			}
			retry := m.Call(1).User()
			if !strings.Contains(retry, "Your previous answer was rejected: ") || !strings.Contains(retry, tc.reason) {
				t.Errorf("the retry does not say %q:\n%s", tc.reason, retry)
			}
		})
	}
}

func TestLLMDraftMalformedAfterRetries(t *testing.T) {
	m := llmtest.Repeat(answer(luSent, "lz-404"))
	l := newLLM(m, topic.LLMConfig{LLMConfig: writer.LLMConfig{MaxAttempts: 3}})
	_, done, err := l.Draft(context.Background(), wuxian(), nil, 0)
	if done || !errors.Is(err, writer.ErrMalformed) || !errors.Is(err, ask.ErrRejected) || !pipeline.IsPermanent(err) {
		t.Fatalf("done %v, err %v", done, err)
	}
	if !strings.Contains(err.Error(), `citation "lz-404"`) {
		t.Errorf("error %q does not say why", err)
	}
	if l.Calls() != 3 || m.Calls() != 3 {
		t.Errorf("%d calls, want 3", l.Calls())
	}
}

func TestLLMDraftModelFailureIsTransient(t *testing.T) {
	l := newLLM(llmtest.Failing(llmtest.ErrUnavailable), topic.LLMConfig{})
	_, _, err := l.Draft(context.Background(), wuxian(), nil, 0)
	if !errors.Is(err, llmtest.ErrUnavailable) || errors.Is(err, writer.ErrMalformed) || pipeline.IsPermanent(err) {
		t.Fatalf("err %v", err)
	}
}

func TestLLMReviewer(t *testing.T) {
	ctx := context.Background()
	short := page()[:1] // 周敬 is not on it
	t.Run("findings", func(t *testing.T) {
		m := llmtest.Answers(`{"findings": [
			{"type": "coverage", "index": -1, "entity": "周敬", "detail": "周敬 is not named"},
			{"type": "coverage", "index": -1, "entity": "person:周敬", "detail": "周敬 is not named"},
			{"type": "balance", "section": "嘉靖", "index": -1, "detail": "one sentence"},
			{"type": "order", "section": "嘉靖", "index": 0, "detail": "out of order"}]}`)
		l := newLLM(m, topic.LLMConfig{})
		fs, err := l.Reviewer().Review(ctx, wuxian(), short, 1)
		if err != nil {
			t.Fatal(err)
		}
		want := []schemas.Finding{
			{Type: schemas.FindingCoverage, Index: -1, Entity: "person:周敬", Detail: "周敬 is not named"},
			{Type: schemas.FindingBalance, Section: "嘉靖", Index: -1, Detail: "one sentence"},
			{Type: schemas.FindingOrder, Section: "嘉靖", Index: 0, Detail: "out of order"},
		}
		if len(fs) != len(want) {
			t.Fatalf("findings %+v, want %+v", fs, want)
		}
		for i := range want {
			if fs[i] != want[i] {
				t.Errorf("finding %d: %+v, want %+v", i, fs[i], want[i])
			}
		}
		p := m.Call(0).Prompt()
		for _, s := range []string{"critical reviewer of a topic page about 吴县", "Subject: 吴县", "Review round 1.",
			"- 嘉靖\n- 万历\n", "- 陆文渊 (id person:陆文渊, chunk lz-001)", "- 周敬 (id person:周敬, chunk lz-002)",
			"[0] (嘉靖) " + luSent} {
			if !strings.Contains(p, s) {
				t.Errorf("prompt lacks %q:\n%s", s, p)
			}
		}
		if r := l.Reviewer().(*topic.LLMReviewer); r.Calls() != 1 || l.Calls() != 0 {
			t.Errorf("reviewer calls %d, drafter calls %d", r.Calls(), l.Calls())
		}
	})
	t.Run("approved", func(t *testing.T) {
		l := newLLM(llmtest.Answers(`{"findings": []}`), topic.LLMConfig{})
		fs, err := l.Reviewer().Review(ctx, wuxian(), page(), 2)
		if err != nil || len(fs) != 0 {
			t.Fatalf("findings %+v, err %v", fs, err)
		}
	})
	good := `{"findings": [{"type": "redundancy", "index": 1, "other": 0, "detail": "says it again"}]}`
	for _, tc := range []struct{ name, bad, reason string }{
		{"unknown type", `{"findings": [{"type": "style", "index": 0, "detail": "dull"}]}`, `type "style" is not one of`},
		{"no index", `{"findings": [{"type": "order", "detail": "late"}]}`, "no index"},
		{"index not on the page", `{"findings": [{"type": "order", "index": 5, "detail": "late"}]}`, "index 5 is not a sentence"},
		{"no detail", `{"findings": [{"type": "order", "index": 0}]}`, "no detail"},
		{"unknown section", `{"findings": [{"type": "balance", "section": "隆庆", "index": -1, "detail": "x"}]}`, `section "隆庆"`},
		{"balance without section", `{"findings": [{"type": "balance", "index": -1, "detail": "x"}]}`, "names the section"},
		{"coverage of no key entity", `{"findings": [{"type": "coverage", "index": -1, "entity": "person:严鹤龄", "detail": "x"}]}`, "not a key entity"},
		{"coverage of the seed", `{"findings": [{"type": "coverage", "index": -1, "entity": "place:吴县", "detail": "x"}]}`, "not a key entity"},
		{"coverage of a named entity", `{"findings": [{"type": "coverage", "index": -1, "entity": "person:陆文渊", "detail": "x"}]}`, "named by sentence 0"},
		{"redundancy without other", `{"findings": [{"type": "redundancy", "index": 1, "detail": "x"}]}`, "the one it repeats"},
		{"redundancy of itself", `{"findings": [{"type": "redundancy", "index": 1, "other": 1, "detail": "x"}]}`, "not another sentence"},
		{"entity on an order finding", `{"findings": [{"type": "order", "index": 1, "entity": "person:周敬", "detail": "x"}]}`, "only a coverage finding"},
		{"unknown field", `{"findings": [{"type": "order", "index": 1, "detail": "x", "severity": 3}]}`, "unknown field"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := llmtest.Answers(tc.bad, good)
			l := newLLM(m, topic.LLMConfig{})
			fs, err := l.Reviewer().Review(ctx, wuxian(), page(), 1)
			if err != nil {
				t.Fatal(err)
			}
			if len(fs) != 1 || fs[0].Type != schemas.FindingRedundancy || fs[0].Index != 1 || fs[0].Other != 0 {
				t.Errorf("findings %+v", fs)
			}
			if retry := m.Call(1).User(); !strings.Contains(retry, tc.reason) {
				t.Errorf("the retry does not say %q:\n%s", tc.reason, retry)
			}
		})
	}
}

// A review or an edit whose every answer was rejected fails with
// writer.ErrMalformed, for the writer's loop to ask the offline agent
// instead; a model failure is transient.
func TestLLMReviewAndEditRejected(t *testing.T) {
	ctx := context.Background()
	coverage := []schemas.Finding{{Type: schemas.FindingCoverage, Index: -1, Entity: "person:周敬", Detail: "x"}}
	bad := `{"findings": [{"type": "style", "index": 0, "detail": "x"}], "edits": []}`

	t.Run("malformed", func(t *testing.T) {
		m := llmtest.Repeat(bad)
		l := newLLM(m, topic.LLMConfig{LLMConfig: writer.LLMConfig{MaxAttempts: 3}})
		_, err := l.Reviewer().Review(ctx, wuxian(), page(), 1)
		if !errors.Is(err, writer.ErrMalformed) || !errors.Is(err, ask.ErrRejected) || !pipeline.IsPermanent(err) {
			t.Errorf("review: %v", err)
		}
		_, err = l.Editor().Edit(ctx, wuxian(), page()[:1], coverage)
		if !errors.Is(err, writer.ErrMalformed) || !pipeline.IsPermanent(err) {
			t.Errorf("edit: %v", err)
		}
		r, e := l.Reviewer().(*topic.LLMReviewer), l.Editor().(*topic.LLMEditor)
		if r.Calls() != 3 || e.Calls() != 3 || m.Calls() != 6 || l.Calls() != 0 {
			t.Errorf("calls: reviewer %d, editor %d, drafter %d, model %d", r.Calls(), e.Calls(), l.Calls(), m.Calls())
		}
	})
	t.Run("model failure", func(t *testing.T) {
		l := newLLM(llmtest.Failing(llmtest.ErrUnavailable), topic.LLMConfig{})
		if _, err := l.Reviewer().Review(ctx, wuxian(), page(), 1); !errors.Is(err, llmtest.ErrUnavailable) ||
			errors.Is(err, writer.ErrMalformed) || pipeline.IsPermanent(err) {
			t.Errorf("review: %v", err)
		}
		if _, err := l.Editor().Edit(ctx, wuxian(), page(), coverage); !errors.Is(err, llmtest.ErrUnavailable) ||
			errors.Is(err, writer.ErrMalformed) || pipeline.IsPermanent(err) {
			t.Errorf("edit: %v", err)
		}
	})
}

func TestLLMEditor(t *testing.T) {
	ctx := context.Background()
	short := page()[:1]
	coverage := []schemas.Finding{{Type: schemas.FindingCoverage, Index: -1, Entity: "person:周敬", Detail: "周敬 is not named"}}
	t.Run("edits", func(t *testing.T) {
		m := llmtest.Answers(`{"edits": [
			{"op": "add", "index": -1, "section": "万历", "position": 1, "text": "` + zhouSent + `", "citations": ["lz-002"], "reason": "coverage"},
			{"op": "move", "index": 0, "section": "隆庆", "position": 0.5, "reason": "split"}]}`)
		l := newLLM(m, topic.LLMConfig{})
		es, err := l.Editor().Edit(ctx, wuxian(), short, coverage)
		if err != nil {
			t.Fatal(err)
		}
		if len(es) != 2 {
			t.Fatalf("edits %+v", es)
		}
		add, move := es[0], es[1]
		if add.Op != schemas.EditAdd || add.Index != -1 || add.Section != "万历" || add.Position != 1 || add.Text != zhouSent ||
			len(add.Citations) != 1 || add.Citations[0] != "lz-002" || len(add.Facts) != 1 || add.Facts[0].ChunkID != "lz-002" {
			t.Errorf("add %+v", add)
		}
		if move.Op != schemas.EditMove || move.Index != 0 || move.Section != "隆庆" || move.Position != 0.5 || move.Text != "" {
			t.Errorf("move %+v", move)
		}
		p := m.Call(0).User()
		for _, s := range []string{"Subject: 吴县", "[0] (嘉靖) " + luSent,
			"- coverage, entity 周敬 (id person:周敬, chunk lz-002): 周敬 is not named",
			"[1] chunk lz-002:\n" + zhouText} { // the missing entity's chunk first
			if !strings.Contains(p, s) {
				t.Errorf("prompt lacks %q:\n%s", s, p)
			}
		}
	})
	t.Run("no findings, no call", func(t *testing.T) {
		m := llmtest.Answers()
		es, err := newLLM(m, topic.LLMConfig{}).Editor().Edit(ctx, wuxian(), page(), nil)
		if err != nil || len(es) != 0 || m.Calls() != 0 {
			t.Fatalf("edits %+v, err %v, %d calls", es, err, m.Calls())
		}
	})
	good := `{"edits": [{"op": "drop", "index": 0, "reason": "repeated"}]}`
	for _, tc := range []struct{ name, bad, reason string }{
		{"unknown op", `{"edits": [{"op": "rewrite", "index": 0}]}`, `op "rewrite" is not one of`},
		{"drop without index", `{"edits": [{"op": "drop"}]}`, "names the sentence"},
		{"drop of no sentence", `{"edits": [{"op": "drop", "index": 4}]}`, "index 4 is not a sentence"},
		{"twice the same sentence", `{"edits": [{"op": "drop", "index": 0}, {"op": "move", "index": 0, "section": "万历", "position": 2}]}`, "already has a drop"},
		{"move without section", `{"edits": [{"op": "move", "index": 0, "position": 2}]}`, "names the section and the position"},
		{"move with text", `{"edits": [{"op": "move", "index": 0, "section": "万历", "position": 2, "text": "x"}]}`, "keeps the sentence's text"},
		{"add citing no reference", `{"edits": [{"op": "add", "index": -1, "section": "万历", "position": 1, "text": "` + zhouSent + `", "citations": ["lz-404"]}]}`, `citation "lz-404"`},
		{"add without citation", `{"edits": [{"op": "add", "index": -1, "section": "万历", "position": 1, "text": "` + zhouSent + `"}]}`, "no citation"},
		{"add without text", `{"edits": [{"op": "add", "index": -1, "section": "万历", "position": 1, "citations": ["lz-002"]}]}`, "empty"},
		{"add without position", `{"edits": [{"op": "add", "section": "万历", "text": "` + zhouSent + `", "citations": ["lz-002"]}]}`, "names the section and the position"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := llmtest.Answers(tc.bad, good)
			l := newLLM(m, topic.LLMConfig{})
			es, err := l.Editor().Edit(ctx, wuxian(), short, coverage)
			if err != nil {
				t.Fatal(err)
			}
			if len(es) != 1 || es[0].Op != schemas.EditDrop || es[0].Index != 0 {
				t.Errorf("edits %+v", es)
			}
			if retry := m.Call(1).User(); !strings.Contains(retry, tc.reason) {
				t.Errorf("the retry does not say %q:\n%s", tc.reason, retry)
			}
		})
	}
}

// TestLLMThroughOpenAIClient runs the drafter, the reviewer and the editor
// through the real OpenAI-compatible client (infra/llm) against a test
// server that answers each prompt by its system message, the first
// drafting answer citing a chunk that is not a reference.
func TestLLMThroughOpenAIClient(t *testing.T) {
	type message struct{ Role, Content string }
	var (
		mu       sync.Mutex
		requests []string
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []message `json:"messages"`
		}
		if r.URL.Path != "/v1/chat/completions" || json.NewDecoder(r.Body).Decode(&req) != nil || len(req.Messages) != 2 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		system, user := req.Messages[0].Content, req.Messages[1].Content
		mu.Lock()
		requests = append(requests, system)
		n := len(requests)
		mu.Unlock()
		var content string
		switch {
		case strings.HasPrefix(system, "You write one sentence of a topic page") && n == 1:
			content = answer(luSent, "lz-404")
		case strings.HasPrefix(system, "You write one sentence of a topic page"):
			if !strings.Contains(user, `citation "lz-404"`) {
				http.Error(w, "the retry does not say why", http.StatusBadRequest)
				return
			}
			content = answer(luSent, "lz-001")
		case strings.HasPrefix(system, "You are the critical reviewer"):
			content = `{"findings": [{"type": "coverage", "index": -1, "entity": "person:周敬", "detail": "周敬 is not named"}]}`
		case strings.HasPrefix(system, "You are the editor"):
			content = `{"edits": [{"op": "add", "index": -1, "section": "万历", "position": 1, "text": "` + zhouSent + `", "citations": ["lz-002"]}]}`
		default:
			http.Error(w, "unknown prompt", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": "c", "object": "chat.completion", "created": 1, "model": "test-model",
			"choices": []map[string]any{{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": content}}},
		})
	}))
	defer srv.Close()
	ctx := context.Background()
	m, err := llm.NewChatModel(ctx, llm.Config{BaseURL: srv.URL + "/v1", Model: "test-model", APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	l := topic.NewLLM(topic.LLMConfig{}, m, topic.NewOffline(topic.OfflineConfig{}))
	refs := wuxian()
	d, done, err := l.Draft(ctx, refs, nil, 0)
	if err != nil || done || d.Text != luSent || len(d.Citations) != 1 || d.Citations[0] != "lz-001" || l.Calls() != 2 {
		t.Fatalf("draft %+v, done %v, err %v, %d calls", d, done, err, l.Calls())
	}
	short := page()[:1]
	fs, err := l.Reviewer().Review(ctx, refs, short, 1)
	if err != nil || len(fs) != 1 || fs[0].Entity != "person:周敬" {
		t.Fatalf("findings %+v, err %v", fs, err)
	}
	es, err := l.Editor().Edit(ctx, refs, short, fs)
	if err != nil || len(es) != 1 || es[0].Op != schemas.EditAdd || es[0].Text != zhouSent {
		t.Fatalf("edits %+v, err %v", es, err)
	}
	if len(requests) != 4 {
		t.Errorf("%d requests, want 4", len(requests))
	}
}
