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
