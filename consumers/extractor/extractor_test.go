package extractor_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/consumers/extractor"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
)

// The fixtures are written for these tests in the manner of Ming
// biographies and English reference prose; the people are invented.
const entryLu = `陆文渊，字静之，号松岩，苏州吴县人。父廷器，南京户部主事。文渊少孤，母授之书，过目成诵。举嘉靖二十年进士第二，授翰林院编修。迁国子监司业，擢文渊礼部右侍郎。时倭寇犯东南，士卒多逃，文渊上疏陈海防十事，帝嘉纳之。同官沈懋学已先卒，文渊为经纪其丧。进言者众，帝皆不省。改吏部左侍郎，官至南京礼部尚书。以母老乞归，家居十年，卒，年七十一。赠太子少保，谥文恪。
子琮，字季玉，以荫为中书舍人，能守家法。万历二年卒。
`

const entryGu = `顾承泽，字伯润，松江华亭人。父清，宣德中进士，历官知府。承泽举嘉靖二十三年进士，授户部主事。与陆文渊善，文渊荐其才可大用。迁郎中，出为浙江按察副使，督海防，屡却倭寇。擢右佥都御史，巡抚福建。承泽治军严，士卒畏而爱之。隆庆元年卒于官，年五十八。
弟承恩，字仲润。嘉靖三十二年进士。授行人。
`

const entryYan = `严鹤龄，一名鹤，字鸣远，号雪樵，绍兴山阴人。举嘉靖二十九年会试第一。授行人，擢御史，劾权臣不避，谪广东驿丞。隆庆初，召复故官，累迁大理寺卿。鹤龄持法平，狱无冤滞。万历二年卒。
`

const english = `# Anne Whitlow

Anne Whitlow was an English botanist. She was born in Norwich in 1802, the daughter of a printer.

In 1831 she was appointed curator of the Norwich Botanical Society, a post she held for twenty years. Her friend Samuel Pike, a native of Ipswich, drew the plates of her flora. Pike was born on 4 March 1799.

Whitlow died in Cromer in 1870.
`

const englishStyled = `Lu Wenyuan, courtesy name Jingzhi, was a scholar-official of the Ming dynasty. He was appointed minister of rites in Nanjing. He died in 1571.`

func chunk(id, entry, text string) schemas.Chunk {
	return schemas.Chunk{
		ChunkID: id, DocID: "doc-" + id, Seq: 0, Total: 1, Profile: extractor.ProfileLiezhuan, Method: "pattern",
		Subject: entry, Entry: entry, EntryChunk: id, Start: 0, End: utf8.RuneCountInString(text), Text: text,
	}
}

func englishChunk(id, text string) schemas.Chunk {
	return schemas.Chunk{
		ChunkID: id, DocID: "doc-" + id, Seq: 0, Total: 1, Profile: extractor.ProfileGeneric, Method: "window",
		Start: 0, End: utf8.RuneCountInString(text), Text: text,
	}
}

// fact renders a triplet as "head relation tail {k=v …}" for comparison.
func fact(t schemas.Triplet) string {
	s := t.Head + " " + t.Relation + " " + t.Tail
	if len(t.Qualifiers) > 0 {
		keys := make([]string, 0, len(t.Qualifiers))
		for k := range t.Qualifiers {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var q []string
		for _, k := range keys {
			q = append(q, k+"="+t.Qualifiers[k])
		}
		s += " {" + strings.Join(q, " ") + "}"
	}
	return s
}

func extract(t *testing.T, c schemas.Chunk) []schemas.Triplet {
	t.Helper()
	ts, err := extractor.New(extractor.Config{}).Extract(context.Background(), "", c)
	if err != nil {
		t.Fatalf("extract %s: %v", c.ChunkID, err)
	}
	for _, tr := range ts {
		checkTriplet(t, c, tr)
	}
	return ts
}

func facts(ts []schemas.Triplet) map[string]schemas.Triplet {
	out := map[string]schemas.Triplet{}
	for _, t := range ts {
		out[fact(t)] = t
	}
	return out
}

func TestClassicalChineseEntries(t *testing.T) {
	tests := []struct {
		name, entry, text string
		want              []string
		// wantEvidence maps a fact to its evidence text.
		wantEvidence map[string]string
		notHeads     []string
		notFacts     []string
	}{
		{
			name: "entry with a son's sub-entry", entry: "陆文渊", text: entryLu,
			want: []string{
				"陆文渊 mentions ",
				"陆文渊 courtesy_name 静之",
				"陆文渊 art_name 松岩",
				"陆文渊 native_place 苏州吴县",
				"陆文渊 relative 陆廷器 {as_written=廷器 kin=父}",
				"陆文渊 jinshi 嘉靖二十年 {era=嘉靖 rank=第二 year=嘉靖二十年}",
				"陆文渊 office 翰林院编修 {verb=授}",
				"陆文渊 office 国子监司业 {verb=迁}",
				"陆文渊 office 礼部右侍郎 {verb=擢}",
				"陆文渊 office 吏部左侍郎 {verb=改}",
				"陆文渊 office 南京礼部尚书 {verb=官至}",
				"陆文渊 death_age 七十一",
				"陆文渊 relative 陆琮 {kin=子}",
				"陆琮 mentions ",
				"陆琮 courtesy_name 季玉",
				"陆琮 death 万历二年 {time=万历二年}",
			},
			wantEvidence: map[string]string{
				"陆文渊 courtesy_name 静之":                         "字静之",
				"陆文渊 native_place 苏州吴县":                        "苏州吴县人",
				"陆文渊 jinshi 嘉靖二十年 {era=嘉靖 rank=第二 year=嘉靖二十年}": "举嘉靖二十年进士第二",
				"陆文渊 office 礼部右侍郎 {verb=擢}":                    "擢文渊礼部右侍郎",
				"陆文渊 death_age 七十一":                            "卒，年七十一",
			},
			// 沈懋学's death, the soldiers (士卒) and "进言者" are not facts
			// about 陆文渊.
			notHeads: []string{"沈懋学"},
		},
		{
			name: "father's degree and a brother by given name", entry: "顾承泽", text: entryGu,
			want: []string{
				"顾承泽 mentions ",
				"顾承泽 courtesy_name 伯润",
				"顾承泽 native_place 松江华亭",
				"顾承泽 relative 顾清 {as_written=清 kin=父}",
				"顾承泽 jinshi 嘉靖二十三年 {era=嘉靖 year=嘉靖二十三年}",
				"顾承泽 office 户部主事 {verb=授}",
				"顾承泽 office 郎中 {verb=迁}",
				"顾承泽 office 浙江按察副使 {verb=出为}",
				"顾承泽 office 右佥都御史 {verb=擢}",
				"顾承泽 death 隆庆元年 {age=五十八 place=官 time=隆庆元年}",
				"顾承泽 death_age 五十八 {place=官 time=隆庆元年}",
				"顾承泽 relative 顾承恩 {kin=弟}",
				"顾承恩 mentions ",
				"顾承恩 courtesy_name 仲润",
				"顾承恩 jinshi 嘉靖三十二年 {era=嘉靖 year=嘉靖三十二年}",
				"顾承恩 office 行人 {verb=授}",
			},
			// The father's jinshi ("父清，宣德中进士") is not the son's.
			notFacts: []string{"顾承泽 jinshi 宣德中 {approx=中 era=宣德 year=宣德中}", "顾承泽 office 行人 {verb=授}"},
		},
		{
			name: "other name, exam rank and a late career", entry: "严鹤龄", text: entryYan,
			want: []string{
				"严鹤龄 mentions ",
				"严鹤龄 alias 严鹤 {as_written=鹤 kind=一名}",
				"严鹤龄 courtesy_name 鸣远",
				"严鹤龄 art_name 雪樵",
				"严鹤龄 native_place 绍兴山阴",
				"严鹤龄 jinshi 嘉靖二十九年 {era=嘉靖 rank=会试第一 year=嘉靖二十九年}",
				"严鹤龄 office 行人 {verb=授}",
				"严鹤龄 office 御史 {verb=擢}",
				"严鹤龄 office 大理寺卿 {verb=累迁}",
				"严鹤龄 death 万历二年 {time=万历二年}",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := facts(extract(t, chunk("c-"+tt.entry, tt.entry, tt.text)))
			for _, w := range tt.want {
				if _, ok := got[w]; !ok {
					t.Errorf("missing %q", w)
				}
			}
			for f, ev := range tt.wantEvidence {
				if got[f].Evidence != ev {
					t.Errorf("%s: evidence %q, want %q", f, got[f].Evidence, ev)
				}
			}
			want := map[string]bool{}
			for _, w := range tt.want {
				want[w] = true
			}
			for f := range got {
				if !want[f] {
					t.Errorf("unexpected %q", f)
				}
			}
			for f := range got {
				for _, h := range tt.notHeads {
					if strings.HasPrefix(f, h+" ") {
						t.Errorf("fact about %s: %q", h, f)
					}
				}
			}
			for _, f := range tt.notFacts {
				if _, ok := got[f]; ok {
					t.Errorf("wrong fact %q", f)
				}
			}
		})
	}
}

func TestContinuationChunkKeepsEntryHead(t *testing.T) {
	text := "隆庆初，召复故官，累迁大理寺卿。鹤龄持法平，狱无冤滞。万历二年卒。"
	c := chunk("c-2", "严鹤龄", text)
	c.Subject, c.EntryChunk, c.Seq, c.Total = "", "c-1", 1, 2
	got := facts(extract(t, c))
	for _, w := range []string{"严鹤龄 office 大理寺卿 {verb=累迁}", "严鹤龄 death 万历二年 {time=万历二年}", "严鹤龄 mentions "} {
		if _, ok := got[w]; !ok {
			t.Errorf("missing %q in %v", w, got)
		}
	}
}

func TestNonEntryChineseOnlyAttributesHeaders(t *testing.T) {
	// Outside an entry the text has no default person: only a paragraph
	// that introduces someone is attributed.
	text := "是岁大旱，擢御史张某巡视。\n周轸，莆田人。后进郎中，终山东运使。\n又迁南京礼部尚书。"
	c := englishChunk("n-1", text)
	got := facts(extract(t, c))
	want := []string{"周轸 mentions ", "周轸 native_place 莆田", "周轸 office 郎中 {verb=进}"}
	if len(got) != len(want) {
		t.Errorf("got %v, want %v", keys(got), want)
	}
	for _, w := range want {
		if _, ok := got[w]; !ok {
			t.Errorf("missing %q", w)
		}
	}
}

func TestEnglishPatterns(t *testing.T) {
	got := facts(extract(t, englishChunk("e-1", english)))
	want := []string{
		"Anne Whitlow birth 1802 {place=Norwich}",
		"Anne Whitlow birth Norwich {time=1802}",
		"Anne Whitlow office curator of the Norwich Botanical Society {verb=appointed year=1831}",
		"Samuel Pike native_place Ipswich",
		"Samuel Pike birth 4 March 1799",
		"Anne Whitlow death 1870 {place=Cromer}",
		"Anne Whitlow death Cromer {time=1870}",
	}
	for _, w := range want {
		if _, ok := got[w]; !ok {
			t.Errorf("missing %q in %v", w, keys(got))
		}
	}
	if len(got) != len(want) {
		t.Errorf("got %d facts %v, want %d", len(got), keys(got), len(want))
	}

	got = facts(extract(t, englishChunk("e-2", englishStyled)))
	for _, w := range []string{
		"Lu Wenyuan courtesy_name Jingzhi",
		"Lu Wenyuan office minister of rites in Nanjing {verb=appointed}",
		"Lu Wenyuan death 1571",
	} {
		if _, ok := got[w]; !ok {
			t.Errorf("missing %q in %v", w, keys(got))
		}
	}
}

func keys(m map[string]schemas.Triplet) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func TestExtractIsDeterministic(t *testing.T) {
	c := chunk("c-lu", "陆文渊", entryLu)
	a := extract(t, c)
	b := extract(t, c)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two extractions of one chunk differ")
	}
	ids := map[string]bool{}
	for _, tr := range a {
		if ids[tr.TripletID] {
			t.Fatalf("duplicate triplet id %s", tr.TripletID)
		}
		ids[tr.TripletID] = true
		if tr.Method != extractor.MethodRegex || tr.Pattern == "" || tr.Confidence <= 0 {
			t.Errorf("%s: method %q pattern %q confidence %v", fact(tr), tr.Method, tr.Pattern, tr.Confidence)
		}
	}
	// The id depends on the chunk: the same text in another chunk is
	// another piece of evidence.
	other := extract(t, chunk("c-lu-2", "陆文渊", entryLu))
	if other[0].TripletID == a[0].TripletID {
		t.Fatal("triplet ids must carry the chunk")
	}
}

func TestHandler(t *testing.T) {
	h := extractor.New(extractor.Config{}).Handler()
	ctx := context.Background()
	c := chunk("c-yan", "严鹤龄", entryYan)
	out, err := h(ctx, pipeline.Input{Msg: c, Meta: schemas.Meta{Tenant: "t1"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatal("no outputs")
	}
	for _, o := range out {
		tr, ok := o.Msg.(schemas.Triplet)
		if o.Topic != topology.Triplets || !ok || tr.ChunkID != c.ChunkID {
			t.Fatalf("output %+v", o)
		}
	}
	ptr, err := h(ctx, pipeline.Input{Msg: &c})
	if err != nil || len(ptr) != len(out) {
		t.Fatalf("pointer input: %d outputs, %v", len(ptr), err)
	}

	for name, msg := range map[string]schemas.Message{
		"not a chunk":   schemas.Document{DocID: "d", Text: "x"},
		"invalid chunk": schemas.Chunk{ChunkID: "c", DocID: "d", Text: "abc", Start: 0, End: 5, Total: 1},
	} {
		_, err := h(ctx, pipeline.Input{Msg: msg})
		if err == nil || !pipeline.IsPermanent(err) {
			t.Errorf("%s: error %v, want permanent", name, err)
		}
	}
	var nilChunk *schemas.Chunk
	if _, err := h(ctx, pipeline.Input{Msg: nilChunk}); !errors.Is(err, pipeline.ErrPermanent) {
		t.Errorf("nil chunk: %v", err)
	}
}

func ExampleExtractor_Extract() {
	text := "叶成，字子立，建宁人。举万历五年进士，授吴江知县。"
	c := schemas.Chunk{ChunkID: "ex-1", DocID: "ex", Total: 1, Profile: "liezhuan", Subject: "叶成", Entry: "叶成",
		EntryChunk: "ex-1", End: utf8.RuneCountInString(text), Text: text}
	ts, _ := extractor.New(extractor.Config{}).Extract(context.Background(), "", c)
	for _, t := range ts {
		if t.Relation != schemas.RelMention {
			fmt.Printf("%s %s %s [%d,%d) %s\n", t.Head, t.Relation, t.Tail, t.Span.Start, t.Span.End, t.Evidence)
		}
	}
	// Output:
	// 叶成 courtesy_name 子立 [3,6) 字子立
	// 叶成 native_place 建宁 [7,10) 建宁人
	// 叶成 jinshi 万历五年 [11,18) 举万历五年进士
	// 叶成 office 吴江知县 [19,24) 授吴江知县
}

// The "P人" clause after the courtesy name of an entry's opening is the
// native place, even when P starts with a character that elsewhere counts
// people (诸暨, 无锡) or ends like "…门人" (a disciple): 祁门. A phrase that
// counts or qualifies people is still no place there.
func TestOpeningPlaceAfterTheCourtesyName(t *testing.T) {
	for entry, want := range map[string]string{
		"王冕，字元章，诸暨人。屏居九里山。":   "王冕 native_place 诸暨",
		"高攀龙，字存之，无锡人。少读书。":    "高攀龙 native_place 无锡",
		"康永韶，字用和，祁门人。正统中举进士。": "康永韶 native_place 祁门",
	} {
		name, _, _ := strings.Cut(entry, "，")
		got := facts(extract(t, chunk("c-"+name, name, entry)))
		if _, ok := got[want]; !ok {
			t.Errorf("%s: no %q in %v", entry, want, got)
		}
	}
	for _, entry := range []string{"李甲，字乙丙，不知何许人。", "李甲，字乙丙，同邑人。"} {
		for f := range facts(extract(t, chunk("c-李甲", "李甲", entry))) {
			if strings.Contains(f, "native_place") {
				t.Errorf("%s: %q", entry, f)
			}
		}
	}
}
