package answer

import (
	"context"
	"errors"
	"hash/fnv"
	"sync"

	"github.com/annalist-dev/annalist/consumers/writer"
	"github.com/annalist-dev/annalist/internal/ports/kind"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
)

// Config configures the answer's drafters. Support is required; the rest
// has defaults.
type Config struct {
	// Support is the claim-support judge of the citation agent.
	Support Supporter
	// Tau is the calibration gate's threshold (DefaultTau when zero,
	// negative turns the gate off).
	Tau float64
	// MaxSentences bounds the offline engine's extracted sentences
	// (DefaultSentences when not positive).
	MaxSentences int
	// MaxCitations bounds one sentence's citations (DefaultMaxCitations).
	MaxCitations int
}

func (c Config) composer() Composer {
	return Composer{Agent: Agent{Support: c.Support, MaxCitations: c.MaxCitations}, Tau: c.Tau}
}

// maxCached bounds the answers a drafter keeps; past it the cache starts
// over.
const maxCached = 512

// Offline is the kind's offline drafter: the extractive draft (Select)
// through the citation agent and the gate, one sentence at a time. Safe
// for concurrent use.
type Offline struct {
	cfg Config

	mu      sync.Mutex
	answers map[uint64]Answer
}

var _ kind.Drafter = (*Offline)(nil)

// NewOffline returns the offline drafter; cfg.Support must not be nil.
func NewOffline(cfg Config) *Offline { return &Offline{cfg: cfg, answers: map[uint64]Answer{}} }

// Propose is the offline draft of an answer from the documents of pool
// (Select).
func (o *Offline) Propose(_ context.Context, question string, docs []schemas.AnswerDocument, pool []int) ([]Proposal, error) {
	return Select(question, docs, pool, o.cfg.MaxSentences), nil
}

// Answer composes the offline answer to question from docs.
func (o *Offline) Answer(ctx context.Context, question string, docs []schemas.AnswerDocument) (Answer, error) {
	return o.cfg.composer().Compose(ctx, question, docs, o.Propose)
}

var errNoReferences = errors.New("the reference set holds no document to answer from")

// Draft writes sentence index of refs' answer (composed once per
// reference set), done past the last.
func (o *Offline) Draft(ctx context.Context, refs *schemas.ReferenceSet, _ []schemas.PageSentence, index int) (schemas.Draft, bool, error) {
	if refs == nil || len(refs.References) == 0 {
		return schemas.Draft{}, false, pipeline.Permanent(errNoReferences)
	}
	key := fingerprint(refs)
	o.mu.Lock()
	a, ok := o.answers[key]
	o.mu.Unlock()
	if !ok {
		var err error
		if a, err = o.Answer(ctx, refs.Subject, DocumentsOf(refs)); err != nil {
			return schemas.Draft{}, false, err
		}
		o.mu.Lock()
		if len(o.answers) >= maxCached {
			clear(o.answers)
		}
		o.answers[key] = a
		o.mu.Unlock()
	}
	return sentenceDraft(refs, a, index, writer.EngineOffline)
}

// sentenceDraft is sentence index of a as a draft of refs' page, its
// citations the references' ids; done past the last sentence.
func sentenceDraft(refs *schemas.ReferenceSet, a Answer, index int, engine string) (schemas.Draft, bool, error) {
	if index < 0 || index >= len(a.Sentences) {
		return schemas.Draft{}, true, nil
	}
	s := a.Sentences[index]
	d := schemas.Draft{Subject: refs.Subject, Index: index, Text: s.Text, Engine: engine, Origin: writer.OriginWriter}
	for _, k := range s.Citations {
		d.Citations = append(d.Citations, refs.References[k-1].ChunkID)
	}
	return d, false, nil
}

// fingerprint identifies a reference set by its question and references
// (FNV-1a).
func fingerprint(refs *schemas.ReferenceSet) uint64 {
	h := fnv.New64a()
	w := func(s string) {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	w(refs.Subject)
	for _, r := range refs.References {
		w(r.ChunkID)
		w(r.Text)
	}
	return h.Sum64()
}
