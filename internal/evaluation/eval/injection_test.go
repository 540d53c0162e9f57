package eval_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/internal/evaluation/eval"
	"github.com/annalist-dev/annalist/internal/evaluation/inject"
	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
)

// fakeBiographies are three short biographies restating the demo corpus,
// with the reference-set facts the pool is built from. The last sentence
// of the first is one the fake verifier rejects as a draft.
var fakeBiographies = map[string]struct {
	facts []schemas.KGFact
	sents []string
}{
	"陆文渊": {
		facts: []schemas.KGFact{{Relation: schemas.RelCourtesyName, Value: "静之"}, {Relation: schemas.RelNativePlace, Value: "苏州吴县"}},
		sents: []string{"陆文渊，字静之，号松岩，苏州吴县人。", "嘉靖二十年（1541年），陆文渊举进士。",
			"历官翰林院编修、国子监司业、礼部右侍郎。", "官至南京礼部尚书。", "陆文渊尝游历岭南诸郡。"},
	},
	"顾承泽": {
		facts: []schemas.KGFact{{Relation: schemas.RelCourtesyName, Value: "伯润"}, {Relation: schemas.RelNativePlace, Value: "松江华亭"}},
		sents: []string{"顾承泽，字伯润，松江华亭人。", "嘉靖二十三年（1544年），顾承泽举进士。", "出为浙江按察副使，督海防。"},
	},
	"严鹤龄": {
		facts: []schemas.KGFact{{Relation: schemas.RelCourtesyName, Value: "鸣远"}, {Relation: schemas.RelNativePlace, Value: "绍兴山阴"}},
		sents: []string{"严鹤龄，字鸣远，号雪樵，绍兴山阴人。", "嘉靖二十九年（1550年），严鹤龄举进士。", "万历二年卒。"},
	},
}

const (
	rejectedDraft = "陆文渊尝游历岭南诸郡。"
	// flakySentence is supported as a draft but flagged and dropped when
	// checked with correction: the untouched false positive.
	flakySentence = "官至南京礼部尚书。"
)

// fakeSystem verifies by lookup: the drafted sentences (but one) are
// supported; any other sentence is wrong — not_included when it is longer
// than the draft it came from by more than four characters, else an era
// error — and is corrected back to that draft. A blind system supports
// everything.
type fakeSystem struct {
	good  map[string]bool
	blind bool
}

func newFakeSystem(blind bool) *fakeSystem {
	f := &fakeSystem{good: map[string]bool{}, blind: blind}
	for _, b := range fakeBiographies {
		for _, s := range b.sents {
			f.good[s] = s != rejectedDraft
		}
	}
	return f
}

func (f *fakeSystem) Subjects(context.Context) ([]string, error) {
	return []string{"严鹤龄", "陆文渊", "顾承泽", "无名氏"}, nil
}

func (f *fakeSystem) Biography(_ context.Context, subject string) (*schemas.ReferenceSet, []string, error) {
	b, ok := fakeBiographies[subject]
	if !ok {
		return nil, nil, errors.New("unknown subject")
	}
	return &schemas.ReferenceSet{Subject: subject, Name: subject, Aliases: []string{subject}, Facts: b.facts}, b.sents, nil
}

func (f *fakeSystem) Check(_ context.Context, _ *schemas.ReferenceSet, s string, correct bool) (eval.SentenceOutcome, error) {
	supported := eval.SentenceOutcome{Verdict: schemas.Verdict{Status: schemas.StatusSupported}}
	switch {
	case f.blind:
		return supported, nil
	case f.good[s] && correct && s == flakySentence:
		return eval.SentenceOutcome{Verdict: schemas.Verdict{Status: schemas.StatusNotSupported, ErrorType: schemas.ErrorOther},
			Solvers: []string{topology.SolverRegenerate}, Dropped: true, Reason: "no supporting reference"}, nil
	case f.good[s]:
		return supported, nil
	}
	from := f.nearest(s)
	v := schemas.Verdict{Status: schemas.StatusNotSupported, ErrorType: schemas.ErrorEra}
	if utf8.RuneCountInString(s) > utf8.RuneCountInString(from)+4 {
		v = schemas.Verdict{Status: schemas.StatusNotIncluded}
	}
	if !correct {
		return eval.SentenceOutcome{Verdict: v}, nil
	}
	_, solver := topology.RouteVerdict(v)
	return eval.SentenceOutcome{Verdict: v, Solvers: []string{solver}, Corrected: from}, nil
}

// nearest is the drafted sentence sharing the longest prefix and suffix
// with s.
func (f *fakeSystem) nearest(s string) string {
	best, score := "", -1
	for g := range f.good {
		a, b := []rune(s), []rune(g)
		n := 0
		for n < len(a) && n < len(b) && a[n] == b[n] {
			n++
		}
		for m := 1; m <= len(a) && m <= len(b) && a[len(a)-m] == b[len(b)-m]; m++ {
			n++
		}
		if n > score || n == score && g < best {
			best, score = g, n
		}
	}
	return best
}

func TestInjectionMetrics(t *testing.T) {
	ctx := context.Background()
	const n = 120
	rep, err := eval.Injection(ctx, newFakeSystem(false), eval.InjectionConfig{N: n, Seed: 7, Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	d := rep.Drafts
	if d.Subjects != 4 || d.Failed != 1 || len(d.Errors) != 1 || !strings.HasPrefix(d.Errors[0], "无名氏: ") || d.Sentences != 11 || d.Supported != 10 || len(d.NotSupported) != 1 ||
		d.NotSupported[0].Sentence != rejectedDraft {
		t.Errorf("drafts %+v", d)
	}
	injected := 0
	for _, typ := range inject.Types() {
		ts := rep.Types[typ]
		if ts == nil || ts.N != n/len(inject.Types()) {
			t.Fatalf("%s: %+v, want %d cases", typ, ts, n/len(inject.Types()))
		}
		injected += ts.N
		if ts.Available == 0 || ts.DetectionRecall != 1 || ts.CorrectionAccuracy != 1 || ts.Residual != 0 {
			t.Errorf("%s: %+v", typ, ts)
		}
		// The fake calls every substitution an era error (the fixture's
		// places are all of four characters) and a longer sentence not
		// included.
		wantRouting := 0.0
		if typ == inject.Era || typ == inject.Gregorian || typ == inject.Fabricated {
			wantRouting = 1
		}
		if ts.RoutingAccuracy != wantRouting {
			t.Errorf("%s: routing accuracy %v, want %v (%v)", typ, ts.RoutingAccuracy, wantRouting, ts.ErrorTypes)
		}
	}
	u := rep.Untouched
	if u.N != n || u.Flagged == 0 || u.Flagged != u.Dropped || u.Flagged >= n {
		t.Errorf("untouched %+v", u)
	}
	if want := float64(u.Flagged) / n; rep.FalsePositiveRate != want {
		t.Errorf("false positive rate %v, want %v", rep.FalsePositiveRate, want)
	}
	if want := float64(injected) / float64(injected+u.Flagged); rep.DetectionPrecision != want {
		t.Errorf("detection precision %v, want %v", rep.DetectionPrecision, want)
	}
	if rep.Published != injected+n-u.Dropped || rep.Residual != 0 || rep.ResidualErrorRate != 0 ||
		rep.Dropped != u.Dropped || rep.DroppedInjected != 0 {
		t.Errorf("published %d residual %d dropped %d", rep.Published, rep.Residual, rep.Dropped)
	}
	kinds := map[string]bool{}
	for _, f := range rep.Failures {
		kinds[f.Kind] = true
		if f.Kind == "misrouted" && (f.Wrong == "" || f.Original == "" || !strings.Contains(f.Sentence, f.Wrong)) {
			t.Errorf("failure example without its injection: %+v", f)
		}
	}
	if !kinds["misrouted"] || !kinds["flagged"] || kinds["undetected"] || kinds["uncorrected"] {
		t.Errorf("failure kinds %v", kinds)
	}

	again, err := eval.Injection(ctx, newFakeSystem(false), eval.InjectionConfig{N: n, Seed: 7, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rep, again) {
		t.Error("the same seed gave another report")
	}
}

func TestInjectionBlindVerifier(t *testing.T) {
	const n = 60
	rep, err := eval.Injection(context.Background(), newFakeSystem(true), eval.InjectionConfig{N: n, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for typ, ts := range rep.Types {
		if ts.DetectionRecall != 0 || ts.CorrectionAccuracy != 0 || ts.Residual != ts.N {
			t.Errorf("%s: %+v", typ, ts)
		}
	}
	if rep.DetectionPrecision != 0 || rep.Published != 2*n || rep.ResidualErrorRate != 0.5 {
		t.Errorf("precision %v published %d residual rate %v", rep.DetectionPrecision, rep.Published, rep.ResidualErrorRate)
	}
}

func TestInjectionNoSupportedDraft(t *testing.T) {
	f := newFakeSystem(false)
	f.good = map[string]bool{}
	if _, err := eval.Injection(context.Background(), f, eval.InjectionConfig{N: 6}); err == nil {
		t.Error("no error when no draft is supported")
	}
}
