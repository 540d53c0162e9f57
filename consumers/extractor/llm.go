package extractor

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"text/template"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/internal/regexmem"

	"github.com/cloudwego/eino/schema"

	"github.com/annalist-dev/annalist/internal/modeljson"
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

// prompts holds one template set per file: every file defines its own
// "system" and "user" templates.
var prompts = map[string]*template.Template{
	PromptRegex: template.Must(template.ParseFS(promptFS, "prompts/"+PromptRegex+".tmpl")),
	PromptPlanB: template.Must(template.ParseFS(promptFS, "prompts/"+PromptPlanB+".tmpl")),
}

// render executes the "system" and "user" templates of prompt name.
func render(name string, data any) (system, user string, err error) {
	tt := prompts[name]
	if tt == nil {
		return "", "", fmt.Errorf("prompt %s: no such template", name)
	}
	var s, u bytes.Buffer
	if err := tt.ExecuteTemplate(&s, "system", data); err != nil {
		return "", "", fmt.Errorf("prompt %s system: %w", name, err)
	}
	if err := tt.ExecuteTemplate(&u, "user", data); err != nil {
		return "", "", fmt.Errorf("prompt %s user: %w", name, err)
	}
	return s.String(), u.String(), nil
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

// ask sends one prompt to the model and returns the answer's text.
func (e *Extractor) ask(ctx context.Context, system, user string) (string, error) {
	e.stats.llmCalls.Add(1)
	msg, err := e.model.Generate(ctx, []*schema.Message{schema.SystemMessage(system), schema.UserMessage(user)})
	if err != nil {
		return "", err
	}
	if msg == nil {
		return "", errors.New("model returned no message")
	}
	return msg.Content, nil
}

// synthesise asks the model for a regex for relation rel of person target
// in chunk c, validates it and, when it yields facts, stores it in memory.
// A rejected answer is retried with the reason, up to MaxAttempts calls;
// nil facts and a nil error mean the model gave no usable regex.
func (e *Extractor) synthesise(ctx context.Context, tenant string, c schemas.Chunk, rel, target string,
	secs []section, memory []regexmem.Pattern) ([]fact, error) {
	han := hasHan(c.Text)
	roles, _ := RoleNames(rel)
	data := regexPromptData{
		Relation: rel, Description: relationText[rel], Person: target,
		Roles: strings.Join(roles, ", "), TailBound: tailBound[rel],
		Demos: e.demos(han, rel, memory), Text: clip(c.Text, e.cfg.MaxPromptRunes),
	}
	for attempt := 0; attempt < e.cfg.MaxAttempts; attempt++ {
		system, user, err := render(PromptRegex, data)
		if err != nil {
			return nil, err
		}
		e.stats.regexCalls.Add(1)
		answer, err := e.ask(ctx, system, user)
		if err != nil {
			return nil, fmt.Errorf("synthesise %s regex for chunk %s: %w", rel, c.ChunkID, err)
		}
		p, err := parseRegexAnswer(answer, rel)
		if errors.Is(err, errNoRegex) {
			e.log.Debug().Str("chunk_id", c.ChunkID).Str("relation", rel).Msg("model found no regex")
			return nil, nil
		}
		var facts []fact
		if err == nil {
			var ms []RegexMatch
			if ms, err = e.check(p, c.Text); err == nil {
				facts, err = matchFacts(c.Text, secs, target, p, ms, MethodLLMRegex)
			}
		}
		if err != nil {
			e.stats.regexRejected.Add(1)
			e.log.Info().Str("chunk_id", c.ChunkID).Str("relation", rel).Int("attempt", attempt+1).
				Err(err).Msg("synthesised regex rejected")
			data.Feedback = err.Error()
			continue
		}
		p.Example = clip(c.Text[facts[0].start:facts[0].end], 80)
		p.Created = e.now().UTC()
		if e.memory != nil {
			if err := e.memory.Save(ctx, tenant, c.Profile, p); err != nil {
				return nil, fmt.Errorf("store %s regex of chunk %s: %w", rel, c.ChunkID, err)
			}
		}
		e.stats.regexLearned.Add(1)
		return facts, nil
	}
	return nil, nil
}

// demos are the hand-made patterns for rel, then up to cfg.Demos patterns
// for rel from memory (most used first).
func (e *Extractor) demos(han bool, rel string, memory []regexmem.Pattern) []demoView {
	var out []demoView
	add := func(p regexmem.Pattern) {
		g, _ := json.Marshal(p.Groups)
		out = append(out, demoView{Source: p.Source, GroupsJSON: string(g), Example: p.Example})
	}
	for _, p := range handDemos[han][rel] {
		add(p)
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

// errNoRegex is the model's answer that the chunk does not state the fact.
var errNoRegex = errors.New("no regex proposed")

type regexAnswer struct {
	Relation string         `json:"relation"`
	Regex    string         `json:"regex"`
	Groups   map[string]int `json:"groups"`
}

// parseRegexAnswer reads the model's answer strictly: one JSON object (a
// surrounding Markdown code fence is tolerated), no unknown fields, the
// relation asked for.
func parseRegexAnswer(answer, rel string) (regexmem.Pattern, error) {
	var a regexAnswer
	if err := modeljson.Decode(answer, &a); err != nil {
		return regexmem.Pattern{}, reject("answer is not the JSON object asked for: %v", err)
	}
	if a.Relation != rel {
		return regexmem.Pattern{}, reject("answer is for relation %q, asked for %q", a.Relation, rel)
	}
	if a.Regex == "" {
		return regexmem.Pattern{}, errNoRegex
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

// planB asks the model for the wanted relations of target directly, as
// triplets in a strict JSON schema. A malformed answer is retried with the
// reason, up to MaxAttempts calls; triplets that fail validation are
// dropped one by one.
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
		Person: target, Wanted: views, Text: clip(c.Text, e.cfg.MaxPromptRunes),
	}
	for attempt := 0; attempt < e.cfg.MaxAttempts; attempt++ {
		system, user, err := render(PromptPlanB, data)
		if err != nil {
			return nil, err
		}
		e.stats.planBCalls.Add(1)
		answer, err := e.ask(ctx, system, user)
		if err != nil {
			return nil, fmt.Errorf("plan B for chunk %s: %w", c.ChunkID, err)
		}
		facts, dropped, err := parsePlanB(answer, c.Text, target, wanted)
		if err != nil {
			e.stats.planBRejected.Add(1)
			e.log.Info().Str("chunk_id", c.ChunkID).Int("attempt", attempt+1).Err(err).Msg("plan B answer rejected")
			data.Feedback = err.Error()
			continue
		}
		e.stats.planBRejected.Add(int64(dropped))
		e.stats.planBTriplets.Add(int64(len(facts)))
		return facts, nil
	}
	return nil, nil
}

// parsePlanB validates a plan B answer: strict JSON; each triplet's relation
// one of those asked for, its tail non-empty, within the relation's bound
// and verbatim in the text, its evidence (when given) verbatim in the text
// and containing the tail, its qualifier keys those of the relation. The
// span is the evidence's first occurrence, else the tail's.
func parsePlanB(answer, text, target string, wanted []string) (facts []fact, dropped int, err error) {
	var a planBAnswer
	if err := modeljson.Decode(answer, &a); err != nil {
		return nil, 0, reject("answer is not the JSON object asked for: %v", err)
	}
	if a.Triplets == nil {
		return nil, 0, reject(`answer has no "triplets" array`)
	}
	ok := map[string]bool{}
	for _, r := range wanted {
		ok[r] = true
	}
	for _, t := range a.Triplets {
		f, valid := planBFact(t, text, target, ok)
		if !valid {
			dropped++
			continue
		}
		facts = append(facts, f)
	}
	return facts, dropped, nil
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

// clip cuts s to at most n runes.
func clip(s string, n int) string {
	if n <= 0 || utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for k := 0; k < n; k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i]
}
