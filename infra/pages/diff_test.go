package pages_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/annalist-dev/annalist/infra/pages"
	"github.com/annalist-dev/annalist/infra/redisdb/redistest"
	"github.com/annalist-dev/annalist/schemas"
)

func sentences(texts ...string) []schemas.PageSentence {
	out := make([]schemas.PageSentence, len(texts))
	for i, t := range texts {
		out[i] = schemas.PageSentence{Text: t, Status: "supported"}
	}
	return out
}

func TestDiffSentences(t *testing.T) {
	d := func(op, text string) pages.SentenceDiff { return pages.SentenceDiff{Op: op, Text: text} }
	for _, tc := range []struct {
		name     string
		from, to []string
		want     []pages.SentenceDiff
	}{
		{"equal", []string{"a", "b"}, []string{"a", "b"},
			[]pages.SentenceDiff{d("same", "a"), d("same", "b")}},
		{"replaced in the middle", []string{"a", "b", "c"}, []string{"a", "B", "c"},
			[]pages.SentenceDiff{d("same", "a"), d("removed", "b"), d("added", "B"), d("same", "c")}},
		{"added at the end", []string{"a"}, []string{"a", "b"},
			[]pages.SentenceDiff{d("same", "a"), d("added", "b")}},
		{"removed at the start", []string{"a", "b"}, []string{"b"},
			[]pages.SentenceDiff{d("removed", "a"), d("same", "b")}},
		{"from nothing", nil, []string{"a"}, []pages.SentenceDiff{d("added", "a")}},
		{"to nothing", []string{"a"}, nil, []pages.SentenceDiff{d("removed", "a")}},
		{"both empty", nil, nil, []pages.SentenceDiff{}},
		{"moved sentence", []string{"a", "b", "c"}, []string{"b", "c", "a"},
			[]pages.SentenceDiff{d("removed", "a"), d("same", "b"), d("same", "c"), d("added", "a")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := pages.DiffSentences(sentences(tc.from...), sentences(tc.to...))
			if !slices.Equal(got, tc.want) {
				t.Fatalf("DiffSentences(%q, %q) = %v; want %v", tc.from, tc.to, got, tc.want)
			}
		})
	}
}

func TestStoreDiff(t *testing.T) {
	ctx := context.Background()
	s := pages.New(redistest.Client(t))
	for i, texts := range [][]string{{"叶向高，字进卿。", "福清人。"}, {"叶向高，字进卿。", "福清人。", "万历十一年举进士。"}} {
		p := schemas.Page{Subject: "叶向高", Kind: schemas.KindBiography, RequestID: "r" + string(rune('1'+i)), Sentences: sentences(texts...)}
		if _, _, err := s.Publish(ctx, "t", p); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Diff(ctx, "t", "叶向高", 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := []pages.SentenceDiff{{Op: "same", Text: "叶向高，字进卿。"}, {Op: "same", Text: "福清人。"}, {Op: "added", Text: "万历十一年举进士。"}}
	if got.From != 1 || got.To != 2 || !slices.Equal(got.Sentences, want) {
		t.Fatalf("Diff 1..2 = %+v; want %v", got, want)
	}
	if _, err := s.Diff(ctx, "t", "叶向高", 1, 3); !errors.Is(err, pages.ErrNotFound) {
		t.Fatalf("diff to a missing version: %v; want ErrNotFound", err)
	}
	if _, err := s.Diff(ctx, "other", "叶向高", 1, 2); !errors.Is(err, pages.ErrNotFound) {
		t.Fatalf("another tenant's diff: %v; want ErrNotFound", err)
	}
}
