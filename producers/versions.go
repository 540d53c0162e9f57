package producers

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/annalist-dev/annalist/schemas"
)

// What VersionStore.ClaimVersion decided for a document.
const (
	// ClaimNew: the id was free and is now the current version of its key;
	// the other value names the version it supersedes, if any.
	ClaimNew = "new"
	// ClaimSame: the id holds this text already. Nothing is published; the
	// other value names a version it superseded whose retraction is not
	// marked yet (an earlier run stopped between the two), if any.
	ClaimSame = "same"
	// ClaimConflict: the id is bound to another text (the other value is
	// that text's hash).
	ClaimConflict = "conflict"
	// ClaimRetracted: the id was retracted and stays so.
	ClaimRetracted = "retracted"
)

// VersionStore binds document ids to their text and keys to their current
// version; *redis.Chunks implements it.
type VersionStore interface {
	// ClaimVersion decides, in one step, what a document of id docID,
	// version key and text hash is: ClaimNew, ClaimSame, ClaimConflict or
	// ClaimRetracted, with the other value each documents.
	ClaimVersion(ctx context.Context, tenant, docID, key, textHash string) (status, other string, err error)
	// ReleaseVersion undoes a ClaimNew of a document that was never
	// published, restoring its key's previous version.
	ReleaseVersion(ctx context.Context, tenant, docID, textHash string) error
}

// RetractStore marks documents retracted; *redis.Chunks implements it.
type RetractStore interface {
	// CurrentVersion is the current document id of a version key, "" when
	// the key is unknown.
	CurrentVersion(ctx context.Context, tenant, key string) (string, error)
	// MarkRetracted sets r as the retraction mark of document r.DocID
	// unless it has one, and returns the mark it holds (the earlier one
	// when it was retracted before); found is false for an unknown
	// document, which is left unknown.
	MarkRetracted(ctx context.Context, tenant string, r schemas.Retraction) (mark schemas.Retraction, found bool, err error)
}

// RetractionPublisher publishes a Retraction on the retractions topic.
type RetractionPublisher interface {
	PublishRetraction(ctx context.Context, tenant string, r schemas.Retraction) error
}

// ErrUnknownDocument is returned by Retract for a name that is neither a
// document id nor a version key of the tenant.
var ErrUnknownDocument = errors.New("unknown document")

// Retract retracts a document named by its id or by its version key (the
// source; the key's current version is retracted). The mark is set before
// the Retraction is published, so every stage still holding some of the
// document's work skips it. A document retracted before is published
// again with its first mark: a retraction whose publishing failed is
// completed by asking again, and the retractor makes the same changes
// once.
func Retract(ctx context.Context, store RetractStore, pub RetractionPublisher, tenant, idOrKey string, now time.Time) (schemas.Retraction, error) {
	at := now.UTC().Format(time.RFC3339)
	r := schemas.Retraction{DocID: idOrKey, Reason: schemas.RetractRetracted, At: at}
	var mark schemas.Retraction
	found := false
	if schemas.ValidID("doc_id", idOrKey) == nil {
		var err error
		if mark, found, err = store.MarkRetracted(ctx, tenant, r); err != nil {
			return schemas.Retraction{}, err
		}
	}
	if !found {
		id, err := store.CurrentVersion(ctx, tenant, idOrKey)
		if err != nil {
			return schemas.Retraction{}, err
		}
		if id == "" {
			return schemas.Retraction{}, fmt.Errorf("%w: %q is neither a document id nor a source of tenant %s", ErrUnknownDocument, idOrKey, tenant)
		}
		r.DocID = id
		if mark, found, err = store.MarkRetracted(ctx, tenant, r); err != nil {
			return schemas.Retraction{}, err
		}
		if !found {
			return schemas.Retraction{}, fmt.Errorf("%w: source %q names document %s, which is not stored", ErrUnknownDocument, idOrKey, id)
		}
	}
	if err := pub.PublishRetraction(ctx, tenant, mark); err != nil {
		return mark, fmt.Errorf("publish the retraction of %s: %w", mark.DocID, err)
	}
	return mark, nil
}

// Versioned is a Sink that accepts documents as versions of their keys
// (Item.Key) before passing them on: a new text of a key is published
// with Supersedes naming the version it replaces, and that version is
// then marked retracted and its Retraction published (after the new
// document is acknowledged, so a reader never sees a key with no version
// on the way); the same text again publishes nothing; an id bound to
// another text is a conflict (ErrConflict) and a retracted id stays
// retracted (ErrConflict too: the text was withdrawn on purpose).
type Versioned struct {
	Sink      Sink
	Versions  VersionStore
	Retracts  RetractStore
	Publisher RetractionPublisher
	// Now stamps retractions; nil means time.Now.
	Now func() time.Time
	// Refused, when set, is told of each document refused (conflict,
	// retracted) and the others go on: a directory with one withdrawn file
	// is still ingested. When nil, the first refusal fails the call and
	// nothing of it is published, what an HTTP client posting one request
	// expects.
	Refused func(Item, error)
	// Published, when set, is told of each document published and each
	// version retracted, for the caller's summary.
	Published func(it Item, supersedes string)
}

// Send implements Sink.
func (v Versioned) Send(ctx context.Context, tenant string, items []Item) (err error) {
	type claim struct{ id, hash string }
	var made []claim
	defer func() {
		if err == nil {
			return
		}
		// Nothing of the call was published: its claims would otherwise
		// hold ids (and move keys) for documents nobody will see.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		for i := len(made) - 1; i >= 0; i-- {
			_ = v.Versions.ReleaseVersion(rctx, tenant, made[i].id, made[i].hash)
		}
	}()
	hashes := map[string]string{}
	var send []Item
	type supersession struct {
		old string
		by  Item
	}
	var retract []supersession
	for _, it := range items {
		id, h := it.Doc.DocID, schemas.TextHash(it.Doc.Text)
		key := it.Key
		if key == "" {
			key = id
		}
		if prev, ok := hashes[id]; ok {
			if prev != h {
				return fmt.Errorf("%w: doc_id %q is given twice with different texts", ErrConflict, id)
			}
			continue
		}
		hashes[id] = h
		status, other, err := v.Versions.ClaimVersion(ctx, tenant, id, key, h)
		if err != nil {
			return err
		}
		var refusal error
		switch status {
		case ClaimNew:
			made = append(made, claim{id, h})
			it.Doc.Supersedes = other
			send = append(send, it)
			if other != "" {
				retract = append(retract, supersession{other, it})
			}
		case ClaimSame:
			if other != "" {
				retract = append(retract, supersession{other, it})
			}
		case ClaimConflict:
			refusal = fmt.Errorf("%w: doc_id %q already holds another text (a document is not overwritten; post the new text under another id, or under the same source without an id to supersede it)",
				ErrConflict, id)
		case ClaimRetracted:
			refusal = fmt.Errorf("%w: document %q was retracted and stays retracted; post the text under another source or id to ingest it again",
				ErrConflict, id)
		default:
			return fmt.Errorf("claim document %s: unknown answer %q", id, status)
		}
		if refusal != nil {
			if v.Refused == nil {
				return refusal
			}
			v.Refused(it, refusal)
		}
	}
	if len(send) > 0 {
		if err := v.Sink.Send(ctx, tenant, send); err != nil {
			return err
		}
	}
	made = nil
	if v.Published != nil {
		for _, it := range send {
			v.Published(it, it.Doc.Supersedes)
		}
	}
	now := time.Now
	if v.Now != nil {
		now = v.Now
	}
	for _, s := range retract {
		r := schemas.Retraction{DocID: s.old, Source: s.by.Doc.Source, Reason: schemas.RetractSuperseded,
			SupersededBy: s.by.Doc.DocID, At: now().UTC().Format(time.RFC3339)}
		mark, found, err := v.Retracts.MarkRetracted(ctx, tenant, r)
		if err != nil {
			return fmt.Errorf("retract %s, superseded by %s: %w", s.old, s.by.Doc.DocID, err)
		}
		if !found {
			// The old version is gone from the store (it was never
			// chunked and its claim was released): nothing to retract.
			continue
		}
		if err := v.Publisher.PublishRetraction(ctx, tenant, mark); err != nil {
			return fmt.Errorf("publish the retraction of %s, superseded by %s: %w", s.old, s.by.Doc.DocID, err)
		}
	}
	return nil
}
