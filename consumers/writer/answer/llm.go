package answer

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/cloudwego/eino/components/model"

	"github.com/annalist-dev/annalist/consumers/writer"
	"github.com/annalist-dev/annalist/internal/kit/ask"
	"github.com/annalist-dev/annalist/internal/lang/en/discourse"
	"github.com/annalist-dev/annalist/internal/lang/text"
	"github.com/annalist-dev/annalist/internal/ports/kind"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
)

// PromptAnswer is the version of the answer prompt. A template file is
// never edited in place: a change is a new version.
const PromptAnswer = "answer.v1"

//go:embed prompts/*.tmpl
var promptFS embed.FS

var answerPrompt = ask.MustParseFS(PromptAnswer, nil, promptFS, "prompts/"+PromptAnswer+".tmpl")

// LLMConfig configures the LLM drafter. The zero value is usable.
type LLMConfig struct {
	// MaxAttempts is how many answers one draft may take (default 2: a
	// rejected answer is asked again once, with the reason).
	MaxAttempts int
	// MaxSentences bounds the sentences of one answer (default 12).
	MaxSentences int
	// MaxSentenceRunes bounds one sentence (default 500).
	MaxSentenceRunes int
	// MaxDocumentRunes clips each document in the prompt (default 2000).
	MaxDocumentRunes int
}

func (c LLMConfig) withDefaults() LLMConfig {
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = 2
	}
	if c.MaxSentences <= 0 {
		c.MaxSentences = 12
	}
	if c.MaxSentenceRunes <= 0 {
		c.MaxSentenceRunes = 500
	}
	if c.MaxDocumentRunes <= 0 {
		c.MaxDocumentRunes = 2000
	}
	return c
}

// LLM is the kind's LLM drafter: the model proposes the answer's
// sentences and citations (one call, and at most one retry, per draft;
// the gate may draft twice), validated structurally, then the citation
// agent and the gate check them as they check the offline draft. When
// every answer was rejected the offline engine writes the answer, and
// the fallback is counted. Safe for concurrent use.
type LLM struct {
	m         model.BaseChatModel
	off       *Offline
	cfg       Config
	llm       LLMConfig
	calls     atomic.Int64
	fallbacks atomic.Int64

	mu      sync.Mutex
	entries map[uint64]*llmEntry
}

// llmEntry is one reference set's answer: composed once, then its
// answer or, when every model answer was rejected, the error each
// sentence reports.
type llmEntry struct {
	mu     sync.Mutex
	done   bool
	answer Answer
	failed error
}

var _ kind.Drafter = (*LLM)(nil)

// NewLLM returns the LLM drafter asking m, checking with cfg's support
// judge and gate, and falling back to off. m, off and cfg.Support must not
// be nil; wrap m (infra/llm) for timeouts, retries and a concurrency
// limit.
func NewLLM(cfg Config, lc LLMConfig, m model.BaseChatModel, off *Offline) *LLM {
	return &LLM{m: m, off: off, cfg: cfg, llm: lc.withDefaults(), entries: map[uint64]*llmEntry{}}
}

// Calls is the number of model calls made so far.
func (l *LLM) Calls() int64 { return l.calls.Load() }

// Fallbacks is the number of answers the offline engine wrote because
// every model answer was rejected.
func (l *LLM) Fallbacks() int64 { return l.fallbacks.Load() }

// Answer composes the model's answer to question from docs. When every
// model answer is rejected the error wraps ask.ErrRejected (the caller
// falls back; Fallback does); a model failure is returned as it is.
func (l *LLM) Answer(ctx context.Context, question string, docs []schemas.AnswerDocument) (Answer, error) {
	return l.cfg.composer().Compose(ctx, question, docs, l.Propose)
}

// Fallback is Answer, or the offline engine's answer when every model
// answer was rejected or the model failed (after the model client's own
// retries): then fallback says why (and Fallbacks counts it). It is for a
// caller with no retry of its own (a command); the writer's loop retries a
// model failure instead (Draft).
func (l *LLM) Fallback(ctx context.Context, question string, docs []schemas.AnswerDocument) (a Answer, fallback string, err error) {
	a, err = l.Answer(ctx, question, docs)
	if err == nil || ctx.Err() != nil {
		return a, "", err
	}
	why := "written offline: the model's answers were unusable (" + err.Error() + ")"
	if !errors.Is(err, ask.ErrRejected) {
		why = "written offline: the model failed (" + err.Error() + ")"
	}
	l.fallbacks.Add(1)
	a, err = l.off.Answer(ctx, question, docs)
	return a, why, err
}

// Draft writes sentence index of the model's answer for refs, done past
// its last. The first sentence asks the model; a model failure is
// returned as it is (transient) and asked again on the next call. When
// every answer was rejected, Draft fails with an error wrapping
// writer.ErrMalformed (permanent) for each sentence of the offline
// answer, which the writer's loop then drafts offline, and is done past
// it.
func (l *LLM) Draft(ctx context.Context, refs *schemas.ReferenceSet, accepted []schemas.PageSentence, index int) (schemas.Draft, bool, error) {
	if refs == nil || len(refs.References) == 0 {
		return schemas.Draft{}, false, pipeline.Permanent(errNoReferences)
	}
	key := fingerprint(refs)
	l.mu.Lock()
	e := l.entries[key]
	if e == nil {
		if len(l.entries) >= maxCached {
			clear(l.entries)
		}
		e = &llmEntry{}
		l.entries[key] = e
	}
	l.mu.Unlock()
	e.mu.Lock()
	if !e.done {
		a, err := l.Answer(ctx, refs.Subject, DocumentsOf(refs))
		switch {
		case errors.Is(err, ask.ErrRejected):
			l.fallbacks.Add(1)
			e.done, e.failed = true, pipeline.Permanent(fmt.Errorf("answer to %q: %w: %w", refs.Subject, writer.ErrMalformed, err))
		case err != nil:
			e.mu.Unlock()
			return schemas.Draft{}, false, fmt.Errorf("answer to %q: %w", refs.Subject, err)
		default:
			e.done, e.answer = true, a
		}
	}
	a, failed := e.answer, e.failed
	e.mu.Unlock()
	if failed != nil {
		if _, done, err := l.off.Draft(ctx, refs, accepted, index); err != nil || done {
			return schemas.Draft{}, done, err
		}
		return schemas.Draft{}, false, failed
	}
	return sentenceDraft(refs, a, index, writer.EngineLLM)
}

type promptDoc struct {
	K           int
	Title, Text string
}

type promptData struct {
	Question string
	Docs     []promptDoc
	Numbers  string
	Feedback string
}

type llmAnswer struct {
	Sentences []struct {
		Text      string `json:"text"`
		Citations []int  `json:"citations"`
	} `json:"sentences"`
}

// Propose asks the model for an answer to question from the documents of
// pool, numbered as in docs, and validates it (proposals).
func (l *LLM) Propose(ctx context.Context, question string, docs []schemas.AnswerDocument, pool []int) ([]Proposal, error) {
	data := promptData{Question: question}
	var nums []string
	for _, k := range pool {
		d := docs[k-1]
		data.Docs = append(data.Docs, promptDoc{K: k, Title: strings.TrimSpace(d.Title),
			Text: text.Clip(strings.TrimSpace(d.Text), l.llm.MaxDocumentRunes)})
		nums = append(nums, strconv.Itoa(k))
	}
	data.Numbers = strings.Join(nums, ", ")
	props, calls, err := ask.JSON(ctx, l.m, ask.Request[llmAnswer, []Proposal]{
		Prompt: answerPrompt,
		Data: func(feedback string) any {
			data.Feedback = feedback
			return data
		},
		Validate: func(a llmAnswer) ([]Proposal, error) { return l.proposals(a, pool) },
		Attempts: l.llm.MaxAttempts,
	})
	l.calls.Add(int64(calls))
	return props, err
}

// marker is an ALCE citation marker written into a sentence ("[2]").
var marker = regexp.MustCompile(`\s*\[(\d+)\]`)

// proposals validates the model's answer: at least one sentence and at
// most MaxSentences; each one sentence on one line, not longer than
// MaxSentenceRunes, citing at least one document, every one of pool.
// Citation markers written in a text are taken as its citations.
func (l *LLM) proposals(a llmAnswer, pool []int) ([]Proposal, error) {
	switch {
	case len(a.Sentences) == 0:
		return nil, errors.New("the answer has no sentence")
	case len(a.Sentences) > l.llm.MaxSentences:
		return nil, fmt.Errorf("the answer has %d sentences, more than %d", len(a.Sentences), l.llm.MaxSentences)
	}
	out := make([]Proposal, 0, len(a.Sentences))
	for i, s := range a.Sentences {
		what := fmt.Sprintf("sentence %d", i+1)
		cites := slices.Clone(s.Citations)
		for _, m := range marker.FindAllStringSubmatch(s.Text, -1) {
			k, _ := strconv.Atoi(m[1])
			cites = append(cites, k)
		}
		t := strings.TrimSpace(marker.ReplaceAllString(s.Text, ""))
		switch n := utf8.RuneCountInString(t); {
		case n == 0:
			return nil, fmt.Errorf("%s: the text is empty", what)
		case strings.ContainsAny(t, "\n\r"):
			return nil, fmt.Errorf("%s: the text spans several lines; write one sentence", what)
		case n > l.llm.MaxSentenceRunes:
			return nil, fmt.Errorf("%s: the text has %d characters, more than one sentence (at most %d)", what, n, l.llm.MaxSentenceRunes)
		case len(discourse.SplitSentences(t)) > 1:
			return nil, fmt.Errorf("%s: the text has %d sentences; write one", what, len(discourse.SplitSentences(t)))
		case len(cites) == 0:
			return nil, fmt.Errorf("%s: no document cited: cite the numbers of the documents it rests on", what)
		}
		for _, k := range cites {
			if !slices.Contains(pool, k) {
				return nil, fmt.Errorf("%s: document %d is not one you may cite (%s)", what, k, joinInts(pool))
			}
		}
		out = append(out, Proposal{Text: t, Citations: dedupe(cites)})
	}
	return out, nil
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}
