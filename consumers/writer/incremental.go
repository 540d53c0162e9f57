package writer

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/annalist-dev/annalist/internal/ports/genmem"
	"github.com/annalist-dev/annalist/schemas"
)

// ParamIncremental is the request parameter that turns incremental
// regeneration off: "false" redrafts and verifies every sentence even
// when the page exists (a user who wants the page written afresh).
const ParamIncremental = "incremental"

// Counters of an incremental regeneration (genmem counters, so the page's
// Stats carry them).
const (
	CounterKept      = "kept"
	CounterRewritten = "rewritten"
	CounterAdded     = "added"
	CounterRemoved   = "removed"
)

// PageSource gives the current page of a kind about a subject, the version
// an incremental regeneration starts from (pages.Store).
type PageSource interface {
	CurrentOf(ctx context.Context, tenant, kind, subject string) (schemas.Page, error)
}

// WithPrevious makes the loop regenerate incrementally: a request of a
// kind and subject that already has a page in src, and every scheduler's
// regeneration (Request.Trigger set), keeps the previous version's
// sentences that still stand instead of verifying them again, unless its
// Params[ParamIncremental] is "false". missing tells the error src gives
// for a page that does not exist from a fault. It returns l.
func (l *Loop) WithPrevious(src PageSource, missing func(error) bool) *Loop {
	l.pages, l.missing = src, missing
	return l
}

// previous reads the page version request r regenerates, the page of its
// kind about the subject's canonical name (the page store keys pages by
// it, whatever name the request used). ok=false when r is written afresh;
// a regeneration by the scheduler whose page is gone is incremental with
// nothing to keep, so its stats still say what it did.
func (l *Loop) previous(ctx context.Context, tenant string, r schemas.Request, refs *schemas.ReferenceSet) ([]schemas.PageSentence, bool, error) {
	if l.pages == nil || r.Params[ParamIncremental] == "false" {
		return nil, false, nil
	}
	name := refs.Name
	if name == "" {
		name = r.Subject
	}
	p, err := l.pages.CurrentOf(ctx, tenant, r.Kind, name)
	switch {
	case err == nil:
		return p.Sentences, true, nil
	case l.missing != nil && l.missing(err):
		return nil, r.Trigger != nil, nil
	default:
		return nil, false, fmt.Errorf("read the current %s of %q: %w", r.Kind, name, err)
	}
}

// regeneration is what the loop knows of an incremental regeneration at
// one step: the previous version's sentences and what was made of them,
// and the chunks and facts of the new reference set.
type regeneration struct {
	prev   []genmem.Previous
	chunks map[string]bool
	facts  map[factKey]bool
}

type factKey struct{ relation, value string }

func newRegeneration(refs *schemas.ReferenceSet, prev []genmem.Previous) *regeneration {
	g := &regeneration{prev: prev, chunks: map[string]bool{}, facts: map[factKey]bool{}}
	for _, r := range refs.References {
		g.chunks[r.ChunkID] = true
	}
	for _, f := range refs.Facts {
		g.facts[factKey{f.Relation, f.Value}] = true
	}
	// A topic page's sentences state facts of the people its curation
	// reached (a native's native_place): the outline's items are those
	// facts, each from a chunk the chunk check above covers.
	if c := refs.Curation; c != nil {
		for _, sec := range c.Outline {
			for _, it := range sec.Items {
				if it.Relation != "" {
					g.facts[factKey{it.Relation, it.Value}] = true
				}
			}
		}
	}
	return g
}

// regenerationOf is the regeneration the request's state stands in, nil
// when the request writes its page afresh (its start records the
// counters, so a fresh request costs no read).
func (l *Loop) regenerationOf(ctx context.Context, tenant string, st genmem.State, refs *schemas.ReferenceSet) (*regeneration, error) {
	if _, ok := st.Counters[CounterKept]; !ok {
		return nil, nil
	}
	prev, err := l.mem.Previous(ctx, tenant, st.RequestID)
	if err != nil {
		return nil, err
	}
	return newRegeneration(refs, prev), nil
}

// stands reports whether a previous sentence still rests on the new
// references: every chunk it cites and every chunk of its facts is a
// reference, and each of its facts that the knowledge graph states (a
// relation and value) is still one of the subject's facts. It reads
// nothing and asks no model: the sentence passed the verifier against
// these chunks when it was written, and the chunks do not change under an
// id (a new text is a new document, with new chunk ids).
func (g *regeneration) stands(s schemas.PageSentence) bool {
	if len(s.Citations) == 0 {
		return false
	}
	for _, c := range s.Citations {
		if !g.chunks[c.ChunkID] {
			return false
		}
	}
	for _, f := range s.Facts {
		if f.ChunkID != "" && !g.chunks[f.ChunkID] {
			return false
		}
		if f.Relation != "" && f.Relation != relDate && !g.facts[factKey{f.Relation, f.Value}] {
			return false
		}
	}
	return true
}

// keep is the previous sentence not used yet that the draft lets the page
// keep: one that still stands and says what the draft says, in the same
// words or with the same facts. Same words are looked for first, so of two
// sentences with the same facts the one worded alike is kept.
func (g *regeneration) keep(d schemas.Draft) (int, bool) {
	facts := factSet(d.Facts)
	for _, same := range []func(schemas.PageSentence) bool{
		func(s schemas.PageSentence) bool { return sameText(s.Text, d.Text) },
		func(s schemas.PageSentence) bool { return len(facts) > 0 && slices.Equal(factSet(s.Facts), facts) },
	} {
		for i, p := range g.prev {
			if p.Use == "" && same(p.Sentence) && g.stands(p.Sentence) {
				return i, true
			}
		}
	}
	return 0, false
}

// replaces is the previous sentence not used yet that the draft rewrites:
// one that no longer stands (a chunk or fact under it is gone) and that
// the draft says again, in the same words (a passage of a superseded
// document, now cited from the new version), with the same facts or one
// of them, or about the same relations (a value that changed).
func (g *regeneration) replaces(d schemas.Draft) (int, bool) {
	facts, rels := factSet(d.Facts), relationSet(d.Facts)
	for _, same := range []func(schemas.PageSentence) bool{
		func(s schemas.PageSentence) bool { return sameText(s.Text, d.Text) },
		func(s schemas.PageSentence) bool { return len(facts) > 0 && slices.Equal(factSet(s.Facts), facts) },
		func(s schemas.PageSentence) bool {
			return slices.ContainsFunc(factSet(s.Facts), func(f string) bool { return slices.Contains(facts, f) })
		},
		func(s schemas.PageSentence) bool { return len(rels) > 0 && slices.Equal(relationSet(s.Facts), rels) },
	} {
		for i, p := range g.prev {
			if p.Use == "" && same(p.Sentence) && !g.stands(p.Sentence) {
				return i, true
			}
		}
	}
	return 0, false
}

// use records that previous sentence i is used.
func (g *regeneration) use(i int, how string) { g.prev[i].Use = how }

// unused counts the previous sentences nothing kept or rewrote: removed
// from the page.
func (g *regeneration) unused() int64 {
	var n int64
	for _, p := range g.prev {
		if p.Use == "" {
			n++
		}
	}
	return n
}

func sameText(a, b string) bool {
	a, b = strings.TrimSpace(a), strings.TrimSpace(b)
	return a != "" && a == b
}

// factSet lists a sentence's stated facts (relation and value), sorted,
// each once; facts that only name a passage are not among them.
func factSet(fs []schemas.Fact) []string {
	var out []string
	for _, f := range fs {
		if f.Relation != "" {
			out = append(out, f.Relation+"\x00"+f.Value)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// relationSet lists the relations of a sentence's facts, sorted, each
// once.
func relationSet(fs []schemas.Fact) []string {
	var out []string
	for _, f := range fs {
		if f.Relation != "" {
			out = append(out, f.Relation)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
