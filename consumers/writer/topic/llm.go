package topic

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/cloudwego/eino/components/model"

	"github.com/annalist-dev/annalist/consumers/writer"
	"github.com/annalist-dev/annalist/internal/kit/ask"
	"github.com/annalist-dev/annalist/internal/lang/profile"
	"github.com/annalist-dev/annalist/internal/lang/text"
	"github.com/annalist-dev/annalist/internal/ports/kind"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
)

// Versions of the LLM engine's prompts. A template file is never edited
// in place: a change is a new version.
const (
	PromptDraft  = "topic_draft.v1"
	PromptReview = "topic_review.v1"
	PromptEdit   = "topic_edit.v1"
)

//go:embed prompts/*.tmpl
var llmPromptFS embed.FS

var (
	llmDraftPrompt  = ask.MustParseFS(PromptDraft, nil, llmPromptFS, "prompts/"+PromptDraft+".tmpl")
	llmReviewPrompt = ask.MustParseFS(PromptReview, nil, llmPromptFS, "prompts/"+PromptReview+".tmpl")
	llmEditPrompt   = ask.MustParseFS(PromptEdit, nil, llmPromptFS, "prompts/"+PromptEdit+".tmpl")
)

// LLMConfig configures the topic kind's LLM engine: the writer's bounds
// on references, answers and sentences (writer.LLMConfig, the same
// defaults), and the corpus profiles. The zero value is usable.
type LLMConfig struct {
	writer.LLMConfig
	// Profiles are the corpus profiles, for the language pages are
	// written in (default profile.Default()).
	Profiles *profile.Set
}

func (c LLMConfig) withDefaults() LLMConfig {
	c.LLMConfig = c.LLMConfig.WithDefaults()
	if c.Profiles == nil {
		c.Profiles = profile.Default()
	}
	return c
}

// LLM is the topic kind's LLM engine: a drafter that words the offline
// plan through a chat model, one Item per sentence, and the reviewer and
// editor of the review loop asked through the same model. Every answer is
// strict JSON (internal/kit/ask), validated against the reference set and the
// page; a rejected answer is asked again with the reason, a bounded
// number of times. Safe for concurrent use.
type LLM struct {
	m     model.BaseChatModel
	off   *Offline
	cfg   LLMConfig
	calls atomic.Int64

	reviewer *LLMReviewer
	editor   *LLMEditor
}

var (
	_ kind.Drafter = (*LLM)(nil)
	_ Engine       = (*LLM)(nil)
)

// NewLLM returns the LLM engine asking m and wording off's plan. m and off
// must not be nil; wrap m (infra/llm) for timeouts, retries and a
// concurrency limit.
func NewLLM(cfg LLMConfig, m model.BaseChatModel, off *Offline) *LLM {
	l := &LLM{m: m, off: off, cfg: cfg.withDefaults()}
	l.reviewer = &LLMReviewer{l: l}
	l.editor = &LLMEditor{l: l}
	return l
}

// Calls is the number of model calls the drafter made so far; the
// reviewer's and the editor's are their own Calls.
func (l *LLM) Calls() int64 { return l.calls.Load() }

// Reviewer is the engine's reviewer.
func (l *LLM) Reviewer() kind.Reviewer { return l.reviewer }

// Editor is the engine's editor.
func (l *LLM) Editor() kind.Editor { return l.editor }

func (l *LLM) language(refs *schemas.ReferenceSet) string {
	lang := refs.Lang
	if lang == "" && len(refs.References) > 0 {
		lang = text.Lang(refs.References[0].Text)
	}
	return l.cfg.Profiles.For(refs.Profile, lang).Writing.LanguageName
}

// topicOf is the page's subject as the prompts name it: the topic as
// asked. Its canonical name may be an id-like form the sources do not use.
func topicOf(refs *schemas.ReferenceSet) string {
	if refs.Subject != "" {
		return refs.Subject
	}
	return refs.Name
}

type llmRef struct {
	N       int
	ChunkID string
	Text    string
}

// references are the prompt's numbered references: first the chunks of
// first (in order, each once), then the set's others, best first, at
// most MaxReferences in all.
func (l *LLM) references(refs *schemas.ReferenceSet, first []string) []llmRef {
	var order []schemas.Reference
	for _, id := range first {
		if r, ok := refs.Reference(id); ok && !slices.ContainsFunc(order, func(o schemas.Reference) bool { return o.ChunkID == id }) {
			order = append(order, r)
		}
	}
	for _, r := range refs.References {
		if !slices.ContainsFunc(order, func(o schemas.Reference) bool { return o.ChunkID == r.ChunkID }) {
			order = append(order, r)
		}
	}
	out := make([]llmRef, 0, min(len(order), l.cfg.MaxReferences))
	for i, r := range order[:min(len(order), l.cfg.MaxReferences)] {
		out = append(out, llmRef{N: i + 1, ChunkID: r.ChunkID, Text: text.Clip(strings.TrimSpace(r.Text), l.cfg.MaxReferenceRunes)})
	}
	return out
}

// sentence checks a sentence the model wrote: not empty, bounded, one
// line, and no more sentences than like (the plan's wording) has.
func (l *LLM) sentence(s, like string) (string, error) {
	s = strings.TrimSpace(s)
	switch n := utf8.RuneCountInString(s); {
	case n == 0:
		return "", errors.New("the text is empty")
	case n > l.cfg.MaxSentenceRunes:
		return "", fmt.Errorf("the text has %d characters, more than one sentence (at most %d)", n, l.cfg.MaxSentenceRunes)
	case strings.ContainsAny(s, "\n\r"):
		return "", errors.New("the text spans several lines; write one sentence")
	}
	if n, most := len(text.SplitSentences(s)), max(1, len(text.SplitSentences(like))); n > most {
		return "", fmt.Errorf("the text has %d sentences; write one", n)
	}
	return s, nil
}

// citations checks cited chunk ids: each a reference, at least one; the
// ids trimmed, each once.
func citations(refs *schemas.ReferenceSet, cited []string) ([]string, error) {
	var out []string
	for _, c := range cited {
		c = strings.TrimSpace(c)
		if _, ok := refs.Reference(c); !ok {
			return nil, fmt.Errorf("citation %q is not the chunk id of a reference", c)
		}
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no citation: cite the chunk ids the sentence rests on")
	}
	return out, nil
}

// rejected turns a question whose every answer was rejected into an error
// wrapping writer.ErrMalformed, permanent for a caller with no fallback:
// the same prompt would not be answered better.
func rejected(what string, err error) error {
	if errors.Is(err, ask.ErrRejected) {
		return pipeline.Permanent(fmt.Errorf("%s: %w: %w", what, writer.ErrMalformed, err))
	}
	return fmt.Errorf("%s: %w", what, err)
}

type llmDraftData struct {
	Topic, Language string
	References      []llmRef
	Page            []string
	Index           int
	Section         string
	Task            string
	Facts           []string
	Hint            string
	Cite            string
	Feedback        string
}

type llmDraftAnswer struct {
	Text      string   `json:"text"`
	Citations []string `json:"citations"`
}

// Draft asks the model to word the plan's item index; done (with no model
// call) when the plan has no such item. A question whose every answer was
// rejected fails with an error wrapping writer.ErrMalformed, and the
// writer's loop drafts the sentence offline instead.
func (l *LLM) Draft(ctx context.Context, refs *schemas.ReferenceSet, accepted []schemas.PageSentence, index int) (schemas.Draft, bool, error) {
	items := l.off.Items(refs)
	if index < 0 || index >= len(items) {
		return schemas.Draft{}, true, nil
	}
	it := items[index]
	data := l.draftData(refs, accepted, index, it)
	d, calls, err := ask.JSON(ctx, l.m, ask.Request[llmDraftAnswer, schemas.Draft]{
		Prompt: llmDraftPrompt,
		Data: func(feedback string) any {
			data.Feedback = feedback
			return data
		},
		Validate: func(a llmDraftAnswer) (schemas.Draft, error) { return l.draft(a, refs, it) },
		Attempts: l.cfg.MaxAttempts,
	})
	l.calls.Add(int64(calls))
	if err != nil {
		return schemas.Draft{}, false, rejected(fmt.Sprintf("draft sentence %d of %s", index, refs.Subject), err)
	}
	d.Subject, d.Index, d.Section = refs.Subject, index, it.Section
	return d, false, nil
}

func (l *LLM) draftData(refs *schemas.ReferenceSet, accepted []schemas.PageSentence, index int, it Item) llmDraftData {
	d := llmDraftData{Topic: topicOf(refs), Language: l.language(refs), Index: index + 1, Section: it.Section,
		Hint: it.Text, Cite: strings.Join(it.Citations, ", "), References: l.references(refs, it.Citations)}
	switch {
	case it.Relation == schemas.RelQuote:
		d.Task = fmt.Sprintf("the quotation of %s, word for word as the hint gives it, attributed to %s, citing %s.", it.Name, it.Name, d.Cite)
	case it.Name != "" && it.Relation != "":
		d.Task = fmt.Sprintf("what the sources say of %s (%s: %s).", it.Name, it.Relation, it.Value)
	case it.Name != "":
		d.Task = fmt.Sprintf("what the sources say of %s.", it.Name)
	default:
		d.Task = "what the sources say of the subject."
	}
	section := ""
	for _, a := range accepted {
		if a.Section != section && a.Section != "" {
			section = a.Section
			d.Page = append(d.Page, "## "+section)
		}
		d.Page = append(d.Page, a.Text)
	}
	for _, f := range it.Facts {
		switch {
		case f.Relation != "":
			d.Facts = append(d.Facts, fmt.Sprintf("%s: %s (chunk %s)", f.Relation, f.Value, f.ChunkID))
		case f.ChunkID != "":
			d.Facts = append(d.Facts, fmt.Sprintf("as stated in chunk %s", f.ChunkID))
		}
	}
	return d
}

// draft validates a drafting answer: one sentence of bounded length, at
// least one citation, every citation a reference. Its facts are the
// item's facts from cited chunks whose value the sentence states, else
// the sentence itself, resting on its first citation.
func (l *LLM) draft(a llmDraftAnswer, refs *schemas.ReferenceSet, it Item) (schemas.Draft, error) {
	s, err := l.sentence(a.Text, it.Text)
	if err != nil {
		return schemas.Draft{}, err
	}
	cites, err := citations(refs, a.Citations)
	if err != nil {
		return schemas.Draft{}, err
	}
	d := schemas.Draft{Text: s, Citations: cites, Engine: writer.EngineLLM, Origin: writer.OriginWriter}
	for _, f := range it.Facts {
		if slices.Contains(cites, f.ChunkID) && f.Value != "" && strings.Contains(s, f.Value) {
			d.Facts = append(d.Facts, f)
		}
	}
	if len(d.Facts) == 0 {
		d.Facts = []schemas.Fact{{Text: s, ChunkID: cites[0]}}
	}
	return d, nil
}

// LLMReviewer is the LLM engine's kind.Reviewer.
type LLMReviewer struct {
	l     *LLM
	calls atomic.Int64
}

var _ kind.Reviewer = (*LLMReviewer)(nil)

// Calls is the number of model calls the reviewer made so far.
func (r *LLMReviewer) Calls() int64 { return r.calls.Load() }

type llmKey struct{ ID, Name, Chunk string }

type llmReviewData struct {
	Topic, Language string
	Round           int
	Sections        []string
	Keys            []llmKey
	Page            []kind.Placed
	Feedback        string
}

type llmFinding struct {
	Type    string `json:"type"`
	Section string `json:"section"`
	Index   *int   `json:"index"`
	Entity  string `json:"entity"`
	Other   *int   `json:"other"`
	Detail  string `json:"detail"`
}

type llmReviewAnswer struct {
	Findings []llmFinding `json:"findings"`
}

// Review asks the model for the page's findings. An answer is valid when
// every finding has a known type and a detail, names sentences of the
// page (-1 for none), a section of the page or the outline, and for
// coverage a key entity of the curation that no sentence names. When
// every answer was rejected the error wraps writer.ErrMalformed (the
// writer's loop then asks the offline reviewer and counts it in the page
// stats as review_fallbacks); a model failure is returned as it is.
func (r *LLMReviewer) Review(ctx context.Context, refs *schemas.ReferenceSet, page []kind.Placed, round int) ([]schemas.Finding, error) {
	l := r.l
	data := llmReviewData{Topic: topicOf(refs), Language: l.language(refs), Round: round,
		Sections: sectionsOf(refs, page), Page: page}
	for _, e := range curatedEntities(refs) {
		if e.Key {
			data.Keys = append(data.Keys, llmKey{ID: e.ID, Name: e.Name, Chunk: e.Chunk})
		}
	}
	fs, calls, err := ask.JSON(ctx, l.m, ask.Request[llmReviewAnswer, []schemas.Finding]{
		Prompt: llmReviewPrompt,
		Data: func(feedback string) any {
			data.Feedback = feedback
			return data
		},
		Validate: func(a llmReviewAnswer) ([]schemas.Finding, error) { return findings(a, refs, page, data.Sections) },
		Attempts: l.cfg.MaxAttempts,
	})
	r.calls.Add(int64(calls))
	if err != nil {
		return nil, rejected(fmt.Sprintf("review round %d of %s", round, refs.Subject), err)
	}
	return fs, nil
}

func curatedEntities(refs *schemas.ReferenceSet) []schemas.CuratedEntity {
	if refs.Curation == nil {
		return nil
	}
	return refs.Curation.Entities
}

// sectionsOf are the section titles of the outline, then those of the
// page the outline does not have (an editor's split), each once.
func sectionsOf(refs *schemas.ReferenceSet, page []kind.Placed) []string {
	var out []string
	if refs.Curation != nil {
		for _, s := range refs.Curation.Outline {
			if !slices.Contains(out, s.Title) {
				out = append(out, s.Title)
			}
		}
	}
	for _, p := range page {
		if !slices.Contains(out, p.Section) {
			out = append(out, p.Section)
		}
	}
	return out
}

func onPage(page []kind.Placed, index int) (kind.Placed, bool) {
	for _, p := range page {
		if p.Index == index {
			return p, true
		}
	}
	return kind.Placed{}, false
}

var findingTypes = []string{schemas.FindingCoverage, schemas.FindingRedundancy, schemas.FindingOrder, schemas.FindingBalance}

// findings validates a review answer (see Review) and drops repeated
// findings.
func findings(a llmReviewAnswer, refs *schemas.ReferenceSet, page []kind.Placed, sections []string) ([]schemas.Finding, error) {
	out := []schemas.Finding{}
	for i, f := range a.Findings {
		n := i + 1
		if !slices.Contains(findingTypes, f.Type) {
			return nil, fmt.Errorf("finding %d: type %q is not one of %s", n, f.Type, strings.Join(findingTypes, ", "))
		}
		if strings.TrimSpace(f.Detail) == "" {
			return nil, fmt.Errorf("finding %d: no detail: say what is wrong", n)
		}
		if f.Index == nil {
			return nil, fmt.Errorf("finding %d: no index: give the sentence number, or -1", n)
		}
		g := schemas.Finding{Type: f.Type, Section: strings.TrimSpace(f.Section), Index: *f.Index, Detail: strings.TrimSpace(f.Detail)}
		if g.Index != -1 {
			if _, ok := onPage(page, g.Index); !ok {
				return nil, fmt.Errorf("finding %d: index %d is not a sentence number of the page (or -1)", n, g.Index)
			}
		}
		if g.Section != "" && !slices.Contains(sections, g.Section) {
			return nil, fmt.Errorf("finding %d: section %q is not a section of the page", n, g.Section)
		}
		switch f.Type {
		case schemas.FindingCoverage:
			e, err := keyEntity(refs, f.Entity)
			if err != nil {
				return nil, fmt.Errorf("finding %d: %w", n, err)
			}
			for _, p := range page {
				if e.Name != "" && strings.Contains(p.Text, e.Name) {
					return nil, fmt.Errorf("finding %d: %s is named by sentence %d", n, e.Name, p.Index)
				}
			}
			g.Entity = e.ID
		case schemas.FindingRedundancy:
			if g.Index == -1 || f.Other == nil {
				return nil, fmt.Errorf("finding %d: a redundancy names the sentence (index) and the one it repeats (other)", n)
			}
			if _, ok := onPage(page, *f.Other); !ok || *f.Other == g.Index {
				return nil, fmt.Errorf("finding %d: other %d is not another sentence of the page", n, *f.Other)
			}
			g.Other = *f.Other
		case schemas.FindingOrder:
			if g.Index == -1 {
				return nil, fmt.Errorf("finding %d: an order finding names the sentence out of order (index)", n)
			}
		case schemas.FindingBalance:
			if g.Section == "" {
				return nil, fmt.Errorf("finding %d: a balance finding names the section (section)", n)
			}
		}
		if f.Type != schemas.FindingCoverage && f.Entity != "" {
			return nil, fmt.Errorf("finding %d: only a coverage finding names an entity", n)
		}
		if f.Type != schemas.FindingRedundancy && f.Other != nil {
			return nil, fmt.Errorf("finding %d: only a redundancy finding names another sentence", n)
		}
		if !slices.ContainsFunc(out, func(o schemas.Finding) bool {
			return o.Type == g.Type && o.Index == g.Index && o.Entity == g.Entity && o.Other == g.Other && o.Section == g.Section
		}) {
			out = append(out, g)
		}
	}
	return out, nil
}

// keyEntity is the curated key entity id names (its id, or its name as a
// model may give it).
func keyEntity(refs *schemas.ReferenceSet, id string) (schemas.CuratedEntity, error) {
	id = strings.TrimSpace(id)
	if id == "" {
		return schemas.CuratedEntity{}, errors.New("a coverage finding names the key entity (entity)")
	}
	for _, e := range curatedEntities(refs) {
		if e.Key && (e.ID == id || e.Name == id) {
			return e, nil
		}
	}
	return schemas.CuratedEntity{}, fmt.Errorf("entity %q is not a key entity of the list", id)
}

// LLMEditor is the LLM engine's kind.Editor.
type LLMEditor struct {
	l     *LLM
	calls atomic.Int64
}

var _ kind.Editor = (*LLMEditor)(nil)

// Calls is the number of model calls the editor made so far.
func (e *LLMEditor) Calls() int64 { return e.calls.Load() }

type llmEditData struct {
	Topic, Language string
	Sections        []string
	Page            []kind.Placed
	Findings        []string
	References      []llmRef
	Feedback        string
}

type llmEdit struct {
	Op        string   `json:"op"`
	Index     *int     `json:"index"`
	Section   string   `json:"section"`
	Position  *float64 `json:"position"`
	Text      string   `json:"text"`
	Citations []string `json:"citations"`
	Reason    string   `json:"reason"`
}

type llmEditAnswer struct {
	Edits []llmEdit `json:"edits"`
}

// Edit asks the model how to apply findings (no call when there are
// none). An answer is valid when every edit has a known op; a drop or a
// move names a sentence of the page, each at most once, a move a section
// and a position; an add names a section and a position and is one
// sentence citing references only. An add's Index is -1 (the loop
// numbers it) and its facts are its text, resting on its first
// citation. When every answer was rejected the error wraps
// writer.ErrMalformed (the writer's loop then asks the offline editor); a
// model failure is returned as it is.
func (e *LLMEditor) Edit(ctx context.Context, refs *schemas.ReferenceSet, page []kind.Placed, fs []schemas.Finding) ([]schemas.Edit, error) {
	if len(fs) == 0 {
		return nil, nil
	}
	l := e.l
	data := llmEditData{Topic: topicOf(refs), Language: l.language(refs), Sections: sectionsOf(refs, page), Page: page}
	var first []string
	for _, f := range fs {
		data.Findings = append(data.Findings, describe(f, refs))
		if f.Entity != "" {
			for _, c := range curatedEntities(refs) {
				if c.ID == f.Entity && c.Chunk != "" {
					first = append(first, c.Chunk)
				}
			}
		}
		for _, i := range []int{f.Index, f.Other} {
			if p, ok := onPage(page, i); ok && i >= 0 {
				for _, c := range p.Citations {
					first = append(first, c.ChunkID)
				}
			}
		}
	}
	data.References = l.references(refs, first)
	edits, calls, err := ask.JSON(ctx, l.m, ask.Request[llmEditAnswer, []schemas.Edit]{
		Prompt: llmEditPrompt,
		Data: func(feedback string) any {
			data.Feedback = feedback
			return data
		},
		Validate: func(a llmEditAnswer) ([]schemas.Edit, error) { return l.edits(a, refs, page) },
		Attempts: l.cfg.MaxAttempts,
	})
	e.calls.Add(int64(calls))
	if err != nil {
		return nil, rejected("edit "+refs.Subject, err)
	}
	return edits, nil
}

// describe is a finding as the editing prompt lists it.
func describe(f schemas.Finding, refs *schemas.ReferenceSet) string {
	var b strings.Builder
	b.WriteString(f.Type)
	if f.Index >= 0 {
		fmt.Fprintf(&b, ", sentence %d", f.Index)
	}
	if f.Type == schemas.FindingRedundancy {
		fmt.Fprintf(&b, " repeats sentence %d", f.Other)
	}
	if f.Section != "" {
		fmt.Fprintf(&b, ", section %q", f.Section)
	}
	if f.Entity != "" {
		name := f.Entity
		for _, e := range curatedEntities(refs) {
			if e.ID == f.Entity {
				name = fmt.Sprintf("%s (id %s", e.Name, e.ID)
				if e.Chunk != "" {
					name += ", chunk " + e.Chunk
				}
				name += ")"
			}
		}
		fmt.Fprintf(&b, ", entity %s", name)
	}
	if f.Detail != "" {
		b.WriteString(": ")
		b.WriteString(f.Detail)
	}
	return b.String()
}

var editOps = []string{schemas.EditDrop, schemas.EditMove, schemas.EditAdd}

// edits validates an editing answer (see LLMEditor.Edit).
func (l *LLM) edits(a llmEditAnswer, refs *schemas.ReferenceSet, page []kind.Placed) ([]schemas.Edit, error) {
	out := []schemas.Edit{}
	touched := map[int]string{}
	for i, e := range a.Edits {
		n := i + 1
		g := schemas.Edit{Op: e.Op, Section: strings.TrimSpace(e.Section), Reason: strings.TrimSpace(e.Reason)}
		switch e.Op {
		case schemas.EditDrop, schemas.EditMove:
			if e.Index == nil {
				return nil, fmt.Errorf("edit %d: a %s names the sentence (index)", n, e.Op)
			}
			if _, ok := onPage(page, *e.Index); !ok {
				return nil, fmt.Errorf("edit %d: index %d is not a sentence number of the page", n, *e.Index)
			}
			if op, ok := touched[*e.Index]; ok {
				return nil, fmt.Errorf("edit %d: sentence %d already has a %s", n, *e.Index, op)
			}
			touched[*e.Index] = e.Op
			g.Index = *e.Index
			if e.Op == schemas.EditDrop {
				if e.Text != "" || len(e.Citations) > 0 {
					return nil, fmt.Errorf("edit %d: a drop has no text or citations", n)
				}
				break
			}
			if g.Section == "" || e.Position == nil {
				return nil, fmt.Errorf("edit %d: a move names the section and the position it goes to", n)
			}
			if e.Text != "" || len(e.Citations) > 0 {
				return nil, fmt.Errorf("edit %d: a move keeps the sentence's text: no text or citations", n)
			}
			g.Position = *e.Position
		case schemas.EditAdd:
			if g.Section == "" || e.Position == nil {
				return nil, fmt.Errorf("edit %d: an add names the section and the position of the new sentence", n)
			}
			s, err := l.sentence(e.Text, "")
			if err != nil {
				return nil, fmt.Errorf("edit %d: %w", n, err)
			}
			cites, err := citations(refs, e.Citations)
			if err != nil {
				return nil, fmt.Errorf("edit %d: %w", n, err)
			}
			g.Index, g.Position, g.Text, g.Citations = -1, *e.Position, s, cites
			g.Facts = []schemas.Fact{{Text: s, ChunkID: cites[0]}}
		default:
			return nil, fmt.Errorf("edit %d: op %q is not one of %s", n, e.Op, strings.Join(editOps, ", "))
		}
		out = append(out, g)
	}
	return out, nil
}
