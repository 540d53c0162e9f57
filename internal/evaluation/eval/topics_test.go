package eval

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/annalist-dev/annalist/schemas"
)

func TestNativePlace(t *testing.T) {
	cases := map[string]string{
		"刘基，字伯温，青田人":         "青田",
		"徐阶，字子升，松江华亭人":       "松江华亭",
		"戴德彝，奉化人":            "奉化",
		"金幼孜，名善，以字行，新淦人":     "新淦",
		"陈遇，字中行，先世曹人":        "",
		"聂铉，字器之，美和同邑人":       "",
		"刘仁本，字德元，国珍同县人":      "",
		"某甲，不知何许人":           "",
		"某乙，字某，其先湘潭人":        "",
		"某丙，字某，以诸生授中书舍人":     "",
		"某丁，字某，大同人":          "大同",
		"某戊，仁宗第二子":           "",
		"某己，字某，浙江山阴人也":       "",
		"某庚，字某，号某，福建莆田县学生员人": "",
	}
	for in, want := range cases {
		if got := NativePlace(in); got != want {
			t.Errorf("NativePlace(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestJinshiYear(t *testing.T) {
	cases := map[string]string{
		"杨靖，字仲宁，山阳人。洪武十八年进士。":        "洪武十八年",
		"卓敬，字惟恭，瑞安人。颖悟过人。举洪武二十一年进士。": "洪武二十一年",
		"柯潜，字孟时，莆田人。景泰二年举进士第一。":      "景泰二年",
		"某，字某，某人。崇祯元年登进士。":           "崇祯元年",
		"某，字某，某人。同里任亨泰亦举洪武二十一年进士。":   "",
		"某，字某，某人。洪武末年进士。":            "",
		"某，字某，某人。年十八举进士。":            "",
		"某，字某，某人。二十三年进士。":            "",
		"某，某人。永乐二年与从弟孟简并进士。":         "",
		"某，某人。正德六年进士。子某，嘉靖二年进士。":     "正德六年",
		"某，某人。父复，宣德中进士。某，天顺元年乡试第一。":  "",
	}
	for in, want := range cases {
		if got := JinshiYear(in); got != want {
			t.Errorf("JinshiYear(%q) = %q, want %q", in, got, want)
		}
	}
}

const volume = `张甲李乙(周丙兄廷谅)王丁
张甲，字子一，松江华亭人。万历十一年进士。授编修。
周丙，字子二，松江华亭人。
李乙，字子三，长洲人。举万历十一年进士。
赵戊，字子四，松江华亭人。万历十一年进士。
王丁，松江华亭人。天启五年进士。
兄廷谅，字某，长洲人。万历十一年进士。
王丁之学，本于其父。`

func TestTopicEntries(t *testing.T) {
	got := TopicEntries(volume)
	want := []GoldEntry{
		{Name: "张甲", Place: "松江华亭", Year: "万历十一年"},
		{Name: "周丙", Place: "松江华亭"},
		{Name: "李乙", Place: "长洲", Year: "万历十一年"},
		{Name: "王丁", Place: "松江华亭", Year: "天启五年"},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("entries\n got %+v\nwant %+v", got, want)
	}
}

func TestTopicEntriesCategoryVolume(t *testing.T) {
	text := "◎循吏\n循吏者，字某，某人。\n陈甲周乙\n陈甲，字某，吉水人。\n周乙，吉水人。弘治九年进士。"
	got := TopicEntries(text)
	want := []GoldEntry{{Name: "陈甲", Place: "吉水"}, {Name: "周乙", Place: "吉水", Year: "弘治九年"}}
	if !slices.Equal(got, want) {
		t.Fatalf("entries\n got %+v\nwant %+v", got, want)
	}
}

func TestTopicGold(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "001.txt"), []byte(volume), 0o644); err != nil {
		t.Fatal(err)
	}
	more := "钱己孙庚\n钱己，字某，长洲人。万历十一年进士。\n孙庚，长洲人。\n"
	if err := os.WriteFile(filepath.Join(dir, "002.txt"), []byte(more), 0o644); err != nil {
		t.Fatal(err)
	}
	gold, names, err := TopicGold([]string{dir}, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := []GoldTopic{
		{Type: schemas.TopicPlace, Topic: "松江华亭", People: []string{"周丙", "张甲", "王丁"}},
		{Type: schemas.TopicPlace, Topic: "长洲", People: []string{"孙庚", "李乙", "钱己"}},
		{Type: schemas.TopicTime, Topic: "万历十一年", People: []string{"张甲", "李乙", "钱己"}},
	}
	if len(gold) != len(want) {
		t.Fatalf("gold %+v", gold)
	}
	for i := range want {
		want[i].HeldOut = HeldOut(want[i].Topic)
		g := gold[i]
		if g.Type != want[i].Type || g.Topic != want[i].Topic || !slices.Equal(g.People, want[i].People) || g.HeldOut != want[i].HeldOut {
			t.Errorf("topic %d = %+v, want %+v", i, g, want[i])
		}
	}
	if !slices.Equal(names, []string{"周丙", "孙庚", "张甲", "李乙", "王丁", "钱己"}) {
		t.Errorf("names %v", names)
	}
}

func TestHeldOutIsAFifth(t *testing.T) {
	n := 0
	for i := 0; i < 1000; i++ {
		if HeldOut(string(rune(0x4e00 + i))) {
			n++
		}
	}
	if n < 150 || n > 250 {
		t.Fatalf("held out %d of 1000", n)
	}
}

func TestTopicsScores(t *testing.T) {
	gold := []GoldTopic{
		{Type: schemas.TopicPlace, Topic: "长洲", People: []string{"李乙", "钱己", "孙庚"}},
		{Type: schemas.TopicTime, Topic: "万历十一年", People: []string{"张甲", "李乙", "钱己"}, HeldOut: true},
		{Type: schemas.TopicPlace, Topic: "吉水", People: []string{"陈甲", "周乙", "吴丙"}},
	}
	cite := func(text string) []schemas.Citation { return []schemas.Citation{{ChunkID: "d-1", Text: text}} }
	pagesByTopic := map[string]*schemas.Page{
		"长洲": {Version: 1, Sentences: []schemas.PageSentence{
			{Text: "李乙，字子三，长洲人。", Citations: cite("李乙，字子三，长洲人。举进士。")},
			// names 钱己 and 张甲; the chunk holds only 钱己
			{Text: "钱己与张甲同年。", Citations: cite("钱己，长洲人。")},
			{Text: "长洲多士。"},
		}},
		"万历十一年": {Version: 2, Sentences: []schemas.PageSentence{
			{Text: "张甲、李乙、钱己同举进士。", Citations: cite("张甲、李乙、钱己同举进士。")},
		}},
	}
	page := func(ctx context.Context, topic string) (*schemas.Page, string, error) {
		if p := pagesByTopic[topic]; p != nil {
			return p, "", nil
		}
		return nil, "unknown subject", nil
	}
	rep, err := Topics(context.Background(), gold, []string{"张甲", "某"}, page, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	o := rep.Overall
	if o.Topics != 3 || o.Failed != 1 || rep.Failures != 1 || rep.Pages != 2 {
		t.Errorf("counts %+v, failures %d, pages %d", o, rep.Failures, rep.Pages)
	}
	if o.GoldPeople != 9 || o.Covered != 5 {
		t.Errorf("coverage %d/%d", o.Covered, o.GoldPeople)
	}
	if o.Sentences != 4 || o.Cited != 3 {
		t.Errorf("citations %d/%d", o.Cited, o.Sentences)
	}
	if o.Named != 6 || o.Grounded != 5 || o.SentencesNaming != 3 || o.SentencesGrounded != 2 {
		t.Errorf("grounding %+v", o)
	}
	if rep.HeldOut.Topics != 1 || rep.HeldOut.Coverage != 1 || rep.Dev.Topics != 2 || rep.Dev.Covered != 2 {
		t.Errorf("splits dev %+v held out %+v", rep.Dev, rep.HeldOut)
	}
	if bt := rep.ByType[schemas.TopicPlace]; bt.Topics != 2 || bt.Covered != 2 || bt.GoldPeople != 6 {
		t.Errorf("by type %+v", bt)
	}
	r := rep.Results[0]
	if !slices.Equal(r.Missing, []string{"孙庚"}) || len(r.Ungrounded) != 1 {
		t.Errorf("result %+v", r)
	}
}

func TestNameFinderLongestMatch(t *testing.T) {
	f := newNameFinder(map[string]bool{"王英": true, "王英才": true, "李乙": true})
	if got := f.find("王英才与李乙善"); !slices.Equal(got, []string{"李乙", "王英才"}) {
		t.Errorf("find = %v", got)
	}
	if got := f.find("王英与王英才"); !slices.Equal(got, []string{"王英", "王英才"}) {
		t.Errorf("find = %v", got)
	}
}
