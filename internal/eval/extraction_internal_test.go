package eval

import (
	"slices"
	"testing"
)

func TestAttachedPeople(t *testing.T) {
	tests := []struct {
		name, doc string
		want      []listedPerson
	}{
		{"kinship word and given names", "刘基(子琏璟)宋濂\n刘基，字伯温，青田人。\n子琏，字孟藻。璟，字仲璟。\n",
			[]listedPerson{{"刘琏", "琏"}, {"刘璟", "璟"}}},
		{"full names, one of a surname that is a kinship word", "马从谦(孙允中狄斯彬)\n马从谦，字益之，溧阳人。\n孙允中，字执甫。狄斯彬，字文周。\n",
			[]listedPerson{{"孙允中", "孙允中"}, {"狄斯彬", "狄斯彬"}}},
		{"a brother by his given name", "钱士升(士晋)\n钱士升，字抑之，嘉善人。\n士晋，字康侯。\n",
			[]listedPerson{{"钱士晋", "士晋"}}},
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
