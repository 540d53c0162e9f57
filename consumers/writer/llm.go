package writer

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/internal/lang/text"

	"github.com/cloudwego/eino/components/model"

	"github.com/annalist-dev/annalist/internal/kit/ask"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
)

// PromptDraft is the version of the drafting prompt. A template file is
// never edited in place: a change is a new version.
const PromptDraft = "draft.v1"

//go:embed prompts/*.tmpl
var promptFS embed.FS

var draftPrompt = ask.MustParseFS(PromptDraft, nil, promptFS, "prompts/"+PromptDraft+".tmpl")

// LLMConfig configures the LLM drafter. The zero value is usable.
type LLMConfig struct {
	// MaxReferences is how many references the prompt shows (default 12):
	// the plan item's own first, then the best of the rest.
	MaxReferences int
	// MaxReferenceRunes clips each reference's text in the prompt (default
	// 800 characters).
	MaxReferenceRunes int
	// MaxAttempts is how many answers one sentence may take (default 2:
	// a malformed answer is retried once, with the reason).
	MaxAttempts int
	// MaxSentenceRunes bounds the sentence (default 200 characters).
	MaxSentenceRunes int
}

// WithDefaults is c with its zero fields set to the defaults (the other
// kinds' LLM engines share them).
func (c LLMConfig) WithDefaults() LLMConfig {
	if c.MaxReferences <= 0 {
		c.MaxReferences = 12
	}
	if c.MaxReferenceRunes <= 0 {
		c.MaxReferenceRunes = 800
	}
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = 2
	}
	if c.MaxSentenceRunes <= 0 {
		c.MaxSentenceRunes = 200
	}
	return c
}

// ErrMalformed reports a model answer that is not the JSON asked for or
// cites a chunk that is not a reference, after every attempt (each retry
// tells the model what was wrong). The writer's loop then drafts the
// sentence with the kind's offline drafter instead (Loop.draft) and the
// page says so; the error is permanent (pipeline.ErrPermanent) for a
// caller with no fallback: asking the model again with the same prompt
// would not help. A drafter of any kind reports an answer it could not
// use by wrapping ErrMalformed (or ask.ErrRejected).
var ErrMalformed = errors.New("malformed model answer")

// LLM drafts through a chat model (the LLM engine). It follows the offline
// plan — the same sentences, in the same order, each about the same facts
// — and asks the model to word each one from the references, with the
// sentences accepted so far in the prompt. Safe for concurrent use.
type LLM struct {
	m     model.BaseChatModel
	plan  *Offline
	cfg   LLMConfig
	calls atomic.Int64
}

var _ Drafter = (*LLM)(nil)

// LLMOption configures the LLM drafter.
type LLMOption func(*LLM)

// WithModel sets the chat model the drafter asks; it is required (without
// one Draft fails). Wrap it (infra/llm) for timeouts, retries and a
// concurrency limit.
func WithModel(m model.BaseChatModel) LLMOption { return func(l *LLM) { l.m = m } }

// WithPlan sets the offline drafter whose plan the LLM drafter words
// (default NewOffline with defaults).
func WithPlan(plan *Offline) LLMOption { return func(l *LLM) { l.plan = plan } }

// NewLLM returns the LLM drafter.
func NewLLM(cfg LLMConfig, opts ...LLMOption) *LLM {
	l := &LLM{cfg: cfg.WithDefaults()}
	for _, o := range opts {
		o(l)
	}
	if l.plan == nil {
		l.plan = NewOffline(OfflineConfig{})
	}
	return l
}

// PlanStats is what the plan the drafter words counted
// (Offline.PlanStats).
func (l *LLM) PlanStats(refs *schemas.ReferenceSet) map[string]int64 { return l.plan.PlanStats(refs) }

// Calls is the number of model calls made so far.
func (l *LLM) Calls() int64 { return l.calls.Load() }

type promptRef struct {
	N       int
	ChunkID string
	Text    string
}

type draftPromptData struct {
	Name, Aliases, Language string
	References              []promptRef
	Accepted                []string
	Index                   int
	Task                    string
	Facts                   []string
	Hint                    string
	Feedback                string
}

var tasks = map[string]string{
	ItemIdentity:    "who the subject was: the name, courtesy and art names, native place.",
	ItemBirth:       "the subject's birth.",
	ItemExamination: "the subject's jinshi examination, with the Gregorian year in brackets after the era date.",
	ItemCareer:      "offices the subject held.",
	ItemHighest:     "the highest office the subject reached.",
	ItemNotable:     "a notable act of the subject.",
	ItemDeath:       "the subject's death.",
	ItemPosthumous:  "the subject's posthumous name and honours.",
	ItemElsewhere:   "what another document than the subject's entry says of him, in its words; cite that document's chunk.",
}

// Draft asks the model for sentence index. done (with no model call) when
// the plan has no such sentence.
func (l *LLM) Draft(ctx context.Context, refs *schemas.ReferenceSet, accepted []schemas.PageSentence, index int) (schemas.Draft, bool, error) {
	items := l.plan.Plan(refs)
	if index < 0 || index >= len(items) {
		return schemas.Draft{}, true, nil
	}
	it := adjust(items[index], accepted)
	data := l.promptData(refs, accepted, index, it)
	d, calls, err := ask.JSON(ctx, l.m, ask.Request[draftAnswer, schemas.Draft]{
		Prompt: draftPrompt,
		Data: func(feedback string) any {
			data.Feedback = feedback
			return data
		},
		Validate: func(a draftAnswer) (schemas.Draft, error) { return l.draft(a, refs, it) },
		Attempts: l.cfg.MaxAttempts,
	})
	l.calls.Add(int64(calls))
	switch {
	case errors.Is(err, ask.ErrRejected):
		return schemas.Draft{}, false, pipeline.Permanent(fmt.Errorf("draft sentence %d of %s: %w: %w",
			index, refs.Subject, ErrMalformed, err))
	case err != nil:
		return schemas.Draft{}, false, fmt.Errorf("draft sentence %d of %s: %w", index, refs.Subject, err)
	}
	d.Subject, d.Index, d.Section = refs.Subject, index, it.Section
	return d, false, nil
}

func (l *LLM) promptData(refs *schemas.ReferenceSet, accepted []schemas.PageSentence, index int, it PlanItem) draftPromptData {
	d := draftPromptData{Name: refs.Name, Index: index + 1, Task: tasks[it.Kind], Hint: it.Text,
		Language: profileOf(l.plan.cfg.Profiles, refs).Writing.LanguageName}
	if d.Name == "" {
		d.Name = refs.Subject
	}
	if len(refs.Aliases) > 1 {
		d.Aliases = strings.Join(refs.Aliases[1:], ", ")
	}
	// The item's own chunks first, then the best of the rest.
	var order []schemas.Reference
	for _, id := range it.Citations {
		if r, ok := refs.Reference(id); ok {
			order = append(order, r)
		}
	}
	for _, r := range refs.References {
		if !slices.Contains(it.Citations, r.ChunkID) {
			order = append(order, r)
		}
	}
	for i, r := range order[:min(len(order), l.cfg.MaxReferences)] {
		d.References = append(d.References, promptRef{N: i + 1, ChunkID: r.ChunkID, Text: text.Clip(strings.TrimSpace(r.Text), l.cfg.MaxReferenceRunes)})
	}
	for _, a := range accepted {
		d.Accepted = append(d.Accepted, a.Text)
	}
	for _, f := range it.Facts {
		switch {
		case f.Relation != "":
			d.Facts = append(d.Facts, fmt.Sprintf("%s: %s (chunk %s)", f.Relation, f.Value, f.ChunkID))
		default:
			d.Facts = append(d.Facts, fmt.Sprintf("as stated in chunk %s", f.ChunkID))
		}
	}
	return d
}

type draftAnswer struct {
	Text      string   `json:"text"`
	Citations []string `json:"citations"`
}

// draft validates an answer (decoded strictly by ask.JSON: one JSON
// object, a surrounding Markdown code fence tolerated, no unknown fields):
// one sentence of bounded length, at least one citation, every citation a
// reference. The draft's facts are the plan item's facts from cited
// chunks whose value the sentence states, else the sentence itself.
func (l *LLM) draft(a draftAnswer, refs *schemas.ReferenceSet, it PlanItem) (schemas.Draft, error) {
	text := strings.TrimSpace(a.Text)
	switch n := utf8.RuneCountInString(text); {
	case n == 0:
		return schemas.Draft{}, errors.New("the text is empty")
	case n > l.cfg.MaxSentenceRunes:
		return schemas.Draft{}, fmt.Errorf("the text has %d characters, more than one sentence (at most %d)", n, l.cfg.MaxSentenceRunes)
	case strings.ContainsAny(text, "\n\r"):
		return schemas.Draft{}, errors.New("the text spans several lines; write one sentence")
	}
	var cites []string
	for _, c := range a.Citations {
		c = strings.TrimSpace(c)
		if _, ok := refs.Reference(c); !ok {
			return schemas.Draft{}, fmt.Errorf("citation %q is not the chunk id of a reference", c)
		}
		if !slices.Contains(cites, c) {
			cites = append(cites, c)
		}
	}
	if len(cites) == 0 {
		return schemas.Draft{}, errors.New("no citation: cite the chunk ids the sentence rests on")
	}
	d := schemas.Draft{Text: text, Citations: cites, Engine: EngineLLM, Origin: OriginWriter}
	for _, f := range it.Facts {
		if slices.Contains(cites, f.ChunkID) && f.Value != "" && strings.Contains(text, f.Value) {
			d.Facts = append(d.Facts, f)
		}
	}
	if len(d.Facts) == 0 {
		d.Facts = []schemas.Fact{{Text: text, ChunkID: cites[0]}}
	}
	return d, nil
}
