package extractor_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/annalist-dev/annalist/consumers/extractor"
	"github.com/annalist-dev/annalist/infra/memory"
	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
	"github.com/annalist-dev/annalist/internal/kit/llmtest"
	"github.com/annalist-dev/annalist/internal/ports/regexmem"
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
		// Regex synthesis: no regex the model writes validates.
		`{"relation": "courtesy_name", "regex": "表字(.*)", "groups": {"tail": 1}}`,
		`{"relation": "courtesy_name", "regex": "(\\p{Han}{2})，", "groups": {"tail": 1}}`,
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
	want := extractor.Stats{Chunks: 1, Triplets: st.Triplets, LLMCalls: 4, RegexCalls: 2, RegexRejected: 2,
		PlanBCalls: 2, PlanBTriplets: 1, PlanBRejected: 1 + 4}
	if st != want {
		t.Fatalf("stats = %+v, want %+v", st, want)
	}
	if !strings.Contains(m.Prompts()[3], "not the JSON object") {
		t.Fatalf("plan B retry lacks the reason:\n%s", m.Prompts()[3])
	}
}

func TestPlanBGivesUpOnMalformedAnswers(t *testing.T) {
	m := llmtest.Answers(
		`{"relation": "courtesy_name", "regex": "表字(.*)", "groups": {"tail": 1}}`,
		`{"relation": "courtesy_name", "regex": "表字(.*)", "groups": {"tail": 1}}`,
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

const absentCourtesy = `{"relation": "courtesy_name", "regex": "", "groups": {}}`

func TestGapWithoutCueIsNotAsked(t *testing.T) {
	ctx := context.Background()
	mem := &fakeMemory{}
	m := llmtest.Answers(absentCourtesy)
	ex := extractor.New(extractor.Config{}, extractor.WithModel(m), extractor.WithMemory(mem))
	// No 字 in the text: no courtesy-name pattern, hand-made or stored,
	// can match, so the model is not asked.
	if _, err := ex.Extract(ctx, "", chunk("wu1", "吴甲", "吴甲，长洲人。授户部主事。")); err != nil {
		t.Fatal(err)
	}
	if m.Calls() != 0 || ex.Stats().GapsNoCue != 1 {
		t.Fatalf("%d calls, stats %+v; want none, one gap without a cue", m.Calls(), ex.Stats())
	}
	// A stored pattern brings its own cue: 表德 opens the gate although the
	// text has no 字.
	p := regexmem.Pattern{Relation: schemas.RelCourtesyName, Source: `表德(\p{Han}{2})，`, Groups: map[string]int{"tail": 1}}
	p.ID = regexmem.ID(p.Relation, p.Source, p.Groups)
	if err := mem.Save(ctx, "", extractor.ProfileLiezhuan, p); err != nil {
		t.Fatal(err)
	}
	if _, err := ex.Extract(ctx, "", chunk("wu2", "吴乙", "吴乙，长洲人。乡人以表德重之。")); err != nil {
		t.Fatal(err)
	}
	if m.Calls() != 1 {
		t.Fatalf("%d calls; want the model asked once, the cue 表德 of a stored pattern being there", m.Calls())
	}
	// The model answered that the chunk does not state the fact: plan B is
	// not asked for it again.
	if st := ex.Stats(); st.PlanBCalls != 0 || st.RegexCalls != 1 {
		t.Fatalf("stats = %+v; want one regex call and no plan B", st)
	}
	g := ex.GapStats()[schemas.RelCourtesyName]
	if g != (extractor.GapStats{Gaps: 2, NoCue: 1, RegexCalls: 1, Unfilled: 2}) {
		t.Fatalf("courtesy-name gaps = %+v", g)
	}
}

// Entries whose only 字 stands in the third sentence or later, and one with
// 表字 in its opening.
var (
	lateCue = []string{
		"吴丙，长洲人。授户部主事。其文字简质。",
		"吴丁，华亭人。授行人。其文字典雅。",
		"吴戊，昆山人。授编修。其文字可观。",
	}
	laterCue = "吴己，常熟人。授编修。迁侍读。其文字可观。"
)

func TestShapeMemoryStopsAskingWhereTheModelFindsNothing(t *testing.T) {
	ctx := context.Background()
	rdb := redistest.Client(t)
	mem := memory.NewRegexes(rdb, 0)
	m := llmtest.Repeat(absentCourtesy)
	cfg := extractor.Config{MinYieldCalls: 2}
	ex := extractor.New(cfg, extractor.WithModel(m), extractor.WithMemory(mem))
	for i, text := range lateCue {
		if _, err := ex.Extract(ctx, "t1", chunk(fmt.Sprint("late", i), strings.SplitN(text, "，", 2)[0], text)); err != nil {
			t.Fatal(err)
		}
	}
	// Asked twice, both absent: the third chunk of that shape is not asked.
	if st := ex.Stats(); m.Calls() != 2 || st.GapsAbsent != 1 {
		t.Fatalf("%d calls, stats %+v; want 2 calls, then one gap skipped", m.Calls(), st)
	}
	// A cue further from the opening is no better: not asked either.
	if _, err := ex.Extract(ctx, "t1", chunk("later", "吴己", laterCue)); err != nil {
		t.Fatal(err)
	}
	if m.Calls() != 2 {
		t.Fatalf("%d calls after a later cue; want still 2", m.Calls())
	}
	// The opening's own 字 clause is another shape: asked.
	if _, err := ex.Extract(ctx, "t1", chunk("lin", "林远", entryLin)); err != nil {
		t.Fatal(err)
	}
	if m.Calls() != 3 {
		t.Fatalf("%d calls after an opening 表字; want 3", m.Calls())
	}
	// The tallies live in Redis with the patterns: another extractor on the
	// same memory does not ask again, another tenant does.
	got, err := mem.Outcomes(ctx, "t1", extractor.ProfileLiezhuan)
	if err != nil || got["courtesy_name@s2"] != (regexmem.Outcome{Asked: 2}) || got["courtesy_name@s0"] != (regexmem.Outcome{Asked: 1}) {
		t.Fatalf("outcomes = %+v, %v", got, err)
	}
	m2 := llmtest.Repeat(absentCourtesy)
	ex2 := extractor.New(cfg, extractor.WithModel(m2), extractor.WithMemory(mem))
	c := chunk("late-again", "吴丙", lateCue[0])
	if _, err := ex2.Extract(ctx, "t1", c); err != nil || m2.Calls() != 0 {
		t.Fatalf("a new extractor: %d calls, %v; want none", m2.Calls(), err)
	}
	if _, err := ex2.Extract(ctx, "t2", c); err != nil || m2.Calls() != 1 {
		t.Fatalf("tenant t2: %d calls, %v; want 1", m2.Calls(), err)
	}
}

func TestFoundAnswersKeepAShapeAsked(t *testing.T) {
	ctx := context.Background()
	// Each 表字 entry gets a regex for its own courtesy name that the next
	// entry cannot reuse (the name is in the pattern), so every entry asks;
	// the model finds the fact every time and the shape stays open.
	var answers []string
	var entries []schemas.Chunk
	for i, e := range []struct{ name, zi string }{{"林远", "子文"}, {"周敬", "伯安"}, {"吴达", "子明"}, {"郑恒", "叔平"}} {
		answers = append(answers, fmt.Sprintf(`{"relation": "courtesy_name", "regex": "表字(%s)", "groups": {"tail": 1}}`, e.zi))
		entries = append(entries, chunk(fmt.Sprint("e", i), e.name, e.name+"，表字"+e.zi+"，吴县人。"))
	}
	m := llmtest.Answers(answers...)
	ex := extractor.New(extractor.Config{MinYieldCalls: 2}, extractor.WithModel(m), extractor.WithMemory(&fakeMemory{}))
	for _, c := range entries {
		ts, err := ex.Extract(ctx, "", c)
		if err != nil {
			t.Fatal(err)
		}
		if cn := find(ts, schemas.RelCourtesyName); len(cn) != 1 {
			t.Fatalf("%s: courtesy name %+v", c.ChunkID, cn)
		}
	}
	if st := ex.Stats(); m.Calls() != 4 || st.RegexLearned != 4 || st.GapsAbsent != 0 {
		t.Fatalf("%d calls, stats %+v; want 4 calls, 4 regexes learned", m.Calls(), st)
	}
}

func TestAskAlwaysIsTheUngatedEngine(t *testing.T) {
	m := llmtest.Answers(absentCourtesy, `{"triplets": []}`)
	ex := extractor.New(extractor.Config{AskAlways: true}, extractor.WithModel(m))
	// No cue, and an absent answer: asked anyway, then plan B.
	if _, err := ex.Extract(context.Background(), "", chunk("wu", "吴甲", "吴甲，长洲人。授户部主事。")); err != nil {
		t.Fatal(err)
	}
	if st := ex.Stats(); m.Calls() != 2 || st.RegexCalls != 1 || st.PlanBCalls != 1 {
		t.Fatalf("%d calls, stats %+v; want a regex call and plan B", m.Calls(), st)
	}
}
