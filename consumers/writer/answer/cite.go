package answer

import (
	"context"
	"slices"
	"strings"

	"github.com/annalist-dev/annalist/schemas"
)

// Support labels a Supporter gives a claim against passages.
const (
	// LabelComplete: the passages state everything the claim says.
	LabelComplete = "complete"
	// LabelPartial: they state part of it.
	LabelPartial = "partial"
	// LabelMissing: they state none of it.
	LabelMissing = "missing"
)

// Supporter judges whether passages support a claim: a label (Label*)
// and a score in [0, 1], higher for more support.
type Supporter interface {
	Support(claim string, passages []string) (label string, score float64)
}

// DefaultMaxCitations bounds the documents one sentence cites, as ALCE's
// instruction does ("at most three documents in each sentence").
const DefaultMaxCitations = 3

// Agent is the citation agent: it gives each proposed sentence a minimal
// set of documents that support it completely, discovering citations
// for a sentence its own do not support.
type Agent struct {
	// Support judges claims against passages; required.
	Support Supporter
	// MaxCitations bounds a sentence's citations (DefaultMaxCitations when
	// not positive).
	MaxCitations int
}

// Proposal is a drafted sentence: its text and the documents it cites
// (1-based places in the answer's document list).
type Proposal struct {
	Text      string `json:"text"`
	Citations []int  `json:"citations"`
}

// Sentence is a sentence of an answer: its text, its citations (1-based,
// a minimal set that supports it completely), the support judge's score
// of the sentence against them, and whether the citations were
// discovered (the sentence's own did not support it).
type Sentence struct {
	Text       string  `json:"text"`
	Citations  []int   `json:"citations"`
	Score      float64 `json:"score"`
	Discovered bool    `json:"discovered,omitempty"`
}

// Dropped is a proposed sentence left out of the answer, and why.
type Dropped struct {
	Text   string `json:"text"`
	Reason string `json:"reason"`
}

// Quality is the citation quality of a drafted answer, ALCE-style, on
// the citations as the drafter proposed them: Recall is the share of
// sentences their own citations support completely; Precision the share
// of proposed citations that are relevant (in the minimal set of a
// sentence they support); Score their F1.
type Quality struct {
	Sentences int     `json:"sentences"`
	Recall    float64 `json:"recall"`
	Precision float64 `json:"precision"`
	Score     float64 `json:"score"`
}

// Result is the agent's work on one draft: the sentences kept, those
// dropped, the draft's citation quality and the documents the supported
// sentences cite (the reduced reference set).
type Result struct {
	Sentences []Sentence `json:"sentences"`
	Dropped   []Dropped  `json:"dropped,omitempty"`
	Quality   Quality    `json:"quality"`
	Reduced   []int      `json:"reduced"`
}

func (a Agent) max() int {
	if a.MaxCitations > 0 {
		return a.MaxCitations
	}
	return DefaultMaxCitations
}

// Run checks each proposal against docs (1-based), citing only documents
// of pool (all of them when pool is empty). A sentence proposed twice is
// judged once.
func (a Agent) Run(ctx context.Context, docs []schemas.AnswerDocument, pool []int, props []Proposal) (Result, error) {
	passages := make([]string, len(docs))
	for i, d := range docs {
		passages[i] = Passage(d)
	}
	if len(pool) == 0 {
		for k := range docs {
			pool = append(pool, k+1)
		}
	}
	var res Result
	seen := map[string]bool{}
	relevant, proposed, ownSupported := 0, 0, 0
	for _, p := range props {
		if err := ctx.Err(); err != nil {
			return Result{}, err
		}
		text := strings.TrimSpace(p.Text)
		if text == "" || seen[text] {
			continue
		}
		seen[text] = true
		res.Quality.Sentences++
		own := validCitations(p.Citations, pool)
		proposed += len(dedupe(p.Citations))
		c := a.cite(text, own, passages, pool)
		if c.own {
			ownSupported++
			relevant += len(c.cites)
		}
		if c.cites == nil {
			res.Dropped = append(res.Dropped, Dropped{Text: text, Reason: c.reason})
			continue
		}
		res.Sentences = append(res.Sentences, Sentence{Text: text, Citations: c.cites, Score: c.score, Discovered: !c.own})
		for _, k := range c.cites {
			if !slices.Contains(res.Reduced, k) {
				res.Reduced = append(res.Reduced, k)
			}
		}
	}
	slices.Sort(res.Reduced)
	q := &res.Quality
	if q.Sentences > 0 {
		q.Recall = float64(ownSupported) / float64(q.Sentences)
	}
	if proposed > 0 {
		q.Precision = float64(relevant) / float64(proposed)
	}
	if q.Recall+q.Precision > 0 {
		q.Score = 2 * q.Recall * q.Precision / (q.Recall + q.Precision)
	}
	return res, nil
}

// citation is the agent's decision on one sentence.
type citation struct {
	cites  []int
	score  float64
	own    bool
	reason string
}

// cite finds the sentence's citations: its own when they support it
// completely, else the documents of pool discovered greedily by their
// support score; then drops each cited document whose removal keeps the
// support complete, the least supporting first. No set: reason says why.
func (a Agent) cite(claim string, own []int, passages []string, pool []int) citation {
	judge := func(set []int) (string, float64) {
		ps := make([]string, len(set))
		for i, k := range set {
			ps[i] = passages[k-1]
		}
		return a.Support.Support(claim, ps)
	}
	single := map[int]float64{}
	singleLabel := map[int]string{}
	one := func(k int) float64 {
		if s, ok := single[k]; ok {
			return s
		}
		l, s := judge([]int{k})
		single[k], singleLabel[k] = s, l
		return s
	}
	if len(own) > 0 {
		if l, s := judge(own); l == LabelComplete {
			if set, s := a.minimize(own, s, one, judge); set != nil {
				return citation{cites: set, score: s, own: true}
			}
		}
	}
	// Discovery: the pool's documents by their support of the claim alone,
	// those that support none of it left out.
	var cands []int
	for _, k := range pool {
		one(k)
		if singleLabel[k] != LabelMissing {
			cands = append(cands, k)
		}
	}
	slices.SortStableFunc(cands, func(x, y int) int {
		if r := rank(singleLabel[y]) - rank(singleLabel[x]); r != 0 {
			return r
		}
		switch {
		case single[x] > single[y]:
			return -1
		case single[x] < single[y]:
			return 1
		}
		return x - y
	})
	var set []int
	for _, k := range cands {
		if len(set) == a.max() {
			break
		}
		set = append(set, k)
		if l, s := judge(set); l == LabelComplete {
			set, s = a.minimize(set, s, one, judge)
			return citation{cites: set, score: s}
		}
	}
	reason := "no document supports it"
	if len(cands) > 0 {
		reason = "the documents support only part of it"
	}
	return citation{reason: reason}
}

// minimize drops from set, least supporting first, each document whose
// removal keeps the support complete; it returns the set sorted and its
// score.
func (a Agent) minimize(set []int, score float64, one func(int) float64, judge func([]int) (string, float64)) ([]int, float64) {
	set = slices.Clone(set)
	order := slices.Clone(set)
	slices.SortStableFunc(order, func(x, y int) int {
		switch sx, sy := one(x), one(y); {
		case sx < sy:
			return -1
		case sx > sy:
			return 1
		}
		return y - x
	})
	for _, k := range order {
		if len(set) == 1 {
			break
		}
		rest := slices.DeleteFunc(slices.Clone(set), func(x int) bool { return x == k })
		if l, s := judge(rest); l == LabelComplete {
			set, score = rest, s
		}
	}
	if len(set) > a.max() {
		return nil, 0
	}
	slices.Sort(set)
	return set, score
}

func rank(label string) int {
	switch label {
	case LabelComplete:
		return 2
	case LabelPartial:
		return 1
	}
	return 0
}

// validCitations are the distinct citations of cs that are in pool.
func validCitations(cs, pool []int) []int {
	var out []int
	for _, k := range cs {
		if slices.Contains(pool, k) && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

func dedupe(cs []int) []int {
	var out []int
	for _, k := range cs {
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// Passage is the text of a document a sentence is judged against: its
// title, then its text (the title once, when the text opens with it, as
// ALCE's passages often do).
func Passage(d schemas.AnswerDocument) string {
	t, body := strings.TrimSpace(d.Title), strings.TrimSpace(d.Text)
	if t == "" || strings.HasPrefix(body, t) {
		return body
	}
	return t + ". " + body
}
