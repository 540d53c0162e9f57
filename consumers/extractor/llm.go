package extractor

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/internal/kit/ask"
	"github.com/annalist-dev/annalist/internal/lang/en"
	"github.com/annalist-dev/annalist/internal/lang/factkit"
	"github.com/annalist-dev/annalist/internal/lang/profile"
	"github.com/annalist-dev/annalist/internal/lang/text"
	"github.com/annalist-dev/annalist/internal/lang/zh"
	"github.com/annalist-dev/annalist/internal/ports/regexmem"
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
	facts []factkit.Fact
}

// synthesise asks the model for a regex for relation rel of person target
// in chunk c, validates it and, when it yields facts, stores it in memory.
// A rejected answer is retried with the reason, up to MaxAttempts calls;
// nil facts and a nil error mean the model gave no usable regex, and absent
// then says the model answered, without a rejected regex before, that the
// chunk does not state the fact. A model error is returned (transient).
func (e *Extractor) synthesise(ctx context.Context, tenant string, c schemas.Chunk, rel, target string,
	parts []factkit.Part, memory []regexmem.Pattern) (facts []factkit.Fact, absent bool, err error) {
	prof := e.profileOf(c)
	roles, _ := RoleNames(rel)
	data := regexPromptData{
		Relation: rel, Description: relationText[rel], Person: target,
		Roles: strings.Join(roles, ", "), TailBound: tailBound[rel],
		Demos: e.demos(prof, rel, memory), Text: text.Clip(c.Text, e.cfg.MaxPromptRunes),
	}
	rejected := 0
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
			facts, err := matchFacts(c.Text, parts, target, p, ms, MethodLLMRegex)
			return regexFound{p: p, facts: facts}, err
		},
		Attempts: e.cfg.MaxAttempts,
		OnReject: func(attempt int, reason error) {
			rejected++
			e.stats.regexRejected.Add(1)
			e.log.Info().Str("chunk_id", c.ChunkID).Str("relation", rel).Int("attempt", attempt).
				Err(reason).Msg("synthesised regex rejected")
		},
	})
	e.stats.llmCalls.Add(int64(calls))
	e.stats.regexCalls.Add(int64(calls))
	e.gap(rel, func(g *GapStats) { g.RegexCalls += int64(calls) })
	switch {
	case errors.Is(err, ask.ErrRejected):
		return nil, false, nil
	case err != nil:
		return nil, false, fmt.Errorf("synthesise %s regex for chunk %s: %w", rel, c.ChunkID, err)
	case found.facts == nil:
		// Giving up after a rejected regex is not saying the fact is
		// absent: the model saw one it could not write a valid regex for.
		e.log.Debug().Str("chunk_id", c.ChunkID).Str("relation", rel).Msg("model found no regex")
		return nil, rejected == 0, nil
	}
	p := found.p
	facts = found.facts
	p.Example = text.Clip(c.Text[facts[0].Start:facts[0].End], 80)
	p.Created = e.now().UTC()
	if e.memory != nil {
		forgetPatterns(ctx, tenant, c.Profile)
		if err := e.memory.Save(ctx, tenant, c.Profile, p); err != nil {
			return nil, false, fmt.Errorf("store %s regex of chunk %s: %w", rel, c.ChunkID, err)
		}
	}
	e.stats.regexLearned.Add(1)
	e.gap(rel, func(g *GapStats) { g.Learned++ })
	return facts, false, nil
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
// only matches in target's own parts of the chunk count, and at least one
// must.
func matchFacts(text string, parts []factkit.Part, target string, p regexmem.Pattern, ms []RegexMatch, method string) ([]factkit.Fact, error) {
	var out []factkit.Fact
	conf := confLLMRegex
	implausible := ""
	for _, m := range ms {
		if headAt(parts, m.Start, target) != target {
			continue
		}
		if !plausibleTail(p.Relation, strings.TrimSpace(m.Tail)) {
			implausible = m.Tail
			continue
		}
		out = append(out, factkit.Fact{
			Head: target, HeadType: schemas.EntityPerson, Relation: p.Relation,
			Tail: strings.TrimSpace(m.Tail), TailType: tailType(p.Relation, m.Tail),
			Qualifiers: m.Qualifiers, Start: m.Start, End: m.End, Method: method, Pattern: p.Source, Confidence: conf,
		})
	}
	if len(out) == 0 && implausible != "" {
		return nil, reject("the tail %q it captures is not a %s", implausible, p.Relation)
	}
	if len(out) == 0 {
		return nil, reject("regex matches only text about other people than %s", target)
	}
	return out, nil
}

// plausibleTail holds model-made facts to the checks the hand-made
// patterns' tails pass: a native place must read as the place of an
// entry's opening (zh.OpeningPlaceName: not a count of people, not
// "不知何许").
func plausibleTail(rel, tail string) bool {
	if rel == schemas.RelNativePlace && !hasLatin(tail) {
		return zh.OpeningPlaceName(tail)
	}
	return true
}

// hasLatin reports whether s holds an ASCII letter.
func hasLatin(s string) bool {
	for _, r := range s {
		if r < unicode.MaxASCII && unicode.IsLetter(r) {
			return true
		}
	}
	return false
}

// headAt is the person the text at byte offset b is about: its part's
// head, "" when no part holds it, or target when the chunk has no parts
// (English text).
func headAt(parts []factkit.Part, b int, target string) string {
	if parts == nil {
		return target
	}
	for _, p := range parts {
		if b >= p.Start && b < p.End {
			return p.Head
		}
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
		if hasLatin(tail) && !en.IsTime(tail) {
			return schemas.EntityPlace
		}
		return schemas.EntityTime
	case schemas.RelDeathAge:
		return schemas.EntityValue
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
	facts   []factkit.Fact
	dropped int
}

// planB asks the model for the wanted relations of target directly, as
// triplets in a strict JSON schema. A malformed answer is retried with the
// reason, up to MaxAttempts calls; triplets that fail validation are
// dropped one by one. A model error is returned (transient).
func (e *Extractor) planB(ctx context.Context, c schemas.Chunk, target string, wanted []string) ([]factkit.Fact, error) {
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

func planBFact(t planBTriplet, text, target string, wanted map[string]bool) (factkit.Fact, bool) {
	tail := strings.TrimSpace(t.Tail)
	if !wanted[t.Relation] || tail == "" || textUnits(tail) > tailBound[t.Relation] || !plausibleTail(t.Relation, tail) {
		return factkit.Fact{}, false
	}
	roles, _ := RoleNames(t.Relation)
	for k, v := range t.Qualifiers {
		if !contains(roles, k) || utf8.RuneCountInString(v) > 20 {
			return factkit.Fact{}, false
		}
	}
	start, end := -1, -1
	if ev := strings.TrimSpace(t.Evidence); ev != "" {
		if !strings.Contains(ev, tail) || utf8.RuneCountInString(ev) > maxMatchRunes {
			return factkit.Fact{}, false
		}
		if i := strings.Index(text, ev); i >= 0 {
			start, end = i, i+len(ev)
		} else {
			return factkit.Fact{}, false
		}
	} else if i := strings.Index(text, tail); i >= 0 {
		start, end = i, i+len(tail)
	}
	if start < 0 {
		return factkit.Fact{}, false
	}
	q := t.Qualifiers
	if len(q) == 0 {
		q = nil
	}
	return factkit.Fact{Head: target, HeadType: schemas.EntityPerson, Relation: t.Relation, Tail: tail,
		TailType: tailType(t.Relation, tail), Qualifiers: q, Start: start, End: end,
		Method: MethodLLM, Pattern: PromptPlanB, Confidence: confPlanB}, true
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// Gating: the model is asked about a relation gap only when its answer can
// pay. Three rules, each derived from the patterns or from the model's own
// earlier answers, never from lists fitted to the corpus:
//
//  1. Cues. Every validated pattern has words outside its tail that every
//     match contains (CheckRegex rule 5: 字, 人, 进士, "born"); the cues of a
//     relation are those of its hand-made demonstrations and of its stored
//     patterns (patternCues). A pattern the model writes can only be kept
//     when it matches in the person's own part of the chunk, so when that
//     part holds no pattern's cues the model is not asked (GapsNoCue): no
//     regex written the way the known ones are could serve it. A stored
//     pattern brings its cues with it (表德 once the model wrote a regex on
//     表德), so the gate opens as memory grows.
//  2. Shapes. Where the cues first occur — the sentence of the person's
//     text, counted from its opening: 0, 1, 2, or 3 and later — is the
//     chunk's shape for the relation. Every question asked is tallied by
//     relation and shape, with whether it yielded a fact (regexmem.Outcomes:
//     in Redis with the patterns, so every extractor process and every
//     restart learns from all). A question whose tally says it yields less
//     than one fact in MinYieldCalls calls, once asked that many times, is
//     not asked again (GapsAbsent). The expected relations (Config.Expect)
//     are those an entry's opening states, so a cue further from the
//     opening is no likelier to state the fact: a shape whose run of shapes
//     from an earlier one is unproductive as a whole is not asked either
//     (worthAsking). The price of a fact is thus bounded by the tally, not by a list
//     of openings; a relation found often in a shape stays asked there.
//  3. Plan B follows a failed regex, not an absent fact. When the model
//     answers that the chunk does not state the fact (an empty regex, with
//     no rejected regex before it), it is not asked again for the same fact
//     as triplets; plan B serves the relations for which no regex it wrote
//     validated, as the package comment says.
//
// Stored patterns are still tried first, whatever the gates say: they cost
// no call. Config.AskAlways turns the gates off, to measure what they save
// (TestLLMEngineCostOnCorpus).

// shapes bounds the sentence index of a shape: cues in sentence 3 or later
// are one shape.
const shapes = 3

// patternCues returns the words every match of pattern source contains,
// outside capture group tail: each element is a set of alternatives (a
// class of a few letters, such as 授|擢|迁, is one element with a word per
// letter). Letter runs of literals are the words; punctuation is dropped.
// An optional or alternative part requires nothing.
func patternCues(source string, tail int) [][]string {
	tree, err := syntax.Parse(source, syntax.Perl)
	if err != nil {
		return nil
	}
	var out [][]string
	var walk func(re *syntax.Regexp, inTail bool)
	walk = func(re *syntax.Regexp, inTail bool) {
		switch re.Op {
		case syntax.OpLiteral:
			if inTail {
				return
			}
			for _, w := range strings.FieldsFunc(string(re.Rune), func(r rune) bool { return !unicode.IsLetter(r) }) {
				out = append(out, []string{strings.ToLower(w)})
			}
			return
		case syntax.OpCharClass:
			if !inTail && smallLetterClass(re.Rune) {
				var alt []string
				for i := 0; i+1 < len(re.Rune); i += 2 {
					for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
						alt = append(alt, strings.ToLower(string(r)))
					}
				}
				out = append(out, alt)
			}
			return
		case syntax.OpCapture:
			inTail = inTail || re.Cap == tail
		case syntax.OpStar, syntax.OpQuest, syntax.OpAlternate:
			return
		case syntax.OpRepeat:
			if re.Min == 0 {
				return
			}
		}
		for _, s := range re.Sub {
			walk(s, inTail)
		}
	}
	walk(tree, false)
	return out
}

// cueAt is where text first holds every cue of one pattern (the offset
// past the last of them to appear), or -1.
func cueAt(text string, cues [][]string) int {
	if len(cues) == 0 {
		return -1
	}
	at := 0
	for _, alt := range cues {
		first := -1
		for _, w := range alt {
			if i := strings.Index(text, w); i >= 0 && (first < 0 || i < first) {
				first = i
			}
		}
		if first < 0 {
			return -1
		}
		at = max(at, first)
	}
	return at
}

// ownText is the text of the chunk about target: its parts, joined (the
// whole text when the chunk has no parts, as English text).
func ownText(text string, parts []factkit.Part, target string) string {
	if parts == nil {
		return text
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Head == target {
			b.WriteString(text[p.Start:p.End])
		}
	}
	return b.String()
}

// gapShape is the shape of the chunk for relation rel: the sentence,
// counted from the person's opening, where the cues of a known pattern of
// rel (hand-made or stored) first all occur, shapes and later being one
// shape; -1 for a relation without any pattern. ok is false when the
// person's text holds no pattern's cues.
func (e *Extractor) gapShape(prof *profile.Profile, rel, own string, memory []regexmem.Pattern) (sentence int, ok bool) {
	lower := strings.ToLower(own)
	best, known := -1, false
	try := func(p regexmem.Pattern) {
		cues := e.cuesOf(p)
		if len(cues) == 0 {
			return
		}
		known = true
		if at := cueAt(lower, cues); at >= 0 && (best < 0 || at < best) {
			best = at
		}
	}
	for _, d := range handDemos(prof, rel) {
		try(d)
	}
	for _, p := range memory {
		if p.Relation == rel {
			try(p)
		}
	}
	switch {
	case !known:
		return -1, true
	case best < 0:
		return 0, false
	}
	n := strings.Count(lower[:best], "。") + strings.Count(lower[:best], "\n") +
		strings.Count(lower[:best], ". ")
	return min(n, shapes), true
}

// shapeKey is the outcome key of relation rel in chunks of shape sentence.
func shapeKey(rel string, sentence int) string {
	if sentence < 0 {
		return rel + "@any"
	}
	return fmt.Sprintf("%s@s%d", rel, sentence)
}

// cuesOf is patternCues cached per pattern.
func (e *Extractor) cuesOf(p regexmem.Pattern) [][]string {
	key := regexmem.ID(p.Relation, p.Source, p.Groups)
	e.mu.Lock()
	c, ok := e.cues[key]
	e.mu.Unlock()
	if ok {
		return c
	}
	c = patternCues(p.Source, p.Groups["tail"])
	e.mu.Lock()
	if e.cues == nil || len(e.cues) >= 1024 {
		e.cues = map[string][][]string{}
	}
	e.cues[key] = c
	e.mu.Unlock()
	return c
}

// worthAsking reports whether asking for rel in a chunk of shape sentence
// is worth a call. A question asked at least MinYieldCalls times that
// yielded a fact less than once per MinYieldCalls calls is not. The
// expected relations are those an entry's opening states, so a cue
// further from the opening is no likelier to state the fact than one
// nearer to it: the yield of a shape is at most that of any run of shapes
// from an earlier one up to it, and such a run's pooled tally decides too.
func (e *Extractor) worthAsking(tally map[string]regexmem.Outcome, rel string, sentence int) bool {
	n := int64(e.cfg.MinYieldCalls)
	if sentence < 0 {
		o := tally[shapeKey(rel, sentence)]
		return o.Asked < n || o.Found*n >= o.Asked
	}
	var pooled regexmem.Outcome
	for s := sentence; s >= 0; s-- {
		o := tally[shapeKey(rel, s)]
		pooled.Asked += o.Asked
		pooled.Found += o.Found
		if pooled.Asked >= n && pooled.Found*n < pooled.Asked {
			return false
		}
	}
	return true
}

// outcomes reads the tallies of the chunk's profile.
func (e *Extractor) outcomes(ctx context.Context, tenant, prof string) (map[string]regexmem.Outcome, error) {
	if o, ok := e.memory.(regexmem.Outcomes); ok {
		got, err := o.Outcomes(ctx, tenant, prof)
		if err != nil {
			return nil, fmt.Errorf("read model outcomes %s/%s: %w", tenant, prof, err)
		}
		return got, nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	out := map[string]regexmem.Outcome{}
	for k, v := range e.tallies[tenant+"\x00"+prof] {
		out[k] = v
	}
	return out, nil
}

// recordOutcome adds one question of key to the tally.
func (e *Extractor) recordOutcome(ctx context.Context, tenant, prof, key string, found bool) error {
	if o, ok := e.memory.(regexmem.Outcomes); ok {
		if err := o.RecordOutcome(ctx, tenant, prof, key, found); err != nil {
			return fmt.Errorf("record model outcome %s: %w", key, err)
		}
		return nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.tallies == nil {
		e.tallies = map[string]map[string]regexmem.Outcome{}
	}
	t := e.tallies[tenant+"\x00"+prof]
	if t == nil {
		t = map[string]regexmem.Outcome{}
		e.tallies[tenant+"\x00"+prof] = t
	}
	o := t[key]
	o.Asked++
	if found {
		o.Found++
	}
	t[key] = o
	return nil
}
