package extractor

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/internal/text"

	"github.com/annalist-dev/annalist/internal/ask"
	"github.com/annalist-dev/annalist/internal/profile"
	"github.com/annalist-dev/annalist/internal/regexmem"
	"github.com/annalist-dev/annalist/schemas"
)

// Prompt template versions; a template file is never edited in place: a
// change is a new version, so stored patterns say which prompt made them.
const (
	PromptRegex = "regex.v1"
	PromptPlanB = "planb.v1"
)

//go:embed prompts/*.tmpl
var promptFS embed.FS

// prompts holds one prompt per file: every file defines its own "system"
// and "user" templates.
var prompts = map[string]*ask.Prompt{
	PromptRegex: ask.MustParseFS(PromptRegex, nil, promptFS, "prompts/"+PromptRegex+".tmpl"),
	PromptPlanB: ask.MustParseFS(PromptPlanB, nil, promptFS, "prompts/"+PromptPlanB+".tmpl"),
}

type demoView struct {
	Source, GroupsJSON, Example string
}

type regexPromptData struct {
	Relation, Description, Person, Roles string
	TailBound                            int
	Demos                                []demoView
	Feedback                             string
	Text                                 string
}

type wantedView struct{ Name, Description string }

type planBPromptData struct {
	Relations, Qualifiers string
	Person                string
	Wanted                []wantedView
	Feedback              string
	Text                  string
}

// regexFound is a validated regex answer: the pattern and the facts it
// yields, or none when the model answered that the chunk does not state
// the fact (an empty regex).
type regexFound struct {
	p     regexmem.Pattern
	facts []fact
}

// synthesise asks the model for a regex for relation rel of person target
// in chunk c, validates it and, when it yields facts, stores it in memory.
// A rejected answer is retried with the reason, up to MaxAttempts calls;
// nil facts and a nil error mean the model gave no usable regex. A model
// error is returned (transient).
func (e *Extractor) synthesise(ctx context.Context, tenant string, c schemas.Chunk, rel, target string,
	secs []section, memory []regexmem.Pattern) ([]fact, error) {
	prof := e.profileOf(c)
	roles, _ := RoleNames(rel)
	data := regexPromptData{
		Relation: rel, Description: relationText[rel], Person: target,
		Roles: strings.Join(roles, ", "), TailBound: tailBound[rel],
		Demos: e.demos(prof, rel, memory), Text: text.Clip(c.Text, e.cfg.MaxPromptRunes),
	}
	found, calls, err := ask.JSON(ctx, e.model, ask.Request[regexAnswer, regexFound]{
		Prompt: prompts[PromptRegex],
		Data: func(feedback string) any {
			data.Feedback = feedback
			return data
		},
		Validate: func(a regexAnswer) (regexFound, error) {
			p, err := regexPattern(a, rel)
			if err != nil || p.Source == "" {
				return regexFound{}, err
			}
			ms, err := e.check(p, c.Text)
			if err != nil {
				return regexFound{}, err
			}
			facts, err := matchFacts(c.Text, secs, target, p, ms, MethodLLMRegex)
			return regexFound{p: p, facts: facts}, err
		},
		Attempts: e.cfg.MaxAttempts,
		OnReject: func(attempt int, reason error) {
			e.stats.regexRejected.Add(1)
			e.log.Info().Str("chunk_id", c.ChunkID).Str("relation", rel).Int("attempt", attempt).
				Err(reason).Msg("synthesised regex rejected")
		},
	})
	e.stats.llmCalls.Add(int64(calls))
	e.stats.regexCalls.Add(int64(calls))
	switch {
	case errors.Is(err, ask.ErrRejected):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("synthesise %s regex for chunk %s: %w", rel, c.ChunkID, err)
	case found.facts == nil:
		e.log.Debug().Str("chunk_id", c.ChunkID).Str("relation", rel).Msg("model found no regex")
		return nil, nil
	}
	p, facts := found.p, found.facts
	p.Example = text.Clip(c.Text[facts[0].start:facts[0].end], 80)
	p.Created = e.now().UTC()
	if e.memory != nil {
		if err := e.memory.Save(ctx, tenant, c.Profile, p); err != nil {
			return nil, fmt.Errorf("store %s regex of chunk %s: %w", rel, c.ChunkID, err)
		}
	}
	e.stats.regexLearned.Add(1)
	return facts, nil
}

// demos are the hand-made patterns for rel, then up to cfg.Demos patterns
// for rel from memory (most used first).
func (e *Extractor) demos(p *profile.Profile, rel string, memory []regexmem.Pattern) []demoView {
	var out []demoView
	add := func(p regexmem.Pattern) {
		g, _ := json.Marshal(p.Groups)
		out = append(out, demoView{Source: p.Source, GroupsJSON: string(g), Example: p.Example})
	}
	for _, d := range handDemos(p, rel) {
		add(d)
	}
	n := 0
	for _, p := range memory {
		if p.Relation == rel && n < e.cfg.Demos {
			add(p)
			n++
		}
	}
	return out
}

type regexAnswer struct {
	Relation string         `json:"relation"`
	Regex    string         `json:"regex"`
	Groups   map[string]int `json:"groups"`
}

// regexPattern reads a regex answer (decoded strictly by ask.JSON): the
// relation must be the one asked for; an empty regex is the model's answer
// that the chunk does not state the fact, a pattern with no source.
func regexPattern(a regexAnswer, rel string) (regexmem.Pattern, error) {
	if a.Relation != rel {
		return regexmem.Pattern{}, reject("answer is for relation %q, asked for %q", a.Relation, rel)
	}
	if a.Regex == "" {
		return regexmem.Pattern{}, nil
	}
	return regexmem.Pattern{
		ID: regexmem.ID(rel, a.Regex, a.Groups), Relation: rel, Source: a.Regex, Groups: a.Groups,
		Prompt: PromptRegex,
	}, nil
}

// matchFacts turns the validated matches of p into facts about target:
// only matches in target's own part of the chunk count, and at least one
// must.
func matchFacts(text string, secs []section, target string, p regexmem.Pattern, ms []RegexMatch, method string) ([]fact, error) {
	var out []fact
	conf := confLLMRegex
	for _, m := range ms {
		if headAt(secs, m.Start, target) != target {
			continue
		}
		out = append(out, fact{
			head: target, headType: schemas.EntityPerson, rel: p.Relation,
			tail: strings.TrimSpace(m.Tail), tailType: tailType(p.Relation, m.Tail),
			quals: m.Qualifiers, start: m.Start, end: m.End, method: method, pattern: p.Source, conf: conf,
		})
	}
	if len(out) == 0 {
		return nil, reject("regex matches only text about other people than %s", target)
	}
	return out, nil
}

// headAt is the person the text at byte offset b is about: its section's
// head, or target when the chunk has no sections (English text).
func headAt(secs []section, b int, target string) string {
	if secs == nil {
		return target
	}
	if s := sectionAt(secs, b); s != nil {
		return s.head
	}
	return ""
}

// Confidence of model-made facts: a validated regex is checked against the
// text and the controls; a plan B triplet only against the text.
const (
	confLLMRegex = 0.7
	confPlanB    = 0.5
)

func tailType(rel, tail string) string {
	switch rel {
	case schemas.RelNativePlace:
		return schemas.EntityPlace
	case schemas.RelJinshi:
		return schemas.EntityTime
	case schemas.RelOffice:
		return schemas.EntityOffice
	case schemas.RelRelative:
		return schemas.EntityPerson
	case schemas.RelDeath, schemas.RelBirth:
		if hasLatin(tail) && !enTime(tail) {
			return schemas.EntityPlace
		}
		return schemas.EntityTime
	}
	return schemas.EntityName
}

type planBAnswer struct {
	Triplets []planBTriplet `json:"triplets"`
}

type planBTriplet struct {
	Relation   string            `json:"relation"`
	Tail       string            `json:"tail"`
	Evidence   string            `json:"evidence"`
	Qualifiers map[string]string `json:"qualifiers"`
}

// planBFound is a validated plan B answer: its valid triplets as facts,
// and how many triplets were dropped.
type planBFound struct {
	facts   []fact
	dropped int
}

// planB asks the model for the wanted relations of target directly, as
// triplets in a strict JSON schema. A malformed answer is retried with the
// reason, up to MaxAttempts calls; triplets that fail validation are
// dropped one by one. A model error is returned (transient).
func (e *Extractor) planB(ctx context.Context, c schemas.Chunk, target string, wanted []string) ([]fact, error) {
	quals := make([]string, 0, len(wanted))
	views := make([]wantedView, 0, len(wanted))
	for _, r := range wanted {
		roles, _ := RoleNames(r)
		quals = append(quals, fmt.Sprintf("%s: [%s]", r, strings.Join(roles, ", ")))
		views = append(views, wantedView{Name: r, Description: relationText[r]})
	}
	data := planBPromptData{
		Relations: strings.Join(wanted, ", "), Qualifiers: strings.Join(quals, "; "),
		Person: target, Wanted: views, Text: text.Clip(c.Text, e.cfg.MaxPromptRunes),
	}
	found, calls, err := ask.JSON(ctx, e.model, ask.Request[planBAnswer, planBFound]{
		Prompt: prompts[PromptPlanB],
		Data: func(feedback string) any {
			data.Feedback = feedback
			return data
		},
		Validate: func(a planBAnswer) (planBFound, error) { return planBFacts(a, c.Text, target, wanted) },
		Attempts: e.cfg.MaxAttempts,
		OnReject: func(attempt int, reason error) {
			e.stats.planBRejected.Add(1)
			e.log.Info().Str("chunk_id", c.ChunkID).Int("attempt", attempt).Err(reason).Msg("plan B answer rejected")
		},
	})
	e.stats.llmCalls.Add(int64(calls))
	e.stats.planBCalls.Add(int64(calls))
	switch {
	case errors.Is(err, ask.ErrRejected):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("plan B for chunk %s: %w", c.ChunkID, err)
	}
	e.stats.planBRejected.Add(int64(found.dropped))
	e.stats.planBTriplets.Add(int64(len(found.facts)))
	return found.facts, nil
}

// planBFacts validates a plan B answer (decoded strictly by ask.JSON): it
// must have a "triplets" array; each triplet's relation one of those asked
// for, its tail non-empty, within the relation's bound and verbatim in the
// text, its evidence (when given) verbatim in the text and containing the
// tail, its qualifier keys those of the relation. A triplet that fails is
// dropped, not the answer. The span is the evidence's first occurrence,
// else the tail's.
func planBFacts(a planBAnswer, text, target string, wanted []string) (planBFound, error) {
	if a.Triplets == nil {
		return planBFound{}, reject(`answer has no "triplets" array`)
	}
	ok := map[string]bool{}
	for _, r := range wanted {
		ok[r] = true
	}
	var out planBFound
	for _, t := range a.Triplets {
		f, valid := planBFact(t, text, target, ok)
		if !valid {
			out.dropped++
			continue
		}
		out.facts = append(out.facts, f)
	}
	return out, nil
}

func planBFact(t planBTriplet, text, target string, wanted map[string]bool) (fact, bool) {
	tail := strings.TrimSpace(t.Tail)
	if !wanted[t.Relation] || tail == "" || textUnits(tail) > tailBound[t.Relation] {
		return fact{}, false
	}
	roles, _ := RoleNames(t.Relation)
	for k, v := range t.Qualifiers {
		if !contains(roles, k) || utf8.RuneCountInString(v) > 20 {
			return fact{}, false
		}
	}
	start, end := -1, -1
	if ev := strings.TrimSpace(t.Evidence); ev != "" {
		if !strings.Contains(ev, tail) || utf8.RuneCountInString(ev) > maxMatchRunes {
			return fact{}, false
		}
		if i := strings.Index(text, ev); i >= 0 {
			start, end = i, i+len(ev)
		} else {
			return fact{}, false
		}
	} else if i := strings.Index(text, tail); i >= 0 {
		start, end = i, i+len(tail)
	}
	if start < 0 {
		return fact{}, false
	}
	q := t.Qualifiers
	if len(q) == 0 {
		q = nil
	}
	return fact{head: target, headType: schemas.EntityPerson, rel: t.Relation, tail: tail,
		tailType: tailType(t.Relation, tail), quals: q, start: start, end: end,
		method: MethodLLM, pattern: PromptPlanB, conf: confPlanB}, true
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
