package claims

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/annalist-dev/annalist/internal/lang/text"
	"github.com/annalist-dev/annalist/internal/lang/zh/era"
	"github.com/annalist-dev/annalist/schemas"
)

// TestJaccardsAsMerged: the index's postings give every passage the token
// Jaccard a merge of the two sets gives, for sentences drawn from the
// references themselves, cut anywhere, and for ones sharing nothing.
func TestJaccardsAsMerged(t *testing.T) {
	texts := []string{
		"叶向高，字进卿，福清人。万历十一年进士。改庶吉士，授编修。三十五年，擢礼部尚书兼东阁大学士。",
		"方从哲，字中涵，其先德清人。万历十一年进士。授庶吉士，屡迁国子祭酒。",
		"王畿字汝中，别号龙溪，浙之山阴人。嘉靖五年举会试，不就廷对。",
		"Ye Xianggao, courtesy name Jinqing, passed the examination in 1583. He became grand secretary.",
	}
	refs := &schemas.ReferenceSet{}
	for i, s := range texts {
		refs.References = append(refs.References, schemas.Reference{ChunkID: string(rune('a' + i)), Text: s})
	}
	x := buildIndex(era.Default(), refs)
	rng := rand.New(rand.NewPCG(3, 5))
	all := []rune(strings.Join(texts, ""))
	sentences := []string{"", "无关之言", "叶向高", "examination 1583"}
	for range 200 {
		i := rng.IntN(len(all))
		sentences = append(sentences, string(all[i:min(len(all), i+1+rng.IntN(30))]))
	}
	for _, s := range sentences {
		a := text.NewTokenSet(s)
		got := x.jaccards(a)
		for p, ps := range x.passages {
			if want := a.Jaccard(ps.toks); got[p] != want {
				t.Fatalf("%q against passage %d: %v, want %v", s, p, got[p], want)
			}
		}
	}
}

// buildIndex indexes refs, preparing every text.
func buildIndex(tab *era.Table, refs *schemas.ReferenceSet) *Index {
	return NewIndex(refs, func(r schemas.Reference) *Prepared { return Prepare(tab, r.Text) })
}
