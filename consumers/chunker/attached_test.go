package chunker_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/annalist-dev/annalist/consumers/chunker"
	"github.com/annalist-dev/annalist/schemas"
)

// People the listing names in parentheses whose text opens without the
// usual opening shape: after words that introduce them, by the given name
// alone, with a full stop for a comma, or as a sentence's subject after
// a time. The listing confirms the name; each begins an attached chunk
// once, up to the end of its paragraph, and never a relative written
// after a kinship word (the entry's own text goes on in his paragraph), a
// name that ends like an office or a place, nor in a volume whose lines
// show no person.
func TestListedIntroductions(t *testing.T) {
	tests := []struct {
		name, text string
		want       map[string]string // chunk head (6 runes) → SubEntry
	}{
		{"introduced people of the groups", "高山(严德明费安国许存义任方泰)\n" +
			"高山，字仲岳，临川人。洪武中为御史，有直声。\n" +
			"又吴人严德明，由御史擢左佥都御史，以疾求归。\n" +
			"初诸将中，尤推费安国。安国，亦不详所始。从渡江，为元帅。\n" +
			"许存义。名元，以字行。官祭酒。\n" +
			"山卒。其后，襄阳任方泰亦举洪武二十一年进士第一。任方泰再见于此，亦无所述。\n",
			map[string]string{
				"高山(严德明": "", "高山，字仲岳": "",
				"又吴人严德明": "严德明", "初诸将中，尤": "", "安国，亦不详": "费安国",
				"许存义。名元": "许存义", "山卒。其后，": "", "襄阳任方泰亦": "任方泰",
			}},
		{"a name after a place or an office", "高山(陈文胡琏洪云蒸)\n" +
			"高山，字仲岳，临川人。洪武中为御史，有直声。\n" +
			"山议招抚。参政洪云蒸，长沙人，初官广西参政。\n" +
			"山乃还朝。\n" +
			"合肥陈文者，南北征伐，累立战功。\n" +
			"郎中胡琏，字重器，新喻人。正德六年进士。\n",
			map[string]string{
				"高山(陈文胡": "", "高山，字仲岳": "", "参政洪云蒸，": "洪云蒸", "山乃还朝。\n": "",
				"合肥陈文者，": "陈文", "郎中胡琏，字": "胡琏",
			}},
		{"a person named after the words that say who he was", "高山(余翱邓洪震)\n" +
			"高山，字仲岳，临川人。洪武中为御史。\n" +
			"时御史争礼居首者余翱，字大振，定远人。\n" +
			"当隆庆初，以地震言事者，又有邓洪震，宣化人。\n",
			map[string]string{
				"高山(余翱邓": "", "高山，字仲岳": "", "时御史争礼居": "余翱", "当隆庆初，以": "邓洪震",
			}},
		{"a relative after a kinship word is left to the entry", "高山(弟守隅)\n" +
			"高山，字仲岳，临川人。洪武中为御史。\n" +
			"从弟守隅，由进士历官江西参政。\n",
			map[string]string{"高山(弟守隅": "", "高山，字仲岳": ""}},
		{"offices, places and others are not people", "高山(宣抚司罗平等)\n" +
			"高山，字仲岳，临川人。洪武中为御史。\n" +
			"宣抚司，旧名南宋。罗平等，亦赐恤如制。\n",
			map[string]string{"高山(宣抚司": "", "高山，字仲岳": ""}},
		{"a volume on places", "缅甸(孟密安抚)\n缅甸，古朱波地。\n孟密安抚，初隶布政司。\n",
			map[string]string{"缅甸(孟密安": "", "缅甸，古朱波": ""}},
	}
	c := chunker.New(chunker.Config{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := schemas.Document{DocID: "vol", Text: tt.text, Profile: chunker.ProfileLiezhuan}
			chunks, err := c.Chunk(context.Background(), doc)
			if err != nil {
				t.Fatal(err)
			}
			checkTiles(t, doc, chunks)
			got := map[string]string{}
			for _, ch := range chunks {
				got[pieces([]schemas.Chunk{ch})[0].head] = ch.SubEntry
				if ch.SubEntry != "" && (!ch.Attached || ch.Subject != ch.SubEntry || ch.Main == "") {
					t.Errorf("chunk %q: sub-entry %q is not an attached entry", ch.Text, ch.SubEntry)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Fatalf("sub-entries\n got %v\nwant %v", got, tt.want)
			}
		})
	}
}

// TestListedLongKinClauseIsNoPerson: with a listing, a line that opens
// with four characters and a kinship clause ("仲山少孤，育于叔父") is the
// entry's own text when the volume never writes those characters again;
// a clan name of the same shape ("王氏女娥") is a person.
func TestListedLongKinClauseIsNoPerson(t *testing.T) {
	text := "高仲山\n" +
		"高仲山，字子岳，临川人。洪武中为御史。\n" +
		"仲山少孤，育于叔父。长而好学，以孝闻。\n" +
		"王氏女娥，临川屠者女也。\n"
	doc := schemas.Document{DocID: "k", Text: text, Profile: chunker.ProfileLiezhuan}
	chunks, err := chunker.New(chunker.Config{}).Chunk(context.Background(), doc)
	if err != nil {
		t.Fatal(err)
	}
	var subjects []string
	for _, c := range chunks {
		if c.Subject != "" {
			subjects = append(subjects, c.Subject)
		}
	}
	if fmt.Sprint(subjects) != "[高仲山 王氏女娥]" {
		t.Fatalf("subjects %v, want 高仲山 and the attached 王氏女娥 only", subjects)
	}
}
