package eval

import (
	"context"
	"testing"

	"github.com/annalist-dev/annalist/internal/ports/graph"
	"github.com/annalist-dev/annalist/schemas"
)

func TestMentions(t *testing.T) {
	chunks := map[string]schemas.Chunk{
		"a-0000": {ChunkID: "a-0000", Collection: "archive", Text: "是岁，叶向高入阁，与子平议事。"},
		"v-0001": {ChunkID: "v-0001", Collection: "liezhuan", EntryChunk: "v-0001", Text: "叶向高，字进卿。"},
		"b-0000": {ChunkID: "b-0000", Collection: "archive", Text: "无名。"},
	}
	links := map[string]string{
		"a-0000": `[{"entity":"person:叶向高@1","surface":"叶向高","start":3,"end":6,"score":1,"candidates":[{"entity":"person:叶向高@1","score":1}]},` +
			`{"entity":"","surface":"子平","start":10,"end":12,"score":0,"candidates":[{"entity":"person:林安@2","score":0},{"entity":"person:周明@3","score":0}]}]`,
		"v-0001": `[{"entity":"person:叶向高@1","surface":"叶向高","start":0,"end":3,"score":4,"candidates":[{"entity":"person:叶向高@1","score":4}]}]`,
	}
	src := mapSource(chunks, links)
	rep, err := Mentions(context.Background(), src, []string{"b-0000", "v-0001", "a-0000"}, 10, 1)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Chunks != 3 || rep.Linked != 2 || rep.Mentions != 3 || rep.Resolved != 2 || rep.Ambiguous != 1 || rep.Outside != 1 {
		t.Fatalf("counts %+v", rep.MentionCounts)
	}
	if c := rep.Collections["archive"]; c.Chunks != 2 || c.Mentions != 2 || c.Outside != 1 {
		t.Fatalf("archive counts %+v", c)
	}
	if len(rep.Samples) != 1 || rep.Samples[0].Context != "是岁，【叶向高】入阁，与子平议事。" {
		t.Fatalf("samples %+v", rep.Samples)
	}
}

func TestWindow(t *testing.T) {
	text := "一二三四五六七八九十甲乙丙丁戊己庚辛壬癸子丑寅卯辰"
	if got := window(text, 20, 22, 3); got != "辛壬癸【子丑】寅卯辰" {
		t.Errorf("window %q", got)
	}
	if got := window(text, 0, 1, 2); got != "【一】二三" {
		t.Errorf("window at the start %q", got)
	}
}

// TestMentionsRecallSample: every occurrence of a person's full name in
// the collection asked for is in the recall pool, and a drawn one says
// whom the linker linked the span to; the ambiguity sample holds the
// mentions several persons may denote.
func TestMentionsRecallSample(t *testing.T) {
	chunks := map[string]schemas.Chunk{
		"a-0000": {ChunkID: "a-0000", Collection: "archive", Text: "是岁，叶向高入阁，与子平议事。叶向高辞。"},
		"v-0001": {ChunkID: "v-0001", Collection: "liezhuan", EntryChunk: "v-0001", Text: "叶向高，字进卿。"},
	}
	links := map[string]string{
		"a-0000": `[{"entity":"person:叶向高@1","surface":"叶向高","start":3,"end":6,"score":0.9,"candidates":[{"entity":"person:叶向高@1","score":0.9}]},` +
			`{"entity":"","surface":"子平","start":10,"end":12,"score":0.4,"review":"r1","candidates":[{"entity":"person:林安@2","score":0.4},{"entity":"person:周明@3","score":0.3}]}]`,
	}
	src := mapSource(chunks, links)
	src.Persons = func(context.Context) ([]string, error) {
		return []string{"person:叶向高@1", "person:林安@2", "person:子平", "person:王@4"}, nil
	}
	rep, err := MentionsWith(context.Background(), src, []string{"v-0001", "a-0000"},
		MentionOptions{Recall: 10, RecallCollection: "archive", Ambiguous: 5, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.RecallPool != 2 || len(rep.Recall) != 2 || rep.RecallByLength[3] != 2 || rep.RecallLinked[3] != 1 {
		t.Fatalf("recall pool %d, sample %+v, by length %v, linked %v", rep.RecallPool, rep.Recall, rep.RecallByLength, rep.RecallLinked)
	}
	if r := rep.Recall[0]; r.Linked != "person:叶向高@1" || r.Context != "是岁，【叶向高】入阁，与子平议事。叶向高辞。" {
		t.Fatalf("first occurrence %+v", r)
	}
	if r := rep.Recall[1]; r.Linked != "" || r.Candidates != 0 {
		t.Fatalf("second occurrence, which the linker did not record: %+v", r)
	}
	if rep.Reviewed != 1 || len(rep.AmbiguousSample) != 1 || len(rep.AmbiguousSample[0].Scores) != 2 || rep.AmbiguousSample[0].Review != "r1" {
		t.Fatalf("reviewed %d, ambiguous %+v", rep.Reviewed, rep.AmbiguousSample)
	}
}

// TestMentionsSurfaceShares: the shares of names are summarised over the
// surfaces counted: three read as names, one as a word, and a courtesy
// name apart.
func TestMentionsSurfaceShares(t *testing.T) {
	var name, word, rare graph.SurfaceStat
	name.Bins[6], word.Bins[1], rare.Bins[6] = 40, 40, 3
	src := MentionSource{
		Chunks:     func(context.Context, []string) ([]schemas.Chunk, error) { return nil, nil },
		Links:      func(context.Context, string) (string, error) { return "", nil },
		EntryChunk: func(context.Context, string) (string, error) { return "", nil },
		SurfaceStats: func(context.Context) (map[string]graph.SurfaceStat, error) {
			return map[string]graph.SurfaceStat{"叶向高": name, "天启": word, "王三": rare, "李四": name, "进卿": word}, nil
		},
		Candidates: func(_ context.Context, surfaces []string) ([][]string, error) {
			out := make([][]string, len(surfaces))
			for i, s := range surfaces {
				if s == "进卿" {
					out[i] = []string{"person:叶向高@1"}
				} else {
					out[i] = []string{"person:" + s + "@2"}
				}
			}
			return out, nil
		},
	}
	rep, err := MentionsWith(context.Background(), src, nil, MentionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if sh := rep.Shares; sh == nil || sh.Surfaces != 4 || sh.Median < 0.9 || sh.Mean < 0.7 || sh.Mean > 0.8 ||
		sh.Aliases == nil || sh.Aliases.Surfaces != 1 || sh.Aliases.Mean > 0.1 {
		t.Fatalf("shares %+v, aliases %+v", rep.Shares, rep.Shares.Aliases)
	}
}

// mapSource reads chunks and their mention lists from maps; every entity's
// entry chunk is v-0001.
func mapSource(chunks map[string]schemas.Chunk, links map[string]string) MentionSource {
	return MentionSource{
		Chunks: func(_ context.Context, ids []string) ([]schemas.Chunk, error) {
			var out []schemas.Chunk
			for _, id := range ids {
				out = append(out, chunks[id])
			}
			return out, nil
		},
		Links:      func(_ context.Context, c string) (string, error) { return links[c], nil },
		EntryChunk: func(context.Context, string) (string, error) { return "v-0001", nil },
	}
}
