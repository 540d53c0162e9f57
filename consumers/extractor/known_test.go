package extractor_test

import (
	"context"
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/consumers/extractor"
	"github.com/annalist-dev/annalist/infra/kg"
	"github.com/annalist-dev/annalist/infra/redis/redistest"
	"github.com/annalist-dev/annalist/schemas"
)

// archiveChunk is a chunk of an archive book: no entry, resolved by name.
func archiveChunk(id, text string) schemas.Chunk {
	return schemas.Chunk{
		ChunkID: id, DocID: "doc-" + id, Seq: 0, Total: 1, Profile: extractor.ProfileGeneric, Method: "window",
		Start: 0, End: utf8.RuneCountInString(text), Text: text,
	}
}

// TestFactsOfKnownPersonsOutsideEntries runs the extractor on archive text
// against a real KG that knows 陆文渊 and 顾承泽 from their entries.
func TestFactsOfKnownPersonsOutsideEntries(t *testing.T) {
	ctx := context.Background()
	store, err := kg.New(redistest.Client(t), kg.Config{})
	if err != nil {
		t.Fatal(err)
	}
	entries := append(extract(t, chunk("c-lu", "陆文渊", entryLu)), extract(t, chunk("c-gu", "顾承泽", entryGu))...)
	if _, err := store.Apply(ctx, schemas.DefaultTenant, entries, nil); err != nil {
		t.Fatal(err)
	}
	const archive = "十二月，陆文渊举嘉靖二十年进士。沈懋学，隆庆元年卒。顾承泽迁郎中，文渊荐之。\n" +
		"是年，顾承泽卒于官，年六十。王畿字汝中，别号龙溪，浙之山阴人。"
	x := extractor.New(extractor.Config{}, extractor.WithPersons(store))
	ts, err := x.Extract(ctx, "", archiveChunk("a1", archive))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tr := range ts {
		checkTriplet(t, archiveChunk("a1", archive), tr)
		if tr.EntryChunk != "" || tr.Entry != "" {
			t.Errorf("%s: a fact outside entries carries entry %q/%q", fact(tr), tr.Entry, tr.EntryChunk)
		}
		got = append(got, fact(tr)+" @"+tr.Pattern)
	}
	want := []string{
		// A known person opening a sentence, after a date.
		"陆文渊 jinshi 嘉靖二十年 {era=嘉靖 year=嘉靖二十年} @han.jinshi.known",
		"顾承泽 office 郎中 {verb=迁} @han.office.known",
		"顾承泽 death 六十 {age=六十 place=官} @han.death.known",
		// A life opened the Mingru xuean way, county after its province.
		"王畿 mentions  @han.mention",
		"王畿 courtesy_name 汝中 @han.header.courtesy_name",
		"王畿 art_name 龙溪 @han.header.art_name",
		"王畿 native_place 山阴 @han.header.native_place",
	}
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("missing %q", w)
		}
	}
	for _, g := range got {
		// 沈懋学 is not a person the KG knows: his death is not taken.
		if g == "沈懋学 death 隆庆元年 {time=隆庆元年} @han.death.known" {
			t.Errorf("a fact of an unknown name: %s", g)
		}
	}
	if len(got) != len(want) {
		t.Errorf("got %d facts, want %d:\n%v", len(got), len(want), got)
	}

	// Without the KG the same chunk gives only what it introduces itself.
	plain, err := extractor.New(extractor.Config{}).Extract(ctx, "", archiveChunk("a1", archive))
	if err != nil {
		t.Fatal(err)
	}
	if len(plain) != 4 {
		t.Errorf("without persons: %d facts, want the 4 of 王畿's opening", len(plain))
	}

	// An entry chunk is not read for known persons: its heads are anchored
	// to the entry.
	in := chunk("c-lu2", "陆文渊", "顾承泽迁郎中。")
	ents, err := x.Extract(ctx, "", in)
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range ents {
		if tr.Head == "顾承泽" {
			t.Errorf("entry chunk gave a known person's fact: %s", fact(tr))
		}
	}
}

// TestEnglishBracketedNames reads names glossed in brackets.
func TestEnglishBracketedNames(t *testing.T) {
	ts := extract(t, englishChunk("e1", "In 1604 Ye Xianggao (courtesy name Jinqing) of Fuqing was made grand secretary."))
	got := facts(ts)
	for _, w := range []string{"Ye Xianggao courtesy_name Jinqing", "Ye Xianggao native_place Fuqing"} {
		if _, ok := got[w]; !ok {
			t.Errorf("missing %q in %v", w, ts)
		}
	}
}
