package biography

import (
	"context"

	"github.com/annalist-dev/annalist/consumers/writer"
	"github.com/annalist-dev/annalist/internal/kind"
	"github.com/annalist-dev/annalist/schemas"
)

var _ kind.Planner = (*Retriever)(nil)

// Plan is the biography's kind.Planner: the reference set of the person
// the request's subject names (Retrieve). An unknown subject fails with an
// error wrapping kind.ErrUnknownSubject.
func (r *Retriever) Plan(ctx context.Context, tenant string, req schemas.Request) (*schemas.ReferenceSet, error) {
	return r.Retrieve(ctx, tenant, req.Subject)
}

// Layout is the biography's page: one section, the life in chronological
// order, the order of the drafters' plan (identity, examination, career
// and highest office, notable acts, death).
func Layout() kind.Layout {
	return kind.Layout{Sections: []kind.Section{{Name: "life", Order: "chronological"}}}
}

// Spec is the biography kind: r plans, offline drafts with the offline
// engine and llm, when not nil, with the LLM engine (it words offline's
// plan). r and offline must not be nil.
func Spec(r *Retriever, offline *writer.Offline, llm *writer.LLM) kind.Spec {
	ds := map[string]kind.Drafter{kind.EngineOffline: offline}
	if llm != nil {
		ds[kind.EngineLLM] = llm
	}
	return kind.Spec{Name: schemas.KindBiography, Planner: r, Drafters: ds, Layout: Layout()}
}
