package app_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/annalist-dev/annalist/consumers/writer/summary"
	"github.com/annalist-dev/annalist/infra/llm"
	"github.com/annalist-dev/annalist/infra/pages"
	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
	"github.com/annalist-dev/annalist/internal/wiring/app"
	"github.com/annalist-dev/annalist/schemas"
)

// harborDiscussion is the writer's test discussion
// (consumers/writer/summary/testdata/harbor.json) under id: four
// paragraphs about a football match, the last one off the story, and four
// turns of two participants.
func harborDiscussion(t *testing.T, id string) schemas.Discussion {
	t.Helper()
	b, err := os.ReadFile("../../../consumers/writer/summary/testdata/harbor.json")
	if err != nil {
		t.Fatal(err)
	}
	var d schemas.Discussion
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	d.ID = id
	return d
}

// summarize stores the discussions and asks for their summaries on the
// running stages of b, returning the published pages by discussion id.
func summarize(t *testing.T, ctx context.Context, b *app.App, ds ...schemas.Discussion) map[string]*schemas.Page {
	t.Helper()
	const tenant = "default"
	var reqs []schemas.Request
	for _, d := range ds {
		if _, err := b.Discussions.Put(ctx, tenant, d); err != nil {
			t.Fatal(err)
		}
		reqs = append(reqs, schemas.Request{Kind: schemas.KindDiscussionSummary, Subject: d.ID})
	}
	res, err := b.Generate(ctx, tenant, false, true, reqs)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*schemas.Page{}
	for _, r := range res {
		if r.Status.State != pages.RequestPublished || r.Page == nil {
			t.Fatalf("%s not published: %s %s", r.Request.Subject, r.Status.State, r.Status.Error)
		}
		out[r.Request.Subject] = r.Page
	}
	return out
}

// checkSummaryPage checks what every published summary must be: a
// discussion_summary page of the discussion, sections Background first
// (when there is one) then participants in the order they first speak;
// every background sentence citing paragraphs of the discussion, every
// other citing exactly one turn of its section's participant, each
// citation carrying its text; and every sentence supported by the
// process's verifier, checked again here.
func checkSummaryPage(t *testing.T, b *app.App, d schemas.Discussion, p *schemas.Page) {
	t.Helper()
	if p.Kind != schemas.KindDiscussionSummary || p.Subject != d.ID || p.Key() != "discussion_summary:"+d.ID {
		t.Errorf("page %s %q key %q", p.Kind, p.Subject, p.Key())
	}
	var titles []string
	for _, s := range p.Sections {
		titles = append(titles, s.Title)
	}
	want := append([]string{summary.SectionBackground}, d.Participants()...)
	if !slices.Equal(titles, want) {
		t.Errorf("sections %q, want %q", titles, want)
	}
	refs := summary.References(d)
	checker := b.Checker()
	for _, sec := range p.Sections {
		for _, s := range sec.Sentences {
			if len(s.Citations) == 0 {
				t.Errorf("%q has no citation", s.Text)
				continue
			}
			var cites []string
			for _, c := range s.Citations {
				id, turn, n, ok := schemas.ParseDiscussionRef(c.ChunkID)
				switch {
				case !ok || id != d.ID:
					t.Errorf("%q cites %q", s.Text, c.ChunkID)
				case sec.Title == summary.SectionBackground && turn:
					t.Errorf("background sentence %q cites turn %d", s.Text, n)
				case sec.Title != summary.SectionBackground && (!turn || len(s.Citations) != 1 || d.Turns[n].Participant != sec.Title):
					t.Errorf("%s's opinion %q cites %v", sec.Title, s.Text, s.Citations)
				case turn && c.Text != d.Turns[n].Utterance:
					t.Errorf("citation %s carries %q", c.ChunkID, c.Text)
				}
				if par, found := d.Paragraph(n); ok && !turn && (!found || c.Text != par.Text) {
					t.Errorf("citation %s carries %q", c.ChunkID, c.Text)
				}
				cites = append(cites, c.ChunkID)
			}
			v, err := checker.Check(context.Background(), refs, schemas.Draft{RequestID: "recheck", Kind: p.Kind,
				Subject: d.ID, Text: s.Text, Citations: cites, Entities: s.Entities})
			if err != nil || v.Status != schemas.StatusSupported {
				t.Errorf("published %q is %s (%+v, %v)", s.Text, v.Status, v.Facts, err)
			}
		}
	}
}

// TestDiscussionSummaryOffline: a stored discussion is summarised by the
// offline engine through the real stages (writer, verifier, router,
// solvers, assembler): the page is the offline summary, every sentence
// verified and published, the opinions' entities carried; an unknown
// discussion fails its request with the reason.
func TestDiscussionSummaryOffline(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the embedded pipeline")
	}
	redistest.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	b := runGenerating(t, t.TempDir(), nil)
	d := harborDiscussion(t, "harbor-offline")
	p := summarize(t, ctx, b, d)[d.ID]
	checkSummaryPage(t, b, d, p)

	plan := summary.Plan(d)
	if len(p.Sentences) != len(plan) || len(p.Dropped) != 0 {
		t.Fatalf("%d sentences, %d dropped; the plan has %d: %+v", len(p.Sentences), len(p.Dropped), len(plan), p.Dropped)
	}
	named := map[string]bool{}
	for i, it := range plan {
		s := p.Sentences[i]
		if s.Text != it.Text || s.Section != it.Section || s.Status != schemas.StatusSupported || s.OfflineFallback != "" ||
			!slices.Equal(s.Entities, it.Entities) && len(s.Entities)+len(it.Entities) > 0 {
			t.Errorf("sentence %d = %+v, want %+v", i, s, it)
		}
		for _, e := range s.Entities {
			named[e] = true
		}
	}
	if !named["Maya Torres"] || !named["Daniel Reyes"] {
		t.Errorf("entities on the page: %v", named)
	}
	if p.Stats["sections"] != 3 || p.Stats["llm_calls"] != 0 {
		t.Errorf("stats %v", p.Stats)
	}

	res, err := b.Generate(ctx, "default", false, true, []schemas.Request{{Kind: schemas.KindDiscussionSummary, Subject: "no-such-discussion"}})
	if err != nil {
		t.Fatal(err)
	}
	if st := res[0].Status; st.State != pages.RequestFailed || !strings.Contains(st.Error, "unknown subject") ||
		!strings.Contains(st.Error, "no-such-discussion") {
		t.Errorf("unknown discussion: %s %q", st.State, st.Error)
	}
}

// The LLM engine's answers for TestDiscussionSummaryLLM.
const (
	llmBgMatch  = "Harbor City FC beat Northfield United 3-1 on Saturday at Riverside Stadium."
	llmBgScore  = "Harbor City FC beat Northfield United 4-1 on Saturday."              // a wrong score
	llmBgBrandt = "Leon Brandt was injured in the first half."                          // not in the paragraph it cites
	llmBest     = "Person1 thinks that Maya Torres was the best player on the pitch."   // supported
	llmNever    = "Person1 thinks that Maya Torres never scored two brilliant goals."   // a negation added
	llmGoals    = "Person1 thinks that Maya Torres scored two brilliant goals."         // the solver's correction of it
	llmBrandt   = "Person1 thinks that Leon Brandt changed the formation at half time." // the wrong entity: "he" is the coach
	llmCredit   = "Person1 thinks that Daniel Reyes deserves credit too."
	llmLost     = "Person2 thinks that Northfield United lost because Northfield United's goalkeeper got hurt."
	llmMatches  = "Person2 agrees that Daniel Reyes has done a great job in 3 matches since March." // a number the turn lacks
)

func llmSummaryAnswer(first bool) string {
	type bg struct {
		Text       string `json:"text"`
		Paragraphs []int  `json:"paragraphs"`
	}
	type op struct {
		Text string `json:"text"`
		Turn int    `json:"turn"`
	}
	type group struct {
		Participant string `json:"participant"`
		Sentences   []op   `json:"sentences"`
	}
	a := struct {
		Background []bg    `json:"background"`
		Opinions   []group `json:"opinions"`
	}{
		Background: []bg{{llmBgMatch, []int{1}}, {llmBgScore, []int{1}}, {llmBgBrandt, []int{1}}},
		Opinions: []group{
			{"Person1", []op{{llmBest, 0}, {llmNever, 0}, {llmBrandt, 2}, {llmCredit, 2}}},
			{"Person2", []op{{llmLost, 1}, {llmMatches, 3}}},
		},
	}
	if first {
		// attributed to the participant of another turn: the drafter's
		// validation rejects it and asks again
		a.Opinions[1].Sentences[0].Turn = 0
	}
	out, err := json.Marshal(a)
	if err != nil {
		panic(err)
	}
	return string(out)
}

// scriptedServer is an OpenAI-compatible chat server that answers the
// discussion summary prompt and the regenerate solver's prompt: for
// discussion "harbor-llm" the summary above (its first answer rejected by
// validation), for any other one text that is not JSON; a rewrite of the
// sentence with the added negation is corrected, any other rewrite
// answered with the sentence unchanged (which the solver rejects).
type scriptedServer struct {
	*httptest.Server
	mu        sync.Mutex
	summaries map[string][]string // discussion id -> the user prompts
	rewrites  int
	unknown   []string
}

var discussionIDLine = regexp.MustCompile(`(?m)^Discussion: (\S+)$`)
var sentenceLine = regexp.MustCompile(`(?m)^Sentence: (.+)$`)

func newScriptedServer(t *testing.T) *scriptedServer {
	s := &scriptedServer{summaries: map[string][]string{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct{ Role, Content string } `json:"messages"`
		}
		if r.URL.Path != "/v1/chat/completions" || json.NewDecoder(r.Body).Decode(&req) != nil || len(req.Messages) != 2 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		system, user := req.Messages[0].Content, req.Messages[1].Content
		s.mu.Lock()
		var content string
		switch {
		case strings.HasPrefix(system, "You summarise a discussion"):
			id := ""
			if m := discussionIDLine.FindStringSubmatch(user); m != nil {
				id = m[1]
			}
			s.summaries[id] = append(s.summaries[id], user)
			content = "Here is the summary you asked for."
			if id == "harbor-llm" {
				content = llmSummaryAnswer(len(s.summaries[id]) == 1)
			}
		case strings.HasPrefix(system, "You correct one sentence"):
			s.rewrites++
			sentence := ""
			if m := sentenceLine.FindStringSubmatch(user); m != nil {
				sentence = m[1]
			}
			cite := "disc:harbor-llm:t0"
			if strings.Contains(user, "[disc:harbor-llm:p1]") {
				cite = "disc:harbor-llm:p1"
			}
			text := sentence
			if sentence == llmNever {
				text = llmGoals
			}
			b, _ := json.Marshal(map[string]any{"text": text, "citations": []string{cite}})
			content = string(b)
		default:
			s.unknown = append(s.unknown, system)
			content = "unknown prompt"
		}
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": "c", "object": "chat.completion", "created": 1, "model": "test-model",
			"choices": []map[string]any{{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": content}}},
		})
	}))
	t.Cleanup(s.Close)
	return s
}

// TestDiscussionSummaryLLM is the discussion kind's target "LLM path with
// scripted models (and the httptest OpenAI server): malformed or
// unsupported answers are caught by the verifier and never published".
// The generation stages run embedded with the LLM engine asking an
// OpenAI-compatible test server through the real client. For one
// discussion the model's first summary attributes an opinion to the wrong
// participant (rejected by the drafter's validation, asked again); the
// second holds a wrong score, a background sentence its paragraph does
// not state, an added negation, the wrong entity for a pronoun and a
// number the turn lacks, beside supported sentences. For another
// discussion every answer is malformed, and the page is written offline.
func TestDiscussionSummaryLLM(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the embedded pipeline")
	}
	redistest.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	srv := newScriptedServer(t)
	m, err := llm.NewChatModel(ctx, llm.Config{BaseURL: srv.URL + "/v1", Model: "test-model", APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	b := runGenerating(t, t.TempDir(), m)
	d, fb := harborDiscussion(t, "harbor-llm"), harborDiscussion(t, "harbor-fallback")
	got := summarize(t, ctx, b, d, fb)
	p, fp := got[d.ID], got[fb.ID]
	checkSummaryPage(t, b, d, p)
	checkSummaryPage(t, b, fb, fp)

	srv.mu.Lock()
	summaries, rewrites, unknown := srv.summaries, srv.rewrites, srv.unknown
	srv.mu.Unlock()
	if len(unknown) > 0 {
		t.Errorf("the model was sent prompts it does not know: %q", unknown)
	}
	// One summary per discussion, one retry each.
	if n := len(summaries[d.ID]); n != 2 || !strings.Contains(summaries[d.ID][1], "turn 0 is Person1's, not Person2's") {
		t.Errorf("%d summary prompts for %s; the retry:\n%s", n, d.ID, summaries[d.ID][n-1])
	}
	if n := len(summaries[fb.ID]); n != 2 {
		t.Errorf("%d summary prompts for %s, want 2", n, fb.ID)
	}

	// The model's supported sentences are published as written, in their
	// sections, the opinions with their entities.
	published := map[string]schemas.PageSentence{}
	for _, s := range p.Sentences {
		published[s.Text] = s
	}
	for _, tc := range []struct {
		text, section string
		entities      []string
	}{
		{llmBgMatch, "Background", nil},
		{llmBest, "Person1", []string{"Maya Torres"}},
		{llmCredit, "Person1", []string{"Daniel Reyes"}},
		{llmLost, "Person2", []string{"Northfield United"}},
	} {
		s, ok := published[tc.text]
		if !ok || s.Section != tc.section || s.Status != schemas.StatusSupported || s.OfflineFallback != "" ||
			!slices.Equal(s.Entities, tc.entities) && len(s.Entities)+len(tc.entities) > 0 {
			t.Errorf("%q: published %v as %+v", tc.text, ok, s)
		}
	}
	// The negation was caught and corrected by the regenerate solver's
	// model, and verified again before it was published.
	if s, ok := published[llmGoals]; !ok || s.Status != schemas.OutcomeCorrected || s.Section != "Person1" ||
		!slices.Equal(s.Entities, []string{"Maya Torres"}) {
		t.Errorf("the corrected opinion: published %v as %+v", ok, s)
	}
	// Nothing unsupported is published, whatever the solvers made of it.
	for _, s := range p.Sentences {
		for _, bad := range []string{"4-1", "Leon Brandt", "never", "3 matches"} {
			if strings.Contains(s.Text, bad) {
				t.Errorf("published %q, which holds %q", s.Text, bad)
			}
		}
	}
	if rewrites == 0 {
		t.Error("the regenerate solver never asked the model")
	}
	if p.Stats["detected_other"] < 4 || p.Stats["detected_not_included"] < 1 || p.Stats["offline_fallbacks"] != 0 {
		t.Errorf("page stats %v", p.Stats)
	}
	t.Logf("%s: %d sentences, %d dropped, stats %v", d.ID, len(p.Sentences), len(p.Dropped), p.Stats)

	// Every answer malformed: the offline summary, each sentence marked.
	plan := summary.Plan(fb)
	if len(fp.Sentences) != len(plan) || fp.Stats["offline_fallbacks"] != int64(len(plan)) {
		t.Fatalf("fallback page: %d sentences, plan %d, stats %v", len(fp.Sentences), len(plan), fp.Stats)
	}
	for i, s := range fp.Sentences {
		if s.Text != plan[i].Text || !strings.Contains(s.OfflineFallback, "the model's answers were unusable") {
			t.Errorf("fallback sentence %d = %+v", i, s)
		}
	}
}
