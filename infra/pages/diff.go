package pages

import (
	"context"
	"fmt"

	"github.com/annalist-dev/annalist/schemas"
)

// Diff operations on sentences.
const (
	DiffSame    = "same"
	DiffAdded   = "added"
	DiffRemoved = "removed"
)

// SentenceDiff is one sentence of a diff between two page versions.
type SentenceDiff struct {
	Op   string `json:"op"`
	Text string `json:"text"`
}

// PageDiff is the difference between two versions of a page, sentence by
// sentence.
type PageDiff struct {
	From      int            `json:"from"`
	To        int            `json:"to"`
	Sentences []SentenceDiff `json:"sentences"`
}

// DiffSentences compares two pages' sentences by their text: a longest
// common subsequence of the texts is "same", the others of from are
// "removed" and those of to "added", each removal placed before the
// additions that replace it. A sentence whose text is unchanged but whose
// status or citations changed counts as the same.
func DiffSentences(from, to []schemas.PageSentence) []SentenceDiff {
	n, m := len(from), len(to)
	// lcs[i][j] is the length of the longest common subsequence of
	// from[i:] and to[j:]; pages are tens of sentences, so O(n·m) is cheap.
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if from[i].Text == to[j].Text {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	out := make([]SentenceDiff, 0, max(n, m))
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && from[i].Text == to[j].Text:
			out = append(out, SentenceDiff{DiffSame, to[j].Text})
			i++
			j++
		case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
			out = append(out, SentenceDiff{DiffRemoved, from[i].Text})
			i++
		default:
			out = append(out, SentenceDiff{DiffAdded, to[j].Text})
			j++
		}
	}
	return out
}

// Diff returns the difference between versions from and to of the
// subject's page. A version the store does not hold fails with an error
// wrapping ErrNotFound.
func (s *Store) Diff(ctx context.Context, tenant, subject string, from, to int) (PageDiff, error) {
	a, err := s.Version(ctx, tenant, subject, from)
	if err != nil {
		return PageDiff{}, fmt.Errorf("diff %q %d..%d: %w", subject, from, to, err)
	}
	b, err := s.Version(ctx, tenant, subject, to)
	if err != nil {
		return PageDiff{}, fmt.Errorf("diff %q %d..%d: %w", subject, from, to, err)
	}
	return PageDiff{From: from, To: to, Sentences: DiffSentences(a.Sentences, b.Sentences)}, nil
}
