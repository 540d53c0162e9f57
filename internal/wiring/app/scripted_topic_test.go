package app_test

import (
	"context"
	"testing"
	"time"

	"github.com/annalist-dev/annalist/infra/pages"
	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
	"github.com/annalist-dev/annalist/internal/evaluation/eval"
	"github.com/annalist-dev/annalist/internal/evaluation/inject"
	"github.com/annalist-dev/annalist/internal/wiring/demo"
	"github.com/annalist-dev/annalist/producers"
	"github.com/annalist-dev/annalist/schemas"
)

// topicVolume is a liezhuan volume written for the topic test: ten people
// from three native places, three of them jinshi of 嘉靖二十三年 and three
// of 万历五年, so that a place page and an era-year page have several
// people to name.
const topicVolume = `沈思齐钱允修王懋中许汝成徐景文陈如松朱廷献华世安秦可久邹惟一
沈思齐，字汝贤，苏州吴县人。举嘉靖二十三年进士，授刑部主事。迁员外郎，出为江西佥事。卒于官，年六十。
钱允修，字伯敬，号竹庄，苏州吴县人。举嘉靖三十二年进士，授知县。擢御史，巡按山东。以疾归，卒。
王懋中，字元直，苏州吴县人。举万历五年进士，授翰林院检讨。累官礼部右侍郎。卒，赠礼部尚书。
许汝成，字惟和，苏州吴县人。举万历十一年进士，授户部主事。迁郎中，出知宁波府。卒于家。
徐景文，字子章，松江华亭人。举嘉靖二十三年进士，授行人。擢给事中，累迁太常寺卿。卒。
陈如松，字茂卿，松江华亭人。举万历五年进士，授南京刑部主事。迁郎中，出为福建参议。卒，年五十九。
朱廷献，字希贤，松江华亭人。举万历十四年进士，授中书舍人。擢吏科给事中。卒。
华世安，字履常，常州无锡人。举嘉靖二十三年进士，授工部主事。出为湖广参政。卒于官。
秦可久，字道甫，常州无锡人。举万历五年进士，授知县。擢监察御史。卒，年五十二。
邹惟一，字守中，常州无锡人。举隆庆二年进士，授大理寺评事。累官大理寺少卿。卒。
`

var topicVolumePeople = []string{"沈思齐", "钱允修", "王懋中", "许汝成", "徐景文", "陈如松", "朱廷献", "华世安", "秦可久", "邹惟一"}

// newTopicErringModel is the erring model of
// TestScriptedModelErrorsAreCaught, which knows the topic kind's prompts
// as well (eval.ErringModel): it words the plan item of a drafting prompt
// (topic_draft.v1) with one injected error at its rate, like a
// biography's; as the reviewer (topic_review.v1) it reports each key
// entity no sentence names and, in a page's first round at its rate, a
// redundancy that is not one; as the editor (topic_edit.v1) it drops what
// such a finding names and adds, for each missing entity, the sentence of
// the entity's chunk that names it, with one injected error at its rate.
func newTopicErringModel(rate float64, seed uint64, pool inject.Pool) *eval.ErringModel {
	return newErringModel(rate, seed, pool)
}

// TestScriptedModelTopicErrorsAreCaught is the topic kind's target "with
// the 40 %-erroneous scripted model: residual error rate ≤ 1 % of
// published sentences, reviewer and editor rounds bounded". The demo
// corpus and a volume of ten people from three places are ingested
// offline; then the generation stages run embedded with the erring model
// as the LLM engine (topic drafter, reviewer, editor and the regenerate
// solver) and the offline verifier, and write the topic pages of the
// places and era years in several rounds.
func TestScriptedModelTopicErrorsAreCaught(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the embedded pipeline")
	}
	redistest.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	const tenant = "default"
	dir := t.TempDir()

	items, err := demo.Documents()
	if err != nil {
		t.Fatal(err)
	}
	vol, err := producers.NewItem(schemas.Document{Source: "fixture/liezhuan/topics.txt", Title: "topics",
		Collection: "fixture", Text: topicVolume})
	if err != nil {
		t.Fatal(err)
	}
	items = append(items, vol)
	pool := ingestPool(t, ctx, dir, tenant, items, append([]string{"陆文渊", "顾承泽", "严鹤龄"}, topicVolumePeople...))
	m := newTopicErringModel(0.4, 11, pool)
	b := runGenerating(t, dir, m)

	topics := []string{"苏州吴县", "松江华亭", "嘉靖二十三年", "万历五年"}
	const rounds = 8
	var published []*schemas.Page
	for round := range uint64(rounds) {
		m.SetRound(round)
		reqs := make([]schemas.Request, len(topics))
		for i, s := range topics {
			reqs[i] = schemas.Request{Kind: schemas.KindTopicPage, Subject: s,
				Params: map[string]string{"incremental": "false"}}
		}
		res, err := b.Generate(ctx, tenant, false, true, reqs)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		failed := false
		for _, r := range res {
			if r.Status.State != pages.RequestPublished || r.Page == nil {
				t.Errorf("round %d: %s not published: %s %s", round, r.Request.Subject, r.Status.State, r.Status.Error)
				failed = true
				continue
			}
			if round == 0 {
				t.Logf("%s: %d sentences in %d sections, stats %v", r.Page.Subject, len(r.Page.Sentences), len(r.Page.Sections), r.Page.Stats)
			}
			published = append(published, r.Page)
		}
		if failed {
			t.FailNow()
		}
	}

	if u := m.Unexpected(); len(u) > 0 {
		t.Errorf("the model was sent prompts it does not know: %q", u)
	}
	stats := map[string]int64{}
	for _, p := range published {
		if p.Kind != schemas.KindTopicPage || len(p.Sections) == 0 {
			t.Errorf("%s: a %s page of %d sections", p.Subject, p.Kind, len(p.Sections))
		}
		if n := p.Stats["review_rounds"]; n < 1 || n > 3 {
			t.Errorf("%s: %d review rounds, want 1 to 3", p.Subject, n)
		}
		for k, v := range p.Stats {
			stats[k] += v
		}
	}
	score := m.Score(published)
	for _, r := range score.Residuals {
		t.Logf("residual %s error in %s: %q (wrong %q, right %q)", r.Type, r.Subject, r.Text, r.Wrong, r.Right)
	}
	sentences, residual := score.Sentences, score.Residual
	injections, calls := m.Injections(), m.Calls()
	injected := map[string]int{}
	for _, e := range injections {
		injected[e.Kind+" "+e.Type]++
	}
	rate := float64(residual) / float64(max(1, sentences))
	t.Logf("%d pages, %d sentences published, model calls %v, %d errors injected %v",
		len(published), sentences, calls, len(injections), injected)
	t.Logf("page stats: drafted %d accepted %d corrected %d dropped %d llm_calls %d offline_fallbacks %d",
		stats["drafted"], stats["accepted"], stats["corrected"], stats["dropped"], stats["llm_calls"], stats["offline_fallbacks"])
	t.Logf("review: rounds %d findings_coverage %d edits_add %d review_fallbacks %d",
		stats["review_rounds"], stats["findings_coverage"], stats["edits_add"], stats["review_fallbacks"])
	t.Logf("residual error rate %.4f (%d of %d published sentences)", rate, residual, sentences)

	if calls[eval.ErringDraft] == 0 || calls[eval.ErringReview] == 0 {
		t.Errorf("the model drafted %d and reviewed %d times: the topic kind did not ask it", calls[eval.ErringDraft], calls[eval.ErringReview])
	}
	if stats["edits_drop"] == 0 || stats["edits_add"] == 0 {
		t.Errorf("the editor dropped %d and added %d sentences: the review loop was not exercised", stats["edits_drop"], stats["edits_add"])
	}
	if len(injections) < 30 {
		t.Fatalf("only %d errors injected; the test needs more pages", len(injections))
	}
	if rate > 0.01 {
		t.Errorf("residual error rate %.4f > 0.01", rate)
	}
	if stats["review_fallbacks"] != 0 || stats["offline_fallbacks"] != 0 {
		t.Errorf("the engine fell back offline (%d reviews or edits, %d sentences): the model's answers are all well-formed",
			stats["review_fallbacks"], stats["offline_fallbacks"])
	}
}
