package writer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/annalist-dev/annalist/internal/kit/ask"
	"github.com/annalist-dev/annalist/internal/ports/genmem"
	"github.com/annalist-dev/annalist/internal/ports/kind"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
)

// Loop defaults.
const (
	DefaultMaxAttempts  = 3
	DefaultMaxSentences = 24
	// DefaultMaxReviewRounds is APOLLO's bound on the writer → reviewer
	// → editor loop.
	DefaultMaxReviewRounds = 3
)

// LoopConfig bounds a request, so that no request loops forever, and
// names the drafting engine. The zero value means the defaults.
type LoopConfig struct {
	// Engine is the drafting engine (kind.EngineOffline, the default, or
	// kind.EngineLLM). It is chosen when the process is wired, not per
	// request; a kind without a drafter for it drafts with its offline
	// one (kind.Spec.Drafter).
	Engine string
	// MaxAttempts is how many drafts one sentence may take (the first
	// included) before it is dropped (default DefaultMaxAttempts).
	MaxAttempts int
	// MaxSentences ends a page (default DefaultMaxSentences).
	MaxSentences int
	// MaxDrafts bounds the drafts of a page, corrections included
	// (default MaxSentences·MaxAttempts).
	MaxDrafts int
	// MaxReviewRounds bounds the review loop of a kind with a reviewer
	// (default DefaultMaxReviewRounds, APOLLO's r_max).
	MaxReviewRounds int
}

func (c LoopConfig) withDefaults() LoopConfig {
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = DefaultMaxAttempts
	}
	if c.MaxSentences <= 0 {
		c.MaxSentences = DefaultMaxSentences
	}
	if c.MaxDrafts <= 0 {
		c.MaxDrafts = c.MaxSentences * c.MaxAttempts
	}
	if c.Engine == "" {
		c.Engine = kind.EngineOffline
	}
	if c.MaxReviewRounds <= 0 {
		c.MaxReviewRounds = DefaultMaxReviewRounds
	}
	return c
}

// Loop is the writer stage: it starts requests and drafts each sentence
// once the previous one is final, keeping its state in Memory.
//
// The loop is the same for every kind of page; what differs is looked up
// in the kind registry by Request.Kind (State.Kind for later steps): the
// kind's Planner builds the reference set, its Drafter for the configured
// engine writes each sentence. A request of a kind the registry does not
// hold is a permanent error (dead-lettered with the registry's message),
// never drafted as another kind.
//
// Inputs: a Request starts the page (the kind's plan, reference set into
// memory, sentence 0); a supported Verdict makes its sentence final and
// drafts the next; a Correction is re-submitted as the next attempt of its
// sentence (so every published sentence passed the verifier), or drops the
// sentence when the solver gave up or the attempts are spent. The end of
// the page is a Final draft, which the assembler publishes.
//
// Idempotent: each input is one named step of the request (Step.Key); a
// redelivered input replays the outputs its step stored, with the same
// event ids, and an input the loop has moved past produces nothing.
type Loop struct {
	kinds    *kind.Registry
	mem      genmem.Memory
	cfg      LoopConfig
	now      func() time.Time
	failures Failures
	pages    PageSource
	missing  func(error) bool
}

// Failures records the outcome of a request the writer gives up on
// (pages.Store does; assembler.Pages is the same method).
type Failures interface {
	// Finish records the request as failed with the reason when page is
	// nil.
	Finish(ctx context.Context, tenant string, r schemas.Request, page *schemas.Page, failure string) error
}

// WithFailures makes every permanent error of the loop (the input is
// dead-lettered) also fail its request with the error as the reason, so
// that no client waits for a page that will not come. It returns l.
func (l *Loop) WithFailures(f Failures) *Loop {
	l.failures = f
	return l
}

// NewLoop returns the writer stage serving the kinds registered in kinds
// (read on every request, so a kind registered later is served from then
// on).
func NewLoop(kinds *kind.Registry, m genmem.Memory, cfg LoopConfig) *Loop {
	return &Loop{kinds: kinds, mem: m, cfg: cfg.withDefaults(), now: time.Now}
}

// spec is the kind's Spec; an unregistered kind is permanent: no retry
// registers it.
func (l *Loop) spec(name string) (kind.Spec, error) {
	s, err := l.kinds.Lookup(name)
	if err != nil {
		return kind.Spec{}, pipeline.Permanent(fmt.Errorf("writer: %w", err))
	}
	return s, nil
}

// Handler is the stage's handler for the requests, verdicts and
// corrections topics. With WithFailures, an input that fails permanently
// fails its request too (recorded before the error is returned; when
// recording fails, that error is returned instead, transient, so the
// input is tried again).
func (l *Loop) Handler() pipeline.Handler {
	h := l.handle()
	return func(ctx context.Context, in pipeline.Input) ([]pipeline.Output, error) {
		outs, err := h(ctx, in)
		if err == nil || l.failures == nil || !pipeline.IsPermanent(err) {
			return outs, err
		}
		r := requestOf(in.Msg)
		if r.RequestID == "" {
			return nil, err
		}
		if ferr := l.failures.Finish(ctx, in.Tenant(), r, nil, err.Error()); ferr != nil {
			return nil, fmt.Errorf("record the failure of request %s (%v): %w", r.RequestID, err, ferr)
		}
		return nil, err
	}
}

// requestOf is the request an input of the writer belongs to, as far as
// the message says.
func requestOf(m schemas.Message) schemas.Request {
	if r, ok := pipeline.As[schemas.Request](m); ok {
		return r
	}
	if v, ok := pipeline.As[schemas.Verdict](m); ok {
		return schemas.Request{RequestID: v.RequestID, Kind: v.Kind, Subject: v.Subject}
	}
	if c, ok := pipeline.As[schemas.Correction](m); ok {
		return schemas.Request{RequestID: c.RequestID, Kind: c.Kind, Subject: c.Subject}
	}
	return schemas.Request{}
}

func (l *Loop) handle() pipeline.Handler {
	return func(ctx context.Context, in pipeline.Input) ([]pipeline.Output, error) {
		tenant := in.Tenant()
		if r, ok := pipeline.As[schemas.Request](in.Msg); ok {
			return l.start(ctx, tenant, r)
		}
		if v, ok := pipeline.As[schemas.Verdict](in.Msg); ok {
			if v.Status != schemas.StatusSupported {
				return nil, nil // the router's
			}
			return l.accept(ctx, tenant, v)
		}
		if c, ok := pipeline.As[schemas.Correction](in.Msg); ok {
			return l.correct(ctx, tenant, c)
		}
		return nil, pipeline.Permanentf("writer: unexpected message %T on %s", in.Msg, in.Topic)
	}
}

func (l *Loop) start(ctx context.Context, tenant string, r schemas.Request) ([]pipeline.Output, error) {
	if err := l.kinds.Validate(r); err != nil {
		return nil, pipeline.Permanent(fmt.Errorf("writer: %w", err))
	}
	spec, err := l.spec(r.Kind)
	if err != nil {
		return nil, err
	}
	if _, ok, err := l.mem.State(ctx, tenant, r.RequestID); err != nil {
		return nil, err
	} else if ok {
		return l.replay(ctx, tenant, r.RequestID, "start")
	}
	started := l.now().UnixMilli()
	if t, err := time.Parse(time.RFC3339Nano, r.RequestedAt); err == nil {
		started = t.UnixMilli()
	}
	refs, err := spec.Planner.Plan(ctx, tenant, r)
	if errors.Is(err, kind.ErrUnknownSubject) {
		d := schemas.Draft{RequestID: r.RequestID, Kind: r.Kind, Subject: r.Subject, Final: true,
			Error: err.Error()}
		return l.take(ctx, tenant, r.RequestID, genmem.Step{Key: "start", Start: &r, Name: r.Subject,
			StartedMillis: started, Done: true}, []schemas.Draft{d})
	}
	if err != nil {
		return nil, fmt.Errorf("plan %s of %q: %w", r.Kind, r.Subject, err)
	}
	// New evidence is what the regeneration is for: the drafters learn
	// which documents brought it. A retraction brings none.
	if t := r.Trigger; t != nil && t.Reason != schemas.ReasonRetracted {
		refs.Fresh = slices.Clone(t.DocIDs)
	}
	if err := l.mem.PutReferences(ctx, tenant, r.RequestID, refs); err != nil {
		return nil, err
	}
	s := genmem.Step{Key: "start", Start: &r, Name: refs.Name, StartedMillis: started, Incr: map[string]int64{}}
	if ps, ok := spec.Drafter(l.cfg.Engine).(planStater); ok {
		// What the plan budgeted and left out, by reason, on the page.
		for k, v := range ps.PlanStats(refs) {
			s.Incr[k] = v
		}
	}
	prev, incremental, err := l.previous(ctx, tenant, r, refs)
	if err != nil {
		return nil, err
	}
	var g *regeneration
	if incremental {
		s.Previous = prev
		ps := make([]genmem.Previous, len(prev))
		for i, p := range prev {
			ps[i] = genmem.Previous{Index: i, Sentence: p}
		}
		g = newRegeneration(refs, ps)
		for _, c := range []string{CounterKept, CounterRewritten, CounterAdded, CounterRemoved} {
			s.Incr[c] = 0
		}
	}
	d, err := l.advance(ctx, tenant, r, refs, nil, 0, 0, &s, g, genmem.Review{})
	if err != nil {
		return nil, err
	}
	return l.take(ctx, tenant, r.RequestID, s, []schemas.Draft{d})
}

func (l *Loop) accept(ctx context.Context, tenant string, v schemas.Verdict) ([]pipeline.Output, error) {
	key := "v:" + strconv.Itoa(v.Index) + ":" + strconv.Itoa(v.Attempt)
	st, ok, err := l.current(ctx, tenant, v.RequestID, v.Index, v.Attempt)
	if err != nil {
		return nil, err
	}
	if !ok {
		return l.replay(ctx, tenant, v.RequestID, key)
	}
	d := v.Draft
	status := schemas.StatusSupported
	switch {
	case d.Conflict:
		status = schemas.OutcomeConflict
	case d.Origin != "" && d.Origin != OriginWriter && d.Origin != OriginEditor:
		status = schemas.OutcomeCorrected
	}
	cites := d.Citations
	for _, f := range v.Facts {
		for _, e := range f.Evidence {
			cites = append(cites, e.ChunkID)
		}
	}
	rec := &genmem.Final{Index: v.Index, Attempts: v.Attempt + 1, Position: st.Place.Position,
		Sentence: schemas.PageSentence{Text: d.Text, Status: status, Citations: citations(cites), Facts: d.Facts,
			Note: d.Note, Section: st.Place.Section, Entities: d.Entities}}
	if d.Origin == OriginWriter || d.Origin == OriginEditor {
		rec.Sentence.OfflineFallback = d.Fallback
	}
	incr := map[string]int64{"accepted": 1, "llm_calls": int64(v.LLMCalls)}
	if status != schemas.StatusSupported {
		incr["corrected"] = 1
	}
	for _, t := range pendingTypes(st, v.Index) {
		incr["fixed_"+t]++
		incr[pendingKey(v.Index, t)] = -st.Counters[pendingKey(v.Index, t)]
	}
	return l.next(ctx, tenant, st, genmem.Step{Key: key, ExpectIndex: v.Index, ExpectAttempt: v.Attempt,
		Record: rec, Incr: incr})
}

func (l *Loop) correct(ctx context.Context, tenant string, c schemas.Correction) ([]pipeline.Output, error) {
	key := "c:" + strconv.Itoa(c.Index) + ":" + strconv.Itoa(c.Attempt)
	st, ok, err := l.current(ctx, tenant, c.RequestID, c.Index, c.Attempt)
	if err != nil {
		return nil, err
	}
	if !ok {
		return l.replay(ctx, tenant, c.RequestID, key)
	}
	typ := c.ErrorType
	if typ == "" {
		typ = schemas.StatusNotIncluded
	}
	incr := map[string]int64{"detected_" + typ: 1, pendingKey(c.Index, typ): 1, "llm_calls": int64(c.LLMCalls)}
	s := genmem.Step{Key: key, ExpectIndex: c.Index, ExpectAttempt: c.Attempt, Incr: incr}
	spec, err := l.spec(st.Kind)
	if err != nil {
		return nil, err
	}
	_, maxDrafts := l.bounds(spec)
	if c.Outcome == schemas.OutcomeDropped || c.Attempt+1 >= l.cfg.MaxAttempts ||
		st.Counters["drafted"] >= int64(maxDrafts) {
		reason := c.Reason
		switch {
		case c.Outcome != schemas.OutcomeDropped && c.Attempt+1 >= l.cfg.MaxAttempts:
			reason = fmt.Sprintf("no verified wording after %d attempts (last: %s)", c.Attempt+1, c.Reason)
		case c.Outcome != schemas.OutcomeDropped:
			reason = fmt.Sprintf("page reached its bound of %d drafts", maxDrafts)
		case reason == "":
			reason = "dropped by solver " + c.Solver
		}
		s.Record = &genmem.Final{Index: c.Index, Dropped: reason, Attempts: c.Attempt + 1,
			Position: st.Place.Position, Sentence: schemas.PageSentence{Section: st.Place.Section}}
		incr["dropped"] = 1
		return l.next(ctx, tenant, st, s)
	}
	d := schemas.Draft{RequestID: c.RequestID, Kind: st.Kind, Subject: st.Subject, Index: c.Index,
		Attempt: c.Attempt + 1, Text: c.Text, Citations: c.Citations, Facts: c.Facts, Engine: c.Solver,
		Origin: c.Solver, Conflict: c.Outcome == schemas.OutcomeConflict, Note: c.Reason,
		Section: st.Place.Section, Position: st.Place.Position}
	s.NextIndex, s.NextAttempt = c.Index, c.Attempt+1
	incr["drafted"] = 1
	return l.take(ctx, tenant, c.RequestID, s, []schemas.Draft{d})
}

// next drafts the sentence after the one s makes final, or ends the page.
func (l *Loop) next(ctx context.Context, tenant string, st genmem.State, s genmem.Step) ([]pipeline.Output, error) {
	refs, err := l.mem.References(ctx, tenant, st.RequestID)
	if err != nil {
		return nil, err
	}
	finals, err := l.mem.Sentences(ctx, tenant, st.RequestID)
	if err != nil {
		return nil, err
	}
	g, err := l.regenerationOf(ctx, tenant, st, refs)
	if err != nil {
		return nil, err
	}
	var accepted []schemas.PageSentence
	for _, f := range finals {
		if f.Dropped == "" && f.Index < s.Record.Index {
			accepted = append(accepted, f.Sentence)
		}
	}
	if s.Record.Dropped == "" {
		accepted = append(accepted, s.Record.Sentence)
	}
	r := st.Request
	r.RequestID, r.Kind, r.Subject = st.RequestID, st.Kind, st.Subject
	d, err := l.advance(ctx, tenant, r, refs, accepted, s.Record.Index+1, st.Counters["drafted"], &s, g, st.Review)
	if err != nil {
		return nil, err
	}
	return l.take(ctx, tenant, st.RequestID, s, []schemas.Draft{d})
}

// advance drafts sentence k, the first of the page not final yet, and
// sets where s leaves the loop: at that draft, which goes to the verifier,
// or at the end of the page (the Final draft returned). drafted is how
// many drafts the request has sent before s.
//
// In an incremental regeneration (g not nil) a draft that says what a
// previous sentence said, when that sentence still stands on the new
// references, is not sent: the previous sentence is made final in its
// place, as it was, and the loop drafts the next index in the same step,
// so a page whose references did not change is written again without one
// verification round. A draft sent is counted as rewritten when it takes
// the place of a previous sentence that no longer stands, as added
// otherwise; the previous sentences left when the page ends are removed.
func (l *Loop) advance(ctx context.Context, tenant string, r schemas.Request, refs *schemas.ReferenceSet,
	accepted []schemas.PageSentence, k int, drafted int64, s *genmem.Step, g *regeneration, rv genmem.Review) (schemas.Draft, error) {
	spec, err := l.spec(r.Kind)
	if err != nil {
		return schemas.Draft{}, err
	}
	maxSentences, maxDrafts := l.bounds(spec)
	for {
		if rv.Round > 0 {
			// The drafter's plan is done and the page is under review:
			// the editor's sentences go to the verifier one at a time,
			// then the next round reviews the page again.
			d, ok, err := l.reviewStep(ctx, tenant, r, refs, spec, k, drafted, maxDrafts, s, &rv)
			if err != nil || ok {
				return d, err
			}
			return l.end(r, k, s, g), nil
		}
		var d schemas.Draft
		done := k >= maxSentences || drafted >= int64(maxDrafts)
		if !done {
			var calls int64
			var err error
			d, done, calls, err = l.draft(ctx, r, refs, accepted, k)
			if err != nil {
				return schemas.Draft{}, err
			}
			s.Incr["llm_calls"] += calls
		}
		if done {
			if spec.Reviewer(l.cfg.Engine) != nil {
				d, ok, err := l.reviewStep(ctx, tenant, r, refs, spec, k, drafted, maxDrafts, s, &rv)
				if err != nil || ok {
					return d, err
				}
			}
			return l.end(r, k, s, g), nil
		}
		if g != nil {
			if i, ok := g.keep(d); ok {
				g.use(i, genmem.UseKept)
				f := genmem.Final{Index: k, Sentence: g.prev[i].Sentence, Kept: true}
				f.Sentence.Section = d.Section
				s.Records = append(s.Records, f)
				s.Use = useOf(s.Use, g.prev[i].Index, genmem.UseKept)
				s.Incr[CounterKept]++
				accepted = append(accepted, f.Sentence)
				k++
				continue
			}
			if i, ok := g.replaces(d); ok {
				g.use(i, genmem.UseRewritten)
				s.Use = useOf(s.Use, g.prev[i].Index, genmem.UseRewritten)
				s.Incr[CounterRewritten]++
			} else {
				s.Incr[CounterAdded]++
			}
		}
		if d.Fallback != "" {
			s.Incr["offline_fallbacks"]++
		}
		s.Incr["drafted"]++
		s.NextIndex, s.NextAttempt = k, 0
		s.Place = &genmem.Place{Section: d.Section, Position: d.Position}
		return d, nil
	}
}

// end ends the page at index k: the Final draft, and the previous
// sentences nothing took counted as removed.
func (l *Loop) end(r schemas.Request, k int, s *genmem.Step, g *regeneration) schemas.Draft {
	if g != nil {
		s.Incr[CounterRemoved] += g.unused()
	}
	s.NextIndex, s.NextAttempt, s.Done = k, 0, true
	return schemas.Draft{RequestID: r.RequestID, Kind: r.Kind, Subject: r.Subject, Index: k, Final: true}
}

// bounds are the request's bounds on sentences and drafts: the kind's
// MaxSentences when it sets one (a topic page names every native of a
// place), else the loop's.
func (l *Loop) bounds(spec kind.Spec) (sentences, drafts int) {
	sentences, drafts = l.cfg.MaxSentences, l.cfg.MaxDrafts
	if spec.MaxSentences > 0 {
		sentences = spec.MaxSentences
		drafts = max(drafts, sentences*l.cfg.MaxAttempts)
	}
	return sentences, drafts
}

func useOf(m map[int]string, i int, how string) map[int]string {
	if m == nil {
		m = map[int]string{}
	}
	m[i] = how
	return m
}

// draft asks the drafter of the request's kind for sentence k; done when
// the page is complete.
//
// A drafter that could not use the model's answers (an error wrapping
// ErrMalformed or ask.ErrRejected, after its own bounded retries with the
// reason) is replaced for this sentence by the kind's offline drafter,
// which every kind has: the draft carries the reason in Fallback, and the
// page says the sentence was written offline. Only when the offline
// drafter fails too is the error returned (permanent, as the drafter
// made it). Any other error (a model outage, a timeout) is returned as it
// is: transient, so the runtime retries the input.
func (l *Loop) draft(ctx context.Context, r schemas.Request, refs *schemas.ReferenceSet,
	accepted []schemas.PageSentence, k int) (schemas.Draft, bool, int64, error) {
	spec, err := l.spec(r.Kind)
	if err != nil {
		return schemas.Draft{}, false, 0, err
	}
	drafter := spec.Drafter(l.cfg.Engine)
	before := callsOf(drafter)
	d, done, err := drafter.Draft(ctx, refs, accepted, k)
	calls := callsOf(drafter) - before
	if off := spec.Drafter(kind.EngineOffline); err != nil && off != drafter &&
		(errors.Is(err, ErrMalformed) || errors.Is(err, ask.ErrRejected)) {
		if fd, fdone, ferr := off.Draft(ctx, refs, accepted, k); ferr == nil && !fdone {
			fd.Fallback = "written offline: the model's answers were unusable (" + err.Error() + ")"
			d, done, err = fd, false, nil
		}
	}
	if err != nil {
		return schemas.Draft{}, false, calls, fmt.Errorf("draft sentence %d of %s: %w", k, r.RequestID, err)
	}
	if done {
		return schemas.Draft{RequestID: r.RequestID, Kind: r.Kind, Subject: r.Subject, Index: k, Final: true}, true, calls, nil
	}
	d.RequestID, d.Kind, d.Subject, d.Index, d.Attempt = r.RequestID, r.Kind, r.Subject, k, 0
	if d.Origin == "" {
		d.Origin = OriginWriter
	}
	return d, false, calls, nil
}

// Draft origins of the writer's own drafts: OriginWriter for the
// drafter's, OriginEditor for those an editor wrote in a review round.
const (
	OriginWriter = "writer"
	OriginEditor = "editor"
)

// planStater is implemented by drafters that count what their plan
// budgeted and left out (Offline.PlanStats).
type planStater interface {
	PlanStats(refs *schemas.ReferenceSet) map[string]int64
}

// callCounter is implemented by drafters that call a model.
type callCounter interface{ Calls() int64 }

func callsOf(d any) int64 {
	if c, ok := d.(callCounter); ok {
		return c.Calls()
	}
	return 0
}

// current reads the state and reports whether the loop stands at (k, a);
// ok=false when it has moved on (or ended).
func (l *Loop) current(ctx context.Context, tenant, id string, k, a int) (genmem.State, bool, error) {
	st, ok, err := l.mem.State(ctx, tenant, id)
	if err != nil {
		return genmem.State{}, false, err
	}
	if !ok {
		return genmem.State{}, false, pipeline.Permanentf("writer: request %s is not in agent memory (expired or never started)", id)
	}
	return st, !st.Done && st.Index == k && st.Attempt == a, nil
}

// take applies the step with the drafts as its outputs, or replays the
// outputs of the step taken before.
func (l *Loop) take(ctx context.Context, tenant, id string, s genmem.Step, ds []schemas.Draft) ([]pipeline.Output, error) {
	b, err := json.Marshal(ds)
	if err != nil {
		return nil, fmt.Errorf("encode drafts of %s: %w", id, err)
	}
	s.Output = b
	_, out, err := l.mem.Step(ctx, tenant, id, s)
	if err != nil {
		return nil, err
	}
	return outputs(tenant, id, s.Key, out)
}

// replay re-emits the outputs of a step taken before; a step never taken
// (an input the loop has moved past) emits nothing.
func (l *Loop) replay(ctx context.Context, tenant, id, key string) ([]pipeline.Output, error) {
	out, err := l.mem.Outputs(ctx, tenant, id, key)
	if err != nil {
		return nil, err
	}
	return outputs(tenant, id, key, out)
}

// outputs turns a step's stored drafts into the records to produce, with
// event ids fixed by the step, so a replay repeats them exactly.
func outputs(tenant, id, key string, out []byte) ([]pipeline.Output, error) {
	if len(out) == 0 {
		return nil, nil
	}
	var ds []schemas.Draft
	if err := json.Unmarshal(out, &ds); err != nil {
		return nil, pipeline.Permanentf("writer: stored outputs of step %s of %s: %w", key, id, err)
	}
	outs := make([]pipeline.Output, len(ds))
	for i, d := range ds {
		outs[i] = pipeline.Output{Topic: topology.Drafts, Msg: d,
			EventID: pipeline.ContentID(tenant, id, key, strconv.Itoa(i))}
	}
	return outs, nil
}

// citations lists each chunk id once, in order.
func citations(ids []string) []schemas.Citation {
	out := make([]schemas.Citation, 0, len(ids))
	seen := map[string]bool{}
	for _, id := range ids {
		if id != "" && !seen[id] {
			seen[id] = true
			out = append(out, schemas.Citation{ChunkID: id})
		}
	}
	return out
}

func pendingKey(k int, typ string) string { return "pending." + strconv.Itoa(k) + "." + typ }

// pendingTypes are the error types found in sentence k's earlier attempts.
func pendingTypes(st genmem.State, k int) []string {
	pre := "pending." + strconv.Itoa(k) + "."
	var out []string
	for f, n := range st.Counters {
		if n > 0 && strings.HasPrefix(f, pre) {
			out = append(out, strings.TrimPrefix(f, pre))
		}
	}
	sort.Strings(out)
	return out
}
