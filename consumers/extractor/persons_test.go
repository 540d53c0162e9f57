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
