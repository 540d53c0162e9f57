package verifier_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/consumers/verifier"
	"github.com/annalist-dev/annalist/internal/kit/llmtest"
	"github.com/annalist-dev/annalist/internal/kit/supportllm"
	"github.com/annalist-dev/annalist/schemas"
)

// p1Quote is a passage of the harbor discussion's paragraph 1.
const p1Quote = "Harbor City FC beat Northfield United 3-1 on Saturday at Riverside Stadium."

var factLine = regexp.MustCompile(`(?m)^\d+\. (.+)$`)

// credulous is an LLM verifier that finds every atomic fact of every
// sentence supported by paragraph 1: the first judge a background
// sentence passes under the LLM engine, wrong here on purpose, so that
// what is refused is refused by the second opinion.
func credulous() *llmtest.Model {
	return llmtest.Func(func(c llmtest.Call) (string, error) {
		var facts []string
		for _, m := range factLine.FindAllStringSubmatch(c.User(), -1) {
			facts = append(facts, fmt.Sprintf(`{"text": %q, "status": "supported", "error_type": "", "message": "", "chunk_id": %q, "quote": %q}`,
				m[1], p1, p1Quote))
		}
		return `{"facts": [` + strings.Join(facts, ", ") + `]}`, nil
	})
}

func llmDiscussions(support *llmtest.Model) verifier.Checker {
	inner := verifier.NewJudge(verifier.JudgeConfig{}, verifier.WithModel(credulous()),
		verifier.WithFallback(verifier.NewOffline(verifier.Config{})))
	return verifier.WithDiscussions(inner, verifier.JudgeBackground(verifier.LLMClaims(supportllm.New(support, 2))))
}

// Under the LLM engine, a reworded background sentence that adds a fact
// the paragraph does not state is refused by the claim-support judge even
// when the first judge accepts it: partial support goes to the regenerate
// solver with the part the paragraph carries as evidence, missing support
// is not included.
func TestBackgroundJudgeRefusesAnAddedFact(t *testing.T) {
	refs := harborRefs(t)
	const added = "Harbor City FC beat Northfield United 3-1 at Riverside Stadium on Saturday, their first home win since March."
	alone := verifier.WithDiscussions(verifier.NewJudge(verifier.JudgeConfig{}, verifier.WithModel(credulous())))
	if v, err := alone.Check(context.Background(), refs, discDraft(added, p1)); err != nil || v.Status != schemas.StatusSupported {
		t.Fatalf("the first judge alone: %s, err %v; want it fooled", v.Status, err)
	}
	sm := llmtest.Answers(`{"label": "partial", "spans": [{"passage": 1, "text": "Harbor City FC beat Northfield United 3-1 on Saturday at Riverside Stadium"}]}`)
	v, err := llmDiscussions(sm).Check(context.Background(), refs, discDraft(added, p1))
	if err != nil {
		t.Fatal(err)
	}
	if v.Status != schemas.StatusNotSupported || v.ErrorType != schemas.ErrorOther || len(v.Facts) != 1 {
		t.Fatalf("added fact: %s %s %+v", v.Status, v.ErrorType, v.Facts)
	}
	f := v.Facts[0]
	if len(f.Evidence) != 1 || f.Evidence[0].ChunkID != p1 || f.Evidence[0].Span.Start != 0 ||
		f.Evidence[0].Text != "Harbor City FC beat Northfield United 3-1 on Saturday at Riverside Stadium" ||
		!strings.Contains(f.Message, "only part") {
		t.Errorf("evidence %+v, message %q", f.Evidence, f.Message)
	}
	if sm.Calls() != 1 {
		t.Fatalf("the support judge was asked %d times", sm.Calls())
	}
	if p := sm.Call(0).User(); !strings.Contains(p, "Claim: "+added) || strings.Contains(p, "Leon Brandt") || strings.Contains(p, "Daniel Reyes") {
		t.Errorf("the support judge saw more than the cited paragraph:\n%s", p)
	}

	sm = llmtest.Answers(`{"label": "missing", "spans": []}`)
	v, err = llmDiscussions(sm).Check(context.Background(), refs, discDraft("Harbor City FC sacked its coach after the match.", p1))
	if err != nil {
		t.Fatal(err)
	}
	if v.Status != schemas.StatusNotIncluded || len(v.Facts) != 1 || !strings.Contains(v.Facts[0].Message, "do not state it") {
		t.Errorf("missing: %s %+v", v.Status, v.Facts)
	}
}

// A faithful rewording passes both judges, and the verdict says the
// claim-support judge found it complete; a model that fails is an error
// the runtime retries, not a verdict.
func TestBackgroundJudgeAcceptsAFaithfulRewording(t *testing.T) {
	refs := harborRefs(t)
	const faithful = "On Saturday Harbor City FC won 3-1 against Northfield United at Riverside Stadium."
	sm := llmtest.Answers(`{"label": "complete", "spans": [{"passage": 1, "text": "` + p1Quote + `"}]}`)
	v, err := llmDiscussions(sm).Check(context.Background(), refs, discDraft(faithful, p1))
	if err != nil {
		t.Fatal(err)
	}
	if v.Status != schemas.StatusSupported || len(v.Facts) == 0 || !strings.Contains(v.Facts[0].Message, "claim-support judge: complete") {
		t.Errorf("faithful: %s %+v", v.Status, v.Facts)
	}
	boom := errors.New("model down")
	_, err = llmDiscussions(llmtest.Failing(boom)).Check(context.Background(), refs, discDraft(faithful, p1))
	if !errors.Is(err, boom) {
		t.Errorf("a failing support model: err %v, want %v", err, boom)
	}
}

// Under the offline engine the shipped judge confirms a rewording the
// offline checker supports, refuses a sentence the cited paragraph does
// not state even when the first judge accepts it, and is not asked about
// a sentence the first checker refuses or one the paragraph holds word
// for word.
func TestBackgroundOfflineJudge(t *testing.T) {
	refs := harborRefs(t)
	c := verifier.WithDiscussions(verifier.NewOffline(verifier.Config{}), verifier.JudgeBackground(verifier.OfflineClaims{}))
	v, err := c.Check(context.Background(), refs, discDraft("Maya Torres scored twice for Harbor City.", p1))
	if err != nil {
		t.Fatal(err)
	}
	if v.Status != schemas.StatusSupported || !strings.Contains(v.Facts[0].Message, "claim-support judge: complete") {
		t.Errorf("faithful: %s %+v", v.Status, v.Facts)
	}
	// the first judge (credulous) accepts a sentence of paragraph 2 cited
	// to paragraph 1; the offline judge finds none of it there
	inner := verifier.NewJudge(verifier.JudgeConfig{}, verifier.WithModel(credulous()))
	c2 := verifier.WithDiscussions(inner, verifier.JudgeBackground(verifier.OfflineClaims{}))
	v, err = c2.Check(context.Background(), refs, discDraft("Coach Daniel Reyes took over the club in March.", p1))
	if err != nil {
		t.Fatal(err)
	}
	if v.Status != schemas.StatusNotIncluded || !strings.Contains(v.Facts[0].Message, "claim-support judge: missing") {
		t.Errorf("paragraph 2's fact cited to paragraph 1: %s %+v", v.Status, v.Facts)
	}
	sm := llmtest.Answers(`{"label": "missing", "spans": []}`)
	c3 := verifier.WithDiscussions(verifier.NewOffline(verifier.Config{}), verifier.JudgeBackground(verifier.LLMClaims(supportllm.New(sm, 2))))
	for _, text := range []string{"Harbor City FC lost to Northfield United 3-1 on Saturday.", "Striker Maya Torres scored twice for Harbor City."} {
		if _, err := c3.Check(context.Background(), refs, discDraft(text, p1)); err != nil {
			t.Fatal(err)
		}
	}
	if sm.Calls() != 0 {
		t.Errorf("the judge was asked %d times about sentences the first checker decides", sm.Calls())
	}
}
