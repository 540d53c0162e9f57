package writer_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/consumers/verifier"
	"github.com/annalist-dev/annalist/consumers/writer"
	"github.com/annalist-dev/annalist/consumers/writer/internal/writertest"
	"github.com/annalist-dev/annalist/internal/kit/llmtest"
	"github.com/annalist-dev/annalist/internal/ports/kind"
	"github.com/annalist-dev/annalist/schemas"
)

// mention adds a chunk of another document that the entity linker
// resolved to the subject, as the retriever adds it: after the entry.
func (r *refSet) mention(id, doc, text string) *refSet {
	r.texts[id] = text
	r.rs.References = append(r.rs.References, schemas.Reference{ChunkID: id, DocID: doc, Text: text,
		Source: schemas.SourceMention, Entity: r.rs.EntityID, Score: 1 / float64(61+len(r.rs.References))})
	return r
}

// Notes about 沈元亮 as an archive receives them, in the phrasings notes
// use; none states anything the extractor has a relation for.
const (
	noteLate    = "沈元亮晚年归里，筑观澜书院，讲学其中，从游者数百人。"
	noteEnvoy   = "嘉靖三十五年，沈元亮奉使琉球，却其馈金，国人为立却金亭。"
	noteWorks   = "沈元亮所著有《东冈集》二十卷、《奏议》四卷，藏于家。"
	notePraised = "时人称沈元亮为东南人望，以其居官廉而论事直也。"
	noteTrio    = "嘉靖三十二年，诏选翰林有文学者入直西苑。是年，徐阶、沈元亮、赵贞吉并以文学侍从，时称三杰。"
	noteMiddle  = "嘉靖中，沈元亮尝督学江西，拔寒士甚众，士论归之。"
	// Another man's biography, which names 沈元亮 once in passing and
	// once as the topic of a long sentence.
	otherLife = "赵贞吉，字孟静，内江人。少有大志，读书过目成诵。举嘉靖十四年进士，授编修。" +
		"时严嵩当国，贞吉不附，与徐阶、沈元亮、欧阳德相友善。" +
		"迁右中允，管国子司业事。诸生有过，贞吉必面斥之，无所假借。" +
		"俺答薄都城，帝御奉天殿召百官议，贞吉抗言不可许贡，帝壮之，擢左谕德，监察御史，奉旨宣谕诸军，" +
		"沈元亮时为礼部右侍郎，独上疏言贞吉忠直可用，请假以事权，责其成功，疏入不报，而嵩衔之益深，" +
		"贞吉竟以忤嵩廷杖，谪荔波典史。稍迁徽州通判，进南京吏部主事。" +
		"历光禄卿，擢户部右侍郎。贞吉好谈名理，与学者讲论不倦。\n"
)

func planTexts(o *writer.Offline, rs *schemas.ReferenceSet) []string {
	var out []string
	for _, it := range o.Plan(rs) {
		out = append(out, it.Text)
	}
	return out
}

func itemOf(o *writer.Offline, rs *schemas.ReferenceSet, text string) (int, writer.PlanItem) {
	items := o.Plan(rs)
	i := slices.IndexFunc(items, func(it writer.PlanItem) bool { return it.Text == text })
	if i < 0 {
		return -1, writer.PlanItem{}
	}
	return i, items[i]
}

// verified checks every drafted sentence with the offline verifier.
func verified(t *testing.T, rs *schemas.ReferenceSet, ds []schemas.Draft) {
	t.Helper()
	ck := verifier.NewOffline(verifier.Config{})
	for _, d := range ds {
		d.RequestID = "r1"
		v, err := ck.Check(context.Background(), rs, d)
		if err != nil {
			t.Fatal(err)
		}
		if v.Status != schemas.StatusSupported {
			t.Errorf("%q is %s (%s): %+v", d.Text, v.Status, v.ErrorType, v.Facts)
		}
	}
}

// A note with no fact the extractor reads is on the page, cited and
// verified, whether or not the page is regenerated for it: undated, in
// the part for other documents after the life; dated, in time order among
// the life's sentences.
func TestOfflineNotesReachThePage(t *testing.T) {
	base := writer.NewOffline(writer.OfflineConfig{})
	life := planTexts(base, shen(t).rs)
	r := shen(t).mention("n1-0000", "n1", noteLate).mention("n2-0000", "n2", noteEnvoy).
		mention("n3-0000", "n3", noteWorks).mention("n4-0000", "n4", notePraised)
	o := writer.NewOffline(writer.OfflineConfig{})
	ds := draftAll(t, o, r.rs)
	t.Logf("page (%v):\n%s", o.PlanStats(r.rs), strings.Join(texts(ds), "\n"))
	checkDrafts(t, r.rs, ds)
	verified(t, r.rs, ds)

	// The life keeps every sentence it had, in order, with the dated note
	// among them.
	var got []string
	for _, d := range ds {
		if d.Section == "生平" {
			got = append(got, d.Text)
		}
	}
	if want := slices.Insert(slices.Clone(life), slices.Index(life, "三十年，上疏论边事，请复河套，帝壮之。")+1, noteEnvoy); !slices.Equal(got, want) {
		t.Errorf("the life:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The undated notes follow it, in their own part, each citing its
	// note.
	var other []string
	for _, d := range ds[len(got):] {
		if d.Section != "其他文献" {
			t.Errorf("%q after the life is in section %q", d.Text, d.Section)
		}
		other = append(other, d.Text)
	}
	if want := []string{noteLate, noteWorks, notePraised}; !slices.Equal(other, want) {
		t.Errorf("other documents:\n%s\nwant:\n%s", strings.Join(other, "\n"), strings.Join(want, "\n"))
	}
	for _, c := range []struct{ text, chunk string }{{noteLate, "n1-0000"}, {noteEnvoy, "n2-0000"}, {noteWorks, "n3-0000"}, {notePraised, "n4-0000"}} {
		i, it := itemOf(o, r.rs, c.text)
		if i < 0 || it.Kind != writer.ItemElsewhere || !slices.Equal(it.Citations, []string{c.chunk}) {
			t.Errorf("%q: item %d %+v; want an item of another document citing %s", c.text, i, it, c.chunk)
		}
	}
	st := o.PlanStats(r.rs)
	if st[writer.StatOtherPassages] != 4 || st[writer.StatOtherDevoted] != 4 || st[writer.StatOtherDated] != 1 ||
		st[writer.StatOtherUndated] != 3 || st[writer.StatLeftOut+"_"+writer.LeftOutBudget] != 0 {
		t.Errorf("stats %v", st)
	}
}

// The plan is the same whichever document triggered the regeneration:
// a note stays on the page in every later version, not only in the one
// it caused.
func TestOfflineNoteStaysWhateverTheTrigger(t *testing.T) {
	r := shen(t).mention("n1-0000", "n1", noteLate).mention("n2-0000", "n2", noteEnvoy)
	first := planTexts(writer.NewOffline(writer.OfflineConfig{}), r.rs)
	for _, fresh := range [][]string{{"n1"}, {"n2"}, {"v9"}, nil} {
		r.rs.Fresh = fresh
		if got := planTexts(writer.NewOffline(writer.OfflineConfig{}), r.rs); !slices.Equal(got, first) {
			t.Errorf("fresh %v: plan\n%s\nwant\n%s", fresh, strings.Join(got, "\n"), strings.Join(first, "\n"))
		}
	}
	if !slices.Contains(first, noteLate) || !slices.Contains(first, noteEnvoy) {
		t.Fatalf("plan %v lacks the notes", first)
	}
}

// A note that dates itself by a year counted from the era its text named
// before (是年) is placed at that year; one dated by an approximate time
// (嘉靖中) at that part of the era; a note naming several people is about
// each of them.
func TestOfflineNotesDatedInTheirText(t *testing.T) {
	r := shen(t).mention("n5-0000", "n5", noteTrio).mention("n6-0000", "n6", noteMiddle)
	o := writer.NewOffline(writer.OfflineConfig{})
	items := o.Plan(r.rs)
	t.Logf("plan (%v):\n%s", o.PlanStats(r.rs), strings.Join(planTexts(o, r.rs), "\n"))
	trio := "是年，徐阶、沈元亮、赵贞吉并以文学侍从，时称三杰。"
	i, it := itemOf(o, r.rs, trio)
	if i < 0 || it.Section != "" || !slices.Equal(it.Citations, []string{"n5-0000"}) {
		t.Fatalf("the sentence of the note naming three men: item %d %+v", i, it)
	}
	// 嘉靖三十二年 (1553): after 三十年 (1551), before 四十一年 (1562).
	prev, next := items[i-1].Text, items[i+1].Text
	if !strings.HasPrefix(prev, "三十年") || !strings.Contains(next, "倭寇") {
		t.Errorf("placed between %q and %q", prev, next)
	}
	// 嘉靖中 is the middle of the era (1544): before the examination of
	// 嘉靖二十六年.
	j, _ := itemOf(o, r.rs, noteMiddle)
	k := slices.IndexFunc(items, func(it writer.PlanItem) bool { return it.Kind == writer.ItemExamination })
	if j < 0 || k < 0 || j > k || j == 0 {
		t.Errorf("嘉靖中 at %d, the examination at %d", j, k)
	}
	// The sentence of the note that does not name him is not on the page.
	if _, it := itemOf(o, r.rs, "嘉靖三十二年，诏选翰林有文学者入直西苑。"); it.Text != "" {
		t.Errorf("the note's other sentence is on the page")
	}
	verified(t, r.rs, draftAll(t, o, r.rs))
}

// A long passage of another man's biography: the sentence that names
// him only in a list is left out as in passing; the one whose clause he
// opens is cut to the clauses around his name, bounded, cites its chunk
// and passes the verifier. Both count in the stats.
func TestOfflineLongPassageCut(t *testing.T) {
	r := shen(t).mention("zhao-0007", "v12", otherLife)
	o := writer.NewOffline(writer.OfflineConfig{})
	items := o.Plan(r.rs)
	var got []writer.PlanItem
	for _, it := range items {
		if it.Kind == writer.ItemElsewhere {
			got = append(got, it)
		}
	}
	st := o.PlanStats(r.rs)
	t.Logf("items from v12: %+v; stats %v", got, st)
	if len(got) != 1 {
		t.Fatalf("%d items from the other biography; want the one sentence about him", len(got))
	}
	it := got[0]
	n := utf8.RuneCountInString(it.Text)
	if !strings.Contains(it.Text, "沈元亮时为礼部右侍郎") || n > 80 || !strings.HasSuffix(it.Text, "。") ||
		!strings.Contains(otherLife, strings.TrimSuffix(it.Text, "。")) || strings.Contains(it.Text, "俺答") {
		t.Errorf("extract %q (%d characters): want the clauses about him, verbatim, at most 80", it.Text, n)
	}
	if !slices.Equal(it.Citations, []string{"zhao-0007"}) {
		t.Errorf("citations %v", it.Citations)
	}
	if st[writer.StatOtherPassages] != 2 || st[writer.StatLeftOut+"_"+writer.LeftOutInPassing] != 1 ||
		st[writer.StatLeftOut] < 1 || st[writer.StatOtherBudget] != 1 {
		t.Errorf("stats %v; want two passages, one in passing left out, a budget of one", st)
	}
	verified(t, r.rs, draftAll(t, o, r.rs))
}

// The budget of other documents grows with their evidence: of many
// passages of other biographies that make him a clause's topic, as many
// are taken as the budget of their number allows, and the rest are
// counted as left out for the budget; a note about him is always taken.
func TestOfflineOtherBudget(t *testing.T) {
	r := shen(t)
	for i, s := range []string{"修实录", "复河套", "罢矿税", "开海禁", "减岁漕", "增边饷", "修黄河", "定郊祀"} {
		doc := "w" + strings.Repeat("i", i+1)
		r.mention(doc+"-0003", doc, "王某，字某，某县人。少孤，事母以孝闻。举进士，授行人，擢御史。"+
			"嘉靖末，王某请"+s+"，廷议多以为不可。沈元亮独是其议，言"+s+"之利，帝从之。"+
			"王某由是知名，累迁副都御史。居官廉，所至有惠政。卒于官，士民哭之。\n")
	}
	r.mention("n1-0000", "n1", noteLate)
	o := writer.NewOffline(writer.OfflineConfig{})
	st := o.PlanStats(r.rs)
	t.Logf("stats %v", st)
	if st[writer.StatOtherBudget] != 1+2 || st[writer.StatLeftOut+"_"+writer.LeftOutBudget] != 8-2 {
		t.Errorf("stats %v; want the note and ⌈√(8/3)⌉ = 2 of the 8 passages, 6 left out for the budget", st)
	}
	if i, _ := itemOf(o, r.rs, noteLate); i < 0 {
		t.Errorf("the note is not on the page")
	}
	if st[writer.StatOtherPassages] != 9 {
		t.Errorf("%d distinct passages; want the eight biographies' and the note's, 9", st[writer.StatOtherPassages])
	}
}

// The entry's length sets the life's budget of notable acts: the budget
// and the acts left out for it are in the stats.
func TestOfflineLifeBudget(t *testing.T) {
	r := shen(t)
	o := writer.NewOffline(writer.OfflineConfig{})
	st := o.PlanStats(r.rs)
	notable := 0
	for _, it := range o.Plan(r.rs) {
		if it.Kind == writer.ItemNotable {
			notable++
		}
	}
	if st[writer.StatLifeBudget] != 2 || notable != 2 || st[writer.StatLeftOut+"_"+writer.LeftOutLifeBudget] == 0 {
		t.Errorf("%d notable acts, stats %v; want the budget of 9 sentences, 2, and those left out counted", notable, st)
	}
}

// The LLM engine words the same plan: a note's item reaches the model
// with its task, its chunk first and its words as the hint, and the draft
// keeps the item's section.
func TestLLMDraftsANote(t *testing.T) {
	r := shen(t).mention("n1-0000", "n1", noteLate)
	off := writer.NewOffline(writer.OfflineConfig{})
	i, it := itemOf(off, r.rs, noteLate)
	if i < 0 {
		t.Fatal("no item for the note")
	}
	m := llmtest.Answers(`{"text": "` + noteLate + `", "citations": ["n1-0000"]}`)
	l := writer.NewLLM(writer.LLMConfig{}, writer.WithModel(m), writer.WithPlan(off))
	d, done, err := l.Draft(context.Background(), r.rs, nil, i)
	if err != nil || done {
		t.Fatalf("done %v, err %v", done, err)
	}
	if d.Section != it.Section || d.Section == "" || !slices.Equal(d.Citations, []string{"n1-0000"}) {
		t.Errorf("draft %+v; want section %q, citing the note", d, it.Section)
	}
	p := m.Prompts()[0]
	for _, want := range []string{"another document", "[1] chunk n1-0000:", noteLate} {
		if !strings.Contains(p, want) {
			t.Errorf("prompt lacks %q:\n%s", want, p)
		}
	}
	if st := l.PlanStats(r.rs); st[writer.StatOtherDevoted] != 1 {
		t.Errorf("LLM plan stats %v", st)
	}
}

// A note the linker resolved to the subject reaches his page through the
// loop and the verifier: the regeneration it triggers adds it and keeps
// every other sentence; a later regeneration for another document keeps
// it, verbatim; its retraction takes it off the page.
func TestIncrementalNoteLivesUntilRetracted(t *testing.T) {
	f := writertest.NewFixture(t)
	p := newPipe(t, f.World, kind.EngineOffline, nil)
	v1 := p.run(request("r1", "林安", nil))
	note := f.Doc(t, "n-late", writertest.Piece{Text: "林安晚年归里，筑石溪书院，讲学其中，从游者数百人。\n"})[0]
	p.plan.linked = append(p.plan.linked, note)
	v2 := p.run(request("r2", "林安", &schemas.Trigger{Reason: schemas.ReasonNewEvidence, DocIDs: []string{note.DocID}}))
	t.Logf("version 2 (%v):\n%s", v2.Stats, texts2(v2.Sentences))
	p.checkAccount(v1, v2)
	i := slices.IndexFunc(v2.Sentences, func(s schemas.PageSentence) bool { return cites(s, note.ChunkID) })
	if i < 0 || v2.Sentences[i].Text != strings.TrimSpace(note.Text) || v2.Sentences[i].Status != schemas.StatusSupported {
		t.Fatalf("version 2 does not give the note, verified and citing it")
	}
	if v2.Sentences[i].Section != "其他文献" || v2.Stats["added"] != 1 || v2.Stats["kept"] != int64(len(v1.Sentences)) {
		t.Errorf("the note in section %q, stats %v; want it added in the part for other documents, the rest kept",
			v2.Sentences[i].Section, v2.Stats)
	}

	// Another document about him, dated: the next version places it in
	// the life and keeps the note.
	dated := f.Doc(t, "n-envoy", writertest.Piece{Text: "万历十年，林安奉使朝鲜，却其馈金。\n"})[0]
	p.plan.linked = append(p.plan.linked, dated)
	v3 := p.run(request("r3", "林安", &schemas.Trigger{Reason: schemas.ReasonNewEvidence, DocIDs: []string{dated.DocID}}))
	t.Logf("version 3 (%v):\n%s", v3.Stats, texts2(v3.Sentences))
	p.checkAccount(v2, v3)
	if v3.Stats["kept"] != int64(len(v2.Sentences)) || v3.Stats["added"] != 1 {
		t.Errorf("stats %v; want version 2 kept whole and the dated note added", v3.Stats)
	}
	j := slices.IndexFunc(v3.Sentences, func(s schemas.PageSentence) bool { return cites(s, dated.ChunkID) })
	k := slices.IndexFunc(v3.Sentences, func(s schemas.PageSentence) bool { return strings.Contains(s.Text, "举进士") })
	d := slices.IndexFunc(v3.Sentences, func(s schemas.PageSentence) bool { return strings.HasPrefix(s.Text, "卒") })
	if j < 0 || k < 0 || d < 0 || j <= k || j >= d || v3.Sentences[j].Section != "生平" {
		t.Errorf("the dated note at %d (the examination of 1577 at %d, the undated death at %d); want it in the life between them",
			j, k, d)
	}
	if !slices.ContainsFunc(v3.Sentences, func(s schemas.PageSentence) bool { return cites(s, note.ChunkID) }) {
		t.Errorf("version 3 lost the note of version 2")
	}

	// The note retracted: it leaves the page, nothing cites it, the rest
	// stays.
	p.plan.gone[note.ChunkID] = true
	v4 := p.run(request("r4", "林安", &schemas.Trigger{Reason: schemas.ReasonRetracted, DocIDs: []string{note.DocID}}))
	t.Logf("version 4 (%v):\n%s", v4.Stats, texts2(v4.Sentences))
	p.checkAccount(v3, v4)
	for _, s := range v4.Sentences {
		if cites(s, note.ChunkID) {
			t.Errorf("version 4 cites the retracted note: %q", s.Text)
		}
	}
	if v4.Stats["removed"] != 1 || v4.Stats["kept"] != int64(len(v3.Sentences)-1) {
		t.Errorf("stats %v; want the note removed and every other sentence kept", v4.Stats)
	}
}

// The same under an English profile: a dated note in the life by its
// year, an undated one in the part titled in English.
func TestOfflineNotesEnglish(t *testing.T) {
	r := newRefSet("Anne Corrie", "en").
		chunk("corrie-0000", "corrie", "# Anne Corrie\n\nAnne Corrie was a Scottish botanist. She was born in Perth in 1802. "+
			"In 1830 she was appointed keeper of the Perth herbarium. Her flora of the Tay valley, printed in 1841, "+
			"listed four hundred species. She died in Edinburgh in 1871.\n").
		mention("letters-0002", "letters", "In 1856 Anne Corrie visited the gardens at Kew and sent seeds home.").
		mention("society-0000", "society", "Anne Corrie was remembered by the Perth naturalists as a generous teacher.")
	r.fact(t, "corrie-0000", schemas.RelBirth, "1802", "She was born in Perth in 1802", nil).
		fact(t, "corrie-0000", schemas.RelDeath, "1871", "She died in Edinburgh in 1871", nil)
	ds := draftAll(t, writer.NewOffline(writer.OfflineConfig{}), r.rs)
	var got []string
	for _, d := range ds {
		got = append(got, d.Section+" | "+d.Text)
	}
	want := []string{
		"Life | Anne Corrie was a Scottish botanist.",
		"Life | She was born in Perth in 1802.",
		"Life | In 1830 she was appointed keeper of the Perth herbarium.",
		"Life | Her flora of the Tay valley, printed in 1841, listed four hundred species.",
		"Life | In 1856 Anne Corrie visited the gardens at Kew and sent seeds home.",
		"Life | She died in Edinburgh in 1871.",
		"From other documents | Anne Corrie was remembered by the Perth naturalists as a generous teacher.",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("page:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	checkDrafts(t, r.rs, ds)
}
