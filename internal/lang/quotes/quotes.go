package quotes

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"strings"

	"github.com/annalist-dev/annalist/internal/lang/wordlist"
)

// Collection and Profile name quotation documents; HeadType is the KG
// entity type of a tag and RelSaid the relation from an author to the
// words of a quotation.
const (
	Collection = "quotes"
	Profile    = "quotes"
	HeadType   = "topic"
	RelSaid    = "said"
)

// Metadata keys of a quotation document.
const (
	MetaAuthor = "author"
	MetaID     = "quote_id"
)

// TagSeparator joins the tags in a quotation's title; a tag may not hold
// it.
const TagSeparator = " · "

//go:embed data/*.txt
var dataFiles embed.FS

var words = wordlist.New(dataFiles, "data", "quotes")

// Record is one quotation of the quotable format.
type Record struct {
	ID      string   `json:"_id"`
	Content string   `json:"content"`
	Author  string   `json:"author"`
	Tags    []string `json:"tags"`
}

// ErrRecord marks a record that cannot be a quotation.
var ErrRecord = errors.New("bad quotation")

// Parse reads a quotable file: a JSON array of records. A file that is
// not such an array is an error; the records are not checked (Check).
func Parse(r io.Reader) ([]Record, error) {
	var recs []Record
	dec := json.NewDecoder(r)
	if err := dec.Decode(&recs); err != nil {
		return nil, fmt.Errorf("read quotations: want a JSON array of {content, author, tags}: %w", err)
	}
	if dec.More() {
		return nil, errors.New("read quotations: text after the JSON array")
	}
	return recs, nil
}

// Check says why a record cannot be published: no content, no author, or
// a blank tag or one holding TagSeparator.
func (r Record) Check() error {
	switch {
	case strings.TrimSpace(r.Content) == "":
		return fmt.Errorf("%w %s: no content", ErrRecord, r.name())
	case strings.TrimSpace(r.Author) == "":
		return fmt.Errorf("%w %s: no author", ErrRecord, r.name())
	}
	for _, t := range r.Tags {
		if strings.TrimSpace(t) == "" || strings.Contains(t, TagSeparator) || strings.Contains(t, "\n") {
			return fmt.Errorf("%w %s: tag %q is blank or holds %q", ErrRecord, r.name(), t, TagSeparator)
		}
	}
	return nil
}

func (r Record) name() string {
	if r.ID != "" {
		return fmt.Sprintf("%q", r.ID)
	}
	return fmt.Sprintf("by %q", r.Author)
}

// Title is the title of a quotation's document and chunk: its author,
// then its tags ("Albert Camus: Inspirational · Life").
func Title(author string, tags []string) string {
	author = strings.TrimSpace(author)
	if len(tags) == 0 {
		return author
	}
	return author + ": " + strings.Join(tags, TagSeparator)
}

// TagsOf reads the tags back from the title of a chunk whose subject is
// author; none when the title is not of that author.
func TagsOf(author, title string) []string {
	rest, ok := strings.CutPrefix(title, strings.TrimSpace(author)+": ")
	if !ok || rest == "" {
		return nil
	}
	return strings.Split(rest, TagSeparator)
}

// HeldOut reports whether the quotation with this id belongs to the fifth
// of the collection kept back for evaluation: an FNV hash of the id, so
// the split is fixed by the ids alone.
func HeldOut(id string) bool {
	h := fnv.New32a()
	h.Write([]byte(id))
	return h.Sum32()%5 == 0
}

// DevSplitID is the id whose HeldOut says whether a development quotation
// (HeldOut(id) false) belongs to the fifth of the development quotations
// an evaluation ingests without their tags, the development image of the
// held-out split: an FNV hash of the id and a suffix, independent of
// HeldOut's.
func DevSplitID(id string) string { return id + "/dev" }
