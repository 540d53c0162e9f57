package producers

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
)

// MaxDocumentBytes bounds one document. Larger inputs are refused with an
// error naming the file, not truncated: a silently cut document would lose
// text.
const MaxDocumentBytes = 8 << 20

// ErrInput marks input that can never become a document (not UTF-8, empty,
// too large, malformed JSON); callers report it and go on with the rest.
var ErrInput = errors.New("bad input")

// Sink receives documents to publish. The kafka producer implements it in
// the CLI wiring; tests use a slice.
type Sink interface {
	Send(ctx context.Context, tenant string, docs []Item) error
}

// Item is one document and the event id it is published under.
type Item struct {
	Doc     schemas.Document
	EventID string
	// Key is the document's version key: the source its sender named
	// (a file's path under the ingest root, the "source" field over HTTP
	// and JSONL), or its own id when it was named none. A later document
	// of the same key with other text supersedes this one (Versioned).
	Key string
}

// NewItem validates doc (size, the text rule of CheckText, a known
// profile, an id of the project's grammar, schemas.ValidID), fills a
// stable id when it has none, and derives the event id from id and
// content. Every source makes its items here, so a document refused over
// HTTP is refused by the CLI for the same reason and with the same words.
func NewItem(doc schemas.Document) (Item, error) {
	if len(doc.Text) > MaxDocumentBytes {
		return Item{}, fmt.Errorf("%w: document %q is %d bytes, the limit is %d", ErrInput, nameOf(doc), len(doc.Text), MaxDocumentBytes)
	}
	if err := CheckText(nameOf(doc), doc.Text); err != nil {
		return Item{}, err
	}
	if strings.TrimSpace(doc.Text) == "" {
		return Item{}, fmt.Errorf("%w: document %q has no text", ErrInput, nameOf(doc))
	}
	if err := CheckProfile(doc.Profile); err != nil {
		return Item{}, fmt.Errorf("%w (document %q)", err, nameOf(doc))
	}
	if doc.DocID == "" {
		doc.DocID = DocID(doc.Source, doc.Text)
	}
	if err := schemas.ValidID("doc_id", doc.DocID); err != nil {
		return Item{}, fmt.Errorf("%w: %w", ErrInput, err)
	}
	if err := doc.Validate(); err != nil {
		return Item{}, fmt.Errorf("%w: %w", ErrInput, err)
	}
	key := doc.Source
	if key == "" {
		key = doc.DocID
	}
	return Item{Doc: doc, EventID: "doc-" + pipeline.ContentID(doc.DocID, doc.Profile, doc.Collection, doc.Text), Key: key}, nil
}

func nameOf(d schemas.Document) string {
	if d.Source != "" {
		return d.Source
	}
	return d.DocID
}

// DocID is the stable id of one version of a source: a readable slug of
// the source's base name and a hash of the source and the content. The
// same content from the same source always gets the same id (re-ingesting
// is a no-op); the same content from two sources gets two ids, because
// each source versions and retracts its documents on its own, and one
// shared id would tie the two histories together.
func DocID(source, text string) string {
	base := filepath.Base(source)
	base = strings.TrimSuffix(base, filepath.Ext(base))
	slug := slugify(base)
	h := pipeline.ContentID(text)[:12]
	if source != "" {
		h = pipeline.ContentID(source, text)[:12]
	}
	if slug == "" {
		return h
	}
	return slug + "-" + h
}

// slugify keeps letters (any script), digits, '-' and '_', at most 32 runes.
func slugify(s string) string {
	var b strings.Builder
	n := 0
	for _, r := range s {
		if n == 32 {
			break
		}
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ' || r == '.':
			b.WriteRune('-')
		default:
			continue
		}
		n++
	}
	return strings.Trim(b.String(), "-")
}
