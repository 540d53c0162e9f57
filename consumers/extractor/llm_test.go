package extractor_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/annalist-dev/annalist/consumers/extractor"
	"github.com/annalist-dev/annalist/infra/memory"
	"github.com/annalist-dev/annalist/infra/redis/redistest"
	"github.com/annalist-dev/annalist/internal/llmtest"
	"github.com/annalist-dev/annalist/internal/regexmem"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
)

// fakeMemory is an in-process Memory.
type fakeMemory struct {
	mu   sync.Mutex
	pats map[string]regexmem.Pattern
}

func (f *fakeMemory) Patterns(_ context.Context, _, _ string, n int) ([]regexmem.Pattern, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []regexmem.Pattern
	for _, p := range f.pats {
		if len(out) < n {
			out = append(out, p)
		}
	}
	return out, nil
}

func (f *fakeMemory) Save(_ context.Context, _, _ string, p regexmem.Pattern) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.pats == nil {
		f.pats = map[string]regexmem.Pattern{}
	}
	f.pats[p.ID] = p
	return nil
}

func (f *fakeMemory) Hit(_ context.Context, _, _, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := f.pats[id]
	p.Hits++
	f.pats[id] = p
	return nil
}

// Entries that write the courtesy name as 表字, which the hand-made
// patterns do not know.
const (
	entryLin   = "林远，表字子文，吴县人。举万历五年进士，授吴江知县。"
	entryZhou  = "周敬，表字伯安，华亭人。举万历八年进士，授行人。"
	entryWu    = "吴达，表字子明，长洲人。授户部主事。"
	entryZheng = "郑恒，表字叔平，昆阳人。授南京户部主事。"
)

const goodRegex = `{"relation": "courtesy_name", "regex": "表字(\\p{Han}{2})", "groups": {"tail": 1}}`

func find(ts []schemas.Triplet, rel string) []schemas.Triplet {
	var out []schemas.Triplet
	for _, t := range ts {
		if t.Relation == rel {
			out = append(out, t)
		}
	}
	return out
}

func TestSynthesisedRegexIsValidatedStoredAndReused(t *testing.T) {
	ctx := context.Background()
	rdb := redistest.Client(t)
	mem := memory.NewRegexes(rdb, 0)
	m := llmtest.Answers(goodRegex)
	ex := extractor.New(extractor.Config{}, extractor.WithModel(m), extractor.WithMemory(mem))

	first := chunk("lin", "林远", entryLin)
	ts, err := ex.Extract(ctx, "t1", first)
	if err != nil {
		t.Fatal(err)
	}
	cn := find(ts, schemas.RelCourtesyName)
	if len(cn) != 1 || cn[0].Tail != "子文" || cn[0].Method != extractor.MethodLLMRegex ||
		cn[0].Evidence != "表字子文" || cn[0].Pattern != `表字(\p{Han}{2})` || cn[0].Head != "林远" {
		t.Fatalf("courtesy name from the synthesised regex: %+v", cn)
	}
	for _, tr := range ts {
		checkTriplet(t, first, tr)
	}
	if m.Calls() != 1 {
		t.Fatalf("first chunk: %d model calls, want 1", m.Calls())
	}
	// The prompt carries the hand-made demonstration and the chunk.
	if p := m.Prompts()[0]; !strings.Contains(p, `，字(\p{Han}{1,3})[，。]`) || !strings.Contains(p, entryLin) ||
		!strings.Contains(p, "Person: 林远") {
		t.Fatalf("prompt lacks demonstration, person or chunk:\n%s", p)
	}

	// The second similar chunk is served from memory: no call.
	second := chunk("zhou", "周敬", entryZhou)
	ts, err = ex.Extract(ctx, "t1", second)
	if err != nil {
		t.Fatal(err)
	}
	if cn := find(ts, schemas.RelCourtesyName); len(cn) != 1 || cn[0].Tail != "伯安" || cn[0].Method != extractor.MethodLLMRegex {
		t.Fatalf("courtesy name from memory: %+v", cn)
	}
	if m.Calls() != 1 {
		t.Fatalf("after the second chunk: %d model calls, want still 1", m.Calls())
	}

	// A chunk the hand-made patterns cover needs neither.
	if _, err := ex.Extract(ctx, "t1", chunk("lu", "陆文渊", entryLu)); err != nil {
		t.Fatal(err)
	}
	want := extractor.Stats{Chunks: 3, LLMCalls: 1, RegexCalls: 1, CallsSaved: 1, RegexLearned: 1}
	got := ex.Stats()
	got.Triplets = 0
	if got != want {
		t.Fatalf("stats = %+v, want %+v", got, want)
	}
	pats, err := mem.Patterns(ctx, "t1", extractor.ProfileLiezhuan, 10)
	if err != nil || len(pats) != 1 || pats[0].Hits != 1 || pats[0].Example != "表字子文" ||
		pats[0].Prompt != extractor.PromptRegex {
		t.Fatalf("memory = %+v, %v", pats, err)
	}
	if n, _ := rdb.ZScore(ctx, "mem:{t1}:regex:liezhuan", pats[0].ID).Result(); n != 1 {
		t.Fatalf("hit count in redis = %v, want 1", n)
	}
	// Another tenant does not share the memory.
	other := llmtest.Answers(goodRegex)
	ex2 := extractor.New(extractor.Config{}, extractor.WithModel(other), extractor.WithMemory(mem))
	if _, err := ex2.Extract(ctx, "t2", second); err != nil || other.Calls() != 1 {
		t.Fatalf("tenant t2: %d calls, %v; want 1", other.Calls(), err)
	}
}

func TestInvalidAndOverBroadRegexesAreRejected(t *testing.T) {
	answers := []string{
		// Not RE2: a backreference, a lookahead.
		`{"relation": "courtesy_name", "regex": "表字(\\p{Han})\\1", "groups": {"tail": 1}}`,
		`{"relation": "courtesy_name", "regex": "(?=表字)表字(\\p{Han}{2})", "groups": {"tail": 1}}`,
		// Over-broad: an unbounded wildcard, no anchor, a pattern that
		// matches unrelated sentences, a tail longer than a courtesy name.
		`{"relation": "courtesy_name", "regex": "表字(.*)", "groups": {"tail": 1}}`,
		`{"relation": "courtesy_name", "regex": "(\\p{Han}{2})，", "groups": {"tail": 1}}`,
		`{"relation": "courtesy_name", "regex": "字(\\p{Han}{2})", "groups": {"tail": 1}}`,
		`{"relation": "courtesy_name", "regex": "表字(\\p{Han}{2}，\\p{Han}{3})", "groups": {"tail": 1}}`,
		// Malformed answers: prose, an unknown field, another relation.
		`Here is a regex: 表字(\p{Han}{2})`,
		`{"relation": "courtesy_name", "regex": "表字(\\p{Han}{2})", "groups": {"tail": 1}, "note": "x"}`,
		`{"relation": "art_name", "regex": "表字(\\p{Han}{2})", "groups": {"tail": 1}}`,
	}
	m := llmtest.Answers(answers...)
	mem := &fakeMemory{}
	ex := extractor.New(extractor.Config{MaxAttempts: len(answers), DisablePlanB: true},
		extractor.WithModel(m), extractor.WithMemory(mem))
	ts, err := ex.Extract(context.Background(), "", chunk("wu", "吴达", entryWu))
	if err != nil {
		t.Fatal(err)
	}
	if cn := find(ts, schemas.RelCourtesyName); len(cn) != 0 {
		t.Fatalf("a rejected regex produced %+v", cn)
	}
	if len(mem.pats) != 0 {
		t.Fatalf("memory holds rejected patterns: %+v", mem.pats)
	}
	st := ex.Stats()
	if st.RegexRejected != int64(len(answers)) || st.LLMCalls != int64(len(answers)) || st.RegexLearned != 0 {
		t.Fatalf("stats = %+v; want %d rejected of %d calls", st, len(answers), len(answers))
	}
	// Each retry tells the model why the previous answer was rejected.
	reasons := []string{"does not compile", "does not compile", "without bound", "no anchor",
		"control sentences", "at most 4", "not the JSON object", "not the JSON object", "relation \"art_name\""}
	for i, r := range reasons[:len(reasons)-1] {
		if p := m.Prompts()[i+1]; !strings.Contains(p, "rejected") || !strings.Contains(p, r) {
			t.Errorf("prompt %d lacks reason %q:\n%s", i+1, r, p)
		}
	}
}

func TestPlanBWhenNoRegexValidates(t *testing.T) {
	m := llmtest.Answers(
		// Regex synthesis: the model finds none.
		`{"relation": "courtesy_name", "regex": "", "groups": {}}`,
		// Plan B: prose first (rejected, retried), then triplets of which
		// only the first is valid.
		`The courtesy name is 叔平.`,
		`{"triplets": [
			{"relation": "courtesy_name", "tail": "叔平", "evidence": "表字叔平", "qualifiers": {}},
			{"relation": "courtesy_name", "tail": "伯平", "evidence": "表字伯平"},
			{"relation": "office", "tail": "南京户部主事", "evidence": "授南京户部主事"},
			{"relation": "courtesy_name", "tail": "叔平", "evidence": "字叔平，吴县"},
			{"relation": "courtesy_name", "tail": "叔平", "evidence": "表字叔平", "qualifiers": {"rank": "一"}}
		]}`,
	)
	ex := extractor.New(extractor.Config{}, extractor.WithModel(m))
	c := chunk("zheng", "郑恒", entryZheng)
	ts, err := ex.Extract(context.Background(), "", c)
	if err != nil {
		t.Fatal(err)
	}
	cn := find(ts, schemas.RelCourtesyName)
	if len(cn) != 1 || cn[0].Tail != "叔平" || cn[0].Method != extractor.MethodLLM || cn[0].Evidence != "表字叔平" ||
		cn[0].Span != (schemas.Span{Start: 3, End: 7}) || cn[0].Head != "郑恒" {
		t.Fatalf("plan B triplet: %+v", cn)
	}
	for _, tr := range ts {
		checkTriplet(t, c, tr)
	}
	st := ex.Stats()
	want := extractor.Stats{Chunks: 1, Triplets: st.Triplets, LLMCalls: 3, RegexCalls: 1, PlanBCalls: 2,
		PlanBTriplets: 1, PlanBRejected: 1 + 4}
	if st != want {
		t.Fatalf("stats = %+v, want %+v", st, want)
	}
	if !strings.Contains(m.Prompts()[2], "not the JSON object") {
		t.Fatalf("plan B retry lacks the reason:\n%s", m.Prompts()[2])
	}
}

func TestPlanBGivesUpOnMalformedAnswers(t *testing.T) {
	m := llmtest.Answers(
		`{"relation": "courtesy_name", "regex": "", "groups": {}}`,
		`{"triplets": [{"relation": "courtesy_name", "tail": "叔平"}]} trailing`,
		`{"facts": []}`,
	)
	ex := extractor.New(extractor.Config{}, extractor.WithModel(m))
	ts, err := ex.Extract(context.Background(), "", chunk("zheng", "郑恒", entryZheng))
	if err != nil {
		t.Fatal(err)
	}
	if cn := find(ts, schemas.RelCourtesyName); len(cn) != 0 {
		t.Fatalf("malformed plan B answers produced %+v", cn)
	}
	if st := ex.Stats(); st.PlanBCalls != 2 || st.PlanBRejected != 2 || st.PlanBTriplets != 0 {
		t.Fatalf("stats = %+v", st)
	}
	// The offline facts are still there.
	if np := find(ts, schemas.RelNativePlace); len(np) != 1 || np[0].Tail != "昆阳" {
		t.Fatalf("native place: %+v", np)
	}
}

func TestModelErrorIsTransient(t *testing.T) {
	m := llmtest.Failing(errors.New("connection refused"))
	ex := extractor.New(extractor.Config{}, extractor.WithModel(m))
	_, err := ex.Extract(context.Background(), "", chunk("zheng", "郑恒", entryZheng))
	if err == nil || pipeline.IsPermanent(err) || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("error = %v; want the model's error, not permanent", err)
	}
}

func TestMemoryServesWithoutModel(t *testing.T) {
	mem := &fakeMemory{}
	p := regexmem.Pattern{Relation: schemas.RelCourtesyName, Source: `表字(\p{Han}{2})`, Groups: map[string]int{"tail": 1}}
	p.ID = regexmem.ID(p.Relation, p.Source, p.Groups)
	if err := mem.Save(context.Background(), "", "", p); err != nil {
		t.Fatal(err)
	}
	ex := extractor.New(extractor.Config{}, extractor.WithMemory(mem))
	ts, err := ex.Extract(context.Background(), "", chunk("zhou", "周敬", entryZhou))
	if err != nil {
		t.Fatal(err)
	}
	if cn := find(ts, schemas.RelCourtesyName); len(cn) != 1 || cn[0].Tail != "伯安" {
		t.Fatalf("courtesy name: %+v", cn)
	}
	if st := ex.Stats(); st.CallsSaved != 1 || st.LLMCalls != 0 || mem.pats[p.ID].Hits != 1 {
		t.Fatalf("stats = %+v, hits %d", st, mem.pats[p.ID].Hits)
	}
}
