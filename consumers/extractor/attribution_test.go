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
