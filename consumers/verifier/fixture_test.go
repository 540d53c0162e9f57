package verifier_test

import (
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/schemas"
)

// The fixture is a made-up Ming official, 林敬安, written for these tests
// in the liezhuan manner: his entry (two chunks), another man's entry that
// shares nothing with him but the form, and an archive note that gives
// him another native place.
const (
	chunkEntry    = "fx-0001"
	chunkEntry2   = "fx-0002"
	chunkOther    = "fx-0003"
	chunkArchive  = "fx-0004"
	textEntry     = "林敬安，字守拙，号南溪，莆田人。父文远，以教授乡里为业。敬安少颖悟，举万历十一年进士，授行人，迁吏部主事。二十六年，擢太常寺少卿，上疏论边储之弊，言甚切直。三十五年五月，进礼部右侍郎。四十年，以疾乞归。天启二年卒，年七十一，谥文恪。"
	textEntry2    = "敬安为人宽厚，居乡不预外事。其子林澄，字清之，崇祯元年进士，官至福建按察使。"
	textOther     = "陈慎之，字子敏，南昌人。嘉靖四十四年进士，授南京户部主事，历知庐州府。隆庆三年，擢右佥都御史，巡抚宁夏。万历二年卒。"
	textArchive   = "林敬安，仙游人，以清节著。"
	fixtureName   = "林敬安"
	englishChunk  = "en-0001"
	englishText   = "Thomas Ellery was born in 1820 in Bristol. He was appointed harbour master of Gloucester in 1851. He retired to Clifton and died in 1890, aged 71."
	englishPerson = "Thomas Ellery"
)

// fact is a KG fact of the fixture: the evidence is found in the chunk
// text, so its span is right by construction.
func fact(t testing.TB, rel, value, chunk, chunkText, evidence string) schemas.KGFact {
	t.Helper()
	i := strings.Index(chunkText, evidence)
	if i < 0 {
		t.Fatalf("fixture: evidence %q not in chunk %s", evidence, chunk)
	}
	s := len([]rune(chunkText[:i]))
	return schemas.KGFact{Relation: rel, Value: value, ChunkID: chunk, Evidence: evidence,
		Span: schemas.Span{Start: s, End: s + len([]rune(evidence))}}
}

// fixtureRefs is 林敬安's reference set: his entry, the other man's entry
// as a neighbour, and his KG facts.
func fixtureRefs(t testing.TB) *schemas.ReferenceSet {
	t.Helper()
	return &schemas.ReferenceSet{
		Subject: fixtureName, Name: fixtureName, EntityID: "person:" + fixtureName, Lang: "zh",
		Aliases: []string{fixtureName, "守拙", "南溪"},
		References: []schemas.Reference{
			{ChunkID: chunkEntry, DocID: "fx", Text: textEntry, Score: 1, Source: schemas.SourceEntity},
			{ChunkID: chunkEntry2, DocID: "fx", Text: textEntry2, Score: 0.9, Source: schemas.SourceEntity},
			{ChunkID: chunkOther, DocID: "fx", Text: textOther, Score: 0.2, Source: schemas.SourceNeighbour},
		},
		Facts: []schemas.KGFact{
			fact(t, schemas.RelCourtesyName, "守拙", chunkEntry, textEntry, "字守拙"),
			fact(t, schemas.RelArtName, "南溪", chunkEntry, textEntry, "号南溪"),
			fact(t, schemas.RelNativePlace, "莆田", chunkEntry, textEntry, "莆田人"),
			fact(t, schemas.RelJinshi, "万历十一年", chunkEntry, textEntry, "举万历十一年进士"),
			fact(t, schemas.RelOffice, "行人", chunkEntry, textEntry, "授行人"),
			fact(t, schemas.RelOffice, "吏部主事", chunkEntry, textEntry, "迁吏部主事"),
			fact(t, schemas.RelOffice, "太常寺少卿", chunkEntry, textEntry, "擢太常寺少卿"),
			fact(t, schemas.RelOffice, "礼部右侍郎", chunkEntry, textEntry, "进礼部右侍郎"),
			fact(t, schemas.RelDeath, "天启二年", chunkEntry, textEntry, "天启二年卒"),
			fact(t, schemas.RelDeathAge, "七十一", chunkEntry, textEntry, "天启二年卒，年七十一"),
		},
	}
}

// withArchive adds the archive note and its native place: the references
// then disagree on where 林敬安 came from.
func withArchive(t testing.TB, rs *schemas.ReferenceSet) *schemas.ReferenceSet {
	t.Helper()
	rs.References = append(rs.References, schemas.Reference{ChunkID: chunkArchive, DocID: "ar", Text: textArchive,
		Score: 0.5, Source: schemas.SourceEntity})
	rs.Facts = append(rs.Facts, fact(t, schemas.RelNativePlace, "仙游", chunkArchive, textArchive, "仙游人"))
	return rs
}

// englishRefs is a one-chunk English reference set.
func englishRefs() *schemas.ReferenceSet {
	return &schemas.ReferenceSet{
		Subject: englishPerson, Name: englishPerson, Lang: "en", Aliases: []string{englishPerson},
		References: []schemas.Reference{{ChunkID: englishChunk, DocID: "en", Text: englishText, Score: 1,
			Source: schemas.SourceEntity}},
		Facts: []schemas.KGFact{{Relation: schemas.RelDeathAge, Value: "71", ChunkID: englishChunk,
			Evidence: "died in 1890, aged 71"}},
	}
}
