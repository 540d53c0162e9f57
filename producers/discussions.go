package producers

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
)

// ErrDiscussionInput marks input that is not a discussion: not JSON, not
// an object with SBK and KGD, or a discussion that fails its checks. The
// API answers it with 400, the CLI with exit status 1.
var ErrDiscussionInput = errors.New("bad discussion input")

// DiscussionItem is one discussion and the event id it is published
// under.
type DiscussionItem struct {
	Discussion schemas.Discussion
	EventID    string
}

// DiscussionSink publishes discussions on the discussions topic (the App
// does).
type DiscussionSink interface {
	SendDiscussions(ctx context.Context, tenant string, items []DiscussionItem) error
}

// ReadDiscussions reads discussions in the KGDS shape (SBK, KGD, optional
// id; other fields ignored): one JSON object, a JSON array of objects, or
// JSON lines (consecutive objects). Each is checked
// (schemas.Discussion.Validate; an id of the id grammar); one without an
// id gets DiscussionID's. Errors wrap ErrDiscussionInput and name the
// record (its 1-based position in the input) that failed. The same id
// given twice with different content is refused too: one of the two
// would silently replace the other.
func ReadDiscussions(r io.Reader) ([]schemas.Discussion, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read discussions: %w", err)
	}
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, fmt.Errorf("%w: empty input, want a JSON object with SBK and KGD, an array of them or JSON lines", ErrDiscussionInput)
	}
	var raws []json.RawMessage
	if data[0] == '[' {
		if err := json.Unmarshal(data, &raws); err != nil {
			return nil, fmt.Errorf("%w: not a JSON array of discussions: %v", ErrDiscussionInput, err)
		}
	} else {
		dec := json.NewDecoder(bytes.NewReader(data))
		for {
			var raw json.RawMessage
			err := dec.Decode(&raw)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("%w: record %d is not JSON: %v", ErrDiscussionInput, len(raws)+1, err)
			}
			raws = append(raws, raw)
		}
	}
	if len(raws) == 0 {
		return nil, fmt.Errorf("%w: no discussion in the input", ErrDiscussionInput)
	}
	out := make([]schemas.Discussion, 0, len(raws))
	content := map[string]string{}
	for i, raw := range raws {
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 || raw[0] != '{' {
			return nil, fmt.Errorf("%w: record %d is not a JSON object with SBK and KGD", ErrDiscussionInput, i+1)
		}
		var d schemas.Discussion
		if err := json.Unmarshal(raw, &d); err != nil {
			return nil, fmt.Errorf("%w: record %d: %v", ErrDiscussionInput, i+1, err)
		}
		if err := CheckDiscussion(&d); err != nil {
			return nil, fmt.Errorf("%w: record %d: %v", ErrDiscussionInput, i+1, err)
		}
		h := DiscussionID(d)
		if prev, ok := content[d.ID]; ok && prev != h {
			return nil, fmt.Errorf("%w: record %d: id %q is given twice with different content", ErrDiscussionInput, i+1, d.ID)
		}
		content[d.ID] = h
		out = append(out, d)
	}
	return out, nil
}

// CheckDiscussion is what every entry point checks of a discussion: its
// structure (schemas.Discussion.Validate) and an id of the id grammar
// (schemas.ValidID), given or, when missing, DiscussionID's (set on d).
func CheckDiscussion(d *schemas.Discussion) error {
	if err := d.Validate(); err != nil {
		return err
	}
	if d.ID == "" {
		d.ID = DiscussionID(*d)
	}
	return schemas.ValidID("discussion id", d.ID)
}

// DiscussionID is the id of a discussion given without one: "d-" and the
// first 16 hex digits of the SHA-256 of its background and turns (their
// JSON), so the same discussion always gets the same id. It is the id
// `annalist summarize discussion` gives.
func DiscussionID(d schemas.Discussion) string {
	return "d-" + discussionHash(d)[:16]
}

// discussionHash is the hex SHA-256 of a discussion's background and
// turns.
func discussionHash(d schemas.Discussion) string {
	b, _ := json.Marshal(struct {
		Background []schemas.Paragraph `json:"SBK"`
		Turns      []schemas.Turn      `json:"KGD"`
	}{d.Background, d.Turns})
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// DiscussionEventID is the event id a discussion is published under:
// derived from its id and content, so publishing the same discussion
// again is skipped by the discussions stage's seen: marker, and another
// content under the same id is a new event.
func DiscussionEventID(d schemas.Discussion) string {
	return "disc-" + pipeline.ContentID(d.ID, discussionHash(d))
}

// PublishDiscussions publishes checked discussions (ReadDiscussions) on
// the sink, each under DiscussionEventID, and returns their ids in input
// order.
func PublishDiscussions(ctx context.Context, sink DiscussionSink, tenant string, ds []schemas.Discussion) ([]string, error) {
	items := make([]DiscussionItem, len(ds))
	ids := make([]string, len(ds))
	for i, d := range ds {
		if err := CheckDiscussion(&d); err != nil {
			return nil, fmt.Errorf("%w: discussion %d: %v", ErrDiscussionInput, i+1, err)
		}
		items[i] = DiscussionItem{Discussion: d, EventID: DiscussionEventID(d)}
		ids[i] = d.ID
	}
	if err := sink.SendDiscussions(ctx, tenant, items); err != nil {
		return nil, fmt.Errorf("publish %d discussions: %w", len(items), err)
	}
	return ids, nil
}
