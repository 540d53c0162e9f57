package answer

import (
	"context"
	"fmt"
	"slices"

	"github.com/annalist-dev/annalist/schemas"
)

// DefaultTau is the calibration gate's threshold on the drafted answer's
// citation quality (Quality.Score): below it the answer is drafted again
// from the reduced reference set. At 0.8 a draft passes when, say, nine
// of ten sentences are supported by their own citations and nine of ten
// citations are needed; one unsupported sentence in three redoes it.
const DefaultTau = 0.8

// Proposer drafts an answer to question from the documents of pool
// (1-based places in docs; the citations it proposes index docs).
type Proposer func(ctx context.Context, question string, docs []schemas.AnswerDocument, pool []int) ([]Proposal, error)

// Composer writes an answer: a draft, the citation agent, and the
// calibration gate.
type Composer struct {
	Agent Agent
	// Tau is the gate's threshold (DefaultTau when zero; negative turns
	// the gate off).
	Tau float64
}

// Gate is what the calibration gate did: whether it fired (the first
// draft's quality below Tau), the reduced reference set it redrafted
// from, the second draft's quality, and which draft was kept ("first"
// or "second").
type Gate struct {
	Tau     float64  `json:"tau"`
	Fired   bool     `json:"fired"`
	Reduced []int    `json:"reduced,omitempty"`
	First   Quality  `json:"first"`
	Second  *Quality `json:"second,omitempty"`
	Kept    string   `json:"kept"`
	// Note says why a fired gate did not redraft (no supported sentence,
	// or nothing to reduce) or why its second draft was not made.
	Note string `json:"note,omitempty"`
}

// Answer is a composed answer: its sentences (each with a minimal set of
// supporting citations, 1-based into the documents), the sentences
// dropped, the kept draft's quality, and the gate's report.
type Answer struct {
	Question  string     `json:"question"`
	Sentences []Sentence `json:"sentences"`
	Dropped   []Dropped  `json:"dropped,omitempty"`
	Quality   Quality    `json:"quality"`
	Gate      Gate       `json:"gate"`
}

func (c Composer) tau() float64 {
	if c.Tau == 0 {
		return DefaultTau
	}
	return c.Tau
}

// Compose answers question from docs: propose drafts from every document,
// the agent cites, and when the draft's quality is below Tau and the
// supported sentences cite fewer documents than there are, propose drafts
// again from those alone and the better draft (the higher Quality.Score;
// the first on a tie, or when the second could not be made) is kept.
func (c Composer) Compose(ctx context.Context, question string, docs []schemas.AnswerDocument, propose Proposer) (Answer, error) {
	if c.Agent.Support == nil {
		return Answer{}, fmt.Errorf("answer: the citation agent has no support judge")
	}
	all := make([]int, len(docs))
	for i := range docs {
		all[i] = i + 1
	}
	first, err := c.draft(ctx, question, docs, all, propose)
	if err != nil {
		return Answer{}, err
	}
	g := Gate{Tau: c.tau(), First: first.Quality, Kept: "first"}
	kept := first
	switch {
	case c.tau() < 0 || first.Quality.Score >= c.tau():
	case len(first.Reduced) == 0:
		g.Fired, g.Note = true, "no sentence is supported: nothing to reduce the reference set to"
	case len(first.Reduced) == len(all):
		g.Fired, g.Note = true, "the supported sentences cite every document: the reduced set is the same"
	default:
		g.Fired, g.Reduced = true, slices.Clone(first.Reduced)
		second, err := c.draft(ctx, question, docs, first.Reduced, propose)
		if err != nil {
			// The first draft stands: a second that could not be made
			// (a model answer rejected, a model failure) takes nothing
			// from it, unless the work was called off.
			if ctx.Err() != nil {
				return Answer{}, err
			}
			g.Note = "the second draft failed: " + err.Error()
			break
		}
		q := second.Quality
		g.Second = &q
		if q.Score > first.Quality.Score {
			kept, g.Kept = second, "second"
		}
	}
	return Answer{Question: question, Sentences: kept.Sentences, Dropped: kept.Dropped, Quality: kept.Quality, Gate: g}, nil
}

func (c Composer) draft(ctx context.Context, question string, docs []schemas.AnswerDocument, pool []int, propose Proposer) (Result, error) {
	props, err := propose(ctx, question, docs, pool)
	if err != nil {
		return Result{}, err
	}
	return c.Agent.Run(ctx, docs, pool, props)
}
