package writer_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/consumers/writer"
	"github.com/annalist-dev/annalist/consumers/writer/biography"
	"github.com/annalist-dev/annalist/consumers/writer/internal/writertest"
	"github.com/annalist-dev/annalist/schemas"
)

// refSet builds a reference set by hand: chunks by id, facts located by
// their evidence in their chunk.
type refSet struct {
	rs    *schemas.ReferenceSet
	texts map[string]string
}

func newRefSet(name, lang string, aliases ...string) *refSet {
	return &refSet{rs: &schemas.ReferenceSet{Subject: name, Name: name, EntityID: "person:" + name + "@00000001",
		Aliases: append([]string{name}, aliases...), Lang: lang}, texts: map[string]string{}}
}

func (r *refSet) chunk(id, doc, text string) *refSet {
	r.texts[id] = text
	r.rs.References = append(r.rs.References, schemas.Reference{ChunkID: id, DocID: doc, Text: text,
		Source: schemas.SourceEntity, Score: 1 / float64(61+len(r.rs.References))})
	return r
}

func (r *refSet) fact(t testing.TB, chunk, rel, value, evidence string, quals map[string]string) *refSet {
	t.Helper()
	text := r.texts[chunk]
	b := strings.Index(text, evidence)
	if b < 0 {
		t.Fatalf("evidence %q not in chunk %s", evidence, chunk)
	}
	start := utf8.RuneCountInString(text[:b])
	r.rs.Facts = append(r.rs.Facts, schemas.KGFact{EdgeID: rel + value, Relation: rel, Value: value, ChunkID: chunk,
		Span: schemas.Span{Start: start, End: start + utf8.RuneCountInString(evidence)}, Evidence: evidence, Qualifiers: quals})
	return r
}

// shen is an entry written for these tests: a long opening (so the
// identity sentence is templated), a ranked examination, four posts, a
// memorial, death and posthumous name, then a son's paragraph that is not
// about him.
func shen(t testing.TB) *refSet {
	r := newRefSet("沈元亮", "zh", "子明", "东冈").
		chunk("v9-0003", "v9", "沈元亮，字子明，号东冈，浙江山阴人，少负奇气，读书过目不忘，乡里称为神童，尝从王守仁门人游，究心经世之学，年十五补县学生员。"+
			"举嘉靖二十六年进士第三人。授编修，进侍读。\n").
		chunk("v9-0004", "v9", "三十年，上疏论边事，请复河套，帝壮之。擢礼部右侍郎。四十一年，元亮以母丧归，服除，起南京吏部尚书。"+
			"时倭寇浙东，元亮疏陈战守八策。\n").
		chunk("v9-0005", "v9", "隆庆元年卒，年六十三。赠太子少保，谥文端。\n子尚文，字以质，举于乡，官至知府。有惠政，民为立祠。\n")
	r.fact(t, "v9-0003", schemas.RelCourtesyName, "子明", "字子明", nil).
		fact(t, "v9-0003", schemas.RelArtName, "东冈", "号东冈", nil).
		fact(t, "v9-0003", schemas.RelNativePlace, "浙江山阴", "浙江山阴人", nil).
		fact(t, "v9-0003", schemas.RelJinshi, "嘉靖二十六年", "举嘉靖二十六年进士第三人",
			map[string]string{"era": "嘉靖", "year": "嘉靖二十六年", "rank": "第三"}).
		fact(t, "v9-0003", schemas.RelOffice, "编修", "授编修", nil).
		fact(t, "v9-0003", schemas.RelOffice, "侍读", "进侍读", nil).
		fact(t, "v9-0004", schemas.RelOffice, "礼部右侍郎", "擢礼部右侍郎", nil).
		fact(t, "v9-0004", schemas.RelOffice, "南京吏部尚书", "起南京吏部尚书", nil).
		fact(t, "v9-0005", schemas.RelDeath, "隆庆元年", "隆庆元年卒，年六十三", map[string]string{"time": "隆庆元年", "age": "六十三"})
	return r
}

func kinds(t testing.TB, o *writer.Offline, refs *schemas.ReferenceSet) []string {
	t.Helper()
	var out []string
	for _, it := range o.Plan(refs) {
		out = append(out, it.Kind)
	}
	return out
}

func texts(ds []schemas.Draft) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.Text
	}
	return out
}

func TestOfflineBiography(t *testing.T) {
	r := shen(t)
	o := writer.NewOffline(writer.OfflineConfig{})
	ds := draftAll(t, o, r.rs)
	want := []string{
		"沈元亮，字子明，号东冈，浙江山阴人。",
		"嘉靖二十六年（1547年）进士第三人。",
		"历官编修、侍读、礼部右侍郎。",
		"官至南京吏部尚书。",
		"三十年，上疏论边事，请复河套，帝壮之。",
		"时倭寇浙东，元亮疏陈战守八策。",
		"隆庆元年卒，年六十三。",
		"赠太子少保，谥文端。",
	}
	if got := texts(ds); !slices.Equal(got, want) {
		t.Fatalf("page:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	wantKinds := []string{writer.ItemIdentity, writer.ItemExamination, writer.ItemCareer, writer.ItemHighest,
		writer.ItemNotable, writer.ItemNotable, writer.ItemDeath, writer.ItemPosthumous}
	if got := kinds(t, o, r.rs); !slices.Equal(got, wantKinds) {
		t.Errorf("kinds %v, want %v", got, wantKinds)
	}
	checkDrafts(t, r.rs, ds)
	for _, d := range ds {
		if strings.Contains(d.Text, "尚文") || strings.Contains(d.Text, "知府") {
			t.Errorf("the son's paragraph leaked into the page: %s", d.Text)
		}
	}
	// The examination sentence carries the Gregorian year as a fact.
	if !slices.ContainsFunc(ds[1].Facts, func(f schemas.Fact) bool { return f.Relation == "date" && f.Value == "1547" }) {
		t.Errorf("examination facts %+v lack the Gregorian year", ds[1].Facts)
	}

	// Deterministic: another drafter, the same page; past the end, done.
	if again := texts(draftAll(t, writer.NewOffline(writer.OfflineConfig{}), r.rs)); !slices.Equal(again, want) {
		t.Errorf("second drafter wrote %v", again)
	}
	if _, done, err := o.Draft(context.Background(), r.rs, nil, len(want)); err != nil || !done {
		t.Errorf("sentence past the plan: done %v, err %v", done, err)
	}
}

// checkDrafts holds for every offline draft: it cites only references,
// every fact names a cited chunk, and it says who wrote it.
func checkDrafts(t testing.TB, refs *schemas.ReferenceSet, ds []schemas.Draft) {
	t.Helper()
	for i, d := range ds {
		if d.Engine != writer.EngineOffline || d.Origin != writer.OriginWriter || d.Index != i || d.Subject != refs.Subject {
			t.Errorf("draft %d: engine %q origin %q index %d subject %q", i, d.Engine, d.Origin, d.Index, d.Subject)
		}
		if len(d.Citations) == 0 || len(d.Facts) == 0 {
			t.Errorf("draft %q has no citation or no fact", d.Text)
		}
		for _, c := range d.Citations {
			if _, ok := refs.Reference(c); !ok {
				t.Errorf("draft %q cites %s, not a reference", d.Text, c)
			}
		}
		for _, f := range d.Facts {
			if !slices.Contains(d.Citations, f.ChunkID) {
				t.Errorf("draft %q: fact %+v is not from a cited chunk", d.Text, f)
			}
			if f.Relation != "" && f.Relation != "date" && !strings.Contains(d.Text, f.Value) {
				t.Errorf("draft %q: fact %s=%s not in the text", d.Text, f.Relation, f.Value)
			}
		}
	}
}

func TestOfflineShortOpeningCopied(t *testing.T) {
	f := writertest.NewFixture(t)
	refs, err := biography.NewRetriever(f.G, f.Chunks).Retrieve(context.Background(), tenant, "林安")
	if err != nil {
		t.Fatal(err)
	}
	ds := draftAll(t, writer.NewOffline(writer.OfflineConfig{}), refs)
	want := []string{
		"林安，字子平，号石溪，闽县人。", // the opening, verbatim
		"万历五年（1577年），林安举进士。",
		"历官编修、吏部右侍郎。",
		"官至礼部尚书。",
		"卒，年六十二。",
		"周明尝从林安游，论学于鳌峰书院。", // an undated note about him: after the life
	}
	if got := texts(ds); !slices.Equal(got, want) {
		t.Fatalf("page:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	checkDrafts(t, refs, ds)
	if ds[0].Citations[0] != f.Lin1.ChunkID || ds[4].Citations[0] != f.Lin2.ChunkID || ds[5].Citations[0] != f.Note.ChunkID {
		t.Errorf("citations %v … %v, %v", ds[0].Citations, ds[4].Citations, ds[5].Citations)
	}
	// The note is in the part for other documents; the life names its
	// section too.
	for i, d := range ds {
		if want := map[bool]string{true: "其他文献", false: "生平"}[i == 5]; d.Section != want {
			t.Errorf("sentence %d %q is in section %q, want %q", i, d.Text, d.Section, want)
		}
	}
}

// TestOfflineHighestOnlyWhenSure: when the entry names a post above the
// highest one the graph knows, no "官至" is claimed; the posts go to the
// career list.
func TestOfflineHighestOnlyWhenSure(t *testing.T) {
	r := newRefSet("钱行", "zh").
		chunk("v3-0001", "v3", "钱行，字仲贤，常州人。授编修，擢礼部右侍郎。后拜文渊阁大学士，辞不就。\n")
	r.fact(t, "v3-0001", schemas.RelOffice, "编修", "授编修", nil).
		fact(t, "v3-0001", schemas.RelOffice, "礼部右侍郎", "擢礼部右侍郎", nil)
	ds := draftAll(t, writer.NewOffline(writer.OfflineConfig{}), r.rs)
	got := texts(ds)
	if !slices.Contains(got, "历官编修、礼部右侍郎。") || slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, "官至") }) {
		t.Errorf("page %v: want the posts listed and no highest office", got)
	}
}

func TestOfflineDecisionApplied(t *testing.T) {
	r := shen(t).chunk("arch-0000", "arch", "沈元亮，会稽人，以文学名于时。")
	r.fact(t, "arch-0000", schemas.RelNativePlace, "会稽", "会稽人", nil)
	r.rs.Decisions = []schemas.Decision{{ReviewID: "rv1", Relation: schemas.RelNativePlace, Value: "会稽",
		ChunkID: "arch-0000", Rejected: []string{"浙江山阴"}}}
	d, _, err := writer.NewOffline(writer.OfflineConfig{}).Draft(context.Background(), r.rs, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if d.Text != "沈元亮，字子明，号东冈，会稽人。" || !slices.Equal(d.Citations, []string{"v9-0003", "arch-0000"}) {
		t.Errorf("identity %q citing %v; want the decided native place", d.Text, d.Citations)
	}
}

// TestOfflineAccepted: the career list leaves out posts the page already
// names, and a sentence already on the page is replaced by its alternate.
func TestOfflineAccepted(t *testing.T) {
	r := shen(t)
	o := writer.NewOffline(writer.OfflineConfig{})
	ctx := context.Background()
	accepted := []schemas.PageSentence{{Text: "沈元亮，字子明，浙江山阴人，初授编修。"}}
	d, _, err := o.Draft(ctx, r.rs, accepted, 2)
	if err != nil {
		t.Fatal(err)
	}
	if d.Text != "历官侍读、礼部右侍郎。" {
		t.Errorf("career %q, want the posts not yet named", d.Text)
	}
	accepted = append(accepted, schemas.PageSentence{Text: "三十年，上疏论边事，请复河套，帝壮之。"})
	d, _, err = o.Draft(ctx, r.rs, accepted, 4)
	if err != nil {
		t.Fatal(err)
	}
	if d.Text == accepted[1].Text || !strings.HasSuffix(d.Text, "。") {
		t.Errorf("notable act repeated the page: %q", d.Text)
	}
}

func TestOfflineEnglish(t *testing.T) {
	r := newRefSet("Anne Corrie", "en").
		chunk("corrie-0000", "corrie", "# Anne Corrie\n\nAnne Corrie was a Scottish botanist. She was born in Perth in 1802. "+
			"In 1830 she was appointed keeper of the Perth herbarium. Her flora of the Tay valley, printed in 1841, "+
			"listed four hundred species. She died in Edinburgh in 1871.\n")
	r.fact(t, "corrie-0000", schemas.RelBirth, "1802", "She was born in Perth in 1802", nil).
		fact(t, "corrie-0000", schemas.RelOffice, "keeper of the Perth herbarium", "appointed keeper of the Perth herbarium", nil).
		fact(t, "corrie-0000", schemas.RelDeath, "1871", "She died in Edinburgh in 1871", nil)
	ds := draftAll(t, writer.NewOffline(writer.OfflineConfig{}), r.rs)
	want := []string{
		"Anne Corrie was a Scottish botanist.",
		"She was born in Perth in 1802.",
		"In 1830 she was appointed keeper of the Perth herbarium.",
		"Her flora of the Tay valley, printed in 1841, listed four hundred species.",
		"She died in Edinburgh in 1871.",
	}
	if got := texts(ds); !slices.Equal(got, want) {
		t.Fatalf("page:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	checkDrafts(t, r.rs, ds)
}

func TestOfflineEmptyReferenceSet(t *testing.T) {
	rs := &schemas.ReferenceSet{Subject: "无名", Name: "无名"}
	_, done, err := writer.NewOffline(writer.OfflineConfig{}).Draft(context.Background(), rs, nil, 0)
	if err != nil || !done {
		t.Errorf("empty reference set: done %v, err %v; want an empty page", done, err)
	}
}
