package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/annalist-dev/annalist/internal/evaluation/inject"
	"github.com/annalist-dev/annalist/internal/lang/text"
	"github.com/annalist-dev/annalist/internal/lang/zh/era"
	"github.com/annalist-dev/annalist/schemas"
)

// ErringModel is an evaluation instrument, not a model to deploy: a
// scripted chat model that writes what the offline plan says but puts one
// error (internal/evaluation/inject) into a share of the sentences it writes, so that
// the verification loop can be scored against a known ground truth (`eval
// topics --erring`, and the scripted-model tests of internal/wiring/app). It
// writes nothing of its own: every sentence it answers is a sentence of
// the sources the prompt hands it.
//
// It answers these prompts, and only these (any other is refused and
// recorded, see Unexpected):
//
//   - the writer's biography drafting prompt (draft.v1) and the topic
//     drafting prompt (topic_draft.v1), with the plan's wording ("The
//     sources word it: …") citing the plan item's chunks;
//   - the regenerate solver's prompt (regenerate.v1), with the plan
//     sentence the wrong one was made from, citing every reference;
//   - the topic reviewer's prompt (topic_review.v1), with a coverage
//     finding for each key entity no sentence names and, in a page's first
//     round at the model's rate, a redundancy that is not one (the last
//     sentence said to repeat the first);
//   - the topic editor's prompt (topic_edit.v1), dropping what a
//     redundancy finding names and adding, for each coverage finding, the
//     sentence of the entity's chunk that names it.
//
// Each sentence it writes (drafted, rewritten or added by the editor)
// carries one injected error with probability rate. Every decision is
// seeded by the seed, the round (SetRound) and the prompt, so a run does
// not depend on the order in which concurrent requests reach the model.
// Every injection is recorded: the ground truth Score measures published
// pages against. It is safe for concurrent use.
type ErringModel struct {
	rate float64
	seed uint64
	pool inject.Pool
	inj  *inject.Injector

	mu    sync.Mutex
	round uint64
	// from maps each wording the model wrote to the plan sentence it was
	// made from; plans holds the plan sentences by subject.
	from       map[string]string
	plans      map[string][]string
	injections []ErringInjection
	calls      map[string]int
	unexpected []string
}

// ErringInjection is one error the model made: the subject of the page it
// wrote for, the kind of answer it was in — "draft" (a drafting prompt),
// "add" (an editor's added sentence; both go to the verifier) or
// "regenerate" (a solver's rewrite, which the solver may turn down itself
// before the verifier sees it) — and the injection.
type ErringInjection struct {
	Subject string `json:"subject"`
	Kind    string `json:"kind"`
	inject.Injection
}

// Answer kinds of ErringInjection.Kind and of Calls.
const (
	ErringDraft      = "draft"
	ErringAdd        = "add"
	ErringRegenerate = "regenerate"
	ErringReview     = "review"
	ErringEdit       = "edit"
	// ErringSpurious counts the review answers that reported a redundancy
	// that is not one.
	ErringSpurious = "spurious redundancy"
)

var _ model.BaseChatModel = (*ErringModel)(nil)

// NewErringModel returns a model that errs in a share rate of the
// sentences it writes, seeded by seed; pool holds the values a place or
// courtesy-name swap takes (other persons' values, inject.Pool).
func NewErringModel(rate float64, seed uint64, pool inject.Pool) *ErringModel {
	return &ErringModel{rate: rate, seed: seed, pool: pool, inj: inject.New(era.Default()),
		from: map[string]string{}, plans: map[string][]string{}, calls: map[string]int{}}
}

// SetRound sets the round the following answers are seeded with: asking
// for the same pages again in a new round gives new errors.
func (m *ErringModel) SetRound(round uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.round = round
}

// Generate answers one call. A call with a done context fails with the
// context's error, as it would not have reached a real model.
func (m *ErringModel) Generate(ctx context.Context, in []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return m.reply(in)
}

// Stream answers like Generate, delivered the way a provider streams: the
// content in two pieces.
func (m *ErringModel) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	msg, err := m.Generate(ctx, in, opts...)
	if err != nil {
		return nil, err
	}
	rs := []rune(msg.Content)
	half := len(rs) / 2
	return schema.StreamReaderFromArray([]*schema.Message{
		schema.AssistantMessage(string(rs[:half]), nil),
		schema.AssistantMessage(string(rs[half:]), nil),
	}), nil
}

var (
	erringSubject  = regexp.MustCompile(`(?m)^Subject: (.+?)(?: \(also called (.+)\))?$`)
	erringHint     = regexp.MustCompile(`(?m)^The sources word it: (.+)$`)
	erringFact     = regexp.MustCompile(`chunk ([^\s):]+)`)
	erringRef      = regexp.MustCompile(`(?m)^\[([^\]\s]+)\] `)
	erringSentence = regexp.MustCompile(`(?m)^Sentence: (.+)$`)
	erringRestsOn  = regexp.MustCompile(`(?m)^It rests on: (.+)$`)
	erringKey      = regexp.MustCompile(`(?m)^- (.+) \(id (.+?)(?:, chunk [^)]+)?\)$`)
	erringPage     = regexp.MustCompile(`(?m)^\[(\d+)\] \((.*?)\) (.+)$`)
	erringCoverage = regexp.MustCompile(`(?m)^- coverage, entity (.+?) \(id (.+?), chunk ([^)]+)\)`)
	erringSection  = regexp.MustCompile(`(?m)^- (.+)$`)
	erringRedund   = regexp.MustCompile(`(?m)^- redundancy, sentence (\d+) repeats sentence (\d+)`)
)

// reply answers one call by the prompt its system message opens with.
func (m *ErringModel) reply(in []*schema.Message) (*schema.Message, error) {
	if len(in) != 2 {
		return nil, m.reject(fmt.Sprintf("%d messages", len(in)))
	}
	system, user := in[0].Content, in[1].Content
	subject := ""
	if s := erringSubject.FindStringSubmatch(user); s != nil {
		subject = s[1]
	}
	switch {
	case strings.HasPrefix(system, "You write one sentence of a biography"):
		hint := erringHint.FindStringSubmatch(user)
		if hint == nil {
			return nil, m.reject("draft prompt without the plan's wording")
		}
		// The plan item's own chunk is reference [1]; the facts name
		// theirs.
		var cites []string
		for _, c := range erringFact.FindAllStringSubmatch(user, -1) {
			if !slices.Contains(cites, c[1]) {
				cites = append(cites, c[1])
			}
		}
		m.plan(subject, hint[1])
		return m.answer(ErringDraft, subject, hint[1], user, cites)
	case strings.HasPrefix(system, "You write one sentence of a topic page"):
		hint, cites := erringHint.FindStringSubmatch(user), erringRestsOn.FindStringSubmatch(user)
		if hint == nil || cites == nil {
			return nil, m.reject("topic draft prompt without the plan's wording or its chunks")
		}
		m.plan(subject, hint[1])
		return m.answer(ErringDraft, subject, hint[1], user, strings.Split(cites[1], ", "))
	case strings.HasPrefix(system, "You correct one sentence"):
		s := erringSentence.FindStringSubmatch(user)
		_, refs, _ := strings.Cut(user, "References (the only ones you may use):")
		var cites []string
		for _, c := range erringRef.FindAllStringSubmatch(refs, -1) {
			cites = append(cites, c[1])
		}
		if s == nil || len(cites) == 0 {
			return nil, m.reject("regenerate prompt without sentence or references")
		}
		return m.answer(ErringRegenerate, subject, m.planOf(subject, s[1]), user, cites)
	case strings.HasPrefix(system, "You are the critical reviewer"):
		return m.review(user)
	case strings.HasPrefix(system, "You are the editor"):
		return m.edit(subject, user)
	}
	first, _, _ := strings.Cut(system, "\n")
	return nil, m.reject("unknown prompt: " + first)
}

func (m *ErringModel) reject(why string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.unexpected = append(m.unexpected, why)
	return errors.New("erring model: " + why)
}

func (m *ErringModel) plan(subject, sentence string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !slices.Contains(m.plans[subject], sentence) {
		m.plans[subject] = append(m.plans[subject], sentence)
	}
}

// planOf is the plan sentence a wording was made from: the one the model
// wrote it from, else (a solver's rewrite) the subject's plan sentence
// closest to it.
func (m *ErringModel) planOf(subject, wording string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if p, ok := m.from[wording]; ok {
		return p
	}
	best, score := wording, -1.0
	for _, p := range m.plans[subject] {
		if j := text.Jaccard(p, wording); j > score {
			best, score = p, j
		}
	}
	return best
}

// rng is the random source of an answer to prompt: seeded by the model's
// seed, its round and the prompt.
func (m *ErringModel) rng(prompt string) *rand.Rand {
	m.mu.Lock()
	round := m.round
	m.mu.Unlock()
	h := fnv.New64a()
	fmt.Fprintf(h, "%d\x00%s", round, prompt)
	return rand.New(rand.NewPCG(m.seed, h.Sum64()))
}

// answer writes the plan sentence, with one error at the model's rate.
func (m *ErringModel) answer(kind, subject, plan, prompt string, cites []string) (*schema.Message, error) {
	out, _ := m.write(kind, subject, plan, prompt)
	return erringJSON(map[string]any{"text": out, "citations": cites})
}

// write is the wording of plan the model gives in an answer of kind to
// prompt, and whether it injected an error into it.
func (m *ErringModel) write(kind, subject, plan, prompt string) (string, bool) {
	rng := m.rng(prompt)
	out := plan
	var made *inject.Injection
	if rng.Float64() < m.rate {
		pool := m.pool
		if s := erringSubject.FindStringSubmatch(prompt); s != nil {
			pool = pool.Without(append([]string{s[1]}, strings.Split(s[2], ", ")...)...)
		}
		// An error in a value the sentence states when it has one (a
		// fabricated clause fits every sentence and would crowd out the
		// rest), else a fabricated clause.
		types := m.inj.Applicable(plan, pool)
		if len(types) > 1 {
			types = slices.DeleteFunc(types, func(t string) bool { return t == inject.Fabricated })
		}
		if len(types) > 0 {
			if in, ok := m.inj.Inject(plan, types[rng.IntN(len(types))], pool, rng); ok {
				out, made = in.Mutated, &in
			}
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls[kind]++
	m.from[out] = plan
	if made != nil {
		m.injections = append(m.injections, ErringInjection{Subject: subject, Kind: kind, Injection: *made})
	}
	return out, made != nil
}

// review reports the key entities the page does not name and, in a
// page's first round, at the model's rate, a redundancy that is not one:
// the page's last sentence said to repeat its first, which the editor
// then drops, so that the next round finds its entity missing and the
// editor writes it again.
func (m *ErringModel) review(user string) (*schema.Message, error) {
	var keys string
	if _, after, ok := strings.Cut(user, "Key entities (the page must name each):\n"); ok {
		keys, _, _ = strings.Cut(after, "\n\n")
	}
	page := erringPage.FindAllStringSubmatch(user, -1)
	findings := []map[string]any{}
	for _, k := range erringKey.FindAllStringSubmatch(keys, -1) {
		named := false
		for _, p := range page {
			named = named || strings.Contains(p[3], k[1])
		}
		if !named {
			findings = append(findings, map[string]any{"type": schemas.FindingCoverage, "index": -1, "entity": k[2],
				"detail": k[1] + " is named by no sentence"})
		}
	}
	spurious := strings.Contains(user, "\nReview round 1.\n") && len(page) > 1 && m.rng(user).Float64() < m.rate
	if spurious {
		last, err1 := strconv.Atoi(page[len(page)-1][1])
		first, err2 := strconv.Atoi(page[0][1])
		if err := errors.Join(err1, err2); err != nil {
			return nil, m.reject("review prompt with a bad sentence number: " + err.Error())
		}
		findings = append(findings, map[string]any{"type": schemas.FindingRedundancy, "index": last,
			"other": first, "detail": "it says what the first sentence says"})
	}
	m.mu.Lock()
	m.calls[ErringReview]++
	if spurious {
		m.calls[ErringSpurious]++
	}
	m.mu.Unlock()
	return erringJSON(map[string]any{"findings": findings})
}

// edit drops the sentences a redundancy finding names and adds a sentence
// for each key entity a coverage finding misses: the sentence of its
// chunk that names it, into the plan's last section.
func (m *ErringModel) edit(subject, user string) (*schema.Message, error) {
	head, refs, _ := strings.Cut(user, "\nReferences:\n")
	section := ""
	if _, after, ok := strings.Cut(head, "Sections, in the order of the plan:\n"); ok {
		block, _, _ := strings.Cut(after, "\n\n")
		if ss := erringSection.FindAllStringSubmatch(block, -1); len(ss) > 0 {
			section = ss[len(ss)-1][1]
		}
	}
	chunks := map[string]string{}
	for _, part := range strings.Split("\n"+refs, "\n[")[1:] {
		first, body, _ := strings.Cut(part, "\n")
		if _, id, ok := strings.Cut(first, "] chunk "); ok {
			chunks[strings.TrimSuffix(id, ":")] = body
		}
	}
	edits := []map[string]any{}
	for _, f := range erringRedund.FindAllStringSubmatch(head, -1) {
		i, err := strconv.Atoi(f[1])
		if err != nil {
			return nil, m.reject("edit prompt with a bad sentence number: " + err.Error())
		}
		edits = append(edits, map[string]any{"op": schemas.EditDrop, "index": i, "reason": "redundant"})
	}
	for i, f := range erringCoverage.FindAllStringSubmatch(head, -1) {
		name, chunk := f[1], f[3]
		var plan string
		for _, s := range text.SplitSentences(chunks[chunk]) {
			if strings.Contains(s, name) {
				plan = strings.TrimSpace(s)
				break
			}
		}
		if plan == "" || section == "" {
			continue
		}
		m.plan(subject, plan)
		out, _ := m.write(ErringAdd, subject, plan, user+"\x00"+name)
		edits = append(edits, map[string]any{"op": schemas.EditAdd, "index": -1, "section": section,
			"position": 1000 + i, "text": out, "citations": []string{chunk}, "reason": name + " is named by no sentence"})
	}
	m.mu.Lock()
	m.calls[ErringEdit]++
	m.mu.Unlock()
	return erringJSON(map[string]any{"edits": edits})
}

func erringJSON(v any) (*schema.Message, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return schema.AssistantMessage(string(b), nil), nil
}

// Injections are the errors the model made, in the order it made them.
func (m *ErringModel) Injections() []ErringInjection {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.injections)
}

// Calls counts the model's answers by kind (ErringDraft, ErringAdd,
// ErringRegenerate, ErringReview, ErringEdit, ErringSpurious).
func (m *ErringModel) Calls() map[string]int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return maps.Clone(m.calls)
}

// Unexpected are the reasons the model refused calls: prompts it does not
// know or that lack what it answers from. A run whose prompts it all knew
// has none.
func (m *ErringModel) Unexpected() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.unexpected)
}

// ErringScore is how the published pages fared against the model's
// errors.
type ErringScore struct {
	Pages     int `json:"pages"`
	Sentences int `json:"sentences"`
	// Injected counts every error the model made, InjectedByKind by the
	// kind of answer it was in. InjectedDrafts counts those in sentences
	// the writer submits to the verifier (drafts and the editor's
	// additions), Caught those of them whose wording no page of the
	// subject it was written for published as is (the same words may be
	// right on another page: "嘉靖三十二年进士。" written wrong for 嘉靖二十六年
	// is a sentence of 嘉靖三十二年's page). A regenerate answer may be
	// turned down by the solver before the verifier sees it, so those are
	// not counted there.
	Injected       int            `json:"injected"`
	InjectedByKind map[string]int `json:"injected_by_kind,omitempty"`
	InjectedByType map[string]int `json:"injected_by_type,omitempty"`
	InjectedDrafts int            `json:"injected_drafts"`
	Caught         int            `json:"caught"`
	// Uncaught are the drafted errors not caught.
	Uncaught []ErringResidual `json:"uncaught,omitempty"`
	// Residual counts the published sentences that hold an injected wrong
	// value no plan sentence of their subject holds (each sentence once);
	// ResidualErrorRate is Residual / Sentences; Residuals are those
	// sentences.
	Residual          int              `json:"residual"`
	ResidualErrorRate float64          `json:"residual_error_rate"`
	Residuals         []ErringResidual `json:"residuals,omitempty"`
	// Excused counts the other published sentences that are a wrong
	// wording the model wrote, word for word, whose wrong value a plan
	// sentence of the subject also holds (another person's place or
	// courtesy name on the same page, say): the rule above does not count
	// them, Excuses lists them.
	Excused int              `json:"excused"`
	Excuses []ErringResidual `json:"excuses,omitempty"`
	// ReviewRoundsMax is the most review rounds a page took (its stats'
	// review_rounds; 0 for biographies).
	ReviewRoundsMax int64 `json:"review_rounds_max"`
	// OfflineFallbacks and ReviewFallbacks sum the pages' stats of the
	// same names: sentences, reviews or edits the engine did offline
	// because the model's answer was refused (those sentences are not the
	// model's, so a run that measures it should have none).
	OfflineFallbacks int64 `json:"offline_fallbacks"`
	ReviewFallbacks  int64 `json:"review_fallbacks"`
	// Unscored counts the pages whose subject the model drafted nothing
	// for: their sentences cannot be matched with its errors.
	Unscored int `json:"unscored_pages,omitempty"`
}

// ErringResidual is a sentence holding an error the model made, and the
// error: a published sentence that kept it (Residuals, Excuses) or a
// drafted one that was not caught (Uncaught).
type ErringResidual struct {
	Subject string `json:"subject"`
	Text    string `json:"text"`
	Type    string `json:"type"`
	Kind    string `json:"kind"`
	Wrong   string `json:"wrong"`
	Right   string `json:"right,omitempty"`
}

// Score scores published pages against the errors the model made so far.
// A published sentence is wrong when it holds an injected wrong value
// (inject.Injection.Residual) of an error made for its page's subject and
// no plan sentence of that subject holds that value.
func (m *ErringModel) Score(pages []*schemas.Page) ErringScore {
	m.mu.Lock()
	defer m.mu.Unlock()
	planText := make(map[string]string, len(m.plans))
	for s, ps := range m.plans {
		planText[s] = strings.Join(ps, "\n")
	}
	sc := ErringScore{Pages: len(pages), InjectedByKind: map[string]int{}, InjectedByType: map[string]int{}}
	published := map[string]map[string]bool{} // by subject
	for _, p := range pages {
		sc.ReviewRoundsMax = max(sc.ReviewRoundsMax, p.Stats["review_rounds"])
		sc.OfflineFallbacks += p.Stats["offline_fallbacks"]
		sc.ReviewFallbacks += p.Stats["review_fallbacks"]
		if _, ok := m.plans[p.Subject]; !ok {
			sc.Unscored++
		}
		for _, s := range p.Sentences {
			sc.Sentences++
			if published[p.Subject] == nil {
				published[p.Subject] = map[string]bool{}
			}
			published[p.Subject][s.Text] = true
			var excuse *ErringInjection
			residual := false
			for i, e := range m.injections {
				if e.Subject != p.Subject || !e.Residual(s.Text) {
					continue
				}
				if !strings.Contains(planText[p.Subject], e.Wrong) {
					sc.Residual++
					sc.Residuals = append(sc.Residuals, ErringResidual{Subject: p.Subject, Text: s.Text,
						Type: e.Type, Kind: e.Kind, Wrong: e.Wrong, Right: e.Right})
					residual = true
					break
				}
				if s.Text == e.Mutated && excuse == nil {
					excuse = &m.injections[i]
				}
			}
			if !residual && excuse != nil {
				sc.Excused++
				sc.Excuses = append(sc.Excuses, ErringResidual{Subject: p.Subject, Text: s.Text,
					Type: excuse.Type, Kind: excuse.Kind, Wrong: excuse.Wrong, Right: excuse.Right})
			}
		}
	}
	for _, e := range m.injections {
		sc.Injected++
		sc.InjectedByKind[e.Kind]++
		sc.InjectedByType[e.Type]++
		if e.Kind == ErringDraft || e.Kind == ErringAdd {
			sc.InjectedDrafts++
			if !published[e.Subject][e.Mutated] {
				sc.Caught++
			} else {
				sc.Uncaught = append(sc.Uncaught, ErringResidual{Subject: e.Subject, Text: e.Mutated,
					Type: e.Type, Kind: e.Kind, Wrong: e.Wrong, Right: e.Right})
			}
		}
	}
	if sc.Sentences > 0 {
		sc.ResidualErrorRate = float64(sc.Residual) / float64(sc.Sentences)
	}
	return sc
}
