package app

import (
	"errors"

	"github.com/annalist-dev/annalist/consumers/retractor"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/topology"
)

// retractorStage removes retracted and superseded document versions from
// the graph, the chunk store and the vector store (consumers/retractor)
// and announces what changed.
var retractorStage = Stage{
	Stage: topology.Stage{Name: topology.StageRetractor, Reads: []string{topology.Retractions},
		Writes: []string{topology.KGUpdates},
		Doc:    "atomic per-document removal of retracted versions: chunks, mentions, links, edges, aliases, vectors"},
	Part: PartIngest, Needs: Needs{Vectors: true}, Build: buildRetractor,
}

func buildRetractor(a *App) (pipeline.BatchHandler, error) {
	if a.KG == nil {
		return nil, errors.New("retractor needs redis")
	}
	if a.Vectors == nil {
		return nil, errors.New("retractor needs a vector store")
	}
	st, err := retractor.New(a.KG, a.Vectors)
	if err != nil {
		return nil, err
	}
	return st.Handler(), nil
}
