package solver_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/consumers/solver"
	"github.com/annalist-dev/annalist/schemas"
)

func conflictRepair(sentence, value string) schemas.Repair {
	return repair("叶向高", sentence, []string{chunkYe}, []schemas.Fact{
		{Text: "字进卿", Relation: schemas.RelCourtesyName, Value: "进卿", ChunkID: chunkYe},
		{Text: value + "人", Relation: schemas.RelNativePlace, Value: value, ChunkID: chunkYe},
	}, 0,
		ok(schemas.RelCourtesyName, "进卿", "字进卿"),
		fv(ns, schemas.ErrorRefConflict, schemas.RelNativePlace, value, value+"人",
			ev(chunkYe, textYe, "福清人"), ev(chunkArchive, textArchive, "侯官人")))
}

func TestRefConflictStatesBothValues(t *testing.T) {
	r := conflictRepair("叶向高，字进卿，福清人。", "福清")
	c, rvs := solve(t, solver.NewRefConflict(solver.Config{}), yeRefs(true), r)
	check(t, r, c, want{outcome: schemas.OutcomeConflict, has: []string{"叶向高，字进卿，福清人（一说侯官人）。"},
		cites: []string{chunkYe, chunkArchive}})
	// One fact per value, each citing the chunk that gives it.
	byValue := map[string]string{}
	for _, f := range c.Facts {
		if f.Relation == schemas.RelNativePlace {
			byValue[f.Value] = f.ChunkID
		}
	}
	if byValue["福清"] != chunkYe || byValue["侯官"] != chunkArchive {
		t.Errorf("native place facts %v, want 福清 from %s and 侯官 from %s", byValue, chunkYe, chunkArchive)
	}
	if len(rvs) != 1 {
		t.Fatalf("%d reviews, want 1", len(rvs))
	}
	rv := rvs[0]
	if err := rv.Validate(); err != nil {
		t.Fatal(err)
	}
	if rv.ReviewID != c.ReviewID || rv.Status != solver.ReviewOpen || rv.Relation != schemas.RelNativePlace ||
		rv.Subject != "叶向高" || rv.RequestID != "req-1" || !strings.Contains(rv.Question, "叶向高") {
		t.Errorf("review %+v does not match the correction %s", rv, c.ReviewID)
	}
	var opts []string
	for _, o := range rv.Options {
		opts = append(opts, o.Value+"@"+o.ChunkID)
		if o.Text == "" {
			t.Errorf("option %s has no passage", o.Value)
		}
	}
	if !slices.Equal(opts, []string{"福清@" + chunkYe, "侯官@" + chunkArchive}) {
		t.Errorf("options %v", opts)
	}
}

// The review id depends on the subject, the relation and the values, not
// on the request or on which value the sentence chose.
func TestRefConflictReviewIDIsDeterministic(t *testing.T) {
	s := solver.NewRefConflict(solver.Config{})
	_, a := solve(t, s, yeRefs(true), conflictRepair("叶向高，字进卿，福清人。", "福清"))
	r := conflictRepair("叶向高，字进卿，侯官人。", "侯官")
	r.RequestID, r.Verdict.RequestID = "req-2", "req-2"
	c, b := solve(t, s, yeRefs(true), r)
	if len(a) != 1 || len(b) != 1 || a[0].ReviewID != b[0].ReviewID {
		t.Fatalf("reviews %v and %v, want one with the same id", a, b)
	}
	// The sentence keeps the value it chose.
	check(t, r, c, want{outcome: schemas.OutcomeConflict, has: []string{"侯官人（一说福清人）"}})
	other := yeRefs(true)
	other.EntityID = "person:叶向高@99999999"
	_, d := solve(t, s, other, conflictRepair("叶向高，字进卿，福清人。", "福清"))
	if d[0].ReviewID == a[0].ReviewID {
		t.Error("two entities of one name share a review id")
	}
}

func TestRefConflictVariants(t *testing.T) {
	decided := yeRefs(true)
	decided.Decisions = []schemas.Decision{{ReviewID: "review-x", Relation: schemas.RelNativePlace, Value: "福清", ChunkID: chunkYe, Rejected: []string{"侯官"}}}
	for _, tc := range []struct {
		name    string
		refs    *schemas.ReferenceSet
		r       schemas.Repair
		want    want
		reviews int
	}{
		{"an expert decision settles it", decided, conflictRepair("叶向高，字进卿，侯官人。", "侯官"),
			want{outcome: schemas.OutcomeCorrected, has: []string{"福清人。"}, gone: []string{"侯官", "一说"}, cites: []string{chunkYe}}, 0},
		{"one value only: replaced like any contradiction", yeRefs(false), conflictRepair("叶向高，字进卿，侯官人。", "侯官"),
			want{outcome: schemas.OutcomeCorrected, has: []string{"字进卿，福清人。"}, gone: []string{"侯官"}}, 0},
		{"English", &schemas.ReferenceSet{Subject: "Ye Xianggao", Name: "Ye Xianggao", EntityID: "person:Ye Xianggao", Lang: "en",
			Facts: []schemas.KGFact{
				{Relation: schemas.RelNativePlace, Value: "Fuqing", ChunkID: "en-1", Evidence: "a native of Fuqing"},
				{Relation: schemas.RelNativePlace, Value: "Houguan", ChunkID: "en-2", Evidence: "a native of Houguan"},
			},
			References: []schemas.Reference{{ChunkID: "en-1", Text: "Ye Xianggao was a native of Fuqing."}, {ChunkID: "en-2", Text: "Ye, a native of Houguan, wrote well."}}},
			repair("Ye Xianggao", "Ye Xianggao was a native of Fuqing.", []string{"en-1"}, nil, 0,
				fv(ns, schemas.ErrorRefConflict, schemas.RelNativePlace, "Fuqing", "a native of Fuqing",
					schemas.Evidence{ChunkID: "en-2", Text: "a native of Houguan"})),
			want{outcome: schemas.OutcomeConflict, has: []string{"a native of Fuqing (another source: Houguan)."}, cites: []string{"en-1", "en-2"}}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, rvs := solve(t, solver.NewRefConflict(solver.Config{}), tc.refs, tc.r)
			check(t, tc.r, c, tc.want)
			if len(rvs) != tc.reviews {
				t.Errorf("%d reviews, want %d", len(rvs), tc.reviews)
			}
			t.Logf("%q → %q %v", tc.r.Verdict.Draft.Text, c.Text, c.Citations)
		})
	}
}

// Two chunks date one event differently: both dates are stated, the
// Gregorian year follows the date kept, and the review asks about the
// event.
func TestRefConflictDates(t *testing.T) {
	const a, b = "举永乐十九年进士，授御史。", "王文，成化初进士，为人刚介。"
	refs := &schemas.ReferenceSet{Subject: "王文", Name: "王文", EntityID: "person:王文@00000001", Lang: "zh",
		References: []schemas.Reference{{ChunkID: "c-a", Text: a}, {ChunkID: "c-b", Text: b}}}
	r := repair("王文", "永乐二十一年（1423年），王文举进士。", []string{"c-a"}, []schemas.Fact{
		{Text: "永乐二十一年进士", Relation: schemas.RelJinshi, Value: "永乐二十一年", ChunkID: "c-a"},
		{Text: "1423年", Relation: relDate, Value: "1423", ChunkID: "c-a"},
	}, 0,
		fv(ns, schemas.ErrorRefConflict, relDate, "永乐二十一年", "永乐二十一年", ev("c-a", a, "永乐十九年进士"), ev("c-b", b, "成化初进士")),
		ok(schemas.RelJinshi, "进士", "王文举进士"))
	c, rvs := solve(t, solver.NewRefConflict(solver.Config{}), refs, r)
	check(t, r, c, want{outcome: schemas.OutcomeConflict, has: []string{"永乐十九年（1421年）（一说成化初），王文举进士。"},
		gone: []string{"二十一", "1423"}, cites: []string{"c-a", "c-b"}})
	for _, f := range c.Facts {
		ref, _ := refs.Reference(f.ChunkID)
		if !strings.Contains(ref.Text, f.Value) {
			t.Errorf("fact %+v: its chunk does not state it, a conflict sentence cannot pass with it", f)
		}
	}
	if len(rvs) != 1 || rvs[0].Relation != schemas.RelJinshi || len(rvs[0].Options) != 2 {
		t.Errorf("reviews %+v, want one on the jinshi examination with two options", rvs)
	}
}
