package quotes

import (
	"math"
	"sort"
)

// TopicWordK is how many words describe a topic (TopicWords).
const TopicWordK = 40

// CountWords counts, for each word, the documents holding it.
func CountWords(docs []map[string]bool) map[string]int {
	out := map[string]int{}
	for _, d := range docs {
		for w := range d {
			out[w]++
		}
	}
	return out
}

// TopicWords are the words a topic's tagged quotations use more often
// than the collection does, learned from the collection: counts are the
// topic's m quotations' document frequencies (CountWords), df and n the
// collection's. A word's weight is the log ratio of its smoothed rate in
// the topic to its rate in the collection; the TopicWordK words of
// greatest weight times count are kept, each in at least two of the
// topic's quotations. except, when not nil, is the words of one of the m
// quotations to leave out (the weights as if it were not tagged).
func TopicWords(counts map[string]int, m int, df map[string]int, n int, except map[string]bool) map[string]float64 {
	if except != nil {
		m--
	}
	if m < 2 || n == 0 {
		return nil
	}
	type word struct {
		w    string
		k    int
		gain float64
	}
	var ws []word
	for w, k := range counts {
		if except[w] {
			k--
		}
		if k < 2 {
			continue
		}
		g := math.Log((float64(k) + 0.5) / float64(m+1) / ((float64(df[w]) + 0.5) / float64(n+1)))
		if g > 0 {
			ws = append(ws, word{w, k, g})
		}
	}
	sort.Slice(ws, func(i, j int) bool {
		a, b := float64(ws[i].k)*ws[i].gain, float64(ws[j].k)*ws[j].gain
		if a != b {
			return a > b
		}
		return ws[i].w < ws[j].w
	})
	out := map[string]float64{}
	for _, w := range ws[:min(TopicWordK, len(ws))] {
		out[w.w] = w.gain
	}
	return out
}

// Expansion is how much a quotation of content words words speaks in a
// topic's words tw: the sum of the weights of the topic words it holds
// over the square root of its length.
func Expansion(words map[string]bool, tw map[string]float64) float64 {
	if len(tw) == 0 || len(words) == 0 {
		return 0
	}
	s := 0.0
	for w := range words {
		s += tw[w]
	}
	return s / math.Sqrt(float64(len(words)))
}
