package summary

import (
	"context"
	"errors"
	"hash/fnv"
	"slices"
	"strconv"
	"sync"

	"github.com/annalist-dev/annalist/consumers/writer"
	"github.com/annalist-dev/annalist/internal/lang/en/discourse"
	"github.com/annalist-dev/annalist/internal/ports/kind"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
)

// Item is one planned sentence of a summary: its section
// (SectionBackground or a participant), its text, the references it cites
// (paragraph or turn ids, or a quotation's chunk) and, for an opinion,
// the background entities it names by canonical name.
type Item struct {
	Section   string
	Text      string
	Citations []string
	Entities  []string
}

// Offline is the kind's offline drafter: discourse.Summarize's summary, one
// sentence at a time. Safe for concurrent use.
type Offline struct {
	mu sync.Mutex
	// items caches Items by discussion (fingerprint): the loop asks for
	// one sentence at a time, and the summary is the same for each.
	items map[uint64][]Item
}

// maxCached bounds the plan caches; past it a cache starts over.
const maxCached = 512

var _ kind.Drafter = (*Offline)(nil)

// NewOffline returns the offline drafter.
func NewOffline() *Offline { return &Offline{items: map[uint64][]Item{}} }

// errNoDiscussion is the error of a reference set that is not a
// discussion's: the planner of another kind made it, a wiring error no
// retry mends.
var errNoDiscussion = errors.New("the reference set holds no discussion")

// Items is the summary of refs' discussion in page order: the background
// sentences (SectionBackground, citing their paragraph), then each
// participant's opinions in the order the participants first speak
// (section the participant, citing their turn, with their entities),
// each section ending with the quotation the plan placed in it, if any
// (quotes.Sentence, citing the quotation). Computed once per discussion.
func (o *Offline) Items(refs *schemas.ReferenceSet) []Item {
	if refs == nil || refs.Discussion == nil {
		return nil
	}
	return placeQuotes(o.summary(refs), quoteItems(refs))
}

// summary is Plan of refs' discussion, cached by its fingerprint.
func (o *Offline) summary(refs *schemas.ReferenceSet) []Item {
	key := fingerprint(refs.Discussion)
	o.mu.Lock()
	items, ok := o.items[key]
	o.mu.Unlock()
	if ok {
		return items
	}
	items = Plan(*refs.Discussion)
	o.mu.Lock()
	if len(o.items) >= maxCached {
		clear(o.items)
	}
	o.items[key] = items
	o.mu.Unlock()
	return items
}

// Plan is the offline summary of d (discourse.Summarize) as the page's items.
func Plan(d schemas.Discussion) []Item {
	s := discourse.Summarize(d)
	var out []Item
	for _, b := range s.Background.Sentences {
		it := Item{Section: SectionBackground, Text: b.Text}
		for _, c := range b.Citations {
			it.Citations = appendOnce(it.Citations, schemas.ParagraphRef(d.ID, c.Paragraph))
		}
		out = append(out, it)
	}
	for _, o := range s.Opinions {
		for _, op := range o.Sentences {
			it := Item{Section: o.Participant, Text: op.Text, Entities: slices.Clone(op.Entities)}
			for _, c := range op.Citations {
				it.Citations = appendOnce(it.Citations, schemas.TurnRef(d.ID, c.Turn))
			}
			out = append(out, it)
		}
	}
	return out
}

// Draft writes sentence index: the index-th item, done past the last. A
// reference set without a discussion is a permanent error.
func (o *Offline) Draft(_ context.Context, refs *schemas.ReferenceSet, _ []schemas.PageSentence, index int) (schemas.Draft, bool, error) {
	if refs == nil || refs.Discussion == nil {
		return schemas.Draft{}, false, pipeline.Permanent(errNoDiscussion)
	}
	items := o.Items(refs)
	if index < 0 || index >= len(items) {
		return schemas.Draft{}, true, nil
	}
	return items[index].draft(refs, index, writer.EngineOffline), false, nil
}

// draft is the item as sentence index of refs' page, written by engine.
func (it Item) draft(refs *schemas.ReferenceSet, index int, engine string) schemas.Draft {
	return schemas.Draft{Subject: refs.Subject, Index: index, Text: it.Text, Citations: slices.Clone(it.Citations),
		Engine: engine, Origin: writer.OriginWriter, Section: it.Section, Entities: slices.Clone(it.Entities)}
}

// fingerprint identifies a discussion by its content (FNV-1a over its id,
// paragraphs and turns).
func fingerprint(d *schemas.Discussion) uint64 {
	h := fnv.New64a()
	w := func(ss ...string) {
		for _, s := range ss {
			h.Write([]byte(s))
			h.Write([]byte{0})
		}
	}
	w(d.ID)
	for _, p := range d.Background {
		w(strconv.Itoa(p.Index), p.Text)
	}
	w("turns")
	for _, t := range d.Turns {
		w(t.Participant, t.Utterance)
	}
	return h.Sum64()
}

func appendOnce(xs []string, x string) []string {
	if slices.Contains(xs, x) {
		return xs
	}
	return append(xs, x)
}
