package app

import (
	"context"
	"errors"
	"time"

	"github.com/annalist-dev/annalist/infra/kafka"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/producers"
	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
)

// Retract retracts a document of the tenant named by its id or its source
// (the source's current version): it sets the retraction mark, then
// publishes the Retraction the retractor stage acts on. A document
// retracted before is published again with its first mark, so asking
// twice is harmless and completes a retraction whose publishing failed.
// An unknown name is an error wrapping producers.ErrUnknownDocument.
// The API (DELETE /v1/documents/{id}) and `annalist retract` call it.
func (a *App) Retract(ctx context.Context, tenant, docIDOrSource string) (schemas.Retraction, error) {
	if a.Chunks == nil {
		return schemas.Retraction{}, errors.New("retract: no document store")
	}
	return producers.Retract(ctx, a.Chunks, a, tenant, docIDOrSource, time.Now())
}

// PublishRetraction publishes r on the retractions topic, keyed by its
// document. The event id is the document's: a retraction published twice
// is one event downstream (the retractor's work is idempotent anyway).
func (a *App) PublishRetraction(ctx context.Context, tenant string, r schemas.Retraction) error {
	id := "retract-" + pipeline.ContentID(tenant, r.DocID)
	return a.Producer().Publish(ctx, kafka.Record{Topic: topology.Retractions, Msg: r, Meta: schemasMeta(id, tenant)})
}

// Versions is the ingest path's sink (producers.Versioned over Send):
// documents are accepted as versions of their sources, a new text of a
// source supersedes the version before it (whose Retraction is published
// after the new document), and the same text again publishes nothing.
// refused, when set, is told of each document refused (a retracted id, an
// id bound to another text) and the rest go on; when nil the first
// refusal fails the call.
func (a *App) Versions(refused func(producers.Item, error)) producers.Sink {
	if a.Chunks == nil {
		return sinkFunc(a.Send)
	}
	return producers.Versioned{Sink: sinkFunc(a.Send), Versions: a.Chunks, Retracts: a.Chunks,
		Publisher: a, Refused: refused}
}

// SendVersions sends items through Versions, failing on the first
// refusal: what one HTTP request expects.
func (a *App) SendVersions(ctx context.Context, tenant string, items []producers.Item) error {
	return a.Versions(nil).Send(ctx, tenant, items)
}
