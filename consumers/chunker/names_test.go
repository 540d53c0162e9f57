package chunker_test

import (
	"fmt"
	"testing"
)

// People are people: an opening inside an entry gets a subject only when
// its words name a person, and the subject is the person's own name, in
// full when the volume says what it is. The texts are written as the
// histories write their entries; the names are made up.
func TestPeopleArePeople(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string // entry subjects, attached ones as "name<main"
	}{
		{"a relative written after a kinsman's name takes the kinsman's surname",
			"吴安(杨晔)\n" +
				"吴安，字守静，新淦人。永乐中举进士，授御史，有直声。" + bio(20) + "\n" +
				"杨晔，字景明，庐陵人。与安同年进士，官至给事中。\n" +
				"晔从弟旦，字景初，亦以进士为给事中。居官廉谨，卒于任。\n",
			[]string{"吴安", "杨晔<吴安", "杨旦<吴安"}},
		{"kinship words the profile makes from its own: 世父 as 世子, 养子",
			"程敬吴安\n" +
				"程敬，字仲恭，歙人。成化中举进士，授户部主事。" + bio(20) + "\n" +
				"世父瑄，字廷玉，以孝行闻于乡，有司旌其门。\n" +
				"养子德济，字汝舟，从敬学，后以军功授百户。\n" +
				"吴安，字守静，新淦人。" + bio(20) + "\n",
			[]string{"程敬", "程瑄<程敬", "程德济<程敬", "吴安"}},
		{"the grandson of a man the volume presents",
			"陈思诚吴安\n" +
				"陈思诚，字孟实，宁化人。洪武中以荐授县丞，迁知州。" + bio(20) + "\n" +
				"吴安，字守静，新淦人。" + bio(20) + "\n" +
				"思诚孙清，字汝澄，天顺中举人，官至知府。\n",
			[]string{"陈思诚", "吴安", "陈清<吴安"}},
		{"a given name the volume wrote in full after a surname",
			"吴安\n" +
				"吴安，字守静，新淦人。天启中为御史，与同官李拱辰共劾奄党。" + bio(20) + "\n" +
				"拱辰，字星伯，掖县人。由进士知县，迁兵备副使，城破死之。\n",
			[]string{"吴安", "李拱辰<吴安"}},
		{"a clause that opens with the entry's person's name and a formula-like phrase",
			"顾成\n" +
				"顾成，字叔时，无锡人。万历中举进士，授户部主事。" + bio(20) + "\n" +
				"叔时既废，名益高，中外荐者百十疏，皆不报。\n" +
				"久之起南京光禄少卿，力辞不就，卒于家。\n",
			[]string{"顾成"}},
		{"a clause with a kinship word at its end",
			"梁储\n" +
				"梁储，字叔厚，顺德人。成化中举进士，授编修。" + bio(20) + "\n" +
				"帝崩，无子。储与阁臣定策，迎立世宗。\n",
			[]string{"梁储"}},
		{"a woman named by her husband and her family keeps the words that say whose she is",
			"◎列女\n" +
				"张氏，临清人。年十七，归同里李生。" + bio(12) + "\n" +
				"宋德成妻姜氏，临清人。德成知赞皇县，寇入署，姜投井死。\n",
			[]string{"张氏", "宋德成妻姜氏<张氏"}},
		{"a listing that runs a son on after his father",
			"循吏\n刘体重子煦吴安\n" +
				"刘体重，字子厚，山西赵城人。嘉庆中举人，为知县。" + bio(20) + "\n" +
				"子煦，由拔贡授知县，历权繁剧，所至有声。\n" +
				"吴安，字守静，新淦人。" + bio(20) + "\n",
			[]string{"刘体重", "刘煦<刘体重", "吴安"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := entrySubjects(chunkText(t, tt.text)); fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("entries %v, want %v", got, tt.want)
			}
		})
	}
}
