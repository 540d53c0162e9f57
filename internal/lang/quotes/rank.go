package quotes

import (
	"bufio"
	"bytes"
	_ "embed"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// Features of a candidate quotation, in the order of Model.Weights.
var FeatureNames = []string{"tag", "lexical", "vector", "author_quotes", "author_topic", "expansion", "tagged"}

// Candidate is a quotation found for a query, with what the ranking reads
// of it.
type Candidate struct {
	ChunkID string
	Text    string
	Author  string
	Tags    []string
	// Vector is the cosine of the query's and the quotation's embeddings.
	Vector float64
	// AuthorQuotes is how many quotations of the collection the author
	// has; AuthorTopic how many of them carry a tag the query matches.
	AuthorQuotes, AuthorTopic int
	// Expansion is how much the quotation speaks in the words of the
	// topics the query names (Expansion of TopicWords, the quotation
	// itself left out of the topic's quotations).
	Expansion float64
}

// Ranked is a candidate with its score: the model's probability that it
// fits the query. Fits says whether the score passes the model's cut.
type Ranked struct {
	Candidate
	Score float64
	Fits  bool
}

// Query is a topic or a text as the ranking reads it.
type Query struct {
	Text  string
	words map[string]bool
}

// NewQuery reads q.
func NewQuery(q string) Query { return Query{Text: q, words: ContentWords(q)} }

// TagMatch is how much of tag the query names: the share of the tag's
// content words the query holds (1 for "wisdom" and the tag "Wisdom").
func (q Query) TagMatch(tag string) float64 {
	tw := ContentWords(tag)
	if len(tw) == 0 {
		return 0
	}
	n := 0
	for w := range tw {
		if q.words[w] {
			n++
		}
	}
	return float64(n) / float64(len(tw))
}

// TagScore is the best TagMatch over tags.
func (q Query) TagScore(tags []string) float64 {
	best := 0.0
	for _, t := range tags {
		best = math.Max(best, q.TagMatch(t))
	}
	return best
}

// Features are the candidate's features for the query, in FeatureNames
// order.
func (q Query) Features(c Candidate) []float64 {
	lex := 0.0
	if len(q.words) > 0 {
		cw := ContentWords(c.Text)
		n := 0
		for w := range q.words {
			if cw[w] {
				n++
			}
		}
		lex = float64(n) / float64(len(q.words))
	}
	topic := 0.0
	if c.AuthorQuotes > 0 {
		topic = float64(c.AuthorTopic) / float64(c.AuthorQuotes)
	}
	tagged := 0.0
	if len(c.Tags) > 0 {
		tagged = 1
	}
	return []float64{q.TagScore(c.Tags), lex, c.Vector, math.Log1p(float64(c.AuthorQuotes)), topic, c.Expansion, tagged}
}

// ContentWords are the lowercased, lightly stemmed words of s that are
// not function words.
func ContentWords(s string) map[string]bool {
	stop := words.Set("stop")
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	}) {
		w = strings.Trim(w, "'")
		if w == "" || stop[w] {
			continue
		}
		out[stem(w)] = true
	}
	return out
}

// stem strips the English inflections that keep a word's sense: plural
// and third-person -s, -ies, -ing, -ed and -ly, leaving at least three
// letters.
func stem(w string) string {
	for _, s := range []struct{ suf, rep string }{{"ies", "y"}, {"ing", ""}, {"ed", ""}, {"ly", ""}, {"s", ""}} {
		if strings.HasSuffix(w, s.suf) && len(w)-len(s.suf)+len(s.rep) >= 3 && !strings.HasSuffix(w, "ss") {
			return strings.TrimSuffix(w, s.suf) + s.rep
		}
	}
	return w
}

// Model is a logistic model of fit: the probability that a candidate fits
// the query is the logistic function of Bias plus Weights·features.
// Lambda is the weight of relevance against novelty when the ranked list
// is made (maximal marginal relevance).
type Model struct {
	Bias    float64
	Weights []float64
	Lambda  float64
	// Cut is the least score of a quotation that fits (Ranked.Fits): the
	// score above which the fitted quotations were relevant with the
	// precision the model's file records.
	Cut float64
	// Header is the comment block of the model's file: how it was fitted
	// and its out-of-fold figures.
	Header []string
}

//go:embed data/rank.tsv
var rankFile []byte

// DefaultModel is the shipped model, data/rank.tsv.
func DefaultModel() (Model, error) { return ReadModel(rankFile) }

// ReadModel reads a model file: comment lines (#), then "bias", "lambda"
// "cut" and one line per feature, name and value tab-separated. A
// feature missing or unknown is an error.
func ReadModel(b []byte) (Model, error) {
	m := Model{Weights: make([]float64, len(FeatureNames)), Lambda: -1}
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			m.Header = append(m.Header, line)
			continue
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		name, val, ok := strings.Cut(line, "\t")
		v, err := strconv.ParseFloat(val, 64)
		if !ok || err != nil {
			return Model{}, fmt.Errorf("rank model line %d: want name<TAB>number, got %q", n, line)
		}
		switch i := slices.Index(FeatureNames, name); {
		case name == "bias":
			m.Bias = v
		case name == "lambda":
			m.Lambda = v
		case name == "cut":
			m.Cut = v
		case i >= 0:
			m.Weights[i] = v
		default:
			return Model{}, fmt.Errorf("rank model line %d: unknown feature %q", n, name)
		}
		seen[name] = true
	}
	for _, f := range append([]string{"bias", "lambda", "cut"}, FeatureNames...) {
		if !seen[f] {
			return Model{}, fmt.Errorf("rank model: no %s", f)
		}
	}
	if m.Cut < 0 || m.Cut > 1 {
		return Model{}, fmt.Errorf("rank model: cut %v outside [0,1]", m.Cut)
	}
	if m.Lambda < 0 || m.Lambda > 1 {
		return Model{}, fmt.Errorf("rank model: lambda %v outside [0,1]", m.Lambda)
	}
	return m, nil
}

// Write is the model file of m: its header, then its values.
func (m Model) Write() []byte {
	var b bytes.Buffer
	for _, h := range m.Header {
		b.WriteString(h + "\n")
	}
	fmt.Fprintf(&b, "bias\t%.6g\nlambda\t%.6g\ncut\t%.6g\n", m.Bias, m.Lambda, m.Cut)
	for i, f := range FeatureNames {
		fmt.Fprintf(&b, "%s\t%.6g\n", f, m.Weights[i])
	}
	return b.Bytes()
}

// Prob is the model's probability of fit for features x.
func (m Model) Prob(x []float64) float64 {
	z := m.Bias
	for i, w := range m.Weights {
		z += w * x[i]
	}
	return 1 / (1 + math.Exp(-z))
}

// Rank scores the candidates for q and returns at most n of them, best
// first, by maximal marginal relevance: each next one maximises
// Lambda·score − (1−Lambda)·(its greatest likeness to one already
// chosen), likeness being the Jaccard index of their content words. The
// same text is never returned twice.
func (m Model) Rank(q Query, cands []Candidate, n int) []Ranked {
	pool := make([]Ranked, 0, len(cands))
	seen := map[string]bool{}
	for _, c := range cands {
		if seen[c.Text] {
			continue
		}
		seen[c.Text] = true
		p := m.Prob(q.Features(c))
		pool = append(pool, Ranked{Candidate: c, Score: p, Fits: p >= m.Cut})
	}
	sort.SliceStable(pool, func(i, j int) bool {
		if pool[i].Score != pool[j].Score {
			return pool[i].Score > pool[j].Score
		}
		return pool[i].ChunkID < pool[j].ChunkID
	})
	wordsOf := make([]map[string]bool, len(pool))
	for i := range pool {
		wordsOf[i] = ContentWords(pool[i].Text)
	}
	var out []Ranked
	var chosen []int
	used := make([]bool, len(pool))
	for len(out) < n && len(out) < len(pool) {
		best, bestV := -1, math.Inf(-1)
		for i := range pool {
			if used[i] {
				continue
			}
			sim := 0.0
			for _, j := range chosen {
				sim = math.Max(sim, jaccard(wordsOf[i], wordsOf[j]))
			}
			if v := m.Lambda*pool[i].Score - (1-m.Lambda)*sim; v > bestV {
				best, bestV = i, v
			}
		}
		used[best] = true
		chosen = append(chosen, best)
		out = append(out, pool[best])
	}
	return out
}

func jaccard(a, b map[string]bool) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 0
	}
	n := 0
	for w := range a {
		if b[w] {
			n++
		}
	}
	return float64(n) / float64(len(a)+len(b)-n)
}
