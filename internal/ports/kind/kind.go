// Package kind is the request-kind port: what a kind of page (biography,
// topic page, answer, discussion summary) supplies to the shared
// generation stages, and the registry the stages and the entry points
// look kinds up in.
//
// A kind is a registered plan, not a switch: its Spec names the Planner
// that builds the request's reference set, the Drafter of each engine that
// writes the page one sentence at a time, and the Layout the assembler
// lays the page out by. The writer dispatches on schemas.Request.Kind
// through the Registry; the CLI, the API and the writer all check a
// request with Registry.Validate, so a kind nobody registered is refused
// with the same message everywhere, and adding a kind is one Register
// call.
//
// The wire format does not list kinds: schemas.Request.Validate checks
// only that the kind is a well-formed name, because the codec runs where
// no registry is in reach and a kind added by registration must not need a
// schema change. Which kinds exist is the process's registry's to say.
//
// The package imports only schemas, so stages, adapters and the wiring
// may all import it.
package kind

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/annalist-dev/annalist/schemas"
)

// Drafting engines. The engine is chosen when a process is wired (the LLM
// engine when a model is configured), not per request.
const (
	EngineOffline = "offline"
	EngineLLM     = "llm"
)

// ErrUnregistered reports a kind the registry does not hold. Branch on it
// with errors.Is.
var ErrUnregistered = errors.New("kind is not registered")

// ErrUnknownSubject is what a Planner wraps when the request's subject is
// unknown to it (no entity of that name, no such topic). The writer then
// ends the request as failed with the reason instead of retrying or
// publishing an empty page.
var ErrUnknownSubject = errors.New("unknown subject")

// Planner builds the reference set a request's page is written from: for
// a biography, the person's entry, the chunks that mention them and their
// 1-hop neighbours' chunks that name them; for a topic page, a curation of
// the knowledge graph. The set goes into agent memory and is all the
// drafter, the verifier and the solvers see.
type Planner interface {
	// Plan returns the reference set of r. A subject the planner does not
	// know fails with an error wrapping ErrUnknownSubject; any other error
	// is retried by the stage.
	Plan(ctx context.Context, tenant string, r schemas.Request) (*schemas.ReferenceSet, error)
}

// Drafter writes a page one sentence at a time.
type Drafter interface {
	// Draft writes sentence index of the page given the sentences accepted
	// so far. done=true (and a zero draft) when the page has no more
	// sentences.
	Draft(ctx context.Context, refs *schemas.ReferenceSet, accepted []schemas.PageSentence, index int) (d schemas.Draft, done bool, err error)
}

// Section is one section of a page.
type Section struct {
	// Name identifies the section ("life").
	Name string
	// Order says how its sentences are ordered, for readers of the kind's
	// pages: a biography's is "chronological", which its drafters' plan
	// guarantees (identity, examination, career, death).
	Order string
}

// Layout is what the assembler needs to lay out a page of the kind: its
// sections in page order.
//
// A layout is either static, exactly one section (a biography's life),
// or Sectioned: the sections come from the request's plan (a topic page's
// outline), each draft naming its section (schemas.Draft.Section), and
// the assembler groups the page's sentences into schemas.Page.Sections
// in the order the sections first appear on the page.
type Layout struct {
	Sections []Section
	// Sectioned says the sections come from the plan.
	Sectioned bool
}

// Placed is a final sentence of a page under review: the loop's index of
// it, where it stands (Position: the page is laid out by position, then
// index) and the sentence with its section.
type Placed struct {
	Index    int
	Position float64
	schemas.PageSentence
}

// Reviewer is APOLLO's critical reviewer, run on a drafted page whose
// every sentence passed the verifier: it checks coverage of the curated
// key entities, redundancy, order and section balance and returns
// structured findings; none means the page is approved.
type Reviewer interface {
	// Review reads the page (its sentences in page order) in round
	// (1-based; at most the loop's bound of rounds).
	Review(ctx context.Context, refs *schemas.ReferenceSet, page []Placed, round int) ([]schemas.Finding, error)
}

// Editor applies a reviewer's findings: it drops and moves sentences and
// writes new ones, each of which goes through the verifier before it is
// on the page.
type Editor interface {
	Edit(ctx context.Context, refs *schemas.ReferenceSet, page []Placed, findings []schemas.Finding) ([]schemas.Edit, error)
}

// Spec is one kind: everything the generation stages need to make its
// pages.
type Spec struct {
	// Name is the wire name, Request.Kind and Page.Kind.
	Name string
	// Planner builds the reference set.
	Planner Planner
	// Drafters are the kind's drafters by engine. The offline one is
	// required: it is the engine every deployment can run, and a process
	// wired for the LLM engine drafts a kind without an LLM drafter with
	// it (see Spec.Drafter).
	Drafters map[string]Drafter
	// Layout is how the assembler lays out its pages.
	Layout Layout
	// Reviewers and Editors, when the kind has them (a topic page), run
	// the review loop once the drafter's plan is done: by engine, like
	// Drafters, the offline one required when any is given.
	Reviewers map[string]Reviewer
	Editors   map[string]Editor
	// MaxSentences, when positive, bounds the kind's pages instead of the
	// writer's default (a topic page names every native of a place).
	MaxSentences int
}

// Reviewer is the kind's reviewer for engine (the offline one when the
// engine has none); nil for a kind without review.
func (s Spec) Reviewer(engine string) Reviewer {
	if r := s.Reviewers[engine]; r != nil {
		return r
	}
	return s.Reviewers[EngineOffline]
}

// Editor is the kind's editor for engine, as Reviewer.
func (s Spec) Editor(engine string) Editor {
	if e := s.Editors[engine]; e != nil {
		return e
	}
	return s.Editors[EngineOffline]
}

// Drafter is the kind's drafter for engine: Drafters[engine], else the
// offline drafter, so that a kind written only for the offline engine
// still runs in a process wired for the LLM one.
func (s Spec) Drafter(engine string) Drafter {
	if d := s.Drafters[engine]; d != nil {
		return d
	}
	return s.Drafters[EngineOffline]
}

func (s Spec) check() error {
	if err := schemas.ValidKind(s.Name); err != nil {
		return err
	}
	switch {
	case s.Planner == nil:
		return errors.New("no planner")
	case s.Drafters[EngineOffline] == nil:
		return errors.New("no offline drafter")
	case !s.Layout.Sectioned && len(s.Layout.Sections) != 1:
		return fmt.Errorf("a static layout of %d sections: a static layout has one section; sections from the plan need Sectioned", len(s.Layout.Sections))
	case (len(s.Reviewers) > 0 || len(s.Editors) > 0) && (s.Reviewers[EngineOffline] == nil || s.Editors[EngineOffline] == nil):
		return errors.New("a review loop needs an offline reviewer and an offline editor")
	}
	for engine, r := range s.Reviewers {
		if r == nil {
			return fmt.Errorf("engine %q has no reviewer", engine)
		}
	}
	for engine, e := range s.Editors {
		if e == nil {
			return fmt.Errorf("engine %q has no editor", engine)
		}
	}
	for engine, d := range s.Drafters {
		if d == nil {
			return fmt.Errorf("engine %q has no drafter", engine)
		}
	}
	return nil
}

// Registry holds the kinds a process serves. The zero value is an empty
// registry ready to use. A process builds one when it is wired and shares
// it; it is safe for concurrent use, so a kind registered while stages run
// is served from the next request on.
type Registry struct {
	mu    sync.RWMutex
	specs map[string]Spec
}

// Register adds a kind. It fails on an incomplete Spec (no name, planner,
// offline drafter, section, or a review loop without its offline agents) and on a name already registered: two
// plans for one kind would make which one runs depend on wiring order.
func (r *Registry) Register(s Spec) error {
	if err := s.check(); err != nil {
		return fmt.Errorf("register kind %q: %w", s.Name, err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.specs[s.Name]; ok {
		return fmt.Errorf("register kind %q: already registered", s.Name)
	}
	if r.specs == nil {
		r.specs = map[string]Spec{}
	}
	s.Drafters = cloneDrafters(s.Drafters)
	s.Reviewers = maps.Clone(s.Reviewers)
	s.Editors = maps.Clone(s.Editors)
	s.Layout.Sections = slices.Clone(s.Layout.Sections)
	r.specs[s.Name] = s
	return nil
}

func cloneDrafters(m map[string]Drafter) map[string]Drafter {
	out := make(map[string]Drafter, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// Lookup returns the kind's Spec. An unknown kind fails with an error
// wrapping ErrUnregistered that names the registered kinds ("kind
// topic_page is not registered (registered: biography)").
func (r *Registry) Lookup(name string) (Spec, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	s, ok := r.specs[name]
	if !ok {
		return Spec{}, &unregistered{name: name, registered: r.namesLocked()}
	}
	return s, nil
}

// Kinds lists the registered kinds, sorted.
func (r *Registry) Kinds() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.namesLocked()
}

func (r *Registry) namesLocked() []string {
	out := make([]string, 0, len(r.specs))
	for n := range r.specs {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// Validate checks a request as every entry point must: its structure
// (schemas.Request.Validate) and that its kind is registered. Both kinds
// of failure wrap schemas.ErrInvalid (a bad request, not a fault to
// retry: the runtime dead-letters it, the API answers 400); an
// unregistered kind also wraps ErrUnregistered.
func (r *Registry) Validate(req schemas.Request) error {
	if err := req.Validate(); err != nil {
		return err
	}
	if _, err := r.Lookup(req.Kind); err != nil {
		return fmt.Errorf("%w: %s: %w", schemas.ErrInvalid, schemas.TypeRequest, err)
	}
	return nil
}

// unregistered is Lookup's error: its message names the registered kinds,
// so whoever reads it (a CLI user, an API client, a dead letter) sees
// what would have been accepted.
type unregistered struct {
	name       string
	registered []string
}

func (e *unregistered) Error() string {
	reg := "none"
	if len(e.registered) > 0 {
		reg = strings.Join(e.registered, ", ")
	}
	return fmt.Sprintf("kind %s is not registered (registered: %s)", e.name, reg)
}

func (e *unregistered) Is(target error) bool { return target == ErrUnregistered }
