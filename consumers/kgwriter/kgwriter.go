// Package kgwriter is the kg-writer stage: it reads triplets, upserts them
// into the knowledge graph and announces on kg-updates the entities that
// really changed, one message per changed entity per batch, keyed by the
// entity id, so the scheduler regenerates the pages that depend on them.
//
// The stage knows one small interface, Graph; infra/kg implements it on
// Redis. It is batched because the graph write is: one script call per
// batch instead of one round trip per triplet.
//
// A new fact that contradicts the graph on a relation with one true value
// (courtesy name, native place, jinshi, birth, death) — the same entity,
// another value, from another document — opens a reference-conflict
// review (WithReviews), stored and published on the reviews topic as the
// refconflict solver does, with the same review id for the same
// disagreement. A fact that agrees needs nothing more: the graph's fact
// set gains the new edge as one more piece of provenance.
//
// Delivery: the graph write is idempotent, so a redelivered batch changes
// nothing. Announcements are at-least-once: Graph.Apply is told which
// delivery carries each triplet, and reports a triplet's changes again when
// the same delivery comes back (the stage crashed after writing the graph,
// before its updates were produced). Each update's event id is derived from
// its content, so an announcement repeated that way carries the same event
// id and downstream deduplication drops it.
package kgwriter

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/annalist-dev/annalist/internal/lang/profile"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
)

// Graph is the knowledge graph the stage writes.
type Graph interface {
	// Apply upserts ts into the tenant's graph and returns, for each triplet
	// in order, the entities it changed (created, new edge, new mention,
	// new alias); an already applied triplet reports nothing, unless
	// deliveries[i] names the delivery that applied it. deliveries holds
	// one id per triplet (the input event id). Idempotent. An invalid
	// triplet fails the call, before anything is written, with an error
	// wrapping schemas.ErrInvalid.
	Apply(ctx context.Context, tenant string, ts []schemas.Triplet, deliveries []string) ([][]schemas.KGUpdate, error)
}

// Stage writes triplets into a Graph.
type Stage struct {
	g        Graph
	disagree Disagreements
	reviews  ReviewStore
	profiles *profile.Set
}

// New returns the stage; g is required.
func New(g Graph, opts ...Option) (*Stage, error) {
	if g == nil {
		return nil, errors.New("new kg-writer stage: graph is required")
	}
	s := &Stage{g: g}
	for _, o := range opts {
		o(s)
	}
	return s, nil
}

// Handler returns the stage as a pipeline.BatchHandler.
func (s *Stage) Handler() pipeline.BatchHandler { return s.Handle }

// Handle applies the triplets of a batch, one Graph.Apply per tenant in the
// batch, and returns the kg-updates: the changes of every triplet merged
// per (tenant, entity), each attached to the last input that changed that
// entity. An input is committed only after its outputs are produced, so an
// entity's change is announced before the last input behind it is
// committed; if the stage dies first, that input comes again and Apply
// reports its change again.
//
// Any input that is not a valid triplet fails the whole batch with a
// permanent error before anything is written, so the runtime's one-at-a-time
// retry isolates it.
func (s *Stage) Handle(ctx context.Context, ins []pipeline.Input) ([][]pipeline.Output, error) {
	type group struct {
		ts         []schemas.Triplet
		deliveries []string
		inputs     []int
	}
	var tenants []string
	groups := make(map[string]*group)
	for i, in := range ins {
		t, ok := tripletOf(in.Msg)
		if !ok {
			return nil, pipeline.Permanentf("write triplet input %s at %s/%d/%d: %T is not a triplet",
				in.Meta.EventID, in.Topic, in.Partition, in.Offset, in.Msg)
		}
		if err := t.Validate(); err != nil {
			return nil, pipeline.Permanent(fmt.Errorf("write triplet %s at %s/%d/%d: %w",
				t.TripletID, in.Topic, in.Partition, in.Offset, err))
		}
		tenant := in.Tenant()
		if tenant == "" {
			tenant = schemas.DefaultTenant
		}
		g := groups[tenant]
		if g == nil {
			g = &group{}
			groups[tenant] = g
			tenants = append(tenants, tenant)
		}
		g.ts = append(g.ts, t)
		g.deliveries = append(g.deliveries, in.Meta.EventID)
		g.inputs = append(g.inputs, i)
	}

	out := make([][]pipeline.Output, len(ins))
	for _, tenant := range tenants {
		g := groups[tenant]
		changes, err := s.g.Apply(ctx, tenant, g.ts, g.deliveries)
		if err != nil {
			err = fmt.Errorf("write %d triplets of tenant %s: %w", len(g.ts), tenant, err)
			if errors.Is(err, schemas.ErrInvalid) {
				return nil, pipeline.Permanent(err)
			}
			return nil, err
		}
		if len(changes) != len(g.ts) {
			return nil, fmt.Errorf("write %d triplets of tenant %s: graph reported %d change lists",
				len(g.ts), tenant, len(changes))
		}
		for _, m := range merge(changes, g.inputs, g.ts) {
			out[m.input] = append(out[m.input], pipeline.Output{
				Topic:   topology.KGUpdates,
				Msg:     m.update,
				EventID: UpdateEventID(tenant, m.update),
			})
		}
		if err := s.conflictReviews(ctx, tenant, changes, g.inputs, g.ts, out); err != nil {
			return nil, fmt.Errorf("tenant %s: %w", tenant, err)
		}
	}
	return out, nil
}

type merged struct {
	update schemas.KGUpdate
	input  int
}

// merge folds per-triplet changes into one update per entity, in order of
// first change, remembering the last input that contributed and the
// documents of the triplets that made the changes (the new evidence the
// scheduler names on the pages it regenerates). Lists are sorted so the
// update does not depend on the batch's composition.
func merge(changes [][]schemas.KGUpdate, inputs []int, ts []schemas.Triplet) []merged {
	var out []merged
	at := make(map[string]int)
	for k, per := range changes {
		for _, u := range per {
			j, ok := at[u.EntityID]
			if !ok {
				j = len(out)
				at[u.EntityID] = j
				out = append(out, merged{update: schemas.KGUpdate{EntityID: u.EntityID, Name: u.Name, Type: u.Type}})
			}
			m := &out[j]
			m.input = inputs[k]
			m.update.Created = m.update.Created || u.Created
			m.update.Edges = append(m.update.Edges, u.Edges...)
			m.update.Chunks = append(m.update.Chunks, u.Chunks...)
			m.update.Aliases = append(m.update.Aliases, u.Aliases...)
			if doc := ts[k].DocID; doc != "" {
				m.update.DocIDs = append(m.update.DocIDs, doc)
			}
		}
	}
	for j := range out {
		u := &out[j].update
		u.Edges = sortedSet(u.Edges)
		u.Chunks = sortedSet(u.Chunks)
		u.Aliases = sortedSet(u.Aliases)
		u.DocIDs = sortedSet(u.DocIDs)
	}
	return out
}

func sortedSet(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	slices.Sort(s)
	return slices.Compact(s)
}

// UpdateEventID is the event id of a kg-update: derived from the tenant and
// the update's content, so the same change announced twice (a redelivered
// input, a different batch composition) has the same id.
func UpdateEventID(tenant string, u schemas.KGUpdate) string {
	parts := make([]string, 0, 8+len(u.Edges)+len(u.Chunks)+len(u.Aliases))
	parts = append(parts, "kg-update", tenant, u.EntityID, strconv.FormatBool(u.Created), "edges")
	parts = append(parts, u.Edges...)
	parts = append(parts, "chunks")
	parts = append(parts, u.Chunks...)
	parts = append(parts, "aliases")
	parts = append(parts, u.Aliases...)
	return pipeline.ContentID(parts...)
}

func tripletOf(m schemas.Message) (schemas.Triplet, bool) {
	switch t := m.(type) {
	case schemas.Triplet:
		return t, true
	case *schemas.Triplet:
		if t != nil {
			return *t, true
		}
	}
	return schemas.Triplet{}, false
}
