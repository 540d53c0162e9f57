// Package retractor is the retractor stage: it reads retractions (a
// document withdrawn by a user, or superseded by a new version of its
// source), removes what the document left in the knowledge graph and the
// chunk store in one atomic step per document, deletes its chunks'
// vectors, and announces on kg-updates every entity that lost something,
// plus the document itself, so the scheduler finds the pages resting on
// it.
//
// The edge marks the document retracted before it publishes the
// retraction, and every writer of the document's derived state checks
// that mark, so nothing of the document arrives after this stage ran
// (ARCHITECTURE.md §10 for the delivery guarantees).
package retractor

import (
	"context"
	"errors"
	"fmt"

	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
)

// Graph removes a retracted document's derived state and returns the
// updates to announce; the same updates again when it ran before.
// *kg.Store implements it.
type Graph interface {
	Retract(ctx context.Context, tenant string, r schemas.Retraction) ([]schemas.KGUpdate, error)
}

// Vectors deletes vectors by chunk id; an absent id is no error
// (vectors.Store).
type Vectors interface {
	Delete(ctx context.Context, tenant string, chunkIDs []string) error
}

// Stage is the retractor.
type Stage struct {
	graph   Graph
	vectors Vectors
}

// New returns the stage; both services are required.
func New(g Graph, v Vectors) (*Stage, error) {
	if g == nil || v == nil {
		return nil, errors.New("new retractor stage: graph and vector store are required")
	}
	return &Stage{graph: g, vectors: v}, nil
}

// Handler returns the stage as a pipeline.BatchHandler.
func (s *Stage) Handler() pipeline.BatchHandler { return s.Handle }

// Handle retracts each input's document in order. The graph's removal
// comes first because it reports the document's chunks; the vectors are
// deleted next, and the updates are the outputs. A crash between the two
// is repaired by the redelivery: the graph returns its stored report and
// the delete is done again. A retraction of a document the store does not
// know yields nothing.
func (s *Stage) Handle(ctx context.Context, ins []pipeline.Input) ([][]pipeline.Output, error) {
	out := make([][]pipeline.Output, len(ins))
	for i, in := range ins {
		r, ok := retractionOf(in.Msg)
		if !ok {
			return nil, pipeline.Permanentf("retract input %s at %s/%d/%d: %T is not a retraction",
				in.Meta.EventID, in.Topic, in.Partition, in.Offset, in.Msg)
		}
		if err := r.Validate(); err != nil {
			return nil, pipeline.Permanent(fmt.Errorf("retract input %s: %w", in.Meta.EventID, err))
		}
		if err := schemas.ValidID("doc_id", r.DocID); err != nil {
			return nil, pipeline.Permanent(fmt.Errorf("retract input %s: %w", in.Meta.EventID, err))
		}
		tenant := in.Tenant()
		if tenant == "" {
			tenant = schemas.DefaultTenant
		}
		ups, err := s.graph.Retract(ctx, tenant, r)
		if err != nil {
			return nil, err
		}
		for _, u := range ups {
			if u.Type == schemas.EntityDocument && len(u.RemovedChunks) > 0 {
				if err := s.vectors.Delete(ctx, tenant, u.RemovedChunks); err != nil {
					return nil, fmt.Errorf("delete the %d vectors of document %s: %w", len(u.RemovedChunks), r.DocID, err)
				}
			}
		}
		for _, u := range ups {
			out[i] = append(out[i], pipeline.Output{Topic: topology.KGUpdates, Msg: u,
				EventID: pipeline.ContentID("retract", tenant, r.DocID, u.EntityID)})
		}
	}
	return out, nil
}

func retractionOf(m schemas.Message) (schemas.Retraction, bool) {
	switch r := m.(type) {
	case schemas.Retraction:
		return r, true
	case *schemas.Retraction:
		if r != nil {
			return *r, true
		}
	}
	return schemas.Retraction{}, false
}
