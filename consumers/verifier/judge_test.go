package verifier_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/consumers/verifier"
	"github.com/annalist-dev/annalist/internal/kit/llmtest"
	"github.com/annalist-dev/annalist/internal/ports/genmem"
	"github.com/annalist-dev/annalist/schemas"
)

// answer writes a judge answer deciding the facts of a sentence in order.
func answer(t testing.TB, facts ...map[string]string) string {
	t.Helper()
	type fact struct {
		Text      string `json:"text"`
		Status    string `json:"status"`
		ErrorType string `json:"error_type"`
		Message   string `json:"message"`
		ChunkID   string `json:"chunk_id"`
		Quote     string `json:"quote"`
	}
	var out struct {
		Facts []fact `json:"facts"`
	}
	for _, f := range facts {
		out.Facts = append(out.Facts, fact{Text: f["text"], Status: f["status"], ErrorType: f["error_type"],
			Message: f["message"], ChunkID: f["chunk_id"], Quote: f["quote"]})
	}
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func supportedBy(text, quote string) map[string]string {
	return map[string]string{"text": text, "status": "supported", "chunk_id": chunkEntry, "quote": quote, "message": "stated"}
}

const identity = "林敬安，字守拙，莆田人。"

func TestJudge(t *testing.T) {
	good := answer(t, supportedBy("林敬安", "林敬安"), supportedBy("字守拙", "字守拙"), supportedBy("莆田人", "莆田人"))
	wrongPlace := answer(t, supportedBy("林敬安", "林敬安"), supportedBy("字守拙", "字守拙"),
		map[string]string{"text": "莆田人", "status": "not_supported", "error_type": "other", "chunk_id": chunkEntry,
			"quote": "莆田人", "message": "native place 仙游 contradicts 莆田"})
	tests := []struct {
		name      string
		answers   []string
		status    string
		etype     string
		calls     int
		fallbacks int64
		invalid   int64
	}{
		{"well-formed answer", []string{good}, schemas.StatusSupported, "", 1, 0, 0},
		{"a wrong judgement is taken as given", []string{wrongPlace}, schemas.StatusNotSupported, schemas.ErrorOther, 1, 0, 0},
		{"fenced JSON is read", []string{"```json\n" + good + "\n```"}, schemas.StatusSupported, "", 1, 0, 0},
		{"malformed, then good", []string{"the sentence looks fine", good}, schemas.StatusSupported, "", 2, 0, 1},
		{"malformed twice: the offline checker decides", []string{"{", "{\"facts\": 3}"}, schemas.StatusSupported, "", 2, 1, 2},
		{"unknown field", []string{strings.Replace(good, `"quote"`, `"confidence":1,"quote"`, 1), good}, schemas.StatusSupported, "", 2, 0, 1},
		{"a fact missing", []string{answer(t, supportedBy("林敬安", "林敬安")), good}, schemas.StatusSupported, "", 2, 0, 1},
		{"a quote not in its chunk", []string{answer(t, supportedBy("林敬安", "林敬安"), supportedBy("字守拙", "字守拙"),
			supportedBy("莆田人", "福清人")), good}, schemas.StatusSupported, "", 2, 0, 1},
		{"a chunk not shown", []string{strings.ReplaceAll(good, chunkEntry, "elsewhere"), good}, schemas.StatusSupported, "", 2, 0, 1},
		{"an unknown status", []string{strings.Replace(good, `"supported"`, `"plausible"`, 1), good}, schemas.StatusSupported, "", 2, 0, 1},
		{"an unknown error type", []string{strings.Replace(wrongPlace, `"other"`, `"place"`, 1), good}, schemas.StatusSupported, "", 2, 0, 1},
		{"an error type on a supported fact", []string{strings.Replace(good, `"error_type":""`, `"error_type":"era"`, 1), good},
			schemas.StatusSupported, "", 2, 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := llmtest.Repeat(tt.answers...)
			j := verifier.NewJudge(verifier.JudgeConfig{}, verifier.WithModel(m), verifier.WithFallback(verifier.NewOffline(verifier.Config{})))
			d := schemas.Draft{RequestID: "r", Subject: fixtureName, Index: 0, Text: identity}
			v, err := j.Check(context.Background(), fixtureRefs(t), d)
			if err != nil {
				t.Fatal(err)
			}
			if v.Status != tt.status || v.ErrorType != tt.etype {
				t.Errorf("→ %s/%q, want %s/%q\n%s", v.Status, v.ErrorType, tt.status, tt.etype, describe(v))
			}
			if m.Calls() != tt.calls || v.LLMCalls != tt.calls {
				t.Errorf("model called %d times, verdict says %d, want %d", m.Calls(), v.LLMCalls, tt.calls)
			}
			st := j.Stats()
			if st.Fallbacks != tt.fallbacks || st.Invalid != tt.invalid || st.LLMCalls != int64(tt.calls) {
				t.Errorf("stats %+v, want %d fallbacks, %d invalid", st, tt.fallbacks, tt.invalid)
			}
			checkEvidence(t, fixtureRefs(t), v)
			if tt.invalid > 0 && tt.calls > 1 && !strings.Contains(m.Prompts()[1], "rejected") {
				t.Errorf("the retry does not say why the answer was rejected:\n%s", m.Prompts()[1])
			}
		})
	}
}

// TestJudgePrompt checks what the model is shown: the sentence, its atomic
// facts and the filtered references, numbered, with their chunk ids.
func TestJudgePrompt(t *testing.T) {
	m := llmtest.Repeat(answer(t, supportedBy("林敬安", "林敬安"), supportedBy("字守拙", "字守拙"),
		supportedBy("莆田人", "莆田人")))
	j := verifier.NewJudge(verifier.JudgeConfig{MaxReferences: 2}, verifier.WithModel(m))
	if _, err := j.Check(context.Background(), fixtureRefs(t), schemas.Draft{RequestID: "r", Text: identity}); err != nil {
		t.Fatal(err)
	}
	p := m.Prompts()[0]
	for _, want := range []string{"Sentence: " + identity, "1. 林敬安", "2. 字守拙", "3. 莆田人",
		"[1] chunk_id " + chunkEntry, "\"facts\"", "quote"} {
		if !strings.Contains(p, want) {
			t.Errorf("prompt lacks %q:\n%s", want, p)
		}
	}
	if strings.Contains(p, "[3] chunk_id") {
		t.Errorf("prompt shows more than MaxReferences references:\n%s", p)
	}
}

func TestJudgeEraTableOverridesTheModel(t *testing.T) {
	s := "万历十一年（1586年），林敬安举进士。"
	m := llmtest.Repeat(answer(t, supportedBy("万历十一年", "万历十一年"), supportedBy("1586年", "万历十一年"),
		supportedBy("林敬安举进士", "举万历十一年进士")))
	j := verifier.NewJudge(verifier.JudgeConfig{}, verifier.WithModel(m))
	v, err := j.Check(context.Background(), fixtureRefs(t), schemas.Draft{RequestID: "r", Text: s})
	if err != nil {
		t.Fatal(err)
	}
	if v.Status != schemas.StatusNotSupported || v.ErrorType != schemas.ErrorEra {
		t.Errorf("→ %s/%q, want not_supported/era: the era table gives 1583\n%s", v.Status, v.ErrorType, describe(v))
	}
}

func TestJudgeFailures(t *testing.T) {
	ctx := context.Background()
	boom := errors.New("upstream 503")
	j := verifier.NewJudge(verifier.JudgeConfig{}, verifier.WithModel(llmtest.Failing(boom)), verifier.WithFallback(verifier.NewOffline(verifier.Config{})))
	if _, err := j.Check(ctx, fixtureRefs(t), schemas.Draft{RequestID: "r", Text: identity}); !errors.Is(err, boom) {
		t.Errorf("model error: %v, want it wrapped", err)
	}
	j = verifier.NewJudge(verifier.JudgeConfig{Attempts: 3}, verifier.WithModel(llmtest.Repeat("no")))
	if _, err := j.Check(ctx, fixtureRefs(t), schemas.Draft{RequestID: "r", Text: identity}); err == nil {
		t.Error("malformed answers and no fallback: want an error")
	}
	if _, err := j.Check(ctx, nil, schemas.Draft{RequestID: "r", Text: identity}); !errors.Is(err, genmem.ErrNoReferences) {
		t.Errorf("nil reference set: %v", err)
	}
	// A conflict draft is decided by the fallback's per-chunk check.
	m := llmtest.Repeat("unused")
	j = verifier.NewJudge(verifier.JudgeConfig{}, verifier.WithModel(m), verifier.WithFallback(verifier.NewOffline(verifier.Config{})))
	d := schemas.Draft{RequestID: "r", Text: "林敬安的籍贯，本传作莆田，另有记载作仙游。", Conflict: true, Facts: []schemas.Fact{
		{Relation: schemas.RelNativePlace, Value: "莆田", ChunkID: chunkEntry},
		{Relation: schemas.RelNativePlace, Value: "仙游", ChunkID: chunkArchive},
	}}
	v, err := j.Check(ctx, withArchive(t, fixtureRefs(t)), d)
	if err != nil || v.Status != schemas.StatusSupported || m.Calls() != 0 {
		t.Errorf("conflict draft → %s, %v, %d model calls; want supported without the model", v.Status, err, m.Calls())
	}
}
