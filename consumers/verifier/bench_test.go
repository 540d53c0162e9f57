package verifier_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/consumers/verifier"
	"github.com/annalist-dev/annalist/schemas"
)

// thirtyRefs is the fixture's reference set grown to 30 references with
// made-up entries of other officials (about 500 characters each), the
// size of a typical KG reference set.
func thirtyRefs(b testing.TB) *schemas.ReferenceSet {
	rs := fixtureRefs(b)
	surnames := []string{"王", "李", "张", "刘", "陈", "杨", "赵", "黄", "周", "吴"}
	given := []string{"景和", "士廉", "文度", "季良", "伯通", "仲安", "叔宁", "元礼", "德辅", "惟中"}
	places := []string{"长洲", "南海", "临川", "会稽", "歙", "蒲州", "江陵", "晋江", "余姚", "泰和"}
	eras := []string{"成化", "弘治", "正德", "嘉靖", "隆庆", "万历"}
	nums := []string{"二", "五", "八", "十一", "十四", "十七", "二十", "二十三", "二十六", "二十九"}
	offices := []string{"行人", "吏部主事", "户部郎中", "太常寺少卿", "右佥都御史", "礼部右侍郎", "南京国子祭酒", "按察使"}
	for i := 0; len(rs.References) < 30; i++ {
		name := surnames[i%10] + given[(i*3)%10]
		var b strings.Builder
		fmt.Fprintf(&b, "%s，字%s，%s人。", name, given[(i*7+1)%10], places[(i*3)%10])
		fmt.Fprintf(&b, "举%s%s年进士，授%s，迁%s。", eras[i%6], nums[i%10], offices[i%8], offices[(i+3)%8])
		for k := range 8 {
			fmt.Fprintf(&b, "%s年，%s上疏言%s事，帝嘉纳之，命%s往勘，还奏称旨。", nums[(i+k)%10], name[len(name)-6:],
				[]string{"漕运", "边备", "盐法", "河工"}[k%4], offices[(i+k)%8])
		}
		fmt.Fprintf(&b, "%s%s年卒，年六十有%s。", eras[(i+1)%6], nums[(i+5)%10], nums[i%10])
		rs.References = append(rs.References, schemas.Reference{ChunkID: fmt.Sprintf("bx-%04d", i), DocID: "bx",
			Text: b.String(), Source: schemas.SourceNeighbour})
	}
	return rs
}

var benchSentences = []string{
	"万历十一年（1583年），林敬安举进士。",
	"二十六年，擢太常寺少卿，上疏论边储之弊，言甚切直。",
	"林敬安，字守拙，号南溪，莆田人，尝督修海塘三十里。",
}

// BenchmarkCheck checks one sentence against a 30-reference set whose
// index the checker already holds (every sentence of a page after the
// first).
func BenchmarkCheck(b *testing.B) {
	refs := thirtyRefs(b)
	for _, s := range benchSentences {
		b.Run(strings.TrimSuffix(string([]rune(s)[:6]), "，"), func(b *testing.B) {
			chk := verifier.NewOffline(verifier.Config{})
			d := schemas.Draft{RequestID: "r", Subject: fixtureName, Text: s}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := chk.Check(ctx, refs, d); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCheckColdIndex is BenchmarkCheck with the reference set's index
// built on every call (the first sentence of a page, or a cache miss).
func BenchmarkCheckColdIndex(b *testing.B) {
	refs := thirtyRefs(b)
	d := schemas.Draft{RequestID: "r", Subject: fixtureName, Text: benchSentences[0]}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := verifier.NewOffline(verifier.Config{}).Check(ctx, refs, d); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckCorpus checks the sentences of the writer's offline
// biographies of a few mingshi-liezhuan volumes (skipped without the
// data), one check per iteration, in page order.
func BenchmarkCheckCorpus(b *testing.B) {
	people := loadCorpus(b, corpusVolumes(b, 3))
	type job struct {
		refs *schemas.ReferenceSet
		text string
	}
	var jobs []job
	for _, p := range people {
		for _, s := range writerBiography(b, p) {
			jobs = append(jobs, job{p.refs, s})
		}
	}
	chk := verifier.NewOffline(verifier.Config{})
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		j := jobs[i%len(jobs)]
		i++
		if _, err := chk.Check(ctx, j.refs, schemas.Draft{RequestID: "r", Text: j.text}); err != nil {
			b.Fatal(err)
		}
	}
}
