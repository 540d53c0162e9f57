package verifier_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/annalist-dev/annalist/consumers/verifier"
	"github.com/annalist-dev/annalist/schemas"
)

func TestOfflineCheck(t *testing.T) {
	tests := []struct {
		name     string
		sentence string
		status   string
		etype    string
		// inMessage must occur in the message of the first fact that is
		// not supported.
		inMessage string
	}{
		{"identity copied", "林敬安，字守拙，号南溪，莆田人。", schemas.StatusSupported, "", ""},
		{"identity templated", "林敬安，字守拙，莆田人。", schemas.StatusSupported, "", ""},
		{"examination templated", "万历十一年（1583年），林敬安举进士。", schemas.StatusSupported, "", ""},
		{"career list", "历官行人、吏部主事、太常寺少卿。", schemas.StatusSupported, "", ""},
		{"highest office", "官至礼部右侍郎。", schemas.StatusSupported, "", ""},
		{"act copied", "二十六年，擢太常寺少卿，上疏论边储之弊，言甚切直。", schemas.StatusSupported, "", ""},
		{"death copied", "天启二年卒，年七十一，谥文恪。", schemas.StatusSupported, "", ""},
		{"punctuation differs", "二十六年擢太常寺少卿；上疏论边储之弊，言甚切直！", schemas.StatusSupported, "", ""},
		{"relative copied", "其子林澄，字清之，崇祯元年进士，官至福建按察使。", schemas.StatusSupported, "", ""},

		{"era year changed", "万历十四年（1583年），林敬安举进士。", schemas.StatusNotSupported, schemas.ErrorEra, "万历十一年"},
		{"gregorian changed", "万历十一年（1586年），林敬安举进士。", schemas.StatusNotSupported, schemas.ErrorEra, "1583"},
		{"era in a copied clause", "敬安少颖悟，举万历十三年进士，授行人，迁吏部主事。", schemas.StatusNotSupported, schemas.ErrorEra, "万历十一年"},
		{"relative year changed", "二十七年，擢太常寺少卿，上疏论边储之弊，言甚切直。", schemas.StatusNotSupported, schemas.ErrorEra, "二十六年"},
		{"death year changed", "天启三年卒，年七十一，谥文恪。", schemas.StatusNotSupported, schemas.ErrorEra, "天启二年"},
		{"death age changed", "天启二年卒，年六十一，谥文恪。", schemas.StatusNotSupported, schemas.ErrorOther, "七十一"},
		{"courtesy swapped", "林敬安，字子敏，号南溪，莆田人。", schemas.StatusNotSupported, schemas.ErrorAlias, "守拙"},
		{"art name changed", "林敬安，字守拙，号东山，莆田人。", schemas.StatusNotSupported, schemas.ErrorAlias, "南溪"},
		{"place swapped", "林敬安，字守拙，号南溪，南昌人。", schemas.StatusNotSupported, schemas.ErrorOther, "莆田"},
		{"rank changed", "万历十一年（1583年），林敬安中举人。", schemas.StatusNotSupported, schemas.ErrorKnowledge, "进士"},
		{"rank in a copied clause", "敬安少颖悟，举万历十一年举人，授行人，迁吏部主事。", schemas.StatusNotSupported, schemas.ErrorKnowledge, "进士"},
		// Another man's name with the subject's values: his passage does
		// not state them.
		{"name of someone else", "陈慎之，字守拙，莆田人。", schemas.StatusNotIncluded, "", ""},
		{"fabricated clause", "林敬安，字守拙，号南溪，莆田人，尝督修海塘三十里。", schemas.StatusNotIncluded, "", "尝督修海塘三十里"},
		{"fabricated sentence", "敬安晚年好游名山，足迹遍于吴越。", schemas.StatusNotIncluded, "", ""},
		{"unknown date", "天顺三年，林敬安游京师。", schemas.StatusNotIncluded, "", ""},
	}
	chk := verifier.NewOffline(verifier.Config{})
	refs := fixtureRefs(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := schemas.Draft{RequestID: "req-1", Kind: schemas.KindBiography, Subject: fixtureName, Index: 3, Attempt: 1, Text: tt.sentence}
			v, err := chk.Check(context.Background(), refs, d)
			if err != nil {
				t.Fatal(err)
			}
			if v.Status != tt.status || v.ErrorType != tt.etype {
				t.Fatalf("%s → %s/%q, want %s/%q\n%s", tt.sentence, v.Status, v.ErrorType, tt.status, tt.etype, describe(v))
			}
			if v.RequestID != d.RequestID || v.Index != d.Index || v.Attempt != d.Attempt || v.Subject != d.Subject ||
				v.Kind != d.Kind || v.Draft.Text != d.Text {
				t.Errorf("verdict does not carry the draft: %+v", v)
			}
			if err := v.Validate(); err != nil {
				t.Errorf("invalid verdict: %v", err)
			}
			checkEvidence(t, refs, v)
			if tt.inMessage != "" {
				if msg := firstProblem(v); !strings.Contains(msg, tt.inMessage) {
					t.Errorf("message %q does not name %q", msg, tt.inMessage)
				}
			}
		})
	}
}

// checkEvidence asserts that every evidence span of the verdict holds its
// text in its chunk, and that supported facts have evidence.
func checkEvidence(t *testing.T, refs *schemas.ReferenceSet, v schemas.Verdict) {
	t.Helper()
	for _, f := range v.Facts {
		if f.Status == schemas.StatusSupported && len(f.Evidence) == 0 {
			t.Errorf("supported fact %q has no evidence", f.Fact.Text)
		}
		for _, ev := range f.Evidence {
			r, ok := refs.Reference(ev.ChunkID)
			if !ok {
				t.Errorf("fact %q: evidence chunk %q not in the set", f.Fact.Text, ev.ChunkID)
				continue
			}
			rs := []rune(r.Text)
			if ev.Span.End <= ev.Span.Start {
				continue // a KG fact without a span
			}
			if ev.Span.End > len(rs) || string(rs[ev.Span.Start:ev.Span.End]) != ev.Text {
				t.Errorf("fact %q: span [%d,%d) of %s does not hold %q", f.Fact.Text, ev.Span.Start, ev.Span.End, ev.ChunkID, ev.Text)
			}
		}
	}
}

// firstProblem is the message of the fact that decides the verdict.
func firstProblem(v schemas.Verdict) string {
	for _, f := range v.Facts {
		if f.Status == v.Status {
			return f.Message
		}
	}
	return ""
}

func describe(v schemas.Verdict) string {
	var b strings.Builder
	for _, f := range v.Facts {
		b.WriteString("  " + f.Fact.Text + " [" + f.Fact.Relation + "] " + f.Status + " " + f.ErrorType + ": " + f.Message + "\n")
	}
	return b.String()
}

func TestOfflineReferenceConflictAndDecisions(t *testing.T) {
	identity := "林敬安，字守拙，号南溪，莆田人。"
	other := "林敬安，字守拙，号南溪，仙游人。"
	tests := []struct {
		name      string
		decisions []schemas.Decision
		sentence  string
		status    string
		etype     string
	}{
		{"references disagree", nil, identity, schemas.StatusNotSupported, schemas.ErrorRefConflict},
		{"the other value too", nil, other, schemas.StatusNotSupported, schemas.ErrorRefConflict},
		{"decided value", []schemas.Decision{{ReviewID: "rv-1", Relation: schemas.RelNativePlace, Value: "莆田",
			ChunkID: chunkEntry, Rejected: []string{"仙游"}}}, identity, schemas.StatusSupported, ""},
		{"rejected value", []schemas.Decision{{ReviewID: "rv-1", Relation: schemas.RelNativePlace, Value: "莆田",
			ChunkID: chunkEntry, Rejected: []string{"仙游"}}}, other, schemas.StatusNotSupported, schemas.ErrorOther},
	}
	chk := verifier.NewOffline(verifier.Config{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			refs := withArchive(t, fixtureRefs(t))
			refs.Decisions = tt.decisions
			v, err := chk.Check(context.Background(), refs, schemas.Draft{RequestID: "r", Subject: fixtureName, Text: tt.sentence})
			if err != nil {
				t.Fatal(err)
			}
			if v.Status != tt.status || v.ErrorType != tt.etype {
				t.Fatalf("%s → %s/%q, want %s/%q\n%s", tt.sentence, v.Status, v.ErrorType, tt.status, tt.etype, describe(v))
			}
			if tt.etype == schemas.ErrorRefConflict {
				chunks := map[string]bool{}
				for _, f := range v.Facts {
					for _, ev := range f.Evidence {
						chunks[ev.ChunkID] = true
					}
				}
				if !chunks[chunkEntry] || !chunks[chunkArchive] {
					t.Errorf("a reference conflict cites both chunks, got %v", chunks)
				}
			}
		})
	}
}

func TestOfflineConflictDraft(t *testing.T) {
	text := "林敬安的籍贯，本传作莆田，另有记载作仙游。"
	tests := []struct {
		name   string
		facts  []schemas.Fact
		status string
	}{
		{"each value in its chunk", []schemas.Fact{
			{Text: "莆田", Relation: schemas.RelNativePlace, Value: "莆田", ChunkID: chunkEntry},
			{Text: "仙游", Relation: schemas.RelNativePlace, Value: "仙游", ChunkID: chunkArchive},
		}, schemas.StatusSupported},
		{"values attributed to the wrong chunks", []schemas.Fact{
			{Text: "莆田", Relation: schemas.RelNativePlace, Value: "莆田", ChunkID: chunkArchive},
			{Text: "仙游", Relation: schemas.RelNativePlace, Value: "仙游", ChunkID: chunkEntry},
		}, schemas.StatusNotSupported},
		{"a chunk outside the set", []schemas.Fact{
			{Text: "莆田", Relation: schemas.RelNativePlace, Value: "莆田", ChunkID: "nowhere"},
		}, schemas.StatusNotIncluded},
		{"a value the sentence does not state", []schemas.Fact{
			{Text: "福清", Relation: schemas.RelNativePlace, Value: "福清", ChunkID: chunkEntry},
		}, schemas.StatusNotIncluded},
	}
	chk := verifier.NewOffline(verifier.Config{})
	refs := withArchive(t, fixtureRefs(t))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := schemas.Draft{RequestID: "r", Subject: fixtureName, Text: text, Conflict: true, Facts: tt.facts, Origin: "refconflict"}
			v, err := chk.Check(context.Background(), refs, d)
			if err != nil {
				t.Fatal(err)
			}
			if v.Status != tt.status {
				t.Fatalf("→ %s/%q, want %s\n%s", v.Status, v.ErrorType, tt.status, describe(v))
			}
			checkEvidence(t, refs, v)
		})
	}
}

func TestOfflineEnglish(t *testing.T) {
	tests := []struct {
		sentence, status, etype string
	}{
		{"He was appointed harbour master of Gloucester in 1851.", schemas.StatusSupported, ""},
		{"Thomas Ellery was born in 1820 in Bristol.", schemas.StatusSupported, ""},
		{"He was appointed harbour master of Gloucester in 1853.", schemas.StatusNotSupported, schemas.ErrorEra},
		{"He retired to Clifton and died in 1890, having surveyed the Orkney lighthouses.", schemas.StatusNotIncluded, ""},
		{"He died at 71.", schemas.StatusSupported, ""},
		{"He died aged seventy-one.", schemas.StatusSupported, ""},
		{"He died at 60.", schemas.StatusNotSupported, schemas.ErrorOther},
	}
	chk := verifier.NewOffline(verifier.Config{})
	for _, tt := range tests {
		v, err := chk.Check(context.Background(), englishRefs(), schemas.Draft{RequestID: "r", Subject: englishPerson, Text: tt.sentence})
		if err != nil {
			t.Fatal(err)
		}
		if v.Status != tt.status || v.ErrorType != tt.etype {
			t.Errorf("%s → %s/%q, want %s/%q\n%s", tt.sentence, v.Status, v.ErrorType, tt.status, tt.etype, describe(v))
		}
	}
}

func TestOfflineEdgeCases(t *testing.T) {
	chk := verifier.NewOffline(verifier.Config{})
	ctx := context.Background()
	if _, err := chk.Check(ctx, nil, schemas.Draft{Text: "x"}); !errors.Is(err, verifier.ErrNoReferenceSet) {
		t.Errorf("nil reference set: %v, want ErrNoReferenceSet", err)
	}
	v, err := chk.Check(ctx, fixtureRefs(t), schemas.Draft{RequestID: "r", Subject: fixtureName, Text: "。"})
	if err != nil || v.Status != schemas.StatusNotIncluded {
		t.Errorf("a sentence of punctuation → %s, %v; want not_included", v.Status, err)
	}
	v, err = chk.Check(ctx, &schemas.ReferenceSet{Subject: fixtureName}, schemas.Draft{RequestID: "r", Subject: fixtureName,
		Text: "林敬安，字守拙，莆田人。"})
	if err != nil || v.Status == schemas.StatusSupported {
		t.Errorf("an empty reference set supports nothing: %s, %v", v.Status, err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := chk.Check(cancelled, fixtureRefs(t), schemas.Draft{Text: "林敬安。"}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
}

func TestConfigValidate(t *testing.T) {
	for _, tt := range []struct {
		cfg verifier.Config
		ok  bool
	}{
		{verifier.Config{}, true},
		{verifier.Config{MinJaccard: 0.1, TopReferences: 3}, true},
		{verifier.Config{MinJaccard: 1.5}, false},
		{verifier.Config{TopPassages: -1}, false},
	} {
		if err := tt.cfg.Validate(); (err == nil) != tt.ok {
			t.Errorf("Validate(%+v) = %v, want ok=%v", tt.cfg, err, tt.ok)
		}
	}
}

// TestOfflineConcurrent checks that one checker serves concurrent checks
// (run with -race) and that its caches, of reference sets and of the
// texts they share, give the same verdicts as a fresh checker.
func TestOfflineConcurrent(t *testing.T) {
	chk := verifier.NewOffline(verifier.Config{CacheSize: 2, DocCacheSize: 3})
	sentences := []string{"林敬安，字守拙，号南溪，莆田人。", "万历十四年（1583年），林敬安举进士。", "官至礼部右侍郎。"}
	want := make([]string, len(sentences))
	for i, s := range sentences {
		v, err := verifier.NewOffline(verifier.Config{}).Check(context.Background(), fixtureRefs(t), schemas.Draft{Text: s})
		if err != nil {
			t.Fatal(err)
		}
		want[i] = v.Status + "/" + v.ErrorType
	}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 20 {
				i := (g + k) % len(sentences)
				refs := fixtureRefs(t)
				if k%3 == 0 {
					refs = withArchive(t, refs) // another set: the cache evicts
				}
				v, err := chk.Check(context.Background(), refs, schemas.Draft{Text: sentences[i]})
				if err != nil {
					errs <- err.Error()
					return
				}
				if k%3 != 0 && v.Status+"/"+v.ErrorType != want[i] {
					errs <- sentences[i] + ": " + v.Status + "/" + v.ErrorType + ", want " + want[i]
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestPreparedTextFollowsTheText checks that a chunk id seen again with
// another text is checked against the text it now has, not the one
// prepared before.
func TestPreparedTextFollowsTheText(t *testing.T) {
	chk := verifier.NewOffline(verifier.Config{})
	set := func(txt string) *schemas.ReferenceSet {
		refs := fixtureRefs(t)
		refs.References[0].Text = txt
		refs.Facts = nil
		return refs
	}
	draft := schemas.Draft{RequestID: "r", Subject: fixtureName, Text: "林敬安，字守拙，号南溪，仙游人。"}
	first, err := chk.Check(context.Background(), set(textEntry), draft)
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(textEntry, "莆田人", "仙游人", 1)
	if changed == textEntry {
		t.Fatal("the fixture entry does not hold the year")
	}
	second, err := chk.Check(context.Background(), set(changed), draft)
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := verifier.NewOffline(verifier.Config{}).Check(context.Background(), set(changed), draft)
	if err != nil {
		t.Fatal(err)
	}
	if first.Status == second.Status || second.Status != fresh.Status {
		t.Fatalf("against the old text %s, the new %s, a fresh checker %s", first.Status, second.Status, fresh.Status)
	}
}
