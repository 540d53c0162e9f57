// Package genmem is the generation-memory port: where a request's writer →
// verifier → solver loop stands, its reference set and its final
// sentences. The loop's state lives only here (infra/memory keeps it in
// Redis), so any replica of any generation stage can take the next step
// after another crashed. Stages and adapters import this package, never
// each other.
package genmem

import (
	"context"
	"errors"

	"github.com/annalist-dev/annalist/schemas"
)

// Memory is the agent memory of one request (infra/memory.Requests in
// Redis). The loop's state lives only here, so any writer replica can
// take the next step after another crashed.
type Memory interface {
	// Step takes one step of the loop atomically (see Step). It returns
	// applied=true and the step's outputs when it moved the loop; when the
	// step was taken before it returns applied=false and the outputs stored
	// then; when the loop is elsewhere it returns applied=false and nil.
	Step(ctx context.Context, tenant, requestID string, s Step) (applied bool, outputs []byte, err error)
	// Outputs are the stored outputs of the step named key, nil when the
	// step was never taken.
	Outputs(ctx context.Context, tenant, requestID, key string) ([]byte, error)
	// State is where the request's loop stands; ok=false when memory holds
	// no such request.
	State(ctx context.Context, tenant, requestID string) (st State, ok bool, err error)
	// PutReferences stores the request's reference set.
	PutReferences(ctx context.Context, tenant, requestID string, refs *schemas.ReferenceSet) error
	// References reads it back.
	References(ctx context.Context, tenant, requestID string) (*schemas.ReferenceSet, error)
	// Sentences are the final sentences so far (accepted or dropped), in
	// index order.
	Sentences(ctx context.Context, tenant, requestID string) ([]Final, error)
	// Previous are the sentences of the page version the request
	// regenerates (Step.Previous, recorded by its start), in index order,
	// each with what the loop has made of it so far; nil for a request
	// that regenerates nothing.
	Previous(ctx context.Context, tenant, requestID string) ([]Previous, error)
}

// Step is one transition of a request's loop. Key names it uniquely within
// the request ("start", "v:<k>:<a>" for the verdict on attempt a of
// sentence k, "c:<k>:<a>" for the correction of it), so redelivering the
// same input finds the step taken and replays its outputs.
type Step struct {
	Key string
	// Start, when set, begins the request: the step applies only if memory
	// has no such request. Name and StartedMillis are recorded with it.
	Start         *schemas.Request
	Name          string
	StartedMillis int64
	// ExpectIndex and ExpectAttempt must be where the loop stands for a
	// step other than a start.
	ExpectIndex, ExpectAttempt int
	// NextIndex, NextAttempt and Done are where the loop stands after it.
	NextIndex, NextAttempt int
	Done                   bool
	// Record, when set, is a sentence made final by this step.
	Record *Final
	// Records are more sentences made final by the same step, after
	// Record: the previous version's sentences an incremental
	// regeneration keeps verbatim, several in one step when they follow
	// each other.
	Records []Final
	// Previous, on a start, are the sentences of the page version the
	// request regenerates, fixed for the request's life.
	Previous []schemas.PageSentence
	// Use records what the step made of previous sentences: index →
	// UseKept or UseRewritten.
	Use map[int]string
	// Incr are counters to add to.
	Incr map[string]int64
	// Place, when set, is where the sentence the step drafts goes on the
	// page (its section and position), kept until the sentence is final.
	Place *Place
	// Review, when set, is where the review loop stands after the step.
	Review *Review
	// Output is what the step produces, stored for replay.
	Output []byte
}

// Place is where a sentence goes on the page: its section (empty on a
// one-section page) and its position (0: its index).
type Place struct {
	Section  string  `json:"section,omitempty"`
	Position float64 `json:"position,omitempty"`
}

// Review is where the review loop of a kind with a reviewer stands
// (APOLLO: writer → reviewer → editor, a bounded number of rounds).
type Review struct {
	// Round is how many review rounds have run.
	Round int `json:"round"`
	// Pending are the sentences the editor wrote in the last round that
	// are still to be drafted, in order; each goes to the verifier.
	Pending []schemas.Draft `json:"pending,omitempty"`
	// Approved is set when a round found nothing to change.
	Approved bool `json:"approved,omitempty"`
}

// State is where a request's loop stands.
type State struct {
	RequestID string
	Request   schemas.Request
	Kind      string
	Subject   string
	// Name is the canonical name the subject resolved to.
	Name string
	// Index and Attempt are the sentence being verified and its attempt.
	Index, Attempt int
	// Done is true once the writer has ended the page.
	Done          bool
	StartedMillis int64
	// Counters: drafted, accepted, corrected, dropped, llm_calls,
	// detected_<type>, fixed_<type>, and pending.<k>.<type> for errors of
	// sentence k not yet fixed; an incremental regeneration adds kept,
	// rewritten, added and removed (present, zero or not, from its start).
	Counters map[string]int64
	// Place is where the sentence being verified goes (Step.Place).
	Place Place
	// Review is where the review loop stands (Step.Review).
	Review Review
}

// Final is a sentence that will not change again: accepted (Sentence set)
// or dropped (Dropped says why).
type Final struct {
	Index    int                  `json:"index"`
	Sentence schemas.PageSentence `json:"sentence"`
	Dropped  string               `json:"dropped,omitempty"`
	// Attempts is how many drafts the sentence took.
	Attempts int `json:"attempts"`
	// Kept marks a sentence of the previous version kept verbatim by an
	// incremental regeneration: its text, citations and status are the
	// previous version's, and no verifier saw it again (Attempts is 0).
	Kept bool `json:"kept,omitempty"`
	// Position orders the page: by Position, then Index; 0 means Index.
	Position float64 `json:"position,omitempty"`
}

// At is where the sentence stands on the page: its Position, else its
// Index.
func (f Final) At() float64 {
	if f.Position != 0 {
		return f.Position
	}
	return float64(f.Index)
}

// Previous is a sentence of the page version a request regenerates.
type Previous struct {
	Index    int
	Sentence schemas.PageSentence
	// Use is UseKept or UseRewritten once a step used the sentence, ""
	// before.
	Use string
}

// What an incremental regeneration made of a previous sentence.
const (
	// UseKept: the sentence is on the new page as it was.
	UseKept = "kept"
	// UseRewritten: a new draft replaces it, because a chunk or fact it
	// rests on is gone.
	UseRewritten = "rewritten"
)

// ErrNoReferences marks a request whose reference set memory does not hold
// (expired or never stored): no retry can bring it back, so stages treat
// it as permanent.
var ErrNoReferences = errors.New("no reference set for the request")
