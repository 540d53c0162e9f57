package support

import (
	"bytes"
	_ "embed"
	"fmt"
	"sync"
)

// modelFile is the fitted judge (fit_test.go writes it).
//
//go:embed data/model.tsv
var modelFile []byte

var defaultModel = sync.OnceValues(func() (*Model, error) { return ReadModel(bytes.NewReader(modelFile)) })

// Default returns the shipped model, read from data/model.tsv. The file is
// part of the build, so an error is a build mistake and panics.
func Default() *Model {
	m, err := defaultModel()
	if err != nil {
		panic(fmt.Sprintf("support: data/model.tsv: %v", err))
	}
	return m
}

// Span is one stretch of evidence that carries the claim's content.
type Span struct {
	// Passage indexes the passages given to the judge.
	Passage int `json:"passage"`
	// Start and End are rune offsets into that passage, End exclusive.
	Start int `json:"start"`
	End   int `json:"end"`
	// Text is the passage's runes [Start, End).
	Text string `json:"text"`
}

// Result is a judgement of a claim on its evidence.
type Result struct {
	// Label is Complete, Partial or Missing.
	Label string `json:"label"`
	// Spans are the evidence sentences that carry the claim's content, in
	// the order they add to it (the sentence that carries most first).
	Spans []Span `json:"spans"`
	// Score is the probability that the evidence supports the claim
	// completely.
	Score float64 `json:"score"`
}

// Judge judges claim on passages with the shipped model (see
// Model.Judge).
func Judge(claim string, passages []string) Result { return Default().Judge(claim, passages) }

// Judge says whether passages support claim completely, partially or not
// at all, and which of their sentences carry it. Citation markers ("[1]")
// are stripped from the claim; a passage may open with a source line
// ("[2] https://…") followed by a blank line, which is not read as
// evidence. Evidence that holds none of the claim's content words is
// missing whatever the model says, and missing evidence has no spans.
func (m *Model) Judge(claim string, passages []string) Result {
	r := read(claim, passages)
	res := Result{Score: m.Score(r.features), Spans: []Span{}}
	res.Label = m.Label(res.Score)
	if res.Label != Missing {
		res.Spans = r.spans(passages)
	}
	if len(res.Spans) == 0 {
		res.Label = Missing
	}
	return res
}

// spans picks the sentences that carry the claim's content: the one that
// holds most of it, then, while any is left, the sentence that adds most
// of what is left, as long as it adds a content word the ones picked lack.
// At most three sentences are picked.
func (r *reading) spans(passages []string) []Span {
	covered := map[string]bool{}
	var out []Span
	used := map[int]bool{}
	for len(out) < 3 {
		best, bestGain := -1, 0.0
		for i, s := range r.sentences {
			if used[i] {
				continue
			}
			gain := 0.0
			for _, c := range r.content {
				if !covered[c] && s.stems[c] {
					gain += r.weight[c]
				}
			}
			if gain > bestGain {
				best, bestGain = i, gain
			}
		}
		if best < 0 {
			break
		}
		used[best] = true
		s := r.sentences[best]
		for _, c := range r.content {
			if s.stems[c] {
				covered[c] = true
			}
		}
		rs := []rune(passages[s.passage])
		out = append(out, Span{Passage: s.passage, Start: s.start, End: s.end, Text: string(rs[s.start:s.end])})
	}
	return out
}
