package extractor_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/schemas"
)

// persons returns the names the triplets make people of: every head, and
// every tail of type person.
func persons(ts []schemas.Triplet) []string {
	var out []string
	for _, t := range ts {
		if t.HeadType == "" || t.HeadType == schemas.EntityPerson {
			out = append(out, t.Head)
		}
		if t.TailType == schemas.EntityPerson {
			out = append(out, t.Tail)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// TestPeopleArePeople checks that the extractor makes no person of words
// that are not a person's name, names people in full where the text does,
// and gives the facts of a sentence it cannot name to no one.
func TestPeopleArePeople(t *testing.T) {
	tests := []struct {
		name                string
		entry, sub, text    string
		listed              []string
		people, notPeople   []string
		wantFacts, notFacts []string
	}{
		{name: "a clause before a \"…人\" clause that is no place stays with the person before it",
			entry: "张岳", text: "张岳，字维乔，惠安人。正德十二年进士。以谏南巡，罚跪五日，谪官。世宗即位，复行人。擢右佥都御史。\n",
			notPeople: []string{"世宗即位"}, wantFacts: []string{"张岳 office 右佥都御史 {verb=擢}"},
			notFacts: []string{"世宗即位 native_place 复行"}},
		{name: "words and a courtesy name written on are a word's",
			entry: "罗洪先", text: "罗洪先，字达夫，吉水人。\n一切文字语言，俱属描画，不必执泥。\n",
			notPeople: []string{"一切文"}},
		{name: "people listed one after another keep their places",
			entry: "丁魁楚", text: "丁魁楚，河南永城人；进士。王化澄，江西人；崇祯甲戌进士。郑封，河南人；甲戌进士。\n",
			people: []string{"丁魁楚", "王化澄", "郑封"}, wantFacts: []string{"王化澄 native_place 江西", "郑封 native_place 河南"}},
		{name: "a given name the text wrote in full before",
			entry: "金声", text: "金声，字正希，休宁人。\n附张天禄袭休宁：天禄字桂吾，陕西榆林人；明将。\n",
			people: []string{"张天禄"}, notPeople: []string{"天禄"}, wantFacts: []string{"张天禄 native_place 陕西榆林"}},
		{name: "a name after his office",
			entry: "何腾蛟", text: "何腾蛟，字云从，黎平人。\n游击曾英，福建莆田人，以勇闻。\n",
			people: []string{"曾英"}, notPeople: []string{"游击曾英"}, wantFacts: []string{"曾英 native_place 福建莆田"}},
		{name: "a person whose name the text does not know",
			entry: "何腾蛟", text: "何腾蛟，字云从，黎平人。\n又游击常某，蜀人，亦死之。\n",
			notPeople: []string{"常某", "游击常某"}},
		{name: "the owner's relative, written by the owner's given name and kinship",
			entry: "刘基", sub: "刘琏", text: "琏，字孟藻，有文行。\n琏子畾，字士端，洪武二十四年三月嗣伯。\n",
			people: []string{"刘畾"}, notPeople: []string{"琏子畾"}},
		{name: "a relative of someone the chunk does not name in full is no one the text names",
			entry: "颜希惠", text: "颜希惠，字德裕，曲阜人。\n子拳，字克膺。拳子希仁，字士元。\n",
			notPeople: []string{"拳子希仁"}},
		{name: "a surname and a given name that holds a kinship character are a name",
			entry: "夏允彝", text: "夏允彝，字彝仲，松江华亭人。\n同邑陈子龙，字卧子，与允彝同举于乡。\n",
			people: []string{"陈子龙"}, wantFacts: []string{"陈子龙 courtesy_name 卧子"}},
		{name: "a father written as Mr and his surname is no one named in full",
			entry: "郭子兴", text: "郭子兴，其先曹州人。父郭公，少以日者术游定远，言祸福辄中。\n",
			notPeople: []string{"郭公"}},
		{name: "a kinship word that writes the entry's given name is his",
			entry: "郭子兴", text: "郭子兴，其先曹州人。\n子兴奇太祖状貌，收帐下。子兴喜，以所抚马公女妻之。\n",
			notPeople: []string{"郭兴喜", "郭兴奇"}},
		{name: "a kinship word that writes a named person's given name is his",
			entry: "吴宗尧", text: "吴宗尧，字德辉，歙人。\n驿丞金子登说增开孟丘山矿，宗尧叱其欺罔。子登惧，构于增。\n",
			notPeople: []string{"吴登惧"}},
		{name: "the name after the kinship word and 讳",
			entry: "金毓峒", text: "金毓峒，字稚昭，临洮人。父讳铨，官太仆。\n",
			people: []string{"金铨"}, notPeople: []string{"金讳铨"}},
		{name: "a relative in the text of a person attached to the entry bears his surname",
			entry: "孙慎行", sub: "盛以弘", text: "以弘，字子宽，潼关卫人。父讷，字敏仲。隆庆五年进士。\n",
			people: []string{"盛讷"}, notPeople: []string{"孙讷"}},
		{name: "an empress's father bears her family's name",
			entry: "孝宗孝康皇后张氏", text: "孝宗孝康皇后张氏，兴济人。父峦，以乡贡入太学。\n",
			people: []string{"张峦"}, notPeople: []string{"孝峦"}},
		{name: "a wife's son bears her husband's name",
			entry: "宗胤芳妻江氏", text: "宗胤芳妻江氏，鲁山人。子麟祥，进士。\n",
			people: []string{"宗麟祥"}, notPeople: []string{"江麟祥"}},
		{name: "a note in parentheses is no listing",
			entry: "刘宗周", text: "刘宗周，字起东，山阴人。\n此非人力也。官上柱国少傅，加太子太师。\n",
			listed:    []string{"择善固执，正是从气质上拣择德性来，所以格物致知也。君子之学，不外是矣。"},
			notPeople: []string{"也。", "力也", "致知"}},
		{name: "the words of a note in parentheses after a title are no one's name",
			entry: "刘宗周", text: "刘宗周，字起东，山阴人。\n时御史良知疏论之，不报。\n",
			listed:    []string{"阳明先生提掇良知，以为圣学之要。"},
			notPeople: []string{"良知"}},
		{name: "the sub-entry's given name after an appointment is he",
			entry: "俞大猷", sub: "汤克宽", text: "时滨海多被倭患，乃命克宽为副总兵，驻金山卫。\n",
			listed: []string{"汤克宽"}, people: []string{"汤克宽"}, notPeople: []string{"克宽"},
			wantFacts: []string{"汤克宽 office 副总兵 {verb=为}"}},
		{name: "a listed given name the text wrote in full before",
			entry: "洪承畴", text: "洪承畴，字亨九，南安人。\n七年，总督陈奇瑜遣参将贺人龙救陇州。十一年，擢人龙总兵官。\n",
			listed: []string{"曹变蛟贺人龙"}, people: []string{"贺人龙"}, notPeople: []string{"人龙"},
			wantFacts: []string{"贺人龙 office 总兵官 {verb=擢}"}},
		{name: "a sentence that introduces someone the text names by one character gives its facts to no one",
			entry: "纪纲", sub: "秦政学", text: "政学，慈谿人。永乐二年进士。历行在礼部郎中。\n芳，颍上人。永乐十三年进士。历刑科给事中。\n",
			wantFacts: []string{"秦政学 jinshi 永乐二年 {era=永乐 year=永乐二年}"},
			notFacts:  []string{"秦政学 jinshi 永乐十三年 {era=永乐 year=永乐十三年}", "秦政学 office 刑科给事中 {verb=历}"}},
		{name: "given names written alone in a list name no one in full",
			entry: "孙士美", text: "孙士美，字伯和，保定人。\n泌之，鹿邑人。进士。知雄县。芳声，忻州人。并起家进士。\n",
			notPeople: []string{"泌之", "芳声"}},
		{name: "a listed given name written alone names no one in full, one after a title or a place does",
			entry: "申用懋", text: "显际，真定人，士骥官中书舍人，并起家进士。时御史凌儒、而怀宁甘霖皆言之。\n",
			listed: []string{"赵士骥", "凌儒甘霖"}, notPeople: []string{"士骥"}, people: []string{"凌儒", "甘霖"}},
		{name: "a given name the listing writes among the entry's relatives bears his surname",
			entry: "张臣", text: "张臣，榆林卫人。起行伍，为队长。\n全昌为宣府总兵官，与贼战，死之。\n",
			listed: []string{"子承荫孙应昌全昌德昌"}, people: []string{"张全昌"}, notPeople: []string{"全昌"},
			wantFacts: []string{"张全昌 office 宣府总兵官 {verb=为}"}},
		{name: "an heir by given name alone where the family's name is not made out is no one in full, a prince's is his name",
			entry: "李文忠", sub: "景隆", text: "景隆，小字九江。\n卒，子庭竹嗣。屡典军府。\n",
			notPeople: []string{"庭竹"}},
		{name: "a prince's heir is written by his given name",
			entry: "蜀王椿", text: "蜀献王椿，太祖第十一子。\n子恭王奉铨嗣，四十三年薨。子至澍嗣。崇祯末，京师陷。\n",
			people: []string{"奉铨", "至澍"}},
		{name: "a place before an office is the office's",
			entry: "杨最", text: "杨最，字殿之，射洪人。正德三年进士。授蓝田知县。\n",
			listed: []string{"蓝田黄宗明"}, notPeople: []string{"蓝田"}},
		{name: "two characters no native place is written with are no place",
			entry: "胡梦泰", sub: "胡梦泰", text: "其子即欲讦梦泰，而澳念梦泰无可劾，乃以他人实之。\n",
			listed: []string{"胡梦泰"}, notFacts: []string{"胡梦泰 native_place 澳念", "梦泰 native_place 澳念"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := chunk("c-1", tt.entry, tt.text)
			c.SubEntry, c.Listed = tt.sub, tt.listed
			ts := extract(t, c)
			ps, got := persons(ts), facts(ts)
			for _, p := range tt.people {
				if !slices.Contains(ps, p) {
					t.Errorf("no person %q in %v", p, ps)
				}
			}
			for _, p := range tt.notPeople {
				if slices.Contains(ps, p) {
					t.Errorf("%q made a person", p)
				}
			}
			expectFacts(t, got, tt.wantFacts, tt.notFacts)
		})
	}
}

// expectFacts checks that got holds every fact of want and none of not.
func expectFacts(t *testing.T, got map[string]schemas.Triplet, want, not []string) {
	t.Helper()
	for _, f := range want {
		if _, ok := got[f]; !ok {
			t.Errorf("missing %q in %v", f, keys(got))
		}
	}
	for _, f := range not {
		if _, ok := got[f]; ok {
			t.Errorf("unexpected %q", f)
		}
	}
}

// TestNoPersonFromAClause writes a person's life with sentences the
// archives write, a clause opening each of them and a "…人" clause after
// it that is no native place (an office 行人, a sick man, a title), drawn
// at random, and checks that no opening becomes a person and that the
// appointment after it stays the person's; and sentences that introduce
// other people by name and native place, which are people.
func TestNoPersonFromAClause(t *testing.T) {
	openings := []string{"世宗即位", "仁宗立", "服阕", "北游泰山", "先生上疏", "上初立", "岁大饥", "贼至城下", "久之还朝", "帝御经筵"}
	after := []string{"复行人", "选行人", "古庙前遇病人", "赐号长春真人", "圣贤乏人", "分别君子小人", "反诬他人"}
	surnames := []string{"王", "李", "张", "陈", "刘", "杨", "黄", "周", "吴", "徐"}
	given := []string{"廷相", "应元", "之凤", "文渊", "汝楠", "一鹏", "思诚", "世芳", "德明", "允恭"}
	places := []string{"福清", "常熟", "吉水", "莆田", "金坛", "江西泰和", "河南永城", "山阴"}
	rng := rand.New(rand.NewPCG(21, 1))
	for i := range 40 {
		open, rest := openings[rng.IntN(len(openings))], after[rng.IntN(len(after))]
		other := surnames[rng.IntN(len(surnames))] + given[rng.IntN(len(given))]
		place := places[rng.IntN(len(places))]
		text := fmt.Sprintf("林安，字子静，莆田人。弘治六年进士。%s，%s。擢右佥都御史。\n%s，%s人。以乡举授训导。\n", open, rest, other, place)
		c := chunk(fmt.Sprintf("c-%d", i), "林安", text)
		ts := extract(t, c)
		ps, got := persons(ts), facts(ts)
		if slices.Contains(ps, open) {
			t.Errorf("%q: %q made a person", text, open)
		}
		if _, ok := got["林安 office 右佥都御史 {verb=擢}"]; !ok {
			t.Errorf("%q: the appointment after %q is not 林安's: %v", text, open, keys(got))
		}
		if _, ok := got[other+" native_place "+place]; !ok {
			t.Errorf("%q: %s of %s is not read: %v", text, other, place, keys(got))
		}
	}
}

// TestPersonShape checks, over every fact the rules give in sentences of
// many shapes, that no person's name holds anything but name characters,
// that none is a single character and that none is "Mr X" (常某).
func TestPersonShape(t *testing.T) {
	texts := []string{
		entryLu,
		"张居正，字叔大，江陵人。\n曾孙同敞，字别山。授同敞中书舍人。\n",
		"秦王樉，太祖第二子。\n子隐王尚炳嗣，永乐十年薨。子升嗣。\n",
		"何腾蛟，字云从，黎平人。\n又游击常某，蜀人，亦死之。游击曾英，福建莆田人。\n",
		"刘宗周，字起东，山阴人。\n此非人力也。官上柱国少傅，加太子太师。\n",
	}
	for i, text := range texts {
		c := chunk(fmt.Sprintf("c-%d", i), strings.SplitN(text, "，", 2)[0], text)
		c.Listed = []string{"所以格物致知也。君子之学，不外是矣。", "曾孙同敞"}
		for _, p := range persons(extract(t, c)) {
			if p == c.Entry {
				continue
			}
			if utf8.RuneCountInString(p) < 2 || strings.ContainsAny(p, "。，；：、 某") {
				t.Errorf("person %q from %q", p, text)
			}
		}
	}
}
