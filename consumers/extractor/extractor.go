package extractor

import (
	"context"
	"fmt"
	"regexp"
	"sync"
	"sync/atomic"
	"time"

	"github.com/annalist-dev/annalist/internal/lang/factkit"
	"github.com/annalist-dev/annalist/internal/lang/profile"
	"github.com/annalist-dev/annalist/internal/lang/text"
	"github.com/annalist-dev/annalist/internal/ports/regexmem"

	"github.com/cloudwego/eino/components/model"
	"github.com/rs/zerolog"

	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
)

// Profile names, as internal/lang/profile defines them.
const (
	ProfileLiezhuan = profile.Liezhuan
	ProfileGeneric  = profile.Generic
)

// Config tunes the extractor. The zero value means the defaults below.
type Config struct {
	// Expect lists, per profile, the relations the opening chunk of an
	// entry should state about its person. A relation the hand-made
	// patterns miss is looked for with regexes from memory, then with a
	// regex the model writes, then by plan B. Default: liezhuan →
	// courtesy_name, native_place; other profiles expect nothing.
	Expect map[string][]string
	// MemoryPatterns is how many stored patterns of a profile are tried
	// before the model is asked (default 50).
	MemoryPatterns int
	// Demos is how many stored patterns of the relation the regex prompt
	// shows after the hand-made ones (default 5).
	Demos int
	// MaxAttempts bounds the model calls for one relation's regex, and for
	// one chunk's plan B: a rejected answer is retried with the reason
	// (default 2).
	MaxAttempts int
	// MaxPromptRunes cuts the chunk text quoted in a prompt (default 4000).
	MaxPromptRunes int
	// DisablePlanB turns off direct extraction by the model.
	DisablePlanB bool
	// AskAlways turns the gates off: the model is asked about every gap
	// that memory does not fill, and plan B about every relation still
	// missing, even those the model answered absent. It measures what the
	// gates save.
	AskAlways bool
	// MinYieldCalls is the price of a fact in model calls: a question
	// (a relation, in chunks of one shape) asked that many times that
	// yielded a fact less than once per that many calls is not asked again
	// (default 8; see Gating in llm.go).
	MinYieldCalls int
	// Profiles are the corpus profiles a chunk's Profile names (default
	// profile.Default()): their language decides which hand-made patterns
	// run, and their eras, lexicons and demonstrations feed them.
	Profiles *profile.Set
}

func (c Config) withDefaults() Config {
	if c.Expect == nil {
		c.Expect = map[string][]string{ProfileLiezhuan: {schemas.RelCourtesyName, schemas.RelNativePlace}}
	}
	if c.MemoryPatterns <= 0 {
		c.MemoryPatterns = 50
	}
	if c.Demos <= 0 {
		c.Demos = 5
	}
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = 2
	}
	if c.MaxPromptRunes <= 0 {
		c.MaxPromptRunes = 4000
	}
	if c.MinYieldCalls <= 0 {
		c.MinYieldCalls = 8
	}
	if c.Profiles == nil {
		c.Profiles = profile.Default()
	}
	return c
}

// Option configures an Extractor.
type Option func(*Extractor)

// WithModel enables the LLM path: regex synthesis and plan B. The model is
// called concurrently when the extractor is; wrap it (infra/llm) for
// timeouts, retries and a concurrency limit.
func WithModel(m model.BaseChatModel) Option { return func(e *Extractor) { e.model = m } }

// WithMemory stores validated regexes and serves them before the model is
// called.
func WithMemory(m regexmem.Memory) Option { return func(e *Extractor) { e.memory = m } }

// WithLogger sets the logger (default: none).
func WithLogger(l zerolog.Logger) Option { return func(e *Extractor) { e.log = l } }

// WithClock sets the clock that dates stored patterns (default time.Now).
func WithClock(now func() time.Time) Option { return func(e *Extractor) { e.now = now } }

// Extractor turns chunks into triplets. It is safe for concurrent use.
type Extractor struct {
	cfg    Config
	model  model.BaseChatModel
	memory regexmem.Memory
	log    zerolog.Logger
	now    func() time.Time
	stats  counters
	// persons, when set, names the known persons a chunk outside entries
	// may state facts of (WithPersons).
	persons     Persons
	chunkReader ChunkReader

	mu       sync.Mutex
	compiled map[string]compiledPattern
	gaps     map[string]*GapStats
	// cues caches patternCues by pattern id; tallies are the model
	// outcomes by tenant and profile when the memory does not keep them.
	cues    map[string][][]string
	tallies map[string]map[string]regexmem.Outcome
	// readers are the fact readers by profile language.
	readers map[string]Reader
	// inside are the chunks this process extracted that lie inside an
	// entry (see Linked), by tenant and chunk id; at most maxInside, then
	// it starts over.
	inside map[string]struct{}
	// outside are the chunks this process extracted that lie outside
	// every entry and whose reader reads known persons (Chinese ones),
	// with that reading, by tenant and chunk id; at most maxOutside, then
	// it starts over.
	outside map[string]outsideChunk
}

// maxInside bounds the chunks remembered as inside entries.
const maxInside = 1 << 18

// maxOutside bounds the chunks remembered as outside entries: they are
// kept whole, text included.
const maxOutside = 1 << 12

type compiledPattern struct {
	re  *regexp.Regexp
	err error
}

// New returns an extractor. Without a model it is the offline engine:
// hand-made patterns, plus validated regexes from memory when one is given.
func New(cfg Config, opts ...Option) *Extractor {
	e := &Extractor{cfg: cfg.withDefaults(), log: zerolog.Nop(), now: time.Now,
		compiled: map[string]compiledPattern{}, readers: defaultReaders()}
	for _, o := range opts {
		o(e)
	}
	return e
}

// Stats counts the extractor's work since it was made.
type Stats struct {
	Chunks   int64 `json:"chunks"`
	Triplets int64 `json:"triplets"`
	// LLMCalls is every model call: RegexCalls + PlanBCalls.
	LLMCalls   int64 `json:"llm_calls"`
	RegexCalls int64 `json:"regex_calls"`
	PlanBCalls int64 `json:"plan_b_calls"`
	// CallsSaved counts relations filled by a regex from memory, where the
	// model would otherwise have been asked.
	CallsSaved int64 `json:"calls_saved"`
	// RegexLearned counts synthesised regexes validated and stored.
	RegexLearned int64 `json:"regex_learned"`
	// RegexRejected counts model answers whose regex failed parsing,
	// compilation or validation.
	RegexRejected int64 `json:"regex_rejected"`
	PlanBTriplets int64 `json:"plan_b_triplets"`
	// PlanBRejected counts malformed plan B answers and dropped triplets.
	PlanBRejected int64 `json:"plan_b_rejected"`
	// GapsNoCue counts relation gaps the model was not asked about: the
	// person's text has none of the words the relation's patterns need.
	GapsNoCue int64 `json:"gaps_no_cue"`
	// GapsAbsent counts relation gaps the model was not asked about:
	// the model found the relation absent in chunks of this shape.
	GapsAbsent int64 `json:"gaps_absent"`
}

type counters struct {
	chunks, triplets, llmCalls, regexCalls, planBCalls, callsSaved atomic.Int64
	regexLearned, regexRejected, planBTriplets, planBRejected      atomic.Int64
	gapsNoCue, gapsAbsent                                          atomic.Int64
}

// GapStats is what became of one relation's gaps: the expected relation
// of an entry's opening chunk that the hand-made patterns missed.
type GapStats struct {
	Gaps int64 `json:"gaps"`
	// FromMemory were filled by a stored regex, without a model call.
	FromMemory int64 `json:"from_memory"`
	// NoCue and Absent were not asked about (Stats.GapsNoCue,
	// Stats.GapsAbsent).
	NoCue  int64 `json:"no_cue"`
	Absent int64 `json:"absent"`
	// RegexCalls are the regex synthesis calls made for the relation;
	// Learned the regexes validated and stored.
	RegexCalls int64 `json:"regex_calls"`
	Learned    int64 `json:"learned"`
	// PlanB counts the plan B calls that asked for the relation (one call
	// may ask for several) and PlanBFilled the gaps they filled.
	PlanB       int64 `json:"plan_b"`
	PlanBFilled int64 `json:"plan_b_filled"`
	// Unfilled are the gaps no path filled.
	Unfilled int64 `json:"unfilled"`
}

// GapStats returns a snapshot of the gap counters by relation.
func (e *Extractor) GapStats() map[string]GapStats {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make(map[string]GapStats, len(e.gaps))
	for r, g := range e.gaps {
		out[r] = *g
	}
	return out
}

// gap updates the counters of relation rel.
func (e *Extractor) gap(rel string, update func(*GapStats)) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.gaps == nil {
		e.gaps = map[string]*GapStats{}
	}
	g := e.gaps[rel]
	if g == nil {
		g = &GapStats{}
		e.gaps[rel] = g
	}
	update(g)
}

// Stats returns a snapshot of the counters.
func (e *Extractor) Stats() Stats {
	c := &e.stats
	return Stats{
		Chunks: c.chunks.Load(), Triplets: c.triplets.Load(), LLMCalls: c.llmCalls.Load(),
		RegexCalls: c.regexCalls.Load(), PlanBCalls: c.planBCalls.Load(), CallsSaved: c.callsSaved.Load(),
		RegexLearned: c.regexLearned.Load(), RegexRejected: c.regexRejected.Load(),
		PlanBTriplets: c.planBTriplets.Load(), PlanBRejected: c.planBRejected.Load(),
		GapsNoCue: c.gapsNoCue.Load(), GapsAbsent: c.gapsAbsent.Load(),
	}
}

// Handler is the extractor stage: a chunk in, its triplets out to the
// triplets topic. It is idempotent: the same chunk yields the same
// triplets with the same ids (the LLM path may learn a regex on the first
// delivery and serve it from memory on the next, with the same facts). An
// input that is not a valid chunk is a permanent error.
func (e *Extractor) Handler() pipeline.Handler {
	return func(ctx context.Context, in pipeline.Input) ([]pipeline.Output, error) {
		var c schemas.Chunk
		switch m := in.Msg.(type) {
		case schemas.KGUpdate:
			ts, err := e.Linked(ctx, in.Tenant(), m)
			if err != nil {
				return nil, err
			}
			out := make([]pipeline.Output, len(ts))
			for i, t := range ts {
				out[i] = pipeline.Output{Topic: topology.Triplets, Msg: t}
			}
			return out, nil
		case schemas.Chunk:
			c = m
		case *schemas.Chunk:
			if m == nil {
				return nil, pipeline.Permanentf("extract: nil chunk")
			}
			c = *m
		default:
			return nil, pipeline.Permanentf("extract: input is %T, want a chunk or a kg-update", in.Msg)
		}
		ts, err := e.Extract(ctx, in.Tenant(), c)
		if err != nil {
			return nil, err
		}
		out := make([]pipeline.Output, len(ts))
		for i, t := range ts {
			out[i] = pipeline.Output{Topic: topology.Triplets, Msg: t}
		}
		return out, nil
	}
}

// Extract returns the triplets of chunk c. The chunk's profile (Profile,
// read in the chunk's language) decides the patterns: classical-Chinese
// ones under a Chinese profile, English ones under an English profile,
// whatever characters the text holds. In an entry chunk (Entry set) the
// head of a fact is the entry's person unless the chunk begins a
// sub-entry (SubEntry set: its opening text is about that person) or the
// text introduces a relative's sub-entry. Triplets keep Entry and
// EntryChunk whatever their head, so the KG anchors every person of the
// entry to it. Errors from the model or the memory are returned as they
// are (transient: retry); an invalid chunk is a permanent error.
func (e *Extractor) Extract(ctx context.Context, tenant string, c schemas.Chunk) ([]schemas.Triplet, error) {
	if err := c.Validate(); err != nil {
		return nil, pipeline.Permanent(fmt.Errorf("extract chunk %s: %w", c.ChunkID, err))
	}
	if tenant == "" {
		tenant = schemas.DefaultTenant
	}
	if !outsideEntries(c) {
		e.rememberInside(tenant, c.ChunkID)
	}
	if isGlossaryChunk(c) {
		return e.extractGlossary(c)
	}
	if isQuoteChunk(c) {
		return e.extractQuote(c)
	}
	var r factkit.Reading
	if rd := e.readerOf(c); rd != nil {
		var err error
		if r, err = rd.Read(e.profileOf(c), c); err != nil {
			return nil, pipeline.Permanent(fmt.Errorf("extract chunk %s: %w", c.ChunkID, err))
		}
		if outsideEntries(c) && r.Known != nil {
			e.rememberOutside(tenant, c, r.Known)
		}
	}
	facts := r.Facts
	more, err := e.fillGaps(ctx, tenant, c, factkit.EntryPerson(c), facts, r.Parts)
	if err != nil {
		return nil, err
	}
	facts = append(facts, more...)
	ts := triplets(c, facts)
	for _, t := range ts {
		if err := t.Validate(); err != nil {
			return nil, pipeline.Permanent(fmt.Errorf("extract chunk %s: %w", c.ChunkID, err))
		}
	}
	e.stats.chunks.Add(1)
	e.stats.triplets.Add(int64(len(ts)))
	return ts, nil
}

// profileOf is the profile chunk c is read with: the one it names, in its
// language (the text's when the chunk does not say).
func (e *Extractor) profileOf(c schemas.Chunk) *profile.Profile {
	lang := c.Lang
	if lang == "" {
		lang = text.Lang(c.Text)
	}
	return e.cfg.Profiles.For(c.Profile, lang)
}

// fillGaps looks for the expected relations of the entry's person that the
// hand-made patterns missed: first with regexes from memory (no model
// call), then, when the gates let it (see Gating in llm.go), with a regex
// the model writes, then by plan B for the relations whose regexes all
// failed validation.
func (e *Extractor) fillGaps(ctx context.Context, tenant string, c schemas.Chunk, target string,
	facts []factkit.Fact, parts []factkit.Part) ([]factkit.Fact, error) {
	if target == "" || !factkit.OpensEntry(c) || (e.model == nil && e.memory == nil) {
		return nil, nil
	}
	have := map[string]bool{}
	for _, f := range facts {
		if f.Head == target {
			have[f.Relation] = true
		}
	}
	var missing []string
	for _, r := range e.cfg.Expect[c.Profile] {
		if !have[r] {
			missing = append(missing, r)
		}
	}
	if len(missing) == 0 {
		return nil, nil
	}
	var memory []regexmem.Pattern
	if e.memory != nil {
		var err error
		if memory, err = e.patterns(ctx, tenant, c.Profile); err != nil {
			return nil, fmt.Errorf("read regex memory %s/%s: %w", tenant, c.Profile, err)
		}
	}
	var tally map[string]regexmem.Outcome
	var own string
	if e.model != nil {
		var err error
		if tally, err = e.outcomes(ctx, tenant, c.Profile); err != nil {
			return nil, err
		}
		own = ownText(c.Text, parts, target)
	}
	prof := e.profileOf(c)
	var out []factkit.Fact
	var failed []string
	asked := map[string]string{}
	for _, rel := range missing {
		e.gap(rel, func(g *GapStats) { g.Gaps++ })
		got, err := e.fromMemory(ctx, tenant, c, rel, target, parts, memory)
		if err != nil {
			return nil, err
		}
		if len(got) > 0 {
			e.gap(rel, func(g *GapStats) { g.FromMemory++ })
			out = append(out, got...)
			continue
		}
		if e.model == nil {
			e.gap(rel, func(g *GapStats) { g.Unfilled++ })
			continue
		}
		sentence, cued := e.gapShape(prof, rel, own, memory)
		shape := shapeKey(rel, sentence)
		switch {
		case e.cfg.AskAlways:
		case !cued:
			e.stats.gapsNoCue.Add(1)
			e.gap(rel, func(g *GapStats) { g.NoCue++; g.Unfilled++ })
			continue
		case !e.worthAsking(tally, rel, sentence):
			e.stats.gapsAbsent.Add(1)
			e.gap(rel, func(g *GapStats) { g.Absent++; g.Unfilled++ })
			continue
		}
		asked[rel] = shape
		got, absent, err := e.synthesise(ctx, tenant, c, rel, target, parts, memory)
		if err != nil {
			return nil, err
		}
		if len(got) > 0 || absent && !e.cfg.AskAlways {
			if err := e.recordOutcome(ctx, tenant, c.Profile, shape, len(got) > 0); err != nil {
				return nil, err
			}
		}
		if absent && !e.cfg.AskAlways {
			e.gap(rel, func(g *GapStats) { g.Unfilled++ })
		}
		if len(got) == 0 && (!absent || e.cfg.AskAlways) {
			failed = append(failed, rel)
		}
		out = append(out, got...)
	}
	if len(failed) == 0 {
		return out, nil
	}
	var got []factkit.Fact
	if !e.cfg.DisablePlanB {
		var err error
		if got, err = e.planB(ctx, c, target, failed); err != nil {
			return nil, err
		}
	}
	filled := map[string]bool{}
	for _, f := range got {
		filled[f.Relation] = true
	}
	for _, rel := range failed {
		if err := e.recordOutcome(ctx, tenant, c.Profile, asked[rel], filled[rel]); err != nil {
			return nil, err
		}
		e.gap(rel, func(g *GapStats) {
			if !e.cfg.DisablePlanB {
				g.PlanB++
			}
			if filled[rel] {
				g.PlanBFilled++
			} else {
				g.Unfilled++
			}
		})
	}
	return append(out, got...), nil
}

// fromMemory tries the stored patterns for rel, most used first; the first
// that validates on the chunk and yields facts about target is used and
// its hit recorded.
func (e *Extractor) fromMemory(ctx context.Context, tenant string, c schemas.Chunk, rel, target string,
	parts []factkit.Part, memory []regexmem.Pattern) ([]factkit.Fact, error) {
	for _, p := range memory {
		if p.Relation != rel {
			continue
		}
		ms, err := e.check(p, c.Text)
		if err != nil {
			continue
		}
		facts, err := matchFacts(c.Text, parts, target, p, ms, MethodLLMRegex)
		if err != nil {
			continue
		}
		if err := e.memory.Hit(ctx, tenant, c.Profile, p.ID); err != nil {
			return nil, fmt.Errorf("record hit of regex %s: %w", p.ID, err)
		}
		e.stats.callsSaved.Add(1)
		return facts, nil
	}
	return nil, nil
}

// check is CheckRegex with the pattern-only rules cached per source and
// groups, so stored patterns are compiled once per process.
func (e *Extractor) check(p regexmem.Pattern, text string) ([]RegexMatch, error) {
	key := regexmem.ID(p.Relation, p.Source, p.Groups)
	e.mu.Lock()
	cp, ok := e.compiled[key]
	e.mu.Unlock()
	if !ok {
		re, err := compileChecked(p)
		cp = compiledPattern{re: re, err: err}
		e.mu.Lock()
		if len(e.compiled) >= 1024 {
			clear(e.compiled)
		}
		e.compiled[key] = cp
		e.mu.Unlock()
	}
	if cp.err != nil {
		return nil, cp.err
	}
	return matchChecked(cp.re, p, text)
}
