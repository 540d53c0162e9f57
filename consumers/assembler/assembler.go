// Package assembler is the stage that publishes pages: when the writer ends
// a request's page it gathers the final sentences from agent memory, gives
// every sentence citations that resolve to reference text, and publishes
// the page as the next version of the page of its kind about its subject
// to the page store and the compacted pages topic, with the dependency
// index the scheduler regenerates from: the chunks the page cites and the
// entity it is about (the reference set's subject entity) → the page.
//
// Every version says why it was made (Page.Reason): the trigger of the
// scheduler's regeneration (new evidence, superseded, retracted) with the
// documents behind it (Page.TriggerDocIDs), else "requested".
//
// Kinds: the page carries the request's kind, and the store and the topic
// key pages by kind and subject (schemas.Page.Key), so a page of another
// kind never becomes a version of the subject's biography. Sentences are
// laid out by their position (genmem.Final.At: the loop's index, or the
// place a topic page's editor gave them), and on a page whose sentences
// name sections (a topic page's outline, kind.Layout.Sectioned) they are
// grouped into Page.Sections in the order the sections first appear;
// Page.Sentences always lists every sentence in page order.
//
// Dependencies: a page depends on the chunks it cites and on its subject's
// entity; a topic page also on every entity of its curation
// (ReferenceSet.Curation), so a new native of a place or holder of an
// office regenerates the place's or office's page.
//
// Citations: a sentence keeps the cited chunks that are in the reference
// set, and gains the chunk of every fact it rests on; a sentence left with
// none gets the reference most similar to it by token Jaccard (citation
// discovery, RAAC). Accepted sentences all passed the verifier, so the
// assembler does not judge them again.
package assembler

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/annalist-dev/annalist/internal/ports/genmem"

	"github.com/annalist-dev/annalist/internal/lang/text"
	"github.com/annalist-dev/annalist/pipeline"
	"github.com/annalist-dev/annalist/schemas"
	"github.com/annalist-dev/annalist/topology"
)

// Memory is the request memory the writer keeps.
type Memory interface {
	State(ctx context.Context, tenant, requestID string) (genmem.State, bool, error)
	Sentences(ctx context.Context, tenant, requestID string) ([]genmem.Final, error)
	References(ctx context.Context, tenant, requestID string) (*schemas.ReferenceSet, error)
}

// Pages stores published pages and request outcomes.
type Pages interface {
	// Publish stores the page as the next version of the page of its kind
	// about its subject, once per request, indexes it by the chunks it
	// cites and the entities it is about, and returns the stored page.
	Publish(ctx context.Context, tenant string, p schemas.Page, entities ...string) (schemas.Page, bool, error)
	// Finish records a request's outcome: the published page, or why it
	// failed when page is nil.
	Finish(ctx context.Context, tenant string, r schemas.Request, page *schemas.Page, failure string) error
}

// Chunks reads chunks a sentence cites from outside its reference set (a
// glossary entry a solver used).
type Chunks interface {
	Get(ctx context.Context, tenant string, ids []string) ([]schemas.Chunk, error)
}

// Assembler is the stage.
type Assembler struct {
	mem    Memory
	pages  Pages
	chunks Chunks
	now    func() time.Time
}

// New returns the stage. chunks may be nil: citations outside the
// reference set are then left out.
func New(m Memory, p Pages, chunks Chunks) *Assembler {
	return &Assembler{mem: m, pages: p, chunks: chunks, now: time.Now}
}

// Handler handles drafts: Final drafts publish their request's page, all
// other drafts produce nothing. Idempotent: a page is published once per
// request, and a redelivered Final draft re-emits the stored version.
func (a *Assembler) Handler() pipeline.Handler {
	return func(ctx context.Context, in pipeline.Input) ([]pipeline.Output, error) {
		d, ok := pipeline.As[schemas.Draft](in.Msg)
		if !ok {
			return nil, pipeline.Permanentf("assembler: unexpected message %T on %s", in.Msg, in.Topic)
		}
		if !d.Final {
			return nil, nil
		}
		p, err := a.assemble(ctx, in.Tenant(), in.Meta.TraceID, d)
		if err != nil || p == nil {
			return nil, err
		}
		return []pipeline.Output{{Topic: topology.Pages, Msg: *p,
			EventID: pipeline.ContentID(in.Tenant(), p.Key(), fmt.Sprint(p.Version))}}, nil
	}
}

// Assemble publishes the page a Final draft ends, or records the request's
// failure (then the page is nil).
func (a *Assembler) Assemble(ctx context.Context, tenant string, d schemas.Draft) (*schemas.Page, error) {
	return a.assemble(ctx, tenant, "", d)
}

// assemble is Assemble with the trace id the page carries.
func (a *Assembler) assemble(ctx context.Context, tenant, traceID string, d schemas.Draft) (*schemas.Page, error) {
	st, ok, err := a.mem.State(ctx, tenant, d.RequestID)
	if err != nil {
		return nil, err
	}
	req := schemas.Request{RequestID: d.RequestID, Kind: d.Kind, Subject: d.Subject}
	if ok {
		req = st.Request
		req.RequestID = d.RequestID
	}
	if d.Error != "" {
		return nil, a.pages.Finish(ctx, tenant, req, nil, d.Error)
	}
	if !ok {
		// Dead-lettered, and the request failed with the reason first, so
		// that no client waits for a page that will not come.
		err := pipeline.Permanentf("assembler: request %s is not in agent memory (expired?)", d.RequestID)
		if ferr := a.pages.Finish(ctx, tenant, req, nil, err.Error()); ferr != nil {
			return nil, ferr
		}
		return nil, err
	}
	refs, err := a.mem.References(ctx, tenant, d.RequestID)
	if err != nil {
		return nil, err
	}
	finals, err := a.mem.Sentences(ctx, tenant, d.RequestID)
	if err != nil {
		return nil, err
	}
	if err := a.addOutside(ctx, tenant, refs, finals); err != nil {
		return nil, err
	}
	now := a.now()
	kind := st.Kind
	if kind == "" {
		kind = d.Kind
	}
	p := schemas.Page{Subject: refs.Name, Kind: kind, RequestID: d.RequestID, Version: 1,
		GeneratedAt: now.UTC().Format(time.RFC3339Nano), Sentences: []schemas.PageSentence{},
		Stats: map[string]int64{}, TraceID: traceID}
	if p.Subject == "" {
		p.Subject = st.Subject
	}
	// An answer keeps the documents it was given, so that its
	// regeneration answers from them again (scheduler.Emitter.WithPages).
	p.Documents = st.Request.Documents
	p.Reason = schemas.ReasonRequested
	if t := st.Request.Trigger; t != nil && t.Reason != "" {
		p.Reason = t.Reason
		p.TriggerDocIDs = slices.Clone(t.DocIDs)
	}
	slices.SortStableFunc(finals, func(a, b genmem.Final) int {
		return cmp.Or(cmp.Compare(a.At(), b.At()), cmp.Compare(a.Index, b.Index))
	})
	for _, f := range finals {
		if f.Dropped != "" {
			p.Dropped = append(p.Dropped, schemas.DroppedSentence{Index: f.Index, Reason: f.Dropped})
			continue
		}
		s := f.Sentence
		s.Citations = cite(refs, s)
		if len(s.Citations) == 0 {
			p.Dropped = append(p.Dropped, schemas.DroppedSentence{Index: f.Index,
				Reason: "no reference to cite"})
			continue
		}
		p.Sentences = append(p.Sentences, s)
	}
	slices.SortFunc(p.Dropped, func(a, b schemas.DroppedSentence) int { return cmp.Compare(a.Index, b.Index) })
	p.Sections = sections(p.Sentences)
	if len(p.Sections) > 0 {
		p.Sentences = p.Sentences[:0]
		for _, sec := range p.Sections {
			p.Sentences = append(p.Sentences, sec.Sentences...)
		}
		p.Stats["sections"] = int64(len(p.Sections))
	}
	for k, v := range st.Counters {
		if len(k) > 8 && k[:8] == "pending." {
			continue
		}
		p.Stats[k] = v
	}
	for _, k := range []string{"drafted", "accepted", "corrected", "llm_calls", "millis"} {
		p.Stats[k] += 0
	}
	p.Stats["sentences"] = int64(len(p.Sentences))
	p.Stats["dropped"] = int64(len(p.Dropped))
	if st.StartedMillis > 0 {
		p.Stats["millis"] = now.UnixMilli() - st.StartedMillis
	}
	stored, _, err := a.pages.Publish(ctx, tenant, p, dependsOn(refs)...)
	if err != nil {
		return nil, err
	}
	if err := a.pages.Finish(ctx, tenant, req, &stored, ""); err != nil {
		return nil, err
	}
	return &stored, nil
}

// sections groups a sectioned page's sentences (in page order) by
// section, sections in the order they first appear, sentences in page
// order within each; nil when no sentence names a section (a one-section
// kind).
func sections(ss []schemas.PageSentence) []schemas.PageSection {
	if !slices.ContainsFunc(ss, func(s schemas.PageSentence) bool { return s.Section != "" }) {
		return nil
	}
	var out []schemas.PageSection
	at := map[string]int{}
	last := -1
	for _, s := range ss {
		i, ok := at[s.Section]
		switch {
		case s.Section == "" && last >= 0:
			i = last // a sentence without a section stays with the one before it
		case !ok && s.Section == "":
			continue // before any section: placed with the first one below
		case !ok:
			i = len(out)
			at[s.Section] = i
			out = append(out, schemas.PageSection{Title: s.Section})
		}
		out[i].Sentences = append(out[i].Sentences, s)
		last = i
	}
	lead := slices.IndexFunc(ss, func(s schemas.PageSentence) bool { return s.Section != "" })
	out[0].Sentences = append(slices.Clone(ss[:lead]), out[0].Sentences...)
	return out
}

// dependsOn are the entities a page depends on besides the chunks it
// cites: the subject's entity, and on a topic page every curated entity,
// so a change to any of them (a new native of the place, a new holder of
// the office) regenerates the page.
func dependsOn(refs *schemas.ReferenceSet) []string {
	var out []string
	if refs.EntityID != "" {
		out = append(out, refs.EntityID)
	}
	if c := refs.Curation; c != nil {
		for _, e := range c.Entities {
			if e.ID != "" && !slices.Contains(out, e.ID) {
				out = append(out, e.ID)
			}
		}
	}
	return out
}

// cite resolves a sentence's citations against the references: unknown
// chunks are left out, the chunks of its facts are added, and a sentence
// with none is given its most similar reference.
func cite(refs *schemas.ReferenceSet, s schemas.PageSentence) []schemas.Citation {
	var out []schemas.Citation
	seen := map[string]bool{}
	add := func(id string) {
		if id == "" || seen[id] {
			return
		}
		if r, ok := refs.Reference(id); ok {
			seen[id] = true
			out = append(out, schemas.Citation{ChunkID: id, DocID: r.DocID, Text: r.Text})
		}
	}
	for _, c := range s.Citations {
		add(c.ChunkID)
	}
	for _, f := range s.Facts {
		add(f.ChunkID)
	}
	if len(out) == 0 && len(refs.References) > 0 {
		ts := text.NewTokenSet(s.Text)
		best, score := "", 0.0
		for _, r := range refs.References {
			if j := ts.Jaccard(text.NewTokenSet(r.Text)); j > score {
				best, score = r.ChunkID, j
			}
		}
		add(best)
	}
	return out
}

// addOutside adds to refs the chunks that final sentences cite but the
// reference set lacks (glossary entries a solver looked up), read from the
// chunk store, so their citations resolve to text too.
func (a *Assembler) addOutside(ctx context.Context, tenant string, refs *schemas.ReferenceSet, finals []genmem.Final) error {
	if a.chunks == nil {
		return nil
	}
	var ids []string
	seen := map[string]bool{}
	for _, f := range finals {
		for _, c := range f.Sentence.Citations {
			if _, ok := refs.Reference(c.ChunkID); !ok && c.ChunkID != "" && !seen[c.ChunkID] {
				seen[c.ChunkID] = true
				ids = append(ids, c.ChunkID)
			}
		}
	}
	if len(ids) == 0 {
		return nil
	}
	cs, err := a.chunks.Get(ctx, tenant, ids)
	if err != nil {
		return fmt.Errorf("read cited chunks: %w", err)
	}
	for _, c := range cs {
		refs.References = append(refs.References, schemas.Reference{ChunkID: c.ChunkID, DocID: c.DocID,
			Text: c.Text, Source: schemas.SourceGlossary})
	}
	return nil
}
