package eval_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/annalist-dev/annalist/internal/evaluation/eval"
	"github.com/annalist-dev/annalist/internal/evaluation/inject"
	"github.com/annalist-dev/annalist/internal/kit/ask"
	"github.com/annalist-dev/annalist/schemas"
)

// The prompts are rendered from the project's own templates, so that the
// model is tested on what the agents send it.
func prompt(t *testing.T, dir, version string, data map[string]any) []*schema.Message {
	t.Helper()
	p, err := ask.ParseFS(version, nil, os.DirFS(dir), version+".tmpl")
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := p.Render(data)
	if err != nil {
		t.Fatal(err)
	}
	return msgs
}

const (
	writerPrompts = "../../../consumers/writer/prompts"
	topicPrompts  = "../../../consumers/writer/topic/prompts"
	solverPrompts = "../../../consumers/solver/prompts"

	shenText = "沈思齐，字汝贤，苏州吴县人。举嘉靖二十三年进士，授刑部主事。"
	xuText   = "徐景文，字子章，松江华亭人。举嘉靖二十三年进士，授行人。"
	shenSent = "沈思齐，字汝贤，苏州吴县人。"
	yearSent = "举嘉靖二十三年进士，授刑部主事。"
)

type ref struct {
	N       int
	ChunkID string
	Text    string
}

type key struct{ ID, Name, Chunk string }

type placed struct {
	Index   int
	Section string
	Text    string
}

func testPool() inject.Pool {
	return inject.Pool{Places: []string{"苏州吴县", "松江华亭", "常州无锡"}, Courtesy: []string{"汝贤", "子章", "履常"}}
}

func topicDraft(t *testing.T, topic, hint string, index int) []*schema.Message {
	return prompt(t, topicPrompts, "topic_draft.v1", map[string]any{
		"Topic": topic, "Language": "zh",
		"References": []ref{{1, "lz-001", shenText}, {2, "lz-002", xuText}},
		"Index":      index, "Section": "嘉靖", "Task": "the person's native place and degree",
		"Facts": []string{"native place 苏州吴县 (chunk lz-001)"}, "Hint": hint, "Cite": "lz-001",
	})
}

type sentenceAnswer struct {
	Text      string   `json:"text"`
	Citations []string `json:"citations"`
}

func generate(t *testing.T, m *eval.ErringModel, msgs []*schema.Message) string {
	t.Helper()
	out, err := m.Generate(context.Background(), msgs)
	if err != nil {
		t.Fatalf("%s: %v", msgs[0].Content, err)
	}
	return out.Content
}

func decode[T any](t *testing.T, s string) T {
	t.Helper()
	var v T
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("answer %q: %v", s, err)
	}
	return v
}

func TestErringModelAnswersEveryPrompt(t *testing.T) {
	m := eval.NewErringModel(0, 1, testPool())

	bio := decode[sentenceAnswer](t, generate(t, m, prompt(t, writerPrompts, "draft.v1", map[string]any{
		"Name": "沈思齐", "Aliases": "汝贤", "Language": "zh",
		"References": []ref{{1, "lz-001", shenText}},
		"Index":      1, "Task": "the person's native place",
		"Facts": []string{"native place 苏州吴县 (chunk lz-001)"}, "Hint": shenSent,
	})))
	if bio.Text != shenSent || len(bio.Citations) != 1 || bio.Citations[0] != "lz-001" {
		t.Errorf("biography draft %+v", bio)
	}

	draft := decode[sentenceAnswer](t, generate(t, m, topicDraft(t, "苏州吴县", shenSent, 1)))
	if draft.Text != shenSent || len(draft.Citations) != 1 || draft.Citations[0] != "lz-001" {
		t.Errorf("topic draft %+v", draft)
	}

	regen := decode[sentenceAnswer](t, generate(t, m, prompt(t, solverPrompts, "regenerate.v1", map[string]any{
		"Subject": "苏州吴县", "Lang": "zh", "Sentence": "沈思齐，字汝贤，常州无锡人。",
		"Errors":     []string{"native place: the references give 苏州吴县"},
		"References": []map[string]string{{"ID": "lz-001", "Text": shenText}},
	})))
	if regen.Text != shenSent || len(regen.Citations) != 1 || regen.Citations[0] != "lz-001" {
		t.Errorf("regenerate %+v (want the plan sentence it was made from)", regen)
	}

	type finding struct {
		Type   string `json:"type"`
		Index  int    `json:"index"`
		Entity string `json:"entity"`
		Other  int    `json:"other"`
		Detail string `json:"detail"`
	}
	review := decode[struct {
		Findings []finding `json:"findings"`
	}](t, generate(t, m, prompt(t, topicPrompts, "topic_review.v1", map[string]any{
		"Topic": "嘉靖二十三年", "Language": "zh", "Round": 1, "Sections": []string{"嘉靖"},
		"Keys": []key{{"person:沈思齐", "沈思齐", "lz-001"}, {"person:徐景文", "徐景文", "lz-002"}},
		"Page": []placed{{0, "嘉靖", shenSent}},
	})))
	if len(review.Findings) != 1 || review.Findings[0].Type != schemas.FindingCoverage ||
		review.Findings[0].Entity != "person:徐景文" || review.Findings[0].Index != -1 {
		t.Errorf("review %+v, want one coverage finding for 徐景文", review)
	}

	type edit struct {
		Op        string   `json:"op"`
		Index     int      `json:"index"`
		Section   string   `json:"section"`
		Position  float64  `json:"position"`
		Text      string   `json:"text"`
		Citations []string `json:"citations"`
		Reason    string   `json:"reason"`
	}
	edits := decode[struct {
		Edits []edit `json:"edits"`
	}](t, generate(t, m, prompt(t, topicPrompts, "topic_edit.v1", map[string]any{
		"Topic": "嘉靖二十三年", "Language": "zh", "Sections": []string{"嘉靖"},
		"Page": []placed{{0, "嘉靖", shenSent}, {1, "嘉靖", yearSent}},
		"Findings": []string{
			"redundancy, sentence 1 repeats sentence 0: it says what the first sentence says",
			"coverage, entity 徐景文 (id person:徐景文, chunk lz-002): 徐景文 is named by no sentence",
		},
		"References": []ref{{1, "lz-002", xuText}},
	})))
	if len(edits.Edits) != 2 {
		t.Fatalf("edits %+v, want a drop and an add", edits)
	}
	if d := edits.Edits[0]; d.Op != schemas.EditDrop || d.Index != 1 {
		t.Errorf("drop %+v", d)
	}
	if a := edits.Edits[1]; a.Op != schemas.EditAdd || a.Index != -1 || a.Section != "嘉靖" ||
		a.Text != "徐景文，字子章，松江华亭人。" || len(a.Citations) != 1 || a.Citations[0] != "lz-002" {
		t.Errorf("add %+v", a)
	}

	if _, err := m.Generate(context.Background(), []*schema.Message{schema.SystemMessage("You summarise."), schema.UserMessage("x")}); err == nil {
		t.Error("an unknown prompt was answered")
	}
	if u := m.Unexpected(); len(u) != 1 {
		t.Errorf("unexpected %q, want the one unknown prompt", u)
	}
	calls := m.Calls()
	for _, k := range []string{eval.ErringDraft, eval.ErringRegenerate, eval.ErringReview, eval.ErringEdit, eval.ErringAdd} {
		if calls[k] == 0 {
			t.Errorf("no %s answer counted: %v", k, calls)
		}
	}
	if n := len(m.Injections()); n != 0 {
		t.Errorf("rate 0 made %d errors", n)
	}

	// Stream delivers the same answer.
	sr, err := m.Stream(context.Background(), topicDraft(t, "苏州吴县", shenSent, 1))
	if err != nil {
		t.Fatal(err)
	}
	var msgs []*schema.Message
	for {
		msg, err := sr.Recv()
		if err != nil {
			break
		}
		msgs = append(msgs, msg)
	}
	full, err := schema.ConcatMessages(msgs)
	if err != nil {
		t.Fatal(err)
	}
	if got := decode[sentenceAnswer](t, full.Content); got.Text != shenSent {
		t.Errorf("streamed %+v", got)
	}
}

func TestErringModelRate(t *testing.T) {
	const rate, n = 0.4, 2000
	m := eval.NewErringModel(rate, 3, testPool())
	hints := []string{shenSent, yearSent, "卒于官，年六十。"}
	for i := range n {
		generate(t, m, topicDraft(t, "苏州吴县", hints[i%len(hints)], i))
	}
	got := float64(len(m.Injections())) / n
	if got < rate-0.04 || got > rate+0.04 {
		t.Errorf("%d errors in %d sentences: rate %.3f, want about %.2f", len(m.Injections()), n, got, rate)
	}
	types := map[string]int{}
	for _, e := range m.Injections() {
		if e.Subject != "苏州吴县" || e.Kind != eval.ErringDraft || e.Wrong == "" || !strings.Contains(e.Mutated, e.Wrong) {
			t.Fatalf("injection %+v", e)
		}
		types[e.Type]++
	}
	if len(types) < 3 {
		t.Errorf("error types %v: want several", types)
	}

	// The same prompt in the same round gets the same answer, whatever
	// else was asked in between; a new round may change it.
	again := eval.NewErringModel(rate, 3, testPool())
	for i := range 50 {
		p := topicDraft(t, "苏州吴县", hints[i%len(hints)], n-1-i)
		if a, b := generate(t, m, p), generate(t, again, p); a != b {
			t.Fatalf("prompt %d answered %q and %q", i, a, b)
		}
	}
}

func TestErringModelScore(t *testing.T) {
	m := eval.NewErringModel(1, 5, testPool())
	// A published sentence the model never wrote wrong.
	right := yearSent
	var wrong string
	for i := 0; wrong == ""; i++ {
		if i > 100 {
			t.Fatal("rate 1 made no error")
		}
		out := decode[sentenceAnswer](t, generate(t, m, topicDraft(t, "苏州吴县", shenSent, i)))
		if out.Text != shenSent {
			wrong = out.Text
		}
	}
	page := func(subject string, sentences ...string) *schemas.Page {
		p := &schemas.Page{Subject: subject, Kind: schemas.KindTopicPage, Stats: map[string]int64{"review_rounds": 2}}
		for _, s := range sentences {
			p.Sentences = append(p.Sentences, schemas.PageSentence{Text: s})
		}
		return p
	}
	injected := len(m.Injections())

	sc := m.Score([]*schemas.Page{page("苏州吴县", wrong, right), page("苏州吴县", shenSent)})
	if sc.Pages != 2 || sc.Sentences != 3 || sc.Residual != 1 || len(sc.Residuals) != 1 || sc.Residuals[0].Text != wrong {
		t.Errorf("score %+v, want the one published error", sc)
	}
	if sc.Injected != injected || sc.InjectedDrafts != injected || sc.ReviewRoundsMax != 2 {
		t.Errorf("score %+v, %d injected", sc, injected)
	}
	if want := fmt.Sprintf("%.4f", 1.0/3); fmt.Sprintf("%.4f", sc.ResidualErrorRate) != want {
		t.Errorf("residual rate %.4f, want %s", sc.ResidualErrorRate, want)
	}
	if sc.Caught != injected-1 || len(sc.Uncaught) != 1 || sc.Uncaught[0].Text != wrong {
		t.Errorf("caught %d of %d drafted errors (uncaught %+v), want all but the published one", sc.Caught, injected, sc.Uncaught)
	}

	// The clean wording is not an error, and an error of another subject's
	// page does not count on this one.
	if sc := m.Score([]*schemas.Page{page("苏州吴县", shenSent), page("松江华亭", wrong)}); sc.Residual != 0 || sc.Unscored != 1 {
		t.Errorf("score %+v, want no residual error and one page unscored", sc)
	}
	if sc := m.Score([]*schemas.Page{page("苏州吴县", shenSent)}); sc.Residual != 0 || sc.Caught != injected {
		t.Errorf("score %+v, want no residual error and every one caught", sc)
	}

	// Once a plan sentence of the subject holds the wrong value, the
	// published wrong wording is excused, not counted.
	last := m.Injections()[injected-1]
	generate(t, m, topicDraft(t, "苏州吴县", "某某，"+last.Wrong+"。", 1000))
	if sc := m.Score([]*schemas.Page{page("苏州吴县", wrong)}); sc.Residual != 0 || sc.Excused != 1 || sc.Excuses[0].Wrong != last.Wrong {
		t.Errorf("score %+v, want the wrong wording excused", sc)
	}
}
