package extractor_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/schemas"
)

// subChunk is a continuation chunk of entry's entry (begun by chunk
// "c-1") that begins the sub-entry of sub.
func subChunk(entry, sub, text string) schemas.Chunk {
	return schemas.Chunk{
		ChunkID: "c-2", DocID: "doc", Seq: 1, Total: 2, Profile: "liezhuan", Method: "pattern",
		Entry: entry, EntryChunk: "c-1", SubEntry: sub, End: utf8.RuneCountInString(text), Text: text,
	}
}

// checkFacts fails unless got holds exactly want.
func checkFacts(t *testing.T, got map[string]schemas.Triplet, want []string) {
	t.Helper()
	w := map[string]bool{}
	for _, f := range want {
		w[f] = true
		if _, ok := got[f]; !ok {
			t.Errorf("missing %q", f)
		}
	}
	for f := range got {
		if !w[f] {
			t.Errorf("unexpected %q", f)
		}
	}
}

// A chunk that begins a sub-entry gives the facts of its opening text to
// the sub-entry's person, keeps the entry (so the KG anchors both people
// to it as two entities), and links the entry's person to him when the
// text gives the kinship.
func TestSubEntryChunks(t *testing.T) {
	tests := []struct {
		name, entry, sub, text string
		want                   []string
	}{
		{
			name: "given name alone, no formula the header patterns know", entry: "梁正言", sub: "梁正和",
			text: "正和，举人。历官广西参议，以廉称。万历十年卒。\n",
			want: []string{
				"梁正言 mentions ", "梁正和 mentions ",
				"梁正和 office 广西参议 {verb=历官}",
				"梁正和 death 万历十年 {time=万历十年}",
			},
		},
		{
			name: "kinship word and courtesy name", entry: "陆文渊", sub: "陆琮",
			text: "子琮，字季玉，以荫为中书舍人，能守家法。万历二年卒。\n",
			want: []string{
				"陆文渊 mentions ", "陆琮 mentions ",
				"陆文渊 relative 陆琮 {kin=子}",
				"陆琮 courtesy_name 季玉",
				"陆琮 death 万历二年 {time=万历二年}",
			},
		},
		{
			name: "kinship word without a header", entry: "陈远山", sub: "陈恭",
			text: "子恭，举人，累官工部尚书，有能声。\n",
			want: []string{
				"陈远山 mentions ", "陈恭 mentions ",
				"陈远山 relative 陈恭 {as_written=恭 kin=子}",
				"陈恭 office 工部尚书 {verb=累官}",
			},
		},
		{
			name: "attached person of another surname by given name", entry: "古文英", sub: "向宝",
			text: "宝，字克忠，进贤人。洪武中，授御史，以直言闻。\n",
			want: []string{
				"古文英 mentions ", "向宝 mentions ",
				"向宝 courtesy_name 克忠",
				"向宝 native_place 进贤",
				"向宝 office 御史 {verb=授}",
			},
		},
		{
			name: "surname 孙 is not grandson", entry: "陶士仪", sub: "孙作",
			text: "孙作，字大雅，江阴人。洪武初，授编修。\n",
			want: []string{
				"陶士仪 mentions ", "孙作 mentions ",
				"孙作 courtesy_name 大雅",
				"孙作 native_place 江阴",
				"孙作 office 编修 {verb=授}",
			},
		},
		{
			name: "the sub-entry person's own son", entry: "许定", sub: "许用和",
			text: "用和，字子平，以荫授官。子维新，官知府。\n",
			want: []string{
				"许定 mentions ", "许用和 mentions ",
				"许用和 courtesy_name 子平",
				"许用和 relative 许维新 {as_written=维新 kin=子}",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := subChunk(tt.entry, tt.sub, tt.text)
			ts := extract(t, c)
			checkFacts(t, facts(ts), tt.want)
			for _, tr := range ts {
				if tr.Entry != tt.entry || tr.EntryChunk != "c-1" {
					t.Errorf("%s: entry %q/%q, want the chunk's", fact(tr), tr.Entry, tr.EntryChunk)
				}
			}
		})
	}
}

// Hereditary titles pass down in successions ("子靖王瑞燧嗣"): each heir's
// death and offices are his, not the entry person's, and each heir is
// linked to the holder before him.
func TestSuccessions(t *testing.T) {
	tests := []struct {
		name, entry, text string
		begins            bool
		want              []string
	}{
		{
			name: "a prince's line", entry: "云王柏", begins: true,
			text: "云康王柏，高宗第二子。永乐二年封，就藩大同。二十年薨。子靖王瑞燧嗣，宣德三年薨。无子，弟简王瑞炯由石泉王嗣，正统五年薨。\n" +
				"子惠王成钧嗣。好学，善属文。召为宗人令。成化十年薨。\n",
			want: []string{
				"云王柏 mentions ",
				"云王柏 death 二十年 {time=二十年}",
				"云王柏 relative 瑞燧 {kin=子 succession=1}", "瑞燧 mentions ",
				"瑞燧 death 宣德三年 {time=宣德三年}",
				"瑞燧 relative 瑞炯 {kin=弟 succession=1}", "瑞炯 mentions ",
				"瑞炯 death 正统五年 {time=正统五年}",
				"瑞炯 relative 成钧 {kin=子 succession=1}", "成钧 mentions ",
				"成钧 office 宗人令 {verb=召为}",
				"成钧 death 成化十年 {time=成化十年}",
			},
		},
		{
			name: "a noble's heirs take the family surname", entry: "韩定", begins: true,
			text: "韩定，字安国，凤阳人。从太祖起兵，累官都督同知。洪武十年卒。\n" +
				"子成嗣，累官右军都督佥事。永乐三年卒。子俊嗣。\n" +
				"俊卒，弟杰嗣。杰出为宣府总兵，天顺初卒。\n",
			want: []string{
				"韩定 mentions ",
				"韩定 courtesy_name 安国",
				"韩定 native_place 凤阳",
				"韩定 office 都督同知 {verb=累官}",
				"韩定 death 洪武十年 {time=洪武十年}",
				"韩定 relative 韩成 {kin=子 succession=1}", "韩成 mentions ",
				"韩成 office 右军都督佥事 {verb=累官}",
				"韩成 death 永乐三年 {time=永乐三年}",
				"韩成 relative 韩俊 {kin=子 succession=1}", "韩俊 mentions ",
				"韩俊 relative 韩杰 {kin=弟 succession=1}", "韩杰 mentions ",
				"韩杰 office 宣府总兵 {verb=出为}",
				"韩杰 death 天顺初 {time=天顺初}",
			},
		},
		{
			name: "another ruler's succession in passing", entry: "章廉", begins: true,
			text: "章廉，字尚文，会稽人。宣德六年擢礼部侍郎，使安南。安南王利死，子麟嗣，廉复奉诏往。\n正统初，改吏部侍郎。二年十二月卒。\n",
			want: []string{
				"章廉 mentions ",
				"章廉 courtesy_name 尚文",
				"章廉 native_place 会稽",
				"章廉 office 礼部侍郎 {verb=擢}",
				"章廉 office 吏部侍郎 {verb=改}",
				"章廉 death 二年十二月 {time=二年十二月}",
			},
		},
		{
			name: "a continuation chunk of a prince's entry", entry: "晋王",
			text: "子庄王钟铉嗣，弘治十五年薨。弟惠王钟镗嗣，七年薨。\n",
			want: []string{
				"晋王 mentions ", "钟铉 mentions ",
				"钟铉 death 弘治十五年 {time=弘治十五年}",
				"钟铉 relative 钟镗 {kin=弟 succession=1}", "钟镗 mentions ",
				"钟镗 death 七年 {time=七年}",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := chunk("c-1", tt.entry, tt.text)
			if !tt.begins {
				c = subChunk(tt.entry, "", tt.text)
			}
			got := facts(extract(t, c))
			checkFacts(t, got, tt.want)
			for f := range got {
				if strings.HasPrefix(f, tt.entry+" death") && strings.Count(strings.Join(tt.want, "\n"), tt.entry+" death") == 0 {
					t.Errorf("a death given to the entry's person: %q", f)
				}
			}
		})
	}
}
