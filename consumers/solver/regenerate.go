package solver

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cloudwego/eino/components/model"

	"github.com/annalist-dev/annalist/internal/kit/ask"
	"github.com/annalist-dev/annalist/internal/lang/text"
	"github.com/annalist-dev/annalist/schemas"
)

// RegenerateConfig tunes the regenerate solver. The zero value means the
// defaults documented on each field.
type RegenerateConfig struct {
	// MaxAttempts is how many attempts one sentence may take, the first
	// included; a repair of the last one is answered dropped, with the
	// errors as the reason. Default DefaultMaxAttempts, the writer's.
	MaxAttempts int
	// ModelAttempts bounds the model calls for one repair: a rejected
	// answer is asked again with the reason; after that the offline
	// rewrite is used. Default 2.
	ModelAttempts int
	// MaxReferenceRunes cuts each reference quoted in the prompt. Default
	// 1500.
	MaxReferenceRunes int
}

// Defaults of RegenerateConfig.
const (
	DefaultMaxAttempts       = 3
	DefaultModelAttempts     = 2
	DefaultMaxReferenceRunes = 1500
)

func (c RegenerateConfig) withDefaults() RegenerateConfig {
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = DefaultMaxAttempts
	}
	if c.ModelAttempts <= 0 {
		c.ModelAttempts = DefaultModelAttempts
	}
	if c.MaxReferenceRunes <= 0 {
		c.MaxReferenceRunes = DefaultMaxReferenceRunes
	}
	return c
}

// Regenerate rewrites a sentence from its supporting references only; it
// serves repairs.regenerate (not_included) and repairs.other.
type Regenerate struct {
	cfg   RegenerateConfig
	model model.BaseChatModel
}

// RegenerateOption configures the regenerate solver.
type RegenerateOption func(*Regenerate)

// WithModel has the model rewrite the sentence before the offline rewrite
// is tried (default none: the offline rewrite only). Wrap it (infra/llm)
// for timeouts, retries and a concurrency limit.
func WithModel(m model.BaseChatModel) RegenerateOption {
	return func(g *Regenerate) { g.model = m }
}

// NewRegenerate returns the regenerate solver.
func NewRegenerate(cfg RegenerateConfig, opts ...RegenerateOption) Solver {
	g := &Regenerate{cfg: cfg.withDefaults()}
	for _, o := range opts {
		o(g)
	}
	return g
}

// Name is "regenerate".
func (*Regenerate) Name() string { return NameRegenerate }

// Solve rewrites the sentence: dropped when the attempts are used up or
// nothing supported is left, else corrected.
func (g *Regenerate) Solve(ctx context.Context, _ string, refs *schemas.ReferenceSet, r schemas.Repair) (schemas.Correction, []schemas.Review, error) {
	if refs == nil {
		return schemas.Correction{}, nil, errNoReferences
	}
	v := r.Verdict
	c := newCorrection(NameRegenerate, r)
	if v.Attempt+1 >= g.cfg.MaxAttempts {
		c.Outcome = schemas.OutcomeDropped
		c.Reason = fmt.Sprintf("attempt %d of %d not verified: %s", v.Attempt+1, g.cfg.MaxAttempts, errorSummary(v))
		return c, nil, nil
	}
	if !hasFailedFact(v) && g.model == nil {
		c.Outcome = schemas.OutcomeDropped
		c.Reason = "the verdict names no failed fact to rewrite: " + v.Status
		return c, nil, nil
	}
	var rejected string
	if g.model != nil {
		txt, cites, calls, err := g.askModel(ctx, refs, v)
		c.LLMCalls = calls
		if err != nil {
			return schemas.Correction{}, nil, err
		}
		if txt != "" {
			c.Outcome = schemas.OutcomeCorrected
			c.Text, c.Citations = txt, cites
			c.Facts = factsStated(v.Draft.Facts, txt, cites)
			return c, nil, nil
		}
		rejected = fmt.Sprintf("model answers rejected after %d calls; offline rewrite", calls)
	}
	e := newEdit(refs, v)
	e.fixRest()
	c = e.finish(c)
	if rejected != "" {
		c.Reason = strings.TrimSuffix(rejected+"; "+c.Reason, "; ")
	}
	return c, nil, nil
}

func hasFailedFact(v schemas.Verdict) bool {
	for _, fv := range v.Facts {
		if fv.Status != schemas.StatusSupported {
			return true
		}
	}
	return false
}

// errorSummary lists the verdict's failed facts and messages.
func errorSummary(v schemas.Verdict) string {
	var parts []string
	for _, fv := range v.Facts {
		if fv.Status == schemas.StatusSupported {
			continue
		}
		parts = append(parts, describe(fv))
	}
	if len(parts) == 0 {
		return v.Status
	}
	return strings.Join(parts, "; ")
}

// describe says what is wrong with one fact, for reasons and prompts.
func describe(fv schemas.FactVerdict) string {
	what := fv.Status
	if fv.ErrorType != "" {
		what += " (" + fv.ErrorType + ")"
	}
	s := fmt.Sprintf("%q: %s", strings.TrimSpace(fv.Fact.Text), what)
	if fv.Message != "" {
		s += ": " + fv.Message
	}
	return s
}

// factsStated keeps the facts whose value the text still states and whose
// chunk it cites.
func factsStated(facts []schemas.Fact, txt string, cites []string) []schemas.Fact {
	var out []schemas.Fact
	for _, f := range facts {
		if stated(txt, f) && (f.ChunkID == "" || slices.Contains(cites, f.ChunkID)) {
			out = append(out, f)
		}
	}
	return out
}

// PromptRegenerate is the version of the regenerate prompt; a template
// file is never edited in place, a change is a new version.
const PromptRegenerate = "regenerate.v1"

//go:embed prompts/*.tmpl
var promptFS embed.FS

// regeneratePrompt is parsed once; the embedded file is part of the build,
// so a parse error is a programming error caught by every test.
var regeneratePrompt = ask.MustParseFS(PromptRegenerate, nil, promptFS, "prompts/"+PromptRegenerate+".tmpl")

type promptRef struct{ ID, Text string }

type regenerateData struct {
	Subject, Lang, Sentence string
	Errors                  []string
	References              []promptRef
	Feedback                string
}

// supporting are the references a rewrite may rest on: the chunks of the
// verdict's evidence (what supports the kept facts and what gives the
// right values) and the draft's citations, nothing else of the set.
func supporting(refs *schemas.ReferenceSet, v schemas.Verdict, maxRunes int) []promptRef {
	var ids []string
	for _, fv := range v.Facts {
		for _, ev := range fv.Evidence {
			ids = append(ids, ev.ChunkID)
		}
	}
	ids = append(ids, v.Draft.Citations...)
	var out []promptRef
	for _, id := range ids {
		if slices.ContainsFunc(out, func(p promptRef) bool { return p.ID == id }) {
			continue
		}
		if r, ok := refs.Reference(id); ok {
			out = append(out, promptRef{ID: id, Text: text.Clip(r.Text, maxRunes)})
		}
	}
	return out
}

// askModel has the model rewrite the sentence; an empty text with a nil
// error means every answer was rejected.
func (g *Regenerate) askModel(ctx context.Context, refs *schemas.ReferenceSet, v schemas.Verdict) (txt string, cites []string, calls int, err error) {
	data := regenerateData{Subject: v.Subject, Lang: refs.Lang, Sentence: v.Draft.Text,
		References: supporting(refs, v, g.cfg.MaxReferenceRunes)}
	if data.Lang == "" {
		data.Lang = text.Lang(v.Draft.Text)
	}
	for _, fv := range v.Facts {
		if fv.Status != schemas.StatusSupported {
			data.Errors = append(data.Errors, describe(fv))
		}
	}
	if len(data.Errors) == 0 {
		data.Errors = []string{"the sentence is " + v.Status}
	}
	allowed := make([]string, len(data.References))
	for i, p := range data.References {
		allowed[i] = p.ID
	}
	rw, calls, err := ask.JSON(ctx, g.model, ask.Request[rewriteAnswer, rewrite]{
		Prompt: regeneratePrompt,
		Data: func(feedback string) any {
			data.Feedback = feedback
			return data
		},
		Validate: func(a rewriteAnswer) (rewrite, error) { return checkRewrite(a, allowed, v) },
		Attempts: g.cfg.ModelAttempts,
	})
	switch {
	case errors.Is(err, ask.ErrRejected):
		return "", nil, calls, nil
	case err != nil:
		return "", nil, calls, fmt.Errorf("regenerate with model: %w", err)
	}
	return rw.text, rw.cites, calls, nil
}

// rewriteAnswer is the model's answer.
type rewriteAnswer struct {
	Text      string   `json:"text"`
	Citations []string `json:"citations"`
}

// rewrite is a validated answer: the sentence and its citations.
type rewrite struct {
	text  string
	cites []string
}

// checkRewrite validates the model's answer (decoded strictly by
// ask.JSON): a non-empty text other than the sentence's and at least one
// citation, every citation one of the offered references, and none of the
// values the verifier rejected in the text.
func checkRewrite(a rewriteAnswer, allowed []string, v schemas.Verdict) (rewrite, error) {
	a.Text = strings.TrimSpace(a.Text)
	if a.Text == "" || !hasContent([]rune(a.Text)) {
		return rewrite{}, errors.New(`"text" is empty`)
	}
	if a.Text == strings.TrimSpace(v.Draft.Text) {
		return rewrite{}, errors.New(`"text" is the sentence unchanged: correct the errors listed`)
	}
	if len(a.Citations) == 0 {
		return rewrite{}, errors.New(`"citations" is empty: cite the references the sentence rests on`)
	}
	var cites []string
	for _, c := range a.Citations {
		if !slices.Contains(allowed, c) {
			return rewrite{}, fmt.Errorf("citation %q is not one of the references given (%s)", c, strings.Join(allowed, ", "))
		}
		if !slices.Contains(cites, c) {
			cites = append(cites, c)
		}
	}
	for _, fv := range v.Facts {
		if bad := rejectedValue(fv); bad != "" && strings.Contains(a.Text, bad) {
			return rewrite{}, fmt.Errorf("the text still says %q, which the verifier rejected", bad)
		}
	}
	return rewrite{text: a.Text, cites: cites}, nil
}

// rejectedValue is what of a failed fact must not come back: a
// contradicted value, or the text of a clause no reference includes. Very
// short strings are not checked: they occur in correct sentences too.
func rejectedValue(fv schemas.FactVerdict) string {
	var s string
	switch fv.Status {
	case schemas.StatusNotSupported:
		s = fv.Fact.Value
	case schemas.StatusNotIncluded:
		s = strings.TrimSpace(fv.Fact.Text)
		if text.RuneLen(s) < 4 {
			s = ""
		}
	}
	if text.RuneLen(s) < 2 {
		return ""
	}
	return s
}
