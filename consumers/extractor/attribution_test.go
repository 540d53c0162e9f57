package extractor_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/consumers/chunker"
	"github.com/annalist-dev/annalist/consumers/extractor"
	"github.com/annalist-dev/annalist/internal/evaluation/dataset/datasettest"
	"github.com/annalist-dev/annalist/schemas"
)

// The rules that keep another person's facts from the entry's person,
// each on invented text in the manner of the biographies.
func TestAttribution(t *testing.T) {
	tests := []struct {
		name, entry, text string
		want, not         []string
	}{
		{
			name: "a death after the head's death is told is someone else's", entry: "林安",
			text: "林安，字子静，莆田人。嘉靖七年卒于官，年五十七。\n林安既卒，其党论之。始安无子，育弟子正为后。晚年生子正亿。既长，袭锦衣副千户。万历五年卒。\n",
			want: []string{"林安 death 嘉靖七年 {age=五十七 place=官 time=嘉靖七年}"},
			not:  []string{"林安 death 万历五年 {time=万历五年}"},
		},
		{
			name: "an office after the verb names a relative", entry: "林安",
			text: "林安，字子静，莆田人。举嘉靖二年进士。\n十三年，安孙同敞请复故官。帝授同敞中书舍人。\n同敞负志节，益自奋。擢兵部右侍郎。\n",
			want: []string{"林安 jinshi 嘉靖二年 {era=嘉靖 year=嘉靖二年}"},
			not:  []string{"林安 office 同敞中书舍人 {verb=授}", "林安 office 中书舍人 {verb=授}", "林安 office 兵部右侍郎 {verb=擢}"},
		},
		{
			name: "one native place per opening", entry: "王莹",
			text: "王莹，鄞人，起家举人。\n",
			want: []string{"王莹 native_place 鄞"},
			not:  []string{"王莹 native_place 起家"},
		},
		{
			name: "went by the courtesy name just given", entry: "戴思恭",
			text: "戴思恭，字原礼，浦江人，以字行。\n",
			want: []string{"戴思恭 courtesy_name 原礼"},
			not:  []string{"戴思恭 courtesy_name 思恭 {note=以字行}"},
		},
		{
			name: "a semicolon ends an opening", entry: "尹竑",
			text: "尹竑，字太和，巴人；童存德，字居敬，兰溪人。俱进士，官御史。\n",
			want: []string{"尹竑 courtesy_name 太和", "尹竑 native_place 巴", "童存德 courtesy_name 居敬", "童存德 native_place 兰溪"},
			not:  []string{"尹竑 courtesy_name 居敬"},
		},
		{
			name: "a person introduced after a time or a colon", entry: "林安",
			text: "林安，字子静，莆田人。\n洪武初，有张琬者，鄱阳人。授给事中。\n同时殉难者：萧震，侯官人。顺治九年进士。\n",
			want: []string{"张琬 native_place 鄱阳", "萧震 native_place 侯官", "萧震 jinshi 顺治九年 {era=顺治 year=顺治九年}"},
			not:  []string{"林安 jinshi 顺治九年 {era=顺治 year=顺治九年}", "林安 office 给事中 {verb=授}"},
		},
		{
			name: "a degree of a year is no place", entry: "胡宝瑔",
			text: "胡宝瑔，字泰舒，江南歙县人。宝瑔，雍正元年举人。\n",
			want: []string{"胡宝瑔 native_place 江南歙县"},
			not:  []string{"胡宝瑔 native_place 雍正元年"},
		},
		{
			name: "a paragraph that opens with another person and his degree", entry: "许安",
			text: "许安，字启衷，长乐人。弘治六年进士。\n平定郗夔，弘治十五年进士，为礼科给事中。\n",
			want: []string{"许安 jinshi 弘治六年 {era=弘治 year=弘治六年}"},
			not:  []string{"许安 jinshi 弘治十五年 {era=弘治 year=弘治十五年}"},
		},
		{
			name: "a paragraph that opens with whose relative he is", entry: "中藻",
			text: "中藻，江西新建人。乾隆元年进士。\n鄂乐舜亦鄂尔泰从子，初名鄂敏。雍正八年进士，改庶吉士。\n",
			want: []string{"中藻 jinshi 乾隆元年 {era=乾隆 year=乾隆元年}", "鄂乐舜 jinshi 雍正八年 {era=雍正 year=雍正八年}", "鄂乐舜 alias 鄂敏 {as_written=鄂敏 kind=初名}"},
			not:  []string{"中藻 jinshi 雍正八年 {era=雍正 year=雍正八年}"},
		},
		{
			name: "a paragraph that opens with a relative by kinship word and given name", entry: "樊玉衡",
			text: "樊玉衡，字以吉，黄冈人。万历十一年进士。\n子维城，举万历四十七年进士。除海盐知县。\n",
			want: []string{"樊玉衡 jinshi 万历十一年 {era=万历 year=万历十一年}",
				"樊维城 jinshi 万历四十七年 {era=万历 year=万历四十七年}", "樊维城 office 海盐知县 {verb=除}"},
			not: []string{"樊玉衡 jinshi 万历四十七年 {era=万历 year=万历四十七年}", "樊玉衡 office 海盐知县 {verb=除}"},
		},
		{
			name: "a paragraph that opens with a name and his degree", entry: "林安",
			text: "林安，字子静，莆田人。\n涂棐，天顺四年进士。授御史。\n",
			want: []string{"涂棐 jinshi 天顺四年 {era=天顺 year=天顺四年}", "涂棐 office 御史 {verb=授}"},
			not:  []string{"林安 office 御史 {verb=授}"},
		},
		{
			name: "an office after 官 opening a clause", entry: "孙鑨",
			text: "孙鑨，字文中，余姚人。百官皆贺。\n子如法，官刑部主事。\n",
			want: []string{"孙如法 office 刑部主事 {verb=官}"},
		},
		{
			name: "the passive: the title between 为 and 所 is the agent's", entry: "林安",
			text: "林安，字子静，莆田人。授南京兵部主事，为尚书王恕所知。后以事忤中官，为给事中李侃、御史张奎所劾，罢归。\n",
			want: []string{"林安 office 南京兵部主事 {verb=授}", "王恕 office 尚书 {verb=为}", "李侃 office 给事中 {verb=为}"},
			not:  []string{"林安 office 尚书 {verb=为}", "林安 office 给事中 {verb=为}"},
		},
		{
			name: "the head angered by another sends him out", entry: "林安",
			text: "林安，字子静，莆田人。累迁礼部尚书兼东阁大学士。给事中王宗言其专擅，安怒，出为佥事。\n",
			want: []string{"林安 office 礼部尚书兼东阁大学士 {verb=累迁}"},
			not:  []string{"林安 office 佥事 {verb=出为}"},
		},
		{
			name: "the head who protests is sent out himself", entry: "林安",
			text: "林安，字子静，莆田人。擢御史。及宫后室灾，安力争，出为饶州知府。\n",
			want: []string{"林安 office 饶州知府 {verb=出为}"},
		},
		{
			name: "another person's career told in passing", entry: "林安",
			text: "林安，字子静，莆田人。擢御史。与同里赵汝翥善。汝翥起家乡举，知沛县，坚守不下，由此擢御史。\n",
			want: []string{"赵汝翥 office 御史 {verb=擢}"},
		},
		{
			name: "a person in power who appoints the head", entry: "林安",
			text: "林安，字子静，莆田人。天启中，赵南星秉铨，召为考功员外郎。尚书王恕亦器之，擢河南按察使。\n",
			want: []string{"林安 office 考功员外郎 {verb=召为}", "林安 office 河南按察使 {verb=擢}"},
		},
		{
			name: "a name after his office", entry: "林安",
			text: "林安，字子静，莆田人。\n又都给事中龚泰，义乌人。由乡荐起家。\n",
			want: []string{"龚泰 native_place 义乌"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			expectFacts(t, facts(extract(t, chunk("c-1", tt.entry, tt.text))), tt.want, tt.not)
		})
	}
}

// TestMisattributionsOnTheHistoryOfMing checks, on the real volumes, the
// facts found credited to the wrong person: 王守仁's son's death
// (万历五年), the offices of 张居正's great-grandson 同敞 and the post 李涞
// was sent out to when 张居正 was angered.
func TestMisattributionsOnTheHistoryOfMing(t *testing.T) {
	dir := datasettest.Require(t, "mingshi-liezhuan")
	ctx := context.Background()
	ch := chunker.New(chunker.Config{})
	ex := extractor.New(extractor.Config{})
	of := func(vol, person string) []schemas.Triplet {
		b, err := os.ReadFile(filepath.Join(dir, vol+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		chunks, err := ch.Chunk(ctx, schemas.Document{DocID: "mingshi-" + vol, Text: string(b), Profile: "liezhuan"})
		if err != nil {
			t.Fatal(err)
		}
		var out []schemas.Triplet
		for _, c := range chunks {
			ts, err := ex.Extract(ctx, "", c)
			if err != nil {
				t.Fatal(err)
			}
			for _, tr := range ts {
				if tr.Head == person {
					out = append(out, tr)
				}
			}
		}
		if len(out) == 0 {
			t.Fatalf("%s has no facts in volume %s", person, vol)
		}
		return out
	}
	for _, tr := range of("083", "王守仁") {
		if tr.Relation == schemas.RelDeath && tr.Tail == "万历五年" {
			t.Errorf("王守仁 death 万历五年, his son's (evidence %q)", tr.Evidence)
		}
	}
	offices := 0
	for _, tr := range of("101", "张居正") {
		if tr.Relation != schemas.RelOffice {
			continue
		}
		offices++
		switch {
		case strings.Contains(tr.Tail, "同敞"):
			t.Errorf("张居正 office %q names 同敞", tr.Tail)
		case tr.Tail == "尚宝卿" || tr.Tail == "兵部右侍郎兼翰林侍读学士" || tr.Tail == "侍读学士" || tr.Tail == "指挥佥事":
			t.Errorf("张居正 office %q is 同敞's", tr.Tail)
		case tr.Tail == "佥事" && strings.Contains(tr.Evidence, "出为"):
			// "给事中李涞言其非礼，居正怒，出为佥事": 李涞 was sent out.
			t.Errorf("张居正 office 佥事 (evidence %q) is 李涞's", tr.Evidence)
		}
	}
	if offices < 5 {
		t.Errorf("张居正 has %d offices; his own career is lost", offices)
	}
}
