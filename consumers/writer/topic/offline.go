package topic

import (
	"context"
	"slices"
	"sync"

	"github.com/annalist-dev/annalist/consumers/writer"
	"github.com/annalist-dev/annalist/internal/lang/quotes"
	"github.com/annalist-dev/annalist/internal/lang/text"
	"github.com/annalist-dev/annalist/internal/ports/kind"
	"github.com/annalist-dev/annalist/schemas"
)

// Item is one planned sentence of a topic page, flattened from the
// curation's outline: the section it belongs to, the extractive wording
// (a passage of the cited chunk, word for word), the chunk it cites, the
// KG fact that put it on the outline and the entity it is about. The LLM
// drafter words items; the offline drafter copies Text.
type Item struct {
	Section   string
	Text      string
	Citations []string
	Facts     []schemas.Fact
	// Entity is the entity the sentence is about and Name its name; empty
	// for a sentence about the topic itself.
	Entity string
	Name   string
	// Relation and Value are the KG fact of the item (native_place, 长洲).
	Relation string
	Value    string
	// Period is the Gregorian year the item is ordered by, 0 when unknown.
	Period int
}

// OfflineConfig configures the offline drafter. The zero value is usable.
type OfflineConfig struct {
	// MaxCopy bounds a copied passage that reaches back from the
	// evidence's sentence to the one naming the person, in characters
	// (default MaxSentenceRunes).
	MaxCopy int
}

// Offline is the topic kind's offline drafter: one sentence per outline
// item, copied from the item's chunk. It is safe for concurrent use.
type Offline struct {
	max int
	mu  sync.Mutex
	// items caches Items by reference set (writer.Fingerprint): the loop
	// asks for one sentence at a time, and the plan is the same for each.
	items map[uint64][]Item
}

// maxCached bounds the plan cache; past it the cache starts over.
const maxCached = 512

var _ kind.Drafter = (*Offline)(nil)

// NewOffline returns the offline drafter.
func NewOffline(cfg OfflineConfig) *Offline {
	if cfg.MaxCopy <= 0 {
		cfg.MaxCopy = MaxSentenceRunes
	}
	return &Offline{max: cfg.MaxCopy, items: map[uint64][]Item{}}
}

// Items flattens the outline of refs into the page's plan, in page order:
// for each item, the sentence of its chunk that holds its evidence span,
// reaching back for the person's name (see sentenceWithin: when the name
// is only in the entry's opening, the opening comes first, as a sentence
// of its own). An item whose
// chunk is not among the references, or whose sentence is already
// planned, is left out.
func (o *Offline) Items(refs *schemas.ReferenceSet) []Item {
	if refs == nil || refs.Curation == nil {
		return nil
	}
	key := writer.Fingerprint(refs)
	o.mu.Lock()
	items, ok := o.items[key]
	o.mu.Unlock()
	if ok {
		return items
	}
	items = o.plan(refs)
	o.mu.Lock()
	if len(o.items) >= maxCached {
		clear(o.items)
	}
	o.items[key] = items
	o.mu.Unlock()
	return items
}

// plan computes Items.
func (o *Offline) plan(refs *schemas.ReferenceSet) []Item {
	var out []Item
	planned := map[string]bool{}
	for _, sec := range refs.Curation.Outline {
		for _, oi := range sec.Items {
			ref, ok := refs.Reference(oi.Chunk)
			if !ok {
				continue
			}
			if oi.Relation == schemas.RelQuote {
				s := quotes.Sentence(refs.Lang, oi.Name, ref.Text)
				if !planned[s] {
					planned[s] = true
					out = append(out, Item{Section: sec.Title, Text: s, Citations: []string{oi.Chunk},
						Name: oi.Name, Relation: oi.Relation, Value: oi.Value, Period: oi.Period})
				}
				continue
			}
			var ns []string
			if oi.Name != "" {
				ns = []string{oi.Name}
			}
			ss := sentenceWithin(ref.Text, oi.Span, ns, o.max)
			for k, s := range ss {
				if s == "" || planned[s] {
					continue
				}
				planned[s] = true
				it := Item{Section: sec.Title, Text: s, Citations: []string{oi.Chunk}, Entity: oi.Entity, Name: oi.Name,
					Relation: oi.Relation, Value: oi.Value, Period: oi.Period}
				last := k == len(ss)-1
				if last && oi.Relation != "" && oi.Value != "" && oi.Span.End > oi.Span.Start {
					it.Facts = []schemas.Fact{{Text: text.Substr(ref.Text, oi.Span.Start, oi.Span.End),
						Relation: oi.Relation, Value: oi.Value, ChunkID: oi.Chunk}}
				}
				out = append(out, it)
			}
		}
	}
	return out
}

// Draft writes sentence index: the index-th item's text, citing its chunk,
// in its section. done when the plan is exhausted (an editor's added
// sentences come at indices past it and are not the drafter's).
func (o *Offline) Draft(_ context.Context, refs *schemas.ReferenceSet, _ []schemas.PageSentence, index int) (schemas.Draft, bool, error) {
	items := o.Items(refs)
	if index < 0 || index >= len(items) {
		return schemas.Draft{}, true, nil
	}
	it := items[index]
	return schemas.Draft{Subject: refs.Subject, Index: index, Text: it.Text, Citations: slices.Clone(it.Citations),
		Facts: slices.Clone(it.Facts), Engine: writer.EngineOffline, Origin: writer.OriginWriter,
		Section: it.Section}, false, nil
}
