package topic_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/consumers/writer/internal/writertest"
	"github.com/annalist-dev/annalist/consumers/writer/topic"
	"github.com/annalist-dev/annalist/internal/ports/kind"
	"github.com/annalist-dev/annalist/schemas"
)

// pageOf places the plan's items as final sentences, index = position.
func pageOf(items []topic.Item) []kind.Placed {
	out := make([]kind.Placed, len(items))
	for i, it := range items {
		out[i] = kind.Placed{Index: i, Position: float64(i), PageSentence: schemas.PageSentence{Text: it.Text,
			Status: schemas.StatusSupported, Section: it.Section,
			Citations: []schemas.Citation{{ChunkID: it.Citations[0]}}}}
	}
	return out
}

func review(t *testing.T, rs *schemas.ReferenceSet, page []kind.Placed) ([]schemas.Finding, []schemas.Edit) {
	t.Helper()
	ctx := context.Background()
	fs, err := topic.Reviewer{}.Review(ctx, rs, page, 1)
	if err != nil {
		t.Fatal(err)
	}
	es, err := topic.Editor{}.Edit(ctx, rs, page, fs)
	if err != nil {
		t.Fatal(err)
	}
	return fs, es
}

func TestReviewCleanPage(t *testing.T) {
	f := writertest.NewFixture(t)
	rs := plan(t, topic.NewCurator(f.G, f.Chunks), "闽县")
	if fs, _ := review(t, rs, pageOf(topic.NewOffline(topic.OfflineConfig{}).Items(rs))); len(fs) != 0 {
		t.Errorf("findings on the planned page: %+v", fs)
	}
}

// TestReviewFindings: crafted pages of 闽县 (万历: 黄中 1574, 林安 1577;
// 年代未详: 周明) with a missing key person, a duplicate and a sentence out
// of order, and the editor's answers.
func TestReviewFindings(t *testing.T) {
	f := writertest.NewFixture(t)
	rs := plan(t, topic.NewCurator(f.G, f.Chunks), "闽县")
	items := topic.NewOffline(topic.OfflineConfig{}).Items(rs)
	if len(items) != 3 || items[0].Name != "黄中" || items[1].Name != "林安" || items[2].Name != "周明" {
		t.Fatalf("items %+v", items)
	}
	zhou := ""
	for _, e := range rs.Curation.Entities {
		if e.Name == "周明" {
			zhou = e.ID
		}
	}

	t.Run("missing key entity", func(t *testing.T) {
		page := pageOf(items[:2])
		fs, es := review(t, rs, page)
		if len(fs) != 1 || fs[0].Type != schemas.FindingCoverage || fs[0].Entity != zhou || fs[0].Index != -1 {
			t.Fatalf("findings %+v", fs)
		}
		if len(es) != 1 || es[0].Op != schemas.EditAdd {
			t.Fatalf("edits %+v", es)
		}
		e := es[0]
		ref, _ := rs.Reference(f.Zhou.ChunkID)
		if !strings.Contains(e.Text, "周明") || !strings.Contains(ref.Text, e.Text) ||
			!slices.Equal(e.Citations, []string{f.Zhou.ChunkID}) || e.Section != items[2].Section {
			t.Errorf("add %+v: want a sentence of 周明's entry naming him, in his section", e)
		}
		if e.Position <= page[1].Position {
			t.Errorf("add at %v, before the 万历 sentences", e.Position)
		}
	})

	t.Run("duplicate", func(t *testing.T) {
		page := pageOf(append(slices.Clone(items), items[0]))
		fs, es := review(t, rs, page)
		if len(fs) != 1 || fs[0].Type != schemas.FindingRedundancy || fs[0].Index != 3 || fs[0].Other != 0 {
			t.Fatalf("findings %+v", fs)
		}
		if !strings.Contains(fs[0].Detail, "黄中") {
			t.Errorf("finding does not quote the sentence: %s", fs[0].Detail)
		}
		if len(es) != 1 || es[0].Op != schemas.EditDrop || es[0].Index != 3 {
			t.Errorf("edits %+v", es)
		}
	})

	t.Run("out of order", func(t *testing.T) {
		page := pageOf([]topic.Item{items[1], items[0], items[2]})
		fs, es := review(t, rs, page)
		if len(fs) != 1 || fs[0].Type != schemas.FindingOrder || fs[0].Index != 1 {
			t.Fatalf("findings %+v", fs)
		}
		if len(es) != 1 || es[0].Op != schemas.EditMove || es[0].Index != 1 || es[0].Position >= page[0].Position ||
			es[0].Section != items[0].Section {
			t.Errorf("edits %+v: want 黄中 moved before 林安", es)
		}
	})
}

// TestReviewBalance: a dated section of 13 sentences beside sections of
// one and two is split at its median year; one-sentence sections are
// merged into the section before them.
func TestReviewBalance(t *testing.T) {
	rs := &schemas.ReferenceSet{Subject: "某县", Lang: "zh", Curation: &schemas.Curation{Type: schemas.TopicPlace}}
	var items []topic.Item
	add := func(sec string, year int, n int) {
		for k := 0; k < n; k++ {
			name := fmt.Sprintf("%s%c", sec, '甲'+rune(len(items)))
			id := fmt.Sprintf("c%02d", len(items))
			s := name + "，某县人。"
			rs.References = append(rs.References, schemas.Reference{ChunkID: id, DocID: "d", Text: s})
			oi := schemas.OutlineItem{Entity: "person:" + name, Name: name, Chunk: id,
				Span: schemas.Span{Start: 0, End: len([]rune(s))}, Period: year + k}
			if n := len(rs.Curation.Outline); n == 0 || rs.Curation.Outline[n-1].Title != sec {
				rs.Curation.Outline = append(rs.Curation.Outline, schemas.OutlineSection{Title: sec})
			}
			o := &rs.Curation.Outline[len(rs.Curation.Outline)-1]
			o.Items = append(o.Items, oi)
			items = append(items, topic.Item{Section: sec, Text: s, Citations: []string{id}})
		}
	}
	add("洪武", 1370, 13)
	add("永乐", 1405, 1)
	add("宣德", 1428, 2)
	add("正统", 1440, 1)
	page := pageOf(items)
	fs, es := review(t, rs, page)
	var got []string
	for _, f := range fs {
		if f.Type != schemas.FindingBalance {
			t.Errorf("finding %+v", f)
		}
		got = append(got, fmt.Sprintf("%s/%d", f.Section, f.Index))
	}
	if want := []string{"洪武/-1", "永乐/13", "正统/16"}; !slices.Equal(got, want) {
		t.Fatalf("findings %v, want %v", got, want)
	}
	titles := map[string]int{}
	for _, e := range es {
		if e.Op != schemas.EditMove {
			t.Fatalf("edit %+v", e)
		}
		if e.Position != page[e.Index].Position {
			t.Errorf("move %+v changes the place", e)
		}
		titles[e.Section]++
	}
	// The long section is split; the one-sentence sections after it join
	// their neighbour (not the section being split), under a title that
	// spans them.
	want := map[string]int{"洪武（1370–1375）": 6, "洪武（1376–1382）": 7, "永乐至正统": 4}
	if fmt.Sprint(titles) != fmt.Sprint(want) {
		t.Errorf("moves by section %v, want %v", titles, want)
	}
}

// A free-text sentence whose person is a pronoun is copied after the
// chunk's first sentence, which names the person; one that names its
// person is copied alone.
func TestPronounSentenceComesWithItsAntecedent(t *testing.T) {
	chunk := "Margaret Ellery was an English cartographer. In 1822 she was appointed assistant surveyor to the Severn Navigation Board. Thomas Harrow wrote to the Severn Navigation Board."
	at := func(s string) schemas.Span {
		i := strings.Index(chunk, s)
		return schemas.Span{Start: len([]rune(chunk[:i])), End: len([]rune(chunk[:i])) + len([]rune(s))}
	}
	got := topic.SentenceWithin(chunk, at("Severn Navigation Board"), nil, topic.MaxSentenceRunes)
	want := []string{"Margaret Ellery was an English cartographer.", "In 1822 she was appointed assistant surveyor to the Severn Navigation Board."}
	if !slices.Equal(got, want) {
		t.Errorf("pronoun sentence = %q; want %q", got, want)
	}
	last := strings.LastIndex(chunk, "Severn Navigation Board")
	sp := schemas.Span{Start: len([]rune(chunk[:last])), End: len([]rune(chunk[:last])) + 23}
	if got := topic.SentenceWithin(chunk, sp, nil, topic.MaxSentenceRunes); len(got) != 1 || !strings.HasPrefix(got[0], "Thomas Harrow") {
		t.Errorf("naming sentence = %q", got)
	}
}
