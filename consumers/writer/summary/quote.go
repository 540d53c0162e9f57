package summary

import (
	"context"
	"hash/fnv"
	"strings"

	"github.com/annalist-dev/annalist/internal/lang/quotes"
	"github.com/annalist-dev/annalist/internal/lang/text"
	"github.com/annalist-dev/annalist/internal/ports/kind"
	"github.com/annalist-dev/annalist/schemas"
)

// Option configures a Planner.
type Option func(*Planner)

// WithQuotes lets a request ask for quotations (schemas.Request.Quotes):
// q finds them, at most one for each section of the summary.
func WithQuotes(q kind.Quotes) Option {
	return func(p *Planner) { p.quotes = q }
}

// maxQueryRunes bounds the text a section's quotation is looked for
// with: the opening of its paragraphs or of its participant's turns.
const maxQueryRunes = 600

// sectionQueries are the summary's sections in page order with what each
// is about: SectionBackground and its paragraphs (when there are any),
// then each participant, in the order they first speak, and their turns.
func sectionQueries(d schemas.Discussion) (titles, queries []string) {
	if len(d.Background) > 0 {
		var b strings.Builder
		for _, p := range d.Background {
			b.WriteString(strings.TrimSpace(p.Text))
			b.WriteByte(' ')
		}
		titles = append(titles, SectionBackground)
		queries = append(queries, text.Clip(strings.TrimSpace(b.String()), maxQueryRunes))
	}
	for _, who := range d.Participants() {
		var b strings.Builder
		for _, t := range d.Turns {
			if t.Participant == who {
				b.WriteString(strings.TrimSpace(t.Utterance))
				b.WriteByte(' ')
			}
		}
		titles = append(titles, who)
		queries = append(queries, text.Clip(strings.TrimSpace(b.String()), maxQueryRunes))
	}
	return titles, queries
}

// addQuotes draws at most one quotation for each section of rs's summary
// (kind.PickQuotes, each section's query its paragraphs or its
// participant's turns), records each as a reference of rs
// (schemas.SourceQuote with its author) and places it: rs.Curation's
// outline holds, for each section given a quotation, the section's title
// and the quotation's item (kind.QuoteItem).
func (p *Planner) addQuotes(ctx context.Context, tenant string, rs *schemas.ReferenceSet) error {
	titles, queries := sectionQueries(*rs.Discussion)
	picks, err := kind.PickQuotes(ctx, p.quotes, tenant, queries, rs)
	if err != nil {
		return err
	}
	cur := &schemas.Curation{}
	for i, q := range picks {
		if q.ChunkID != "" {
			cur.Outline = append(cur.Outline, schemas.OutlineSection{Title: titles[i], Items: []schemas.OutlineItem{kind.QuoteItem(q)}})
		}
	}
	if len(cur.Outline) > 0 {
		rs.Curation = cur
	}
	return nil
}

// quoteItems are the quotations the plan placed, by section: each the
// sentence quoting its reference verbatim and attributed to its author
// (quotes.Sentence in the set's language), citing the quotation's chunk.
// A placement whose chunk is not a quotation of the set is left out.
func quoteItems(refs *schemas.ReferenceSet) map[string]Item {
	if refs == nil || refs.Curation == nil {
		return nil
	}
	out := map[string]Item{}
	for _, sec := range refs.Curation.Outline {
		for _, it := range sec.Items {
			r, ok := refs.Reference(it.Chunk)
			if it.Relation != schemas.RelQuote || !ok || r.Author == "" {
				continue
			}
			if _, had := out[sec.Title]; !had {
				out[sec.Title] = Item{Section: sec.Title, Text: quotes.Sentence(refs.Lang, r.Author, r.Text),
					Citations: []string{r.ChunkID}}
			}
		}
	}
	return out
}

// placeQuotes puts each section's quotation after the section's last
// item. The items hold each section's sentences together; a section
// without a sentence gets no quotation.
func placeQuotes(items []Item, qs map[string]Item) []Item {
	if len(qs) == 0 {
		return items
	}
	out := make([]Item, 0, len(items)+len(qs))
	for i, it := range items {
		out = append(out, it)
		if i+1 < len(items) && items[i+1].Section == it.Section {
			continue
		}
		if q, ok := qs[it.Section]; ok {
			out = append(out, q)
		}
	}
	return out
}

// planKey identifies a summary's plan: its discussion and the quotations
// placed in it.
func planKey(refs *schemas.ReferenceSet) uint64 {
	k := fingerprint(refs.Discussion)
	if refs.Curation == nil {
		return k
	}
	h := fnv.New64a()
	for _, sec := range refs.Curation.Outline {
		for _, it := range sec.Items {
			r, _ := refs.Reference(it.Chunk)
			for _, s := range []string{sec.Title, it.Chunk, r.Author, r.Text} {
				h.Write([]byte(s))
				h.Write([]byte{0})
			}
		}
	}
	return k ^ h.Sum64()
}
