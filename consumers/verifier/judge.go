package verifier

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync/atomic"
	"text/template"

	"github.com/cloudwego/eino/components/model"

	"github.com/annalist-dev/annalist/internal/kit/ask"
	"github.com/annalist-dev/annalist/internal/lang/text"
	"github.com/annalist-dev/annalist/internal/lang/zh/claims"
	"github.com/annalist-dev/annalist/internal/ports/genmem"
	"github.com/annalist-dev/annalist/schemas"
)

// PromptVerify is the judge's prompt template version. A template file is
// never edited in place: a change is a new version.
const PromptVerify = "verify.v1"

//go:embed prompts/*.tmpl
var promptFS embed.FS

// Defaults of JudgeConfig.
const (
	DefaultJudgeReferences = 6
	DefaultJudgeRefRunes   = 700
	DefaultJudgeAttempts   = 2
)

// JudgeConfig tunes the LLM judge. The zero value means the defaults
// documented on each field.
type JudgeConfig struct {
	// MaxReferences is how many references, filtered by token Jaccard as
	// the offline checker filters them, the prompt shows (default 6).
	MaxReferences int
	// MaxRefRunes cuts each reference shown to a window of this many runes
	// around its passage most like the sentence (default 700).
	MaxRefRunes int
	// Attempts is how many answers the model may give for one draft: a
	// malformed or invalid answer is retried with the reason; after the
	// last the draft goes to the fallback checker (default 2).
	Attempts int
	// Offline configures the reference filter (its MinJaccard and cache).
	Offline Config
}

func (c JudgeConfig) withDefaults() JudgeConfig {
	if c.MaxReferences <= 0 {
		c.MaxReferences = DefaultJudgeReferences
	}
	if c.MaxRefRunes <= 0 {
		c.MaxRefRunes = DefaultJudgeRefRunes
	}
	if c.Attempts <= 0 {
		c.Attempts = DefaultJudgeAttempts
	}
	return c
}

// Judge is the LLM engine's checker: the model reads the sentence, its
// atomic facts and the filtered references and decides each fact in a
// strict JSON answer, which is validated (statuses and error types from
// the enums, every supporting or contradicting quote verbatim in the chunk
// it names). Gregorian years are still checked against the era table: the
// table, not the model, decides whether 1583 is 万历十一年. Conflict drafts
// go to the fallback checker, whose per-chunk check is exact. Safe for
// concurrent use.
type Judge struct {
	model    model.BaseChatModel
	fallback Checker
	cfg      JudgeConfig
	sel      *Offline
	stats    struct{ drafts, calls, invalid, fallbacks atomic.Int64 }
}

var _ Checker = (*Judge)(nil)

// JudgeOption configures the LLM judge.
type JudgeOption func(*Judge)

// WithModel sets the chat model the judge asks; it is required (without
// one every draft the model would decide fails). Wrap it (infra/llm) for
// timeouts, retries and a concurrency limit.
func WithModel(m model.BaseChatModel) JudgeOption { return func(j *Judge) { j.model = m } }

// WithFallback sets the checker that decides the drafts the model fails on
// and conflict drafts (default none: such drafts fail with an error, and
// conflict drafts go to the model).
func WithFallback(c Checker) JudgeOption { return func(j *Judge) { j.fallback = c } }

// judgePrompt is parsed once; the embedded file is part of the build.
var judgePrompt = ask.MustParseFS(PromptVerify, template.FuncMap{"inc": func(i int) int { return i + 1 }},
	promptFS, "prompts/"+PromptVerify+".tmpl")

// NewJudge returns the LLM judge.
func NewJudge(cfg JudgeConfig, opts ...JudgeOption) *Judge {
	cfg = cfg.withDefaults()
	j := &Judge{cfg: cfg, sel: NewOffline(cfg.Offline)}
	for _, o := range opts {
		o(j)
	}
	return j
}

// JudgeStats counts the judge's work since it was made.
type JudgeStats struct {
	Drafts int64 `json:"drafts"`
	// LLMCalls is every model call.
	LLMCalls int64 `json:"llm_calls"`
	// Invalid counts answers rejected by parsing or validation.
	Invalid int64 `json:"invalid"`
	// Fallbacks counts drafts the fallback checker decided after the
	// model's answers were all rejected.
	Fallbacks int64 `json:"fallbacks"`
}

// Stats returns a snapshot of the counters.
func (j *Judge) Stats() JudgeStats {
	return JudgeStats{Drafts: j.stats.drafts.Load(), LLMCalls: j.stats.calls.Load(),
		Invalid: j.stats.invalid.Load(), Fallbacks: j.stats.fallbacks.Load()}
}

// shownRef is a reference as the prompt shows it.
type shownRef struct {
	ChunkID string
	Text    string
	full    string
}

type promptData struct {
	Subject, Aliases, Sentence string
	Facts                      []string
	References                 []shownRef
	Feedback                   string
}

// Check decides the draft with the model; see Judge. Verdict.LLMCalls
// counts the calls this draft took. A model error is returned (wrapped);
// the runtime retries the draft.
func (j *Judge) Check(ctx context.Context, refs *schemas.ReferenceSet, d schemas.Draft) (schemas.Verdict, error) {
	if refs == nil {
		return schemas.Verdict{}, fmt.Errorf("judge draft %s/%d: %w", d.RequestID, d.Index, genmem.ErrNoReferences)
	}
	j.stats.drafts.Add(1)
	if d.Conflict && len(d.Facts) > 0 && j.fallback != nil {
		return j.fallback.Check(ctx, refs, d)
	}
	reading := claims.Read(j.sel.cfg.Era, j.sel.lexiconOf(refs, d.Text), d.Text)
	facts := reading.Facts()
	if len(facts) == 0 {
		return verdict(d, nil), nil
	}
	data := promptData{Subject: refs.Name, Sentence: d.Text, References: j.selectRefs(refs, d, facts)}
	if data.Subject == "" {
		data.Subject = refs.Subject
	}
	data.Aliases = strings.Join(aliasesBut(refs.Aliases, data.Subject), "、")
	for _, f := range facts {
		data.Facts = append(data.Facts, f.Text)
	}
	fvs, calls, err := ask.JSON(ctx, j.model, ask.Request[judgeAnswer, []schemas.FactVerdict]{
		Prompt: judgePrompt,
		Data: func(feedback string) any {
			data.Feedback = feedback
			return data
		},
		Validate: func(a judgeAnswer) ([]schemas.FactVerdict, error) { return judgement(a, facts, data.References) },
		Attempts: j.cfg.Attempts,
		OnReject: func(int, error) { j.stats.invalid.Add(1) },
	})
	j.stats.calls.Add(int64(calls))
	switch {
	case err == nil:
		reading.ApplyEraTable(fvs)
		v := verdict(d, fvs)
		v.LLMCalls = calls
		return v, nil
	case !errors.Is(err, ask.ErrRejected) || j.fallback == nil:
		return schemas.Verdict{}, fmt.Errorf("judge draft %s/%d: %w", d.RequestID, d.Index, err)
	}
	j.stats.fallbacks.Add(1)
	v, err := j.fallback.Check(ctx, refs, d)
	if err != nil {
		return schemas.Verdict{}, err
	}
	v.LLMCalls += calls
	return v, nil
}

func aliasesBut(aliases []string, name string) []string {
	var out []string
	for _, a := range aliases {
		if a != name && a != "" {
			out = append(out, a)
		}
	}
	return out
}

// selectRefs filters the references as the offline checker does: each
// scored by the token Jaccard of its best passage with the sentence or one
// of its facts; the best MaxReferences above MinJaccard, and the cited
// ones, each cut to a window around its best passage.
func (j *Judge) selectRefs(refs *schemas.ReferenceSet, d schemas.Draft, facts []schemas.Fact) []shownRef {
	idx := j.sel.index(refs)
	sets := []text.TokenSet{text.NewTokenSet(d.Text)}
	for _, f := range facts {
		sets = append(sets, text.NewTokenSet(f.Text))
	}
	score := make([]float64, idx.Docs())
	bestP := make([]int, idx.Docs())
	js := make([][]float64, len(sets))
	for i, ts := range sets {
		js[i] = idx.Jaccards(ts)
	}
	for p := range idx.Passages() {
		doc, _, _ := idx.Passage(p)
		for i := range sets {
			if sc := js[i][p]; sc > score[doc] {
				score[doc], bestP[doc] = sc, p
			}
		}
	}
	var docs []int
	for di, sc := range score {
		if sc >= j.sel.cfg.MinJaccard {
			docs = append(docs, di)
		}
	}
	sort.SliceStable(docs, func(a, b int) bool { return score[docs[a]] > score[docs[b]] })
	if len(docs) > j.cfg.MaxReferences {
		docs = docs[:j.cfg.MaxReferences]
	}
	for _, c := range d.Citations {
		if di, ok := idx.DocOf(c); ok && !containsInt(docs, di) {
			docs = append(docs, di)
		}
	}
	out := make([]shownRef, 0, len(docs))
	for _, di := range docs {
		ref := idx.Doc(di)
		rs := []rune(ref.Text)
		s, e := 0, len(rs)
		if e > j.cfg.MaxRefRunes {
			_, ps, pe := idx.Passage(bestP[di])
			mid := (ps + pe) / 2
			s = max(0, mid-j.cfg.MaxRefRunes/2)
			e = min(len(rs), s+j.cfg.MaxRefRunes)
			s = max(0, e-j.cfg.MaxRefRunes)
		}
		out = append(out, shownRef{ChunkID: ref.ChunkID, Text: string(rs[s:e]), full: ref.Text})
	}
	return out
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

type judgeAnswer struct {
	Facts []judgeFact `json:"facts"`
}

type judgeFact struct {
	Text      string `json:"text"`
	Status    string `json:"status"`
	ErrorType string `json:"error_type"`
	Message   string `json:"message"`
	ChunkID   string `json:"chunk_id"`
	Quote     string `json:"quote"`
}

// judgement validates the model's answer (decoded strictly by ask.JSON:
// one JSON object, a Markdown code fence around it tolerated, no unknown
// fields): one entry per fact in order, statuses and error types from the
// enums, and for a supported or contradicted fact a quote found verbatim
// in the chunk it names, which must be one the prompt showed.
func judgement(a judgeAnswer, facts []schemas.Fact, shown []shownRef) ([]schemas.FactVerdict, error) {
	if len(a.Facts) != len(facts) {
		return nil, fmt.Errorf("the answer decides %d facts, want %d", len(a.Facts), len(facts))
	}
	out := make([]schemas.FactVerdict, len(facts))
	for i, f := range a.Facts {
		want := facts[i]
		if strings.TrimSpace(f.Text) != want.Text {
			return nil, fmt.Errorf("fact %d is %q, want %q", i+1, f.Text, want.Text)
		}
		fv := schemas.FactVerdict{Fact: want, Status: f.Status, ErrorType: f.ErrorType, Message: strings.TrimSpace(f.Message)}
		switch f.Status {
		case schemas.StatusSupported, schemas.StatusNotIncluded:
			if f.ErrorType != "" {
				return nil, fmt.Errorf("fact %d: status %s takes no error_type, got %q", i+1, f.Status, f.ErrorType)
			}
		case schemas.StatusNotSupported:
			switch f.ErrorType {
			case schemas.ErrorEra, schemas.ErrorAlias, schemas.ErrorRefConflict, schemas.ErrorKnowledge, schemas.ErrorOther:
			default:
				return nil, fmt.Errorf("fact %d: unknown error_type %q", i+1, f.ErrorType)
			}
		default:
			return nil, fmt.Errorf("fact %d: unknown status %q", i+1, f.Status)
		}
		if f.Status != schemas.StatusNotIncluded {
			ev, err := quoteEvidence(f, shown)
			if err != nil {
				return nil, fmt.Errorf("fact %d: %v", i+1, err)
			}
			fv.Evidence = []schemas.Evidence{ev}
		}
		out[i] = fv
	}
	return out, nil
}

// quoteEvidence finds the quote in the chunk the fact names.
func quoteEvidence(f judgeFact, shown []shownRef) (schemas.Evidence, error) {
	q := strings.TrimSpace(f.Quote)
	if q == "" {
		return schemas.Evidence{}, fmt.Errorf("status %s needs a quote", f.Status)
	}
	for _, r := range shown {
		if r.ChunkID != f.ChunkID {
			continue
		}
		b := strings.Index(r.full, q)
		if b < 0 {
			return schemas.Evidence{}, fmt.Errorf("quote %q is not in chunk %s", q, f.ChunkID)
		}
		s := text.RuneLen(r.full[:b])
		return schemas.Evidence{ChunkID: f.ChunkID, Span: schemas.Span{Start: s, End: s + text.RuneLen(q)}, Text: q}, nil
	}
	return schemas.Evidence{}, fmt.Errorf("chunk_id %q is not one of the references shown", f.ChunkID)
}
