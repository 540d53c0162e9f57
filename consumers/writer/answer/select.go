package answer

import (
	"slices"
	"strings"

	"github.com/annalist-dev/annalist/internal/lang/en/discourse"
	"github.com/annalist-dev/annalist/internal/lang/text"
	"github.com/annalist-dev/annalist/schemas"
)

// DefaultSentences is how many sentences the offline engine extracts at
// most: ALCE's hand-written answers have two to five.
const DefaultSentences = 3

// maxOverlap is the token Jaccard above which a candidate sentence
// repeats one already chosen and is passed over.
const maxOverlap = 0.5

// minWords is the fewest words an extracted sentence has: a shorter
// "sentence" is a heading or a fragment the splitter left.
const minWords = 4

// ended reports whether s ends as a sentence does (a full stop, question
// or exclamation mark, with any closing quotes or brackets after it):
// retrieved passages are windows of a fixed number of words (ALCE's are
// 100), and their last "sentence" is often cut in the middle.
func ended(s string) bool {
	s = strings.TrimRight(s, "\"'”’)] ")
	return strings.HasSuffix(s, ".") || strings.HasSuffix(s, "?") || strings.HasSuffix(s, "!")
}

// Candidate is a sentence of the documents with its relevance to the
// question and the documents it is a sentence of (1-based).
type Candidate struct {
	Text  string
	Docs  []int
	Score float64
}

// Rank scores every sentence of the documents of pool by its relevance
// to question: BM25 over the question's distinct words, the inverse
// document frequency counted on the sentences themselves, so the weights
// are the documents' evidence of which words discriminate, not a list.
// A sentence found in several documents is one candidate citing all of
// them. Best first; sentences sharing no word with the question, and
// fragments, are left out.
func Rank(question string, docs []schemas.AnswerDocument, pool []int) []Candidate {
	type unit struct {
		text   string
		docs   []int
		tokens []string
	}
	var units []*unit
	byText := map[string]*unit{}
	for _, k := range pool {
		if k < 1 || k > len(docs) {
			continue
		}
		for _, s := range discourse.SplitSentences(docs[k-1].Text) {
			s = strings.Join(strings.Fields(s), " ")
			if u := byText[s]; u != nil {
				if !slices.Contains(u.docs, k) {
					u.docs = append(u.docs, k)
				}
				continue
			}
			u := &unit{text: s, docs: []int{k}, tokens: text.Tokens(s)}
			byText[s] = u
			units = append(units, u)
		}
	}
	if len(units) == 0 {
		return nil
	}
	df := map[string]int{}
	total := 0
	for _, u := range units {
		total += len(u.tokens)
		seen := map[string]bool{}
		for _, t := range u.tokens {
			if !seen[t] {
				seen[t] = true
				df[t]++
			}
		}
	}
	avg := float64(total) / float64(len(units))
	n := float64(len(units))
	var query []string
	for _, t := range text.Tokens(question) {
		if !slices.Contains(query, t) {
			query = append(query, t)
		}
	}
	var out []Candidate
	for _, u := range units {
		if len(strings.Fields(u.text)) < minWords || !ended(u.text) {
			continue
		}
		tf := map[string]int{}
		for _, t := range u.tokens {
			tf[t]++
		}
		score := 0.0
		for _, q := range query {
			if f := float64(tf[q]); f > 0 {
				score += text.BM25Term(f, float64(df[q]), n, float64(len(u.tokens)), avg)
			}
		}
		if score > 0 {
			out = append(out, Candidate{Text: u.text, Docs: slices.Clone(u.docs), Score: score})
		}
	}
	slices.SortStableFunc(out, func(a, b Candidate) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return 0
	})
	return out
}

// Select is the offline engine's draft: the best max sentences of Rank,
// each unlike those chosen before it (token Jaccard at most 0.5), citing
// the documents it is a sentence of.
func Select(question string, docs []schemas.AnswerDocument, pool []int, max int) []Proposal {
	if max <= 0 {
		max = DefaultSentences
	}
	var out []Proposal
	for _, c := range Rank(question, docs, pool) {
		if len(out) == max {
			break
		}
		if slices.ContainsFunc(out, func(p Proposal) bool { return text.Jaccard(p.Text, c.Text) > maxOverlap }) {
			continue
		}
		out = append(out, Proposal{Text: c.Text, Citations: c.Docs})
	}
	return out
}
