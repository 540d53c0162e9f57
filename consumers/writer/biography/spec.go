package biography

import (
	"context"

	"github.com/annalist-dev/annalist/consumers/writer"
	"github.com/annalist-dev/annalist/internal/ports/kind"
	"github.com/annalist-dev/annalist/schemas"
)

var _ kind.Planner = (*Retriever)(nil)

// Plan is the biography's kind.Planner: the reference set of the person
// the request's subject names (Retrieve). An unknown subject fails with an
// error wrapping kind.ErrUnknownSubject.
func (r *Retriever) Plan(ctx context.Context, tenant string, req schemas.Request) (*schemas.ReferenceSet, error) {
	return r.Retrieve(ctx, tenant, req.Subject)
}

// Layout is the biography's page: the life in chronological order (the
// order of the drafters' plan: identity, examination, career and highest
// office, notable acts and the passages of other documents their text
// dates, death), then, when other documents say of the person what they
// do not date, a part for that evidence. A page without such a part has
// one section and names none; one with it names both on every sentence
// (Draft.Section), and the assembler groups them into Page.Sections.
func Layout() kind.Layout {
	return kind.Layout{Sectioned: true, Sections: []kind.Section{
		{Name: "life", Order: "chronological"},
		{Name: "other documents", Order: "the documents' order"}}}
}

// MaxSentences is the writer's bound on a biography: far beyond what any
// plan holds. The planner budgets a page by its evidence (the entry's
// length, the passages of other documents about the person); the bound
// only keeps a request from looping, it never shuts evidence out.
const MaxSentences = 400

// Spec is the biography kind: r plans, offline drafts with the offline
// engine and llm, when not nil, with the LLM engine (it words offline's
// plan). r and offline must not be nil.
func Spec(r *Retriever, offline *writer.Offline, llm *writer.LLM) kind.Spec {
	ds := map[string]kind.Drafter{kind.EngineOffline: offline}
	if llm != nil {
		ds[kind.EngineLLM] = llm
	}
	return kind.Spec{Name: schemas.KindBiography, Planner: r, Drafters: ds, Layout: Layout(),
		MaxSentences: MaxSentences}
}
