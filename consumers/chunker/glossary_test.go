package chunker_test

import (
	"context"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/consumers/chunker"
	"github.com/annalist-dev/annalist/schemas"
)

const glossaryDoc = "# 术语表（为测试而写）\n" +
	"进士｜rank｜殿试赐第者之称。\n" +
	"状元、廷试第一｜rank｜殿试一甲第一名。\n" +
	"\n" +
	"# 官职\n" +
	"编修｜office｜翰林院属官，掌修国史。\n" +
	"知县｜office｜一县之长官。"

func TestGlossaryProfile(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		name string
		doc  schemas.Document
	}{
		{"named profile", schemas.Document{DocID: "g1", Text: glossaryDoc, Profile: chunker.ProfileGlossary}},
		{"glossary collection", schemas.Document{DocID: "g2", Text: glossaryDoc, Collection: "glossary"}},
		{"detected from the lines", schemas.Document{DocID: "g3", Text: glossaryDoc, Collection: "terms"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := chunker.New(chunker.Config{}).Segment(ctx, tt.doc)
			if err != nil {
				t.Fatal(err)
			}
			if res.Profile != chunker.ProfileGlossary || res.Method != chunker.MethodPattern {
				t.Fatalf("profile %q method %q, want glossary by pattern", res.Profile, res.Method)
			}
			checkTiles(t, tt.doc, res.Chunks)
			var heads []string
			for _, c := range res.Chunks {
				heads = append(heads, strings.SplitN(c.Text, "｜", 2)[0])
				if c.Subject != "" || c.Entry != "" {
					t.Errorf("chunk %q names a person: subject %q entry %q", c.Text, c.Subject, c.Entry)
				}
			}
			want := []string{"# 术语表（为测试而写）\n", "进士", "状元、廷试第一", "编修", "知县"}
			if strings.Join(heads, "/") != strings.Join(want, "/") {
				t.Errorf("chunks start %q, want %q", heads, want)
			}
		})
	}
}

// Prose that happens to contain a bar is not a glossary.
func TestGlossaryNotDetectedInProse(t *testing.T) {
	doc := schemas.Document{DocID: "p", Text: "叶向高，字进卿，福清人。\n举万历十一年进士｜授庶吉士。\n进编修。\n迁南京国子司业。"}
	res, err := chunker.New(chunker.Config{}).Segment(context.Background(), doc)
	if err != nil {
		t.Fatal(err)
	}
	if res.Profile == chunker.ProfileGlossary {
		t.Errorf("prose chunked as a glossary")
	}
}
