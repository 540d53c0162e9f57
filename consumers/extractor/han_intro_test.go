package extractor_test

import (
	"testing"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/schemas"
)

// An attached person's chunk whose opening writes the person after a
// place ("潞城赵泰") gives the opening's facts to him; a degree written
// right after that opening is his; an appointment written after the
// standing it was made from ("以进士授行人") is his office.
func TestIntroducedAttachedPerson(t *testing.T) {
	tests := []struct {
		name, entry, sub, text string
		want                   []string
	}{
		{"a place before the name", "卓信", "赵泰", "潞城赵泰，字熙和。由乡举入国子监。\n",
			[]string{"卓信 mentions ", "赵泰 mentions ", "赵泰 courtesy_name 熙和"}},
		{"an office before the name", "张澯", "胡琏", "郎中胡琏，字重器，新喻人。\n",
			[]string{"张澯 mentions ", "胡琏 mentions ", "胡琏 courtesy_name 重器", "胡琏 native_place 新喻"}},
		{"a place of more characters before the name", "王观", "罗性", "卓同邑罗性，字子理。\n",
			[]string{"王观 mentions ", "罗性 mentions ", "罗性 courtesy_name 子理"}},
		{"named after the words that say who he was", "周弘祖", "邓洪震", "当隆庆初，以地震言事者，又有邓洪震，宣化人。\n",
			[]string{"周弘祖 mentions ", "邓洪震 mentions ", "邓洪震 native_place 宣化"}},
		{"a degree after a place and the name", "周玺", "周钥", "海阳周钥，弘治十五年进士。\n",
			[]string{"周玺 mentions ", "周钥 mentions ", "周钥 jinshi 弘治十五年 {era=弘治 year=弘治十五年}"}},
		{"an appointment after the standing", "陶谐", "陶滋", "子滋，以进士授行人。\n",
			[]string{"陶谐 mentions ", "陶滋 mentions ", "陶谐 relative 陶滋 {as_written=滋 kin=子}", "陶滋 office 行人 {verb=授}"}},
		{"a given name the header rules alone take for a time", "马从谦", "杨允中", "允中，太原人。\n",
			[]string{"马从谦 mentions ", "杨允中 mentions ", "杨允中 native_place 太原"}},
		{"a stop for the comma before the courtesy name", "陈迪", "王准", "王准。字子推，世籍秦府。\n",
			[]string{"陈迪 mentions ", "王准 mentions ", "王准 courtesy_name 子推"}},
		{"who he was, an office, and 为 opening a clause", "王度", "徐均", "时有徐均者，阳春主簿也。为礼部侍郎，为御史所劾。\n",
			[]string{"王度 mentions ", "徐均 mentions ", "徐均 office 阳春主簿 {verb=也}", "徐均 office 礼部侍郎 {verb=为}"}},
		{"a native place closed by 也", "徐从治", "余大成", "余大成者，江宁人也。不知兵。\n",
			[]string{"徐从治 mentions ", "余大成 mentions ", "余大成 native_place 江宁"}},
		{"a magistrate", "卢熙", "王士弘", "又王士弘者，知宁海县。民赖以安。\n",
			[]string{"卢熙 mentions ", "王士弘 mentions ", "王士弘 office 知县 {place=宁海 verb=知}"}},
		{"his place before his name, then the degree", "吴伯宗", "任亨泰", "襄阳任亨泰亦举洪武二十一年进士第一。\n",
			[]string{"吴伯宗 mentions ", "任亨泰 mentions ", "任亨泰 jinshi 洪武二十一年 {era=洪武 rank=第一 year=洪武二十一年}"}},
		{"promoted from a post, and rank won by merit", "薛祥", "赵俊", "赵俊者，不知何许人。自工部侍郎进尚书。积功至副总兵。\n",
			[]string{"薛祥 mentions ", "赵俊 mentions ", "赵俊 office 尚书 {verb=进}", "赵俊 office 副总兵 {verb=积功至}"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := schemas.Chunk{ChunkID: "c-2", DocID: "doc", Seq: 1, Total: 2, Profile: "liezhuan", Method: "pattern",
				Entry: tt.entry, EntryChunk: "c-1", SubEntry: tt.sub, Subject: tt.sub, Attached: true, Main: tt.entry,
				End: utf8.RuneCountInString(tt.text), Text: tt.text}
			checkFacts(t, facts(extract(t, c)), tt.want)
		})
	}
}

// Relatives' paragraphs inside an entry: offices after 历 (held in
// turn) and 仕至 (rose to), and a courtesy name written on after the
// given name and closed by a stop.
func TestRelativeParagraphs(t *testing.T) {
	tests := []struct {
		name, entry, text string
		want              []string
	}{
		{"历 and a list of offices", "孙居相", "孙居相，字伯辅。\n弟鼎相，历吏部郎中，巡抚湖广。\n",
			[]string{"孙居相 mentions ", "孙居相 courtesy_name 伯辅", "孙居相 relative 孙鼎相 {kin=弟}", "孙鼎相 mentions ",
				"孙鼎相 office 吏部郎中 {verb=历}"}},
		{"rose to", "张邦奇", "张邦奇，字常甫。\n族父时彻，受业于邦奇。仕至南京兵部尚书。\n",
			[]string{"张邦奇 mentions ", "张邦奇 courtesy_name 常甫", "张邦奇 relative 张时彻 {kin=族父}", "张时彻 mentions ",
				"张时彻 office 南京兵部尚书 {verb=仕至}"}},
		{"courtesy name closed by a stop", "瞿景淳", "瞿景淳，字师道。\n子汝稷、汝说。汝稷字元立。好学。\n",
			[]string{"瞿景淳 mentions ", "瞿景淳 courtesy_name 师道", "瞿景淳 relative 瞿汝稷 {as_written=汝稷 kin=子}",
				"瞿景淳 relative 瞿汝说 {as_written=汝说 kin=子}", "瞿汝稷 mentions ", "瞿汝稷 courtesy_name 元立"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := schemas.Chunk{ChunkID: "c-1", DocID: "doc", Seq: 0, Total: 1, Profile: "liezhuan", Method: "pattern",
				Subject: tt.entry, Entry: tt.entry, EntryChunk: "c-1", End: utf8.RuneCountInString(tt.text), Text: tt.text}
			checkFacts(t, facts(extract(t, c)), tt.want)
		})
	}
}
