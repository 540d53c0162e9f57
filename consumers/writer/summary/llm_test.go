package summary_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/annalist-dev/annalist/consumers/writer"
	"github.com/annalist-dev/annalist/consumers/writer/summary"
	"github.com/annalist-dev/annalist/infra/discussionstore"
	"github.com/annalist-dev/annalist/infra/llm"
	"github.com/annalist-dev/annalist/infra/memory"
	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
	"github.com/annalist-dev/annalist/internal/kit/ask"
	"github.com/annalist-dev/annalist/internal/kit/llmtest"
	"github.com/annalist-dev/annalist/internal/ports/kind"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
)

type bg struct {
	Text       string `json:"text"`
	Paragraphs []int  `json:"paragraphs"`
}

type op struct {
	Text string `json:"text"`
	Turn *int   `json:"turn,omitempty"`
}

type group struct {
	Participant string `json:"participant"`
	Sentences   []op   `json:"sentences"`
}

func turn(n int) *int { return &n }

func summaryAnswer(b []bg, g ...group) string {
	out, err := json.Marshal(map[string]any{"background": b, "opinions": g})
	if err != nil {
		panic(err)
	}
	return string(out)
}

const (
	bgMatch  = "Harbor City FC beat Northfield United 3-1 on Saturday at Riverside Stadium."
	bgTorres = "Maya Torres scored twice in Harbor City FC's win over Northfield United."
	p1Best   = "Person1 thinks that Maya Torres was the best player on the pitch."
	p1Goals  = "Person1 thinks that Maya Torres scored two brilliant goals."
	p1Credit = "Person1 thinks that Daniel Reyes deserves credit too."
	p2Lost   = "Person2 thinks that Northfield United lost because Northfield United's goalkeeper got hurt."
	p2Job    = "Person2 agrees that Daniel Reyes has done a great job since March."
)

// goodAnswer lists Person2 first and Person2's turns out of order: the
// page puts the participants in the order they first speak, opinions by
// turn.
func goodAnswer() string {
	return summaryAnswer([]bg{{bgMatch, []int{1}}, {bgTorres, []int{1}}},
		group{"Person2", []op{{p2Job, turn(3)}, {p2Lost, turn(1)}}},
		group{"Person1", []op{{p1Best, turn(0)}, {p1Goals, turn(0)}, {p1Credit, turn(2)}}})
}

func drafts(t *testing.T, l *summary.LLM, refs *schemas.ReferenceSet) []schemas.Draft {
	t.Helper()
	var out []schemas.Draft
	for k := 0; ; k++ {
		d, done, err := l.Draft(context.Background(), refs, nil, k)
		if err != nil {
			t.Fatalf("draft %d: %v", k, err)
		}
		if done {
			return out
		}
		out = append(out, d)
	}
}

func TestLLMDraftsTheModelsSummary(t *testing.T) {
	d := harbor(t)
	refs := summary.References(d)
	m := llmtest.Answers("```json\n" + goodAnswer() + "\n```")
	l := summary.NewLLM(summary.LLMConfig{}, m, summary.NewOffline())
	got := drafts(t, l, refs)
	type want struct {
		text, section, cite string
		entities            []string
	}
	wants := []want{
		{bgMatch, "Background", "disc:harbor-derby:p1", nil},
		{bgTorres, "Background", "disc:harbor-derby:p1", nil},
		{p1Best, "Person1", "disc:harbor-derby:t0", []string{"Maya Torres"}},
		{p1Goals, "Person1", "disc:harbor-derby:t0", []string{"Maya Torres"}},
		{p1Credit, "Person1", "disc:harbor-derby:t2", []string{"Daniel Reyes"}},
		{p2Lost, "Person2", "disc:harbor-derby:t1", []string{"Northfield United"}},
		{p2Job, "Person2", "disc:harbor-derby:t3", []string{"Daniel Reyes"}},
	}
	if len(got) != len(wants) {
		t.Fatalf("%d drafts, want %d: %+v", len(got), len(wants), got)
	}
	for i, w := range wants {
		g := got[i]
		if g.Text != w.text || g.Section != w.section || !slices.Equal(g.Citations, []string{w.cite}) ||
			!slices.Equal(g.Entities, w.entities) && len(g.Entities)+len(w.entities) > 0 ||
			g.Engine != writer.EngineLLM || g.Origin != writer.OriginWriter || g.Index != i || g.Fallback != "" {
			t.Errorf("draft %d = %+v, want %+v", i, g, w)
		}
	}
	if l.Calls() != 1 || m.Calls() != 1 {
		t.Errorf("%d calls for one discussion, want 1", m.Calls())
	}
	c := m.Call(0)
	if !strings.HasPrefix(c.System(), "You summarise a discussion about a news story") {
		t.Errorf("system prompt %q", c.System())
	}
	for _, s := range []string{
		"Discussion: harbor-derby\n",
		"[paragraph 1] " + d.Background[0].Text + "\n",
		"[paragraph 4] " + d.Background[3].Text + "\n",
		"[turn 0] Person1: " + d.Turns[0].Utterance + "\n",
		"[turn 3] Person2: " + d.Turns[3].Utterance + "\n",
		"Participants, in the order they first speak: Person1, Person2",
		"Paragraphs an extractive selector found the discussion rests on: 1, 2, 3\n",
		"Maya Torres", "Daniel Reyes",
	} {
		if !strings.Contains(c.User(), s) {
			t.Errorf("prompt lacks %q:\n%s", s, c.User())
		}
	}
	if strings.Contains(c.User(), "rejected") {
		t.Errorf("a first prompt with feedback:\n%s", c.User())
	}
}

func TestLLMRetriesARejectedSummary(t *testing.T) {
	d := harbor(t)
	good := goodAnswer()
	one := func(g group) string { return summaryAnswer([]bg{{bgMatch, []int{1}}}, g) }
	for _, tc := range []struct{ name, bad, reason string }{
		{"not JSON", "Person1 thinks Torres was great.", "not the JSON object"},
		{"unknown field", `{"background": [], "opinions": [], "notes": "x"}`, "unknown field"},
		{"nothing", summaryAnswer(nil), "no sentence"},
		{"paragraph not in the background", summaryAnswer([]bg{{bgMatch, []int{9}}}), "paragraph 9 is not a background paragraph"},
		{"no paragraph", summaryAnswer([]bg{{bgMatch, nil}}), "no paragraph cited"},
		{"empty text", summaryAnswer([]bg{{"  ", []int{1}}}), "empty"},
		{"two sentences", summaryAnswer([]bg{{d.Background[0].Text, []int{1}}}), "2 sentences"},
		{"several lines", one(group{"Person1", []op{{"Person1 thinks that Maya Torres\nwas the best.", turn(0)}}}), "several lines"},
		{"not a participant", one(group{"Person3", []op{{"Person3 thinks that Maya Torres was the best.", turn(0)}}}), `participant "Person3" is not one`},
		{"another participant's turn", one(group{"Person2", []op{{"Person2 thinks that Maya Torres was the best player on the pitch.", turn(0)}}}),
			"turn 0 is Person1's, not Person2's"},
		{"no turn", one(group{"Person1", []op{{p1Best, nil}}}), "no turn"},
		{"no such turn", one(group{"Person1", []op{{p1Best, turn(7)}}}), "turn 7 does not exist"},
		{"not attributed", one(group{"Person1", []op{{"Maya Torres was the best player on the pitch.", turn(0)}}}), `does not open with "Person1"`},
		{"attributed to another", one(group{"Person1", []op{{"Person2 thinks that Maya Torres was the best player.", turn(0)}}}), `does not open with "Person1"`},
		{"no verb", one(group{"Person1", []op{{"Person1 Maya Torres was the best.", turn(0)}}}), "not Person1 and a verb"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := llmtest.Answers(tc.bad, good)
			l := summary.NewLLM(summary.LLMConfig{}, m, summary.NewOffline())
			got := drafts(t, l, summary.References(d))
			if len(got) != 7 || got[0].Text != bgMatch || got[6].Text != p2Job {
				t.Errorf("drafts %+v", got)
			}
			if m.Calls() != 2 {
				t.Fatalf("%d calls, want 2", m.Calls())
			}
			retry := m.Call(1).User()
			if !strings.Contains(retry, "Your previous answer was rejected: ") || !strings.Contains(retry, tc.reason) {
				t.Errorf("the retry does not say %q:\n%s", tc.reason, retry)
			}
		})
	}
}

// Two rejected answers: every sentence of the offline plan is reported
// malformed (the loop drafts it offline), the summary is done where that
// plan ends, and the model is not asked again for the discussion.
func TestLLMUnusableAnswersFallBack(t *testing.T) {
	d := harbor(t)
	refs := summary.References(d)
	off := summary.NewOffline()
	m := llmtest.Repeat(`{"background": "none"}`)
	l := summary.NewLLM(summary.LLMConfig{}, m, off)
	n := len(off.Items(refs))
	for k := 0; k < n; k++ {
		_, done, err := l.Draft(context.Background(), refs, nil, k)
		if done || !errors.Is(err, writer.ErrMalformed) || !errors.Is(err, ask.ErrRejected) || !pipeline.IsPermanent(err) {
			t.Fatalf("sentence %d: done %v, err %v", k, done, err)
		}
	}
	if _, done, err := l.Draft(context.Background(), refs, nil, n); !done || err != nil {
		t.Errorf("past the offline plan: done %v, err %v", done, err)
	}
	if m.Calls() != 2 || l.Calls() != 2 {
		t.Errorf("%d model calls, want 2 (one retry)", m.Calls())
	}
}

// A model failure is transient and not kept: the next draft asks again.
func TestLLMModelFailureIsTransient(t *testing.T) {
	d := harbor(t)
	var mu sync.Mutex
	calls := 0
	m := llmtest.Func(func(llmtest.Call) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		calls++
		if calls == 1 {
			return "", llmtest.ErrUnavailable
		}
		return goodAnswer(), nil
	})
	l := summary.NewLLM(summary.LLMConfig{}, m, summary.NewOffline())
	_, _, err := l.Draft(context.Background(), summary.References(d), nil, 0)
	if !errors.Is(err, llmtest.ErrUnavailable) || errors.Is(err, writer.ErrMalformed) || pipeline.IsPermanent(err) {
		t.Fatalf("err %v", err)
	}
	dr, done, err := l.Draft(context.Background(), summary.References(d), nil, 0)
	if err != nil || done || dr.Text != bgMatch {
		t.Fatalf("after the outage: %+v, done %v, err %v", dr, done, err)
	}
}

// The writer's loop, on a real Redis, drafts a discussion whose model
// answers are unusable with the offline drafter: the first draft says
// why, and the request's counters count it.
func TestLoopFallsBackOffline(t *testing.T) {
	ctx := context.Background()
	c := redistest.Client(t)
	store := discussionstore.New(c)
	d := harbor(t)
	if _, err := store.Put(ctx, "t", d); err != nil {
		t.Fatal(err)
	}
	off := summary.NewOffline()
	l := summary.NewLLM(summary.LLMConfig{}, llmtest.Repeat("no JSON here"), off)
	var kinds kind.Registry
	if err := kinds.Register(summary.Spec(summary.NewPlanner(store), off, l)); err != nil {
		t.Fatal(err)
	}
	mem := memory.NewRequests(c, 0)
	h := writer.NewLoop(&kinds, mem, writer.LoopConfig{Engine: kind.EngineLLM}).Handler()
	outs, err := h(ctx, pipeline.Input{Meta: schemas.Meta{Tenant: "t", EventID: "e1"},
		Msg: schemas.Request{RequestID: "r1", Kind: schemas.KindDiscussionSummary, Subject: d.ID}})
	if err != nil || len(outs) != 1 {
		t.Fatalf("outputs %+v, err %v", outs, err)
	}
	dr := outs[0].Msg.(schemas.Draft)
	first := off.Items(summary.References(d))[0]
	if dr.Text != first.Text || dr.Engine != writer.EngineOffline || dr.Section != summary.SectionBackground ||
		!strings.Contains(dr.Fallback, "the model's answers were unusable") {
		t.Errorf("draft %+v", dr)
	}
	st, ok, err := mem.State(ctx, "t", "r1")
	if err != nil || !ok || st.Counters["offline_fallbacks"] != 1 || st.Counters["llm_calls"] != 2 {
		t.Errorf("state %+v, %v, %v", st.Counters, ok, err)
	}
}

// TestLLMThroughOpenAIClient asks through the real OpenAI-compatible
// client (infra/llm) against a test server whose first answer attributes
// an opinion to the wrong participant.
func TestLLMThroughOpenAIClient(t *testing.T) {
	d := harbor(t)
	var (
		mu    sync.Mutex
		users []string
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct{ Role, Content string } `json:"messages"`
		}
		if r.URL.Path != "/v1/chat/completions" || json.NewDecoder(r.Body).Decode(&req) != nil || len(req.Messages) != 2 ||
			!strings.HasPrefix(req.Messages[0].Content, "You summarise a discussion") {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		mu.Lock()
		users = append(users, req.Messages[1].Content)
		n := len(users)
		mu.Unlock()
		content := goodAnswer()
		if n == 1 {
			content = summaryAnswer(nil, group{"Person1", []op{{"Person1 thinks that Northfield United lost.", turn(1)}}})
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
	l := summary.NewLLM(summary.LLMConfig{}, m, summary.NewOffline())
	got := drafts(t, l, summary.References(d))
	if len(got) != 7 || got[5].Text != p2Lost || got[5].Section != "Person2" {
		t.Fatalf("drafts %+v", got)
	}
	if len(users) != 2 || !strings.Contains(users[1], "turn 1 is Person2's, not Person1's") {
		t.Errorf("requests %d; the retry:\n%s", len(users), users[len(users)-1])
	}
}
