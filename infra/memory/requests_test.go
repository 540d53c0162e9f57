package memory_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	goredis "github.com/redis/go-redis/v9"

	"github.com/annalist-dev/annalist/internal/ports/genmem"

	"github.com/annalist-dev/annalist/infra/memory"
	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
)

func TestReferencesRoundTripAndMissingIsPermanent(t *testing.T) {
	ctx := context.Background()
	m := memory.NewRequests(redistest.Client(t), 0)
	rs := &schemas.ReferenceSet{Subject: "进卿", Name: "叶向高", References: []schemas.Reference{{ChunkID: "c1", Text: "叶向高，字进卿。"}}}
	if err := m.PutReferences(ctx, "t", "r1", rs); err != nil {
		t.Fatal(err)
	}
	got, err := m.References(ctx, "t", "r1")
	if err != nil || got.Name != "叶向高" || len(got.References) != 1 {
		t.Fatalf("read back %+v, %v", got, err)
	}
	_, err = m.References(ctx, "t", "missing")
	if !errors.Is(err, genmem.ErrNoReferences) || !pipeline.IsPermanent(err) {
		t.Fatalf("missing reference set: %v; want a permanent error wrapping genmem.ErrNoReferences", err)
	}
	if _, err := m.References(ctx, "other", "r1"); !errors.Is(err, genmem.ErrNoReferences) {
		t.Fatalf("another tenant's request: %v", err)
	}
}

// TestReferencesAreKeptInProcess: the process that wrote or read a
// request's reference set answers from it without a round trip; another
// process (another Requests on the same Redis) reads the stored set.
func TestReferencesAreKeptInProcess(t *testing.T) {
	ctx := context.Background()
	c := redistest.Client(t)
	writer, other := memory.NewRequests(c, 0), memory.NewRequests(c, 0)
	rs := &schemas.ReferenceSet{Name: "叶向高", References: []schemas.Reference{{ChunkID: "c1", Text: "叶向高，字进卿。"}}}
	if err := writer.PutReferences(ctx, "t", "r1", rs); err != nil {
		t.Fatal(err)
	}
	calls := 0
	c.AddHook(countHook{&calls})
	if got, err := writer.References(ctx, "t", "r1"); err != nil || got.Name != "叶向高" {
		t.Fatalf("writer read back %+v, %v", got, err)
	}
	if calls != 0 {
		t.Errorf("the writing process made %d Redis calls to read its set, want none", calls)
	}
	if got, err := other.References(ctx, "t", "r1"); err != nil || got.Name != "叶向高" || len(got.References) != 1 {
		t.Fatalf("another process read %+v, %v", got, err)
	}
	if calls != 1 {
		t.Errorf("another process made %d Redis calls, want 1", calls)
	}
	if _, err := other.References(ctx, "t", "r1"); err != nil || calls != 1 {
		t.Errorf("read again: %v after %d calls, want it kept", err, calls)
	}
}

// countHook counts the Redis calls of a client (a pipeline once).
type countHook struct{ n *int }

func (h countHook) DialHook(next goredis.DialHook) goredis.DialHook { return next }

func (h countHook) ProcessHook(next goredis.ProcessHook) goredis.ProcessHook {
	return func(ctx context.Context, cmd goredis.Cmder) error {
		*h.n++
		return next(ctx, cmd)
	}
}

func (h countHook) ProcessPipelineHook(next goredis.ProcessPipelineHook) goredis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []goredis.Cmder) error {
		*h.n++
		return next(ctx, cmds)
	}
}

// One step makes several sentences final, records the previous version
// a regeneration starts from and what was made of it, all or nothing: a
// step whose expectation fails writes none of it, and the step taken
// again returns its stored outputs and writes nothing more.
func TestStepRecordsSeveralSentencesAndThePreviousVersion(t *testing.T) {
	ctx := context.Background()
	m := memory.NewRequests(redistest.Client(t), 0)
	prev := []schemas.PageSentence{
		{Text: "甲乙，字丙丁。", Status: schemas.StatusSupported, Citations: []schemas.Citation{{ChunkID: "c0"}}},
		{Text: "举进士。", Status: schemas.StatusSupported, Citations: []schemas.Citation{{ChunkID: "c1"}}},
		{Text: "卒。", Status: schemas.OutcomeCorrected, Citations: []schemas.Citation{{ChunkID: "c2"}}},
	}
	r := schemas.Request{RequestID: "r1", Kind: schemas.KindBiography, Subject: "甲乙"}
	start := genmem.Step{Key: "start", Start: &r, Name: "甲乙", NextIndex: 1, Previous: prev,
		Records: []genmem.Final{{Index: 0, Sentence: prev[0], Kept: true}},
		Use:     map[int]string{0: genmem.UseKept, 1: genmem.UseRewritten},
		Incr:    map[string]int64{"kept": 1, "rewritten": 1, "added": 0, "removed": 0, "drafted": 1},
		Output:  []byte("start-out")}
	if applied, out, err := m.Step(ctx, "t", "r1", start); err != nil || !applied || string(out) != "start-out" {
		t.Fatalf("start: %v %q %v", applied, out, err)
	}
	ps, err := m.Previous(ctx, "t", "r1")
	if err != nil || len(ps) != 3 {
		t.Fatalf("previous = %+v, %v", ps, err)
	}
	for i, want := range []string{genmem.UseKept, genmem.UseRewritten, ""} {
		if ps[i].Index != i || ps[i].Use != want || ps[i].Sentence.Text != prev[i].Text || ps[i].Sentence.Status != prev[i].Status {
			t.Errorf("previous %d = %+v; want %q used %q", i, ps[i], prev[i].Text, want)
		}
	}
	// A verdict on sentence 1 keeps sentence 2 and ends the page.
	verdict := genmem.Step{Key: "v:1:0", ExpectIndex: 1, NextIndex: 3, Done: true,
		Record:  &genmem.Final{Index: 1, Attempts: 1, Sentence: schemas.PageSentence{Text: "举进士第一。"}},
		Records: []genmem.Final{{Index: 2, Sentence: prev[2], Kept: true}},
		Use:     map[int]string{2: genmem.UseKept}, Incr: map[string]int64{"kept": 1}, Output: []byte("end")}
	stale := verdict
	stale.Key, stale.ExpectIndex = "v:0:0", 0
	if applied, out, err := m.Step(ctx, "t", "r1", stale); err != nil || applied || out != nil {
		t.Fatalf("step expecting another index: %v %q %v", applied, out, err)
	}
	if fs, _ := m.Sentences(ctx, "t", "r1"); len(fs) != 1 {
		t.Fatalf("a step that did not apply wrote sentences: %+v", fs)
	}
	for i := 0; i < 2; i++ {
		applied, out, err := m.Step(ctx, "t", "r1", verdict)
		if err != nil || applied != (i == 0) || string(out) != "end" {
			t.Fatalf("verdict, take %d: %v %q %v", i, applied, out, err)
		}
	}
	fs, err := m.Sentences(ctx, "t", "r1")
	if err != nil || len(fs) != 3 || !fs[0].Kept || fs[1].Kept || !fs[2].Kept || fs[2].Sentence.Text != "卒。" ||
		fs[1].Sentence.Text != "举进士第一。" {
		t.Fatalf("sentences = %+v, %v", fs, err)
	}
	st, _, err := m.State(ctx, "t", "r1")
	if err != nil || !st.Done || st.Index != 3 || st.Counters["kept"] != 2 || st.Counters["rewritten"] != 1 {
		t.Fatalf("state = %+v, %v", st, err)
	}
	if v, ok := st.Counters["removed"]; !ok || v != 0 {
		t.Errorf("a zero counter the start set is not recorded: %v", st.Counters)
	}
	if ps, _ := m.Previous(ctx, "t", "r1"); ps[2].Use != genmem.UseKept {
		t.Errorf("previous 2 = %+v; want kept", ps[2])
	}
	if ps, err := m.Previous(ctx, "t", "other"); err != nil || ps != nil {
		t.Errorf("previous of a request that regenerates nothing = %+v, %v", ps, err)
	}
}

// A step records where the sentence it drafts goes and where the review
// loop stands; the state reads them back, and a later step that does not
// set them leaves them as they were.
func TestStepRecordsPlaceAndReview(t *testing.T) {
	ctx := context.Background()
	m := memory.NewRequests(redistest.Client(t), 0)
	r := schemas.Request{RequestID: "r1", Kind: schemas.KindTopicPage, Subject: "某地"}
	pending := []schemas.Draft{{Text: "甲，某地人。", Citations: []string{"c1"}, Section: "嘉靖", Position: 2.5}}
	start := genmem.Step{Key: "start", Start: &r, Place: &genmem.Place{Section: "洪武", Position: 0},
		Review: &genmem.Review{Round: 1, Pending: pending}, Output: []byte("d0")}
	if applied, _, err := m.Step(ctx, "t", "r1", start); err != nil || !applied {
		t.Fatalf("start: %v %v", applied, err)
	}
	st, _, err := m.State(ctx, "t", "r1")
	if err != nil || st.Place.Section != "洪武" || st.Review.Round != 1 || len(st.Review.Pending) != 1 ||
		st.Review.Pending[0].Position != 2.5 || st.Review.Pending[0].Section != "嘉靖" {
		t.Fatalf("state = %+v, %v", st, err)
	}
	if _, ok := st.Counters["review"]; ok {
		t.Errorf("the review is read as a counter: %v", st.Counters)
	}
	next := genmem.Step{Key: "v:0:0", NextIndex: 1, Place: &genmem.Place{Section: "嘉靖", Position: 2.5},
		Record: &genmem.Final{Index: 0, Position: 1.5, Sentence: schemas.PageSentence{Text: "乙。", Section: "洪武"}},
		Output: []byte("d1")}
	if applied, _, err := m.Step(ctx, "t", "r1", next); err != nil || !applied {
		t.Fatalf("step: %v %v", applied, err)
	}
	st, _, err = m.State(ctx, "t", "r1")
	if err != nil || st.Place.Position != 2.5 || st.Review.Round != 1 {
		t.Fatalf("state after a step without review = %+v, %v", st, err)
	}
	fs, err := m.Sentences(ctx, "t", "r1")
	if err != nil || len(fs) != 1 || fs[0].At() != 1.5 || fs[0].Sentence.Section != "洪武" {
		t.Fatalf("sentences = %+v, %v", fs, err)
	}
}

// replyHook records the length of each script's reply.
type replyHook struct{ lens *[]int }

func (h replyHook) DialHook(next goredis.DialHook) goredis.DialHook { return next }

func (h replyHook) ProcessHook(next goredis.ProcessHook) goredis.ProcessHook {
	return func(ctx context.Context, cmd goredis.Cmder) error {
		err := next(ctx, cmd)
		if c, ok := cmd.(*goredis.Cmd); ok && (cmd.Name() == "evalsha" || cmd.Name() == "eval") {
			if v, ok := c.Val().([]any); ok {
				*h.lens = append(*h.lens, len(v))
			}
		}
		return err
	}
}

func (h replyHook) ProcessPipelineHook(next goredis.ProcessPipelineHook) goredis.ProcessPipelineHook {
	return next
}

// TestSentencesAreReadOnce: a process reads each of a request's final
// sentences once, and then only those a step wrote since, whichever
// process took it; what it returns is the caller's to change, and the
// log of what was written is no counter of the request's state.
func TestSentencesAreReadOnce(t *testing.T) {
	ctx := context.Background()
	c := redistest.Client(t)
	writer, other := memory.NewRequests(c, 0), memory.NewRequests(c, 0)
	r := schemas.Request{RequestID: "r1", Kind: schemas.KindBiography, Subject: "甲乙"}
	start := genmem.Step{Key: "start", Start: &r, Name: "甲乙", NextIndex: 1,
		Records: []genmem.Final{{Index: 0, Sentence: schemas.PageSentence{Text: "甲乙，字丙丁。"}}}}
	if applied, _, err := writer.Step(ctx, "t", "r1", start); err != nil || !applied {
		t.Fatalf("start: %v %v", applied, err)
	}
	var lens []int
	c.AddHook(replyHook{&lens})
	read := func(m *memory.Requests, want ...string) {
		t.Helper()
		fs, err := m.Sentences(ctx, "t", "r1")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range fs {
			got = append(got, f.Sentence.Text)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("sentences %q, want %q", got, want)
		}
	}
	read(writer, "甲乙，字丙丁。")
	fs, _ := writer.Sentences(ctx, "t", "r1")
	fs[0].Sentence.Text = "changed by a caller"
	read(writer, "甲乙，字丙丁。")
	if !slices.Equal(lens, []int{3, 1, 1}) {
		t.Errorf("replies of lengths %v, want the sentences once, then their count alone", lens)
	}
	// Another process takes the next step: the first reads them again.
	step := genmem.Step{Key: "v:1:0", ExpectIndex: 1, NextIndex: 2,
		Record: &genmem.Final{Index: 1, Sentence: schemas.PageSentence{Text: "举进士。"}}}
	if applied, _, err := other.Step(ctx, "t", "r1", step); err != nil || !applied {
		t.Fatalf("step: %v %v", applied, err)
	}
	lens = nil
	read(writer, "甲乙，字丙丁。", "举进士。")
	read(writer, "甲乙，字丙丁。", "举进士。")
	if !slices.Equal(lens, []int{4, 1}) {
		t.Errorf("replies after another process's step %v, want [4 1]: the new sentence alone, then the count", lens)
	}
	// A step that writes a sentence again at an index replaces it.
	again := genmem.Step{Key: "v:2:0", ExpectIndex: 2, NextIndex: 3,
		Records: []genmem.Final{{Index: 1, Sentence: schemas.PageSentence{Text: "举万历进士。"}}, {Index: 2, Sentence: schemas.PageSentence{Text: "卒。"}}}}
	if applied, _, err := other.Step(ctx, "t", "r1", again); err != nil || !applied {
		t.Fatalf("step: %v %v", applied, err)
	}
	read(writer, "甲乙，字丙丁。", "举万历进士。", "卒。")
	read(other, "甲乙，字丙丁。", "举万历进士。", "卒。")
	if st, _, err := writer.State(ctx, "t", "r1"); err != nil || len(st.Counters) != 0 {
		t.Errorf("counters %v, %v: want none", st.Counters, err)
	}
}
