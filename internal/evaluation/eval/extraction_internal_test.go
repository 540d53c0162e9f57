package eval

import (
	"slices"
	"testing"

	"github.com/annalist-dev/annalist/schemas"
)

func TestAttachedPeople(t *testing.T) {
	tests := []struct {
		name, doc string
		want      []listedPerson
	}{
		{"kinship word and given names", "刘基(子琏璟)宋濂\n刘基，字伯温，青田人。\n子琏，字孟藻。璟，字仲璟。\n",
			[]listedPerson{{"刘琏", "琏", ""}, {"刘璟", "璟", ""}}},
		{"full names, one of a surname that is a kinship word", "马从谦(孙允中狄斯彬)\n马从谦，字益之，溧阳人。\n孙允中，字执甫。狄斯彬，字文周。\n",
			[]listedPerson{{"孙允中", "孙允中", "马允中"}, {"狄斯彬", "狄斯彬", ""}}},
		{"a brother by his given name", "钱士升(士晋)\n钱士升，字抑之，嘉善人。\n士晋，字康侯。\n",
			[]listedPerson{{"钱士晋", "士晋", ""}}},
		{"a title line lists no one", "◎宦官\n郑和，云南人。\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := attachedPeople(tt.doc); !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestHeldOutVolume(t *testing.T) {
	for _, tc := range []struct {
		file string
		rank int
		want bool
	}{{"v/001.txt", 0, true}, {"v/002.txt", 1, false}, {"v/004.txt", 3, true}, {"v/notes.txt", 0, false}} {
		if got := heldOutVolume(tc.file, tc.rank); got != tc.want {
			t.Errorf("heldOutVolume(%s, %d) = %v", tc.file, tc.rank, got)
		}
	}
}

func TestAttachedPeopleKinship(t *testing.T) {
	tests := []struct {
		name, doc string
		want      []listedPerson
	}{
		{"a clan elder by his given name", "张邦奇(族父时彻)\n张邦奇，字常甫，鄞人。\n族父时彻，少邦奇二十岁。\n",
			[]listedPerson{{"张时彻", "时彻", ""}}},
		{"a clan uncle", "宋玫(族叔应亨)\n宋玫，字文玉，莱阳人。\n玫偕族叔应亨同举进士。\n",
			[]listedPerson{{"宋应亨", "应亨", ""}}},
		{"the son of the person listed before", "吴兑(孙孟明孟明子邦辅)\n吴兑，字君泽，山阴人。\n孙孟明，袭锦衣千户。子邦辅袭职。\n",
			[]listedPerson{{"孙孟明", "孙孟明", "吴孟明"}, {"孙邦辅", "邦辅", ""}}},
		{"a brother of the person listed before", "钱龙锡(钱士升士晋)\n钱龙锡，字稚文，松江人。\n钱士升，字抑之。弟士晋，由进士除刑部主事。\n",
			[]listedPerson{{"钱士升", "钱士升", ""}, {"钱士晋", "士晋", ""}}},
		{"a grandson and his brother by their given names", "陶谐(孙大顺大临)\n陶谐，字世和，会稽人。\n孙大顺，字景熙。\n弟大临，字虞臣。\n",
			[]listedPerson{{"孙大顺", "孙大顺", "陶大顺"}, {"大临", "大临", "陶大临"}}},
		{"等 closes a group", "朱谦(子永孙晖等)\n朱谦，字和之，夏邑人。\n子永，嗣。永子晖，字东阳。与晖等出塞。\n",
			[]listedPerson{{"朱永", "永", ""}, {"朱晖", "晖", ""}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := attachedPeople(tt.doc); !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// An attached person's chunks keep the main person's EntryChunk; their
// facts are scored for the attached person, and the main person's text
// after them is his again.
func TestScoreVolumeAttachedEntries(t *testing.T) {
	chunks := []schemas.Chunk{
		{ChunkID: "v-0", Subject: "林安", Entry: "林安", EntryChunk: "v-0", Text: "林安，字子静。"},
		{ChunkID: "v-1", Subject: "周明", SubEntry: "周明", Attached: true, Main: "林安", Entry: "林安", EntryChunk: "v-0",
			Text: "又吴人周明，字子光。"},
		{ChunkID: "v-2", Entry: "林安", EntryChunk: "v-0", Text: "安弘治三年卒。"},
	}
	ts := []schemas.Triplet{
		{ChunkID: "v-0", EntryChunk: "v-0", Head: "林安", Relation: schemas.RelCourtesyName, Tail: "子静"},
		{ChunkID: "v-1", EntryChunk: "v-0", Head: "周明", Relation: schemas.RelCourtesyName, Tail: "子光"},
		{ChunkID: "v-2", EntryChunk: "v-0", Head: "林安", Relation: schemas.RelDeath, Tail: "弘治三年"},
	}
	sc := newSplitCounts()
	if errs := newGoldReader().scoreVolume("v", chunks, ts, sc); len(errs) != 0 {
		t.Errorf("errors %+v", errs)
	}
	if c := sc.rels[schemas.RelCourtesyName]; c.Found != 2 || c.Correct != 2 {
		t.Errorf("courtesy names %+v, want both found", *c)
	}
	if d := sc.rels[schemas.RelDeath]; d.Found != 1 {
		t.Errorf("death %+v, want the main person's death found after the attached entry", *d)
	}
}
