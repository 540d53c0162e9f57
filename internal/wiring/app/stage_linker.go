package app

import (
	"context"
	"errors"
	"slices"

	"github.com/annalist-dev/annalist/consumers/linker"
	"github.com/annalist-dev/annalist/infra/kafka"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
)

// linkerStage links every chunk to the persons it names (consumers/linker),
// links stored chunks again when kg-updates bring new names or a
// decision on a mention's review, and opens a review for a mention the
// chunk cannot decide.
var linkerStage = Stage{
	Stage: topology.Stage{Name: topology.StageLinker, Reads: []string{topology.Chunks, topology.KGUpdates},
		Writes: []string{topology.KGUpdates, topology.Reviews},
		Doc:    "entity linking of every chunk against the KG's names (Aho-Corasick, a fitted mention model, corpus link priors), with bounded backfill and reviews of undecided mentions"},
	Part: PartIngest, Progress: true, Build: buildLinker,
}

func buildLinker(a *App) (pipeline.BatchHandler, error) {
	if a.KG == nil || a.Chunks == nil || a.Pages == nil {
		return nil, errors.New("linker needs redis")
	}
	st, err := linker.New(a.KG, a.Chunks, linker.Config{Eras: a.eraTable(), Reviews: a.Pages})
	if err != nil {
		return nil, err
	}
	return st.Handler(), nil
}

// RelinkDecided publishes the decision taken on a mention's review for the
// linker, which links the review's chunks again with it (a kg-update of
// type EntityReview). Other reviews need nothing: the writer reads their
// decisions when it plans a page. The event id is the review's and its
// decision's, so publishing it twice is one event.
func (a *App) RelinkDecided(ctx context.Context, tenant string, rv schemas.Review) error {
	if rv.Relation != schemas.ReviewMention || rv.Status != schemas.ReviewDecided {
		return nil
	}
	u := schemas.KGUpdate{EntityID: "review:" + rv.ReviewID, Name: rv.Subject, Type: schemas.EntityReview}
	for _, o := range rv.Options {
		if o.ChunkID != "" && !slices.Contains(u.Chunks, o.ChunkID) {
			u.Chunks = append(u.Chunks, o.ChunkID)
		}
	}
	id := "review-" + pipeline.ContentID(tenant, rv.ReviewID, rv.Decision)
	return a.Producer().Publish(ctx, kafka.Record{Topic: topology.KGUpdates, Msg: u, Meta: schemasMeta(id, tenant)})
}
