package writer_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/consumers/assembler"
	"github.com/annalist-dev/annalist/consumers/writer"
	"github.com/annalist-dev/annalist/infra/memory"
	"github.com/annalist-dev/annalist/infra/pages"
	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
	"github.com/annalist-dev/annalist/internal/ports/kind"
	"github.com/annalist-dev/annalist/schemas"
)

// sectionDrafter drafts sentence k as "s<k>" in section "A" for k < 2
// and "B" for k < 4.
type sectionDrafter struct{}

func (sectionDrafter) Draft(_ context.Context, _ *schemas.ReferenceSet, _ []schemas.PageSentence, k int) (schemas.Draft, bool, error) {
	if k >= 4 {
		return schemas.Draft{}, true, nil
	}
	sec := "A"
	if k >= 2 {
		sec = "B"
	}
	return schemas.Draft{Text: fmt.Sprintf("s%d", k), Citations: []string{"c0"}, Section: sec}, false, nil
}

// roundReviewer finds, in every round, that the page lacks a sentence
// "add<round>" and that s1 is redundant and s3 out of order (while they
// are on the page), for rounds ≤ findUntil; it records each page it saw.
type roundReviewer struct {
	findUntil int
	pages     [][]string
}

func (r *roundReviewer) Review(_ context.Context, _ *schemas.ReferenceSet, page []kind.Placed, round int) ([]schemas.Finding, error) {
	var texts []string
	for _, p := range page {
		texts = append(texts, p.Section+":"+p.Text)
	}
	r.pages = append(r.pages, texts)
	if round > r.findUntil {
		return nil, nil
	}
	fs := []schemas.Finding{{Type: schemas.FindingCoverage, Index: -1, Entity: fmt.Sprintf("add%d", round)}}
	for _, p := range page {
		switch p.Text {
		case "s1":
			fs = append(fs, schemas.Finding{Type: schemas.FindingRedundancy, Index: p.Index, Other: 0})
		case "s3":
			if p.Position > 0 && p.Position < 1 {
				continue
			}
			fs = append(fs, schemas.Finding{Type: schemas.FindingOrder, Index: p.Index, Section: "A"})
		}
	}
	return fs, nil
}

// findingEditor turns a coverage finding into an added sentence, a
// redundancy into a drop and an order finding into a move to the top of
// section A.
type findingEditor struct{}

func (findingEditor) Edit(_ context.Context, _ *schemas.ReferenceSet, _ []kind.Placed, fs []schemas.Finding) ([]schemas.Edit, error) {
	var out []schemas.Edit
	for _, f := range fs {
		switch f.Type {
		case schemas.FindingCoverage:
			out = append(out, schemas.Edit{Op: schemas.EditAdd, Text: f.Entity, Citations: []string{"c0"},
				Section: "B", Position: 10})
		case schemas.FindingRedundancy:
			out = append(out, schemas.Edit{Op: schemas.EditDrop, Index: f.Index, Reason: "repeats s0"})
		case schemas.FindingOrder:
			out = append(out, schemas.Edit{Op: schemas.EditMove, Index: f.Index, Section: "A", Position: 0.5})
		}
	}
	return out, nil
}

// The review loop: after the plan, each round's findings become edits;
// a drop and a move apply at once, an added sentence goes to the verifier
// (a draft of the writer the loop waits on), and the rounds stop at the
// bound even when the reviewer still finds something. The assembler lays
// the page out by position and groups it into sections.
func TestReviewLoopEditsTheDraftedPageInBoundedRounds(t *testing.T) {
	for _, tc := range []struct {
		name      string
		findUntil int
		rounds    int64
		adds      []string
	}{
		{"approved in round 2", 1, 2, []string{"add1"}},
		{"bounded at 3 rounds", 99, 3, []string{"add1", "add2", "add3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			c := redistest.Client(t)
			mem := memory.NewRequests(c, 0)
			rev := &roundReviewer{findUntil: tc.findUntil}
			var kinds kind.Registry
			if err := kinds.Register(kind.Spec{Name: schemas.KindTopicPage, Planner: &fixedRefs{},
				Drafters:  map[string]kind.Drafter{kind.EngineOffline: sectionDrafter{}},
				Reviewers: map[string]kind.Reviewer{kind.EngineOffline: rev},
				Editors:   map[string]kind.Editor{kind.EngineOffline: findingEditor{}},
				Layout:    kind.Layout{Sectioned: true}}); err != nil {
				t.Fatal(err)
			}
			l := &loopHarness{t: t, h: writer.NewLoop(&kinds, mem, writer.LoopConfig{}).Handler(), mem: mem}
			d := l.one(schemas.Request{RequestID: "r1", Kind: schemas.KindTopicPage, Subject: "某地"})
			var added []string
			for steps := 0; !d.Final; steps++ {
				if steps > 20 {
					t.Fatal("the loop does not end")
				}
				if d.Origin == writer.OriginEditor {
					added = append(added, d.Text)
					if d.Section != "B" || d.Position != 10 || d.Index < 4 {
						t.Errorf("editor draft = %+v; want section B, position 10, an index after the plan", d)
					}
				}
				d = l.one(supported(d))
			}
			if !slices.Equal(added, tc.adds) {
				t.Errorf("editor drafts = %q; want %q", added, tc.adds)
			}
			if len(rev.pages) != int(tc.rounds) {
				t.Errorf("reviewer ran %d times; want %d", len(rev.pages), tc.rounds)
			}
			// The second round sees round 1's edits: s1 gone, s3 moved
			// into A after s0, add1 verified and at the end.
			if want := []string{"A:s0", "A:s3", "B:s2", "B:add1"}; !slices.Equal(rev.pages[1], want) {
				t.Errorf("page in round 2 = %q; want %q", rev.pages[1], want)
			}
			st, _, err := mem.State(ctx, "t", "r1")
			if err != nil {
				t.Fatal(err)
			}
			if st.Counters[writer.CounterReviewRounds] != tc.rounds || st.Counters["edits_drop"] != 1 ||
				st.Counters["edits_move"] != 1 || st.Counters["findings_coverage"] != int64(len(tc.adds)) {
				t.Errorf("counters = %v", st.Counters)
			}

			store := pages.New(c)
			p, err := assembler.New(mem, store, nil).Assemble(ctx, "t", d)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, sec := range p.Sections {
				var ss []string
				for _, s := range sec.Sentences {
					ss = append(ss, s.Text)
				}
				got = append(got, sec.Title+"="+strings.Join(ss, ","))
			}
			want := []string{"A=s0,s3", "B=s2," + strings.Join(tc.adds, ",")}
			if !slices.Equal(got, want) {
				t.Errorf("sections = %q; want %q", got, want)
			}
			if len(p.Sentences) != 3+len(tc.adds) || p.Sentences[1].Text != "s3" {
				t.Errorf("flat sentences = %+v", p.Sentences)
			}
			if len(p.Dropped) != 1 || !strings.Contains(p.Dropped[0].Reason, "editor") {
				t.Errorf("dropped = %+v", p.Dropped)
			}
		})
	}
}
