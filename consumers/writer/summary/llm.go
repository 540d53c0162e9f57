package summary

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
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

// PromptSummary is the version of the summary prompt. A template file is
// never edited in place: a change is a new version.
const PromptSummary = "discussion_summary.v2"

//go:embed prompts/*.tmpl
var promptFS embed.FS

var summaryPrompt = ask.MustParseFS(PromptSummary, nil, promptFS, "prompts/"+PromptSummary+".tmpl")

// LLMConfig configures the LLM drafter. The zero value is usable.
type LLMConfig struct {
	// MaxAttempts is how many answers one summary may take (default 2: a
	// rejected answer is asked again once, with the reason).
	MaxAttempts int
	// MaxSentenceRunes bounds one sentence of the answer (default 400: an
	// opinion with its references resolved is longer than its turn's
	// words).
	MaxSentenceRunes int
	// MaxReferenceRunes clips each paragraph and turn in the prompt
	// (default 2000).
	MaxReferenceRunes int
	// MaxNames bounds the background names the prompt lists (default 40).
	MaxNames int
}

func (c LLMConfig) withDefaults() LLMConfig {
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = 2
	}
	if c.MaxSentenceRunes <= 0 {
		c.MaxSentenceRunes = 400
	}
	if c.MaxReferenceRunes <= 0 {
		c.MaxReferenceRunes = 2000
	}
	if c.MaxNames <= 0 {
		c.MaxNames = 40
	}
	return c
}

// LLM is the kind's LLM drafter: one model call (and at most one retry)
// per discussion for the whole summary, validated structurally (see the
// package doc), then drafted one sentence at a time like the offline
// plan. Safe for concurrent use.
type LLM struct {
	m     model.BaseChatModel
	off   *Offline
	cfg   LLMConfig
	calls atomic.Int64

	mu      sync.Mutex
	entries map[uint64]*llmEntry
}

// llmEntry is one discussion's summary: asked once, then its items or,
// when every answer was rejected, the error each sentence reports.
type llmEntry struct {
	mu     sync.Mutex
	done   bool
	items  []Item
	failed error
}

var _ kind.Drafter = (*LLM)(nil)

// NewLLM returns the LLM drafter asking m; off is the offline drafter
// whose plan the writer's loop falls back to (the drafter says the summary
// is done where that plan ends). m and off must not be nil; wrap m
// (infra/llm) for timeouts, retries and a concurrency limit.
func NewLLM(cfg LLMConfig, m model.BaseChatModel, off *Offline) *LLM {
	return &LLM{m: m, off: off, cfg: cfg.withDefaults(), entries: map[uint64]*llmEntry{}}
}

// Calls is the number of model calls made so far.
func (l *LLM) Calls() int64 { return l.calls.Load() }

// Draft writes sentence index of the model's summary, done past its last.
// The first sentence of a discussion asks the model; a model failure is
// returned as it is (transient) and asked again on the next call. When
// every answer was rejected, Draft fails with an error wrapping
// writer.ErrMalformed (permanent) for each sentence of the offline plan,
// which the writer's loop then drafts offline, and is done past it.
func (l *LLM) Draft(ctx context.Context, refs *schemas.ReferenceSet, _ []schemas.PageSentence, index int) (schemas.Draft, bool, error) {
	items, err := l.Items(ctx, refs)
	if errors.Is(err, writer.ErrMalformed) {
		// Past the offline plan (its quotations included) the summary is
		// done.
		if index < 0 || index >= len(l.off.Items(refs)) {
			return schemas.Draft{}, true, nil
		}
		return schemas.Draft{}, false, err
	}
	if err != nil {
		return schemas.Draft{}, false, err
	}
	if index < 0 || index >= len(items) {
		return schemas.Draft{}, true, nil
	}
	return items[index].draft(refs, index, writer.EngineLLM), false, nil
}

// Items is the model's summary of refs' discussion, asked once per
// discussion and kept. When every answer was rejected the error wraps
// writer.ErrMalformed (permanent), and is kept too; any other error is a
// model failure, returned as it is (transient) and asked again on the
// next call.
func (l *LLM) Items(ctx context.Context, refs *schemas.ReferenceSet) ([]Item, error) {
	if refs == nil || refs.Discussion == nil {
		return nil, pipeline.Permanent(errNoDiscussion)
	}
	key := planKey(refs)
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
	defer e.mu.Unlock()
	if e.done {
		return e.items, e.failed
	}
	items, err := l.ask(ctx, refs)
	switch {
	case errors.Is(err, ask.ErrRejected):
		e.done, e.failed = true, pipeline.Permanent(fmt.Errorf("summary of discussion %s: %w: %w",
			refs.Discussion.ID, writer.ErrMalformed, err))
	case err != nil:
		return nil, fmt.Errorf("summary of discussion %s: %w", refs.Discussion.ID, err)
	default:
		e.done, e.items = true, items
	}
	return e.items, e.failed
}

type promptParagraph struct {
	Index int
	Text  string
}

type promptTurn struct {
	N                      int
	Participant, Utterance string
}

type promptQuote struct {
	Section, Chunk, Author, Sentence string
}

type promptData struct {
	ID           string
	Paragraphs   []promptParagraph
	Names        string
	Suggested    string
	Turns        []promptTurn
	Participants string
	Quotations   []promptQuote
	Feedback     string
}

type llmAnswer struct {
	Background []llmBackground `json:"background"`
	Opinions   []llmOpinions   `json:"opinions"`
	Quotations []llmQuotation  `json:"quotations"`
}

type llmQuotation struct {
	Section   string   `json:"section"`
	Text      string   `json:"text"`
	Citations []string `json:"citations"`
}

type llmBackground struct {
	Text       string `json:"text"`
	Paragraphs []int  `json:"paragraphs"`
}

type llmOpinions struct {
	Participant string       `json:"participant"`
	Sentences   []llmOpinion `json:"sentences"`
}

type llmOpinion struct {
	Text string `json:"text"`
	Turn *int   `json:"turn"`
}

// ask asks the model for the summary and validates it (summaryOf).
func (l *LLM) ask(ctx context.Context, refs *schemas.ReferenceSet) ([]Item, error) {
	d := *refs.Discussion
	g := discourse.BuildGraph(d)
	data := promptData{ID: d.ID, Participants: strings.Join(d.Participants(), ", ")}
	for _, p := range d.Background {
		data.Paragraphs = append(data.Paragraphs, promptParagraph{Index: p.Index,
			Text: text.Clip(strings.TrimSpace(p.Text), l.cfg.MaxReferenceRunes)})
	}
	for i, t := range d.Turns {
		data.Turns = append(data.Turns, promptTurn{N: i, Participant: t.Participant,
			Utterance: text.Clip(strings.TrimSpace(t.Utterance), l.cfg.MaxReferenceRunes)})
	}
	var names []string
	for _, e := range g.Entities {
		if len(names) < l.cfg.MaxNames {
			names = append(names, e.Name)
		}
	}
	data.Names = strings.Join(names, "; ")
	var suggested []string
	for _, it := range l.off.Items(refs) {
		if it.Section != SectionBackground {
			continue
		}
		for _, c := range it.Citations {
			if _, _, n, ok := schemas.ParseDiscussionRef(c); ok && !slices.Contains(suggested, strconv.Itoa(n)) {
				suggested = append(suggested, strconv.Itoa(n))
			}
		}
	}
	data.Suggested = strings.Join(suggested, ", ")
	planned := quoteItems(refs)
	if refs.Curation != nil {
		for _, sec := range refs.Curation.Outline {
			if q, ok := planned[sec.Title]; ok {
				r, _ := refs.Reference(q.Citations[0])
				data.Quotations = append(data.Quotations, promptQuote{Section: sec.Title, Chunk: r.ChunkID,
					Author: r.Author, Sentence: q.Text})
			}
		}
	}
	items, calls, err := ask.JSON(ctx, l.m, ask.Request[llmAnswer, []Item]{
		Prompt: summaryPrompt,
		Data: func(feedback string) any {
			data.Feedback = feedback
			return data
		},
		Validate: func(a llmAnswer) ([]Item, error) {
			items, err := l.summaryOf(a, d, g)
			if err != nil {
				return nil, err
			}
			qs, err := l.quotationsOf(a, refs, planned)
			if err != nil {
				return nil, err
			}
			return placeQuotes(items, qs), nil
		},
		Attempts: l.cfg.MaxAttempts,
	})
	l.calls.Add(int64(calls))
	return items, err
}

// summaryOf validates an answer's structure and makes the page's items of
// it: background sentences first, in the answer's order, then each
// participant's opinions (participants in the order they first speak,
// opinions by turn, the answer's order kept within a turn). A sentence
// given twice is kept once.
//
// Rejected: no sentence at all, or more than MaxSentences; a text that is
// empty, spans lines, is longer than MaxSentenceRunes or holds more than
// one sentence; a background sentence citing no paragraph or one the
// discussion lacks; an opinion of someone who is not a participant,
// without a turn, citing a turn that does not exist or is another
// participant's, or not opening with its participant and a verb
// ("Person1 thinks that …").
func (l *LLM) summaryOf(a llmAnswer, d schemas.Discussion, g *discourse.Graph) ([]Item, error) {
	var out []Item
	seen := map[string]bool{}
	add := func(it Item) {
		if !seen[it.Section+"\x00"+it.Text] {
			seen[it.Section+"\x00"+it.Text] = true
			out = append(out, it)
		}
	}
	for i, b := range a.Background {
		what := fmt.Sprintf("background sentence %d", i+1)
		s, err := l.sentence(b.Text)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		if len(b.Paragraphs) == 0 {
			return nil, fmt.Errorf("%s: no paragraph cited: cite the paragraph_index of each paragraph it rests on", what)
		}
		it := Item{Section: SectionBackground, Text: s}
		for _, p := range b.Paragraphs {
			if _, ok := d.Paragraph(p); !ok {
				return nil, fmt.Errorf("%s: paragraph %d is not a background paragraph (%s)", what, p, paragraphIndices(d))
			}
			it.Citations = appendOnce(it.Citations, schemas.ParagraphRef(d.ID, p))
		}
		add(it)
	}
	participants := d.Participants()
	type opinion struct {
		turn int
		it   Item
	}
	byParticipant := map[string][]opinion{}
	for _, o := range a.Opinions {
		p := strings.TrimSpace(o.Participant)
		if !slices.Contains(participants, p) {
			return nil, fmt.Errorf("participant %q is not one of the discussion's (%s)", o.Participant, strings.Join(participants, ", "))
		}
		for i, op := range o.Sentences {
			what := fmt.Sprintf("opinion %d of %s", i+1, p)
			s, err := l.sentence(op.Text)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", what, err)
			}
			if op.Turn == nil {
				return nil, fmt.Errorf("%s: no turn: give the number of the turn it comes from", what)
			}
			t := *op.Turn
			if t < 0 || t >= len(d.Turns) {
				return nil, fmt.Errorf("%s: turn %d does not exist (turns are numbered 0 to %d)", what, t, len(d.Turns)-1)
			}
			if who := d.Turns[t].Participant; who != p {
				return nil, fmt.Errorf("%s: turn %d is %s's, not %s's: cite the turn of %s that states it", what, t, who, p, p)
			}
			if err := attributed(s, p); err != nil {
				return nil, fmt.Errorf("%s: %w", what, err)
			}
			ents := []string{}
			for _, e := range g.EntitiesIn(s) {
				ents = append(ents, e.Name)
			}
			byParticipant[p] = append(byParticipant[p], opinion{turn: t,
				it: Item{Section: p, Text: s, Citations: []string{schemas.TurnRef(d.ID, t)}, Entities: ents}})
		}
	}
	for _, p := range participants {
		ops := byParticipant[p]
		slices.SortStableFunc(ops, func(a, b opinion) int { return a.turn - b.turn })
		for _, o := range ops {
			add(o.it)
		}
	}
	switch {
	case len(out) == 0:
		return nil, errors.New("the summary has no sentence: give the background sentences and every participant's opinions")
	case len(out) > MaxSentences:
		return nil, fmt.Errorf("the summary has %d sentences, more than %d", len(out), MaxSentences)
	}
	return out, nil
}

// quotationsOf validates the answer's quotations against the ones the
// plan placed (planned, by section): each placed quotation given once, in
// its section, as one non-empty line of bounded length citing references
// of the set. Whether the line quotes its quotation verbatim and
// attributes it to its author is the verifier's to judge
// (verifier.WithQuotes), as for every other sentence. Rejected: a
// quotation missing, given twice or for a section the plan gave none,
// and a text or citations that break the structure.
func (l *LLM) quotationsOf(a llmAnswer, refs *schemas.ReferenceSet, planned map[string]Item) (map[string]Item, error) {
	if len(planned) == 0 {
		if len(a.Quotations) > 0 {
			return nil, errors.New("the summary was asked for no quotation: give none")
		}
		return nil, nil
	}
	out := map[string]Item{}
	for i, q := range a.Quotations {
		sec := strings.TrimSpace(q.Section)
		what := fmt.Sprintf("quotation %d (section %q)", i+1, q.Section)
		want, ok := planned[sec]
		switch {
		case !ok:
			return nil, fmt.Errorf("%s: no quotation is listed for that section (%s)", what, quoteSections(planned))
		case out[sec].Text != "":
			return nil, fmt.Errorf("%s: the section's quotation is given twice; give it once", what)
		}
		t := strings.TrimSpace(q.Text)
		switch n := utf8.RuneCountInString(t); {
		case n == 0:
			return nil, fmt.Errorf("%s: the text is empty", what)
		case strings.ContainsAny(t, "\n\r"):
			return nil, fmt.Errorf("%s: the text spans several lines; write it on one", what)
		case n > l.cfg.MaxSentenceRunes+utf8.RuneCountInString(want.Text):
			return nil, fmt.Errorf("%s: the text has %d characters, far more than the quotation", what, n)
		}
		if len(q.Citations) == 0 {
			return nil, fmt.Errorf("%s: no citation: cite the quotation's id (%s)", what, want.Citations[0])
		}
		var cites []string
		for _, c := range q.Citations {
			if _, ok := refs.Reference(c); !ok {
				return nil, fmt.Errorf("%s: %q is not a reference of the summary: cite the quotation's id (%s)", what, c, want.Citations[0])
			}
			cites = appendOnce(cites, c)
		}
		out[sec] = Item{Section: sec, Text: t, Citations: cites}
	}
	for sec, want := range planned {
		if _, ok := out[sec]; !ok {
			return nil, fmt.Errorf("the quotation for section %q (%s) is missing: give every quotation listed", sec, want.Citations[0])
		}
	}
	return out, nil
}

// quoteSections lists the sections given a quotation, in order.
func quoteSections(planned map[string]Item) string {
	secs := slices.Sorted(maps.Keys(planned))
	return "the quotations are for " + strings.Join(secs, ", ")
}

// sentence checks one sentence of the answer: not empty, one line,
// bounded, one sentence.
func (l *LLM) sentence(s string) (string, error) {
	s = strings.TrimSpace(s)
	switch n := utf8.RuneCountInString(s); {
	case n == 0:
		return "", errors.New("the text is empty")
	case strings.ContainsAny(s, "\n\r"):
		return "", errors.New("the text spans several lines; write one sentence")
	case n > l.cfg.MaxSentenceRunes:
		return "", fmt.Errorf("the text has %d characters, more than one sentence (at most %d)", n, l.cfg.MaxSentenceRunes)
	}
	if n := len(discourse.SplitSentences(s)); n > 1 {
		return "", fmt.Errorf("the text has %d sentences; write one", n)
	}
	return s, nil
}

// attributed checks that an opinion opens with its participant and a verb
// in the third person: "Person1 thinks that …", "Person1 hopes …".
func attributed(s, participant string) error {
	rest, ok := strings.CutPrefix(s, participant+" ")
	words := strings.Fields(rest)
	if !ok || len(words) < 2 {
		return fmt.Errorf("the text does not open with %q and what they think (%q)", participant, participant+" thinks that …")
	}
	if r, _ := utf8.DecodeRuneInString(words[0]); !unicode.IsLower(r) {
		return fmt.Errorf("the text opens with %q, not %s and a verb (%q)", participant+" "+words[0], participant, participant+" thinks that …")
	}
	return nil
}

func paragraphIndices(d schemas.Discussion) string {
	var out []string
	for _, p := range d.Background {
		out = append(out, strconv.Itoa(p.Index))
	}
	return "the paragraphs are " + strings.Join(out, ", ")
}
