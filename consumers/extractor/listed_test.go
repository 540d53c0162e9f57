package extractor_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/schemas"
)

// The people a volume's listing attaches to its entries (Chunk.Listed),
// where the text names them only in passing: the title written before a
// name is the person's office, two characters between the title and the
// name (or after a word that joins names) his native place, a bare name
// in a list takes the title of the item before it, a list of names
// closed by "皆X人" shares the place, a name followed by an appointment
// is appointed, and a relative's sentence ("子彦章，万历十七年进士")
// gives the relative's facts. Words of the clause around a title, verbs
// and the title of a relative are never read as the title or the place.
func TestListedPeopleInPassing(t *testing.T) {
	tests := []struct {
		name, entry, text string
		listed            []string
		want, not         []string
	}{
		{"a title and a place before each name of a list", "方震旸", "给事中祁门倪思辉、临川朱钦相疏继之。\n",
			[]string{"倪思辉朱钦相"},
			[]string{"倪思辉 office 给事中 {as=title}", "倪思辉 native_place 祁门", "朱钦相 office 给事中 {as=title}", "朱钦相 native_place 临川"},
			nil},
		{"the words of the clause are not the title", "方孝孺", "以草诏属侍读楼琏。而以新募兵二千令副将程龙分戍。\n",
			[]string{"楼琏程龙等"},
			[]string{"楼琏 office 侍读 {as=title}", "程龙 office 副将 {as=title}"},
			[]string{"楼琏 office 草诏属侍读 {as=title}", "程龙 office 二千令副将 {as=title}"}},
		{"a relative's title is not the name's", "南居益", "诱降居益及企仲子礼部主事居业。\n",
			[]string{"企仲居业"},
			[]string{"居业 office 礼部主事 {as=title}"},
			[]string{"居业 office 企仲子礼部主事 {as=title}"}},
		{"a bare name after a titled one", "张令", "急令参将张应元、汪之凤从八台山进。\n",
			[]string{"汪之凤"},
			[]string{"汪之凤 office 参将 {as=title}"}, nil},
		{"places after a joiner, not verbs", "王度", "时御史不屈死者，有诸城谢升、聊城丁志方。而怀宁甘霖从容就戮。并历诋一鹗。\n",
			[]string{"谢升丁志方甘霖", "袁一鹗"},
			[]string{"谢升 native_place 诸城", "丁志方 native_place 聊城", "甘霖 native_place 怀宁"},
			[]string{"一鹗 native_place 历诋"}},
		{"a place with 人 after 有, not a word for a disciple", "胡居仁", "有大冶人尹如翁，走三百里。受业吴与弼门人胡九韶。\n",
			[]string{"尹如翁胡九韶"},
			[]string{"尹如翁 native_place 大冶"},
			[]string{"胡九韶 native_place 弼门"}},
		{"appointed, and not the one replaced", "杨瓒", "而赵亮为庆云典史。有功，代应昌为定边副总兵。\n",
			[]string{"王懋赵亮", "子承荫孙应昌"},
			[]string{"赵亮 office 庆云典史 {verb=为}"},
			[]string{"应昌 office 定边副总兵 {verb=为}", "杨应昌 office 定边副总兵 {verb=为}"}},
		{"a place the list shares", "杨元杲", "杨元杲、阮弘道，皆滁人，家世皆儒者。\n",
			[]string{"阮弘道汪河"},
			[]string{"阮弘道 native_place 滁"}, nil},
		{"a relative's sentence", "陆树声", "陆树声，字与吉。\n子彦章，万历十七年进士。子同升，字晋卿。弟雍，广东按察使。\n",
			[]string{"子彦章同升", "弟雍"},
			[]string{"陆彦章 jinshi 万历十七年 {era=万历 year=万历十七年}", "陆雍 office 广东按察使 {as=title}"},
			[]string{"陆同升 office 字晋卿 {as=title}"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := schemas.Chunk{ChunkID: "c-1", DocID: "doc", Seq: 0, Total: 1, Profile: "liezhuan", Method: "pattern",
				Entry: tt.entry, EntryChunk: "c-1", Listed: tt.listed, End: utf8.RuneCountInString(tt.text), Text: tt.text}
			got := facts(extract(t, c))
			for _, f := range tt.want {
				if _, ok := got[f]; !ok {
					t.Errorf("missing %q", f)
				}
			}
			for _, f := range tt.not {
				if _, ok := got[f]; ok {
					t.Errorf("unexpected %q", f)
				}
			}
			if t.Failed() {
				var all []string
				for f := range got {
					all = append(all, f)
				}
				t.Logf("got %s", strings.Join(all, "; "))
			}
		})
	}
	// Without the listing the text alone does not say where such a name
	// begins: nothing is read.
	text := "给事中祁门倪思辉、临川朱钦相疏继之。\n"
	c := schemas.Chunk{ChunkID: "c-1", DocID: "doc", Seq: 0, Total: 1, Profile: "liezhuan", Method: "pattern",
		Entry: "方震旸", EntryChunk: "c-1", End: utf8.RuneCountInString(text), Text: text}
	for f, tr := range facts(extract(t, c)) {
		if strings.HasPrefix(tr.Pattern, "han.listed") {
			t.Errorf("without a listing: %q", f)
		}
	}
}
