// Package discussions is the discussions stage: it reads the discussions
// topic (a news discussion: background paragraphs and the participants'
// turns, KGDS), stores each discussion where the discussion_summary
// kind's planner reads it, sends every background paragraph into
// ingestion as a document (chunks, entity linking, the KG, scoped to the
// discussion by its collection), and asks for the discussion's summary
// with a generation request.
//
// Idempotent: the store is an upsert by discussion id, the documents'
// ids and event ids are derived from the discussion id, the paragraph's
// index and its text, and the request's id and event id from the
// discussion's content, so a redelivered discussion publishes the same
// messages under the same ids (the next stages' seen: markers drop them).
// A discussion sent again under the same id with other content replaces
// the stored one and asks for a new summary, which becomes the next
// version of the discussion's page.
package discussions

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
)

// Store keeps discussions by id; *infra/discussionstore.Store implements it.
type Store interface {
	// Put stores d, replacing a discussion of the same id, and says
	// whether the store held exactly d already.
	Put(ctx context.Context, tenant string, d schemas.Discussion) (same bool, err error)
}

// Requests accepts a generation request before it is published: it
// checks it against the registered kinds (an error wrapping
// schemas.ErrInvalid when the kind is not served, which dead-letters the
// discussion) and records it queued with its deadline, so the request is
// followed like one from the API. Recording the same request again must
// change nothing.
type Requests interface {
	Accept(ctx context.Context, tenant string, r schemas.Request) error
}

// Collection is the collection of a discussion's paragraph documents:
// "discussion:<id>".
func Collection(id string) string { return "discussion:" + id }

// Source is the version key of a paragraph's document:
// "discussions/<id>/p<index>".
func Source(id string, index int) string { return fmt.Sprintf("discussions/%s/p%d", id, index) }

// Stage is the discussions stage.
type Stage struct {
	store    Store
	requests Requests
	now      func() time.Time
}

// New returns the stage; both services are required.
func New(store Store, requests Requests) (*Stage, error) {
	if store == nil || requests == nil {
		return nil, errors.New("new discussions stage: a store and a request recorder are required")
	}
	return &Stage{store: store, requests: requests, now: time.Now}, nil
}

// Handler returns the stage as a pipeline.Handler.
func (s *Stage) Handler() pipeline.Handler { return s.Handle }

// Handle stores one discussion and returns its paragraphs as documents
// and its summary request. An input that is not a valid discussion with
// an id is permanent (dead-lettered with the reason); a store that fails
// is transient.
func (s *Stage) Handle(ctx context.Context, in pipeline.Input) ([]pipeline.Output, error) {
	d, ok := pipeline.As[schemas.Discussion](in.Msg)
	if !ok {
		return nil, pipeline.Permanentf("discussion input %s at %s/%d/%d: %T is not a discussion",
			in.Meta.EventID, in.Topic, in.Partition, in.Offset, in.Msg)
	}
	if err := check(d); err != nil {
		return nil, pipeline.Permanent(fmt.Errorf("discussion input %s (id %q): %w", in.Meta.EventID, d.ID, err))
	}
	tenant := in.Tenant()
	if tenant == "" {
		tenant = schemas.DefaultTenant
	}
	req := Request(d)
	req.RequestedAt = s.now().UTC().Format(time.RFC3339Nano)
	if err := s.requests.Accept(ctx, tenant, req); err != nil {
		if errors.Is(err, schemas.ErrInvalid) {
			return nil, pipeline.Permanent(fmt.Errorf("discussion %s: its summary request: %w", d.ID, err))
		}
		return nil, fmt.Errorf("discussion %s: record its summary request %s: %w", d.ID, req.RequestID, err)
	}
	if _, err := s.store.Put(ctx, tenant, d); err != nil {
		return nil, fmt.Errorf("discussion %s: %w", d.ID, err)
	}
	out := make([]pipeline.Output, 0, len(d.Background)+1)
	for _, doc := range Documents(d) {
		out = append(out, pipeline.Output{Topic: topology.Documents, Msg: doc,
			EventID: "doc-" + pipeline.ContentID(doc.DocID, doc.Profile, doc.Collection, doc.Text)})
	}
	// The request goes last: its page is planned from the stored
	// discussion, which is there once this handler returned.
	out = append(out, pipeline.Output{Topic: topology.Requests, Msg: req, EventID: req.RequestID})
	return out, nil
}

// check is what the stage requires of a discussion: its structure and an
// id of the id grammar (the edges give one to a discussion without).
func check(d schemas.Discussion) error {
	if d.ID == "" {
		return fmt.Errorf("%w: discussion has no id", schemas.ErrInvalid)
	}
	if err := schemas.ValidID("discussion id", d.ID); err != nil {
		return err
	}
	if err := d.Validate(); err != nil {
		return err
	}
	for _, p := range d.Background {
		if !utf8.ValidString(p.Text) {
			return fmt.Errorf("%w: paragraph %d is not UTF-8", schemas.ErrInvalid, p.Index)
		}
	}
	return nil
}

// Documents are a discussion's background paragraphs as documents, in
// order: collection Collection(id), language English, source
// Source(id, index), and an id stable for the discussion, the index and
// the text ("disc-<id>-p<index>-<hash>"), so the same paragraph is the
// same document and an edited one a new document.
func Documents(d schemas.Discussion) []schemas.Document {
	out := make([]schemas.Document, 0, len(d.Background))
	for _, p := range d.Background {
		id := fmt.Sprintf("disc-%s-p%d-%s", d.ID, p.Index, pipeline.ContentID(d.ID, fmt.Sprint(p.Index), p.Text)[:12])
		out = append(out, schemas.Document{DocID: id, Source: Source(d.ID, p.Index),
			Title:      fmt.Sprintf("Discussion %s, paragraph %d", d.ID, p.Index),
			Collection: Collection(d.ID), Lang: "en", Text: p.Text,
			Metadata: map[string]string{"discussion": d.ID, "paragraph_index": fmt.Sprint(p.Index)}})
	}
	return out
}

// Request is the discussion's summary request: kind discussion_summary,
// subject the discussion id, and an id derived from the discussion's
// content ("rd-<hash>"), the same on every delivery of the same
// discussion and another for other content under the same id.
func Request(d schemas.Discussion) schemas.Request {
	b, _ := json.Marshal(struct {
		ID         string              `json:"id"`
		Background []schemas.Paragraph `json:"SBK"`
		Turns      []schemas.Turn      `json:"KGD"`
	}{d.ID, d.Background, d.Turns})
	h := sha256.Sum256(b)
	return schemas.Request{RequestID: "rd-" + hex.EncodeToString(h[:12]), Kind: schemas.KindDiscussionSummary,
		Subject: d.ID, Reason: schemas.RequestUser}
}
