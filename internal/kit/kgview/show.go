package kgview

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/annalist-dev/annalist/internal/ports/graph"

	"github.com/annalist-dev/annalist/schemas"
)

// ChunkReader reads stored chunks; infra/redisdb's Chunks implements it.
type ChunkReader interface {
	// Get returns the chunks with the given ids that exist, in order.
	Get(ctx context.Context, tenant string, ids []string) ([]schemas.Chunk, error)
}

// How a query matched an entity (View.Matched, Candidate.Matched).
const (
	MatchID    = "id"
	MatchName  = "name"
	MatchAlias = "alias"
)

// View is what `annalist kg show NAME` shows: the entity the name denotes
// (the best candidate when it may denote several) and, for an ambiguous
// name, every candidate. Its JSON form is the command's --json contract
// (see the package doc).
type View struct {
	// Query is the name asked for; Matched says how it matched the entity.
	Query   string `json:"query"`
	Matched string `json:"matched"`
	graph.Node
	Aliases  []string     `json:"aliases"`
	Edges    []graph.Edge `json:"edges"`
	Incoming []graph.Edge `json:"incoming"`
	// Chunks are the chunks that mention the entity: ids, or ids with
	// text when Show was asked for text.
	Chunks   []ChunkRef `json:"chunks"`
	Homonyms []string   `json:"homonyms,omitempty"`
	// Candidates lists every entity the query may denote, best first (the
	// entity shown is the first); empty when the query is unambiguous.
	Candidates []Candidate `json:"candidates,omitempty"`
}

// Candidate is one entity an ambiguous name may denote, with enough to
// choose: how it matched, its aliases, and how much the graph knows of it.
type Candidate struct {
	ID         string   `json:"id"`
	Name       string   `json:"name"`
	Type       string   `json:"type"`
	EntryChunk string   `json:"entry_chunk,omitempty"`
	Matched    string   `json:"matched"`
	Aliases    []string `json:"aliases"`
	Edges      int      `json:"edges"`
	Chunks     int      `json:"chunks"`
}

// ChunkRef is a chunk that mentions the entity. Without text it is written
// in JSON as the bare chunk id; with text as an object.
type ChunkRef struct {
	ChunkID string
	DocID   string
	Text    string
	// Missing is set when text was asked for but the chunk store does not
	// hold the chunk.
	Missing  bool
	withText bool
}

// MarshalJSON writes the bare id, or {"chunk_id", "doc_id", "text"} (and
// "missing") when the text was requested.
func (c ChunkRef) MarshalJSON() ([]byte, error) {
	if !c.withText {
		return json.Marshal(c.ChunkID)
	}
	return json.Marshal(struct {
		ChunkID string `json:"chunk_id"`
		DocID   string `json:"doc_id,omitempty"`
		Text    string `json:"text"`
		Missing bool   `json:"missing,omitempty"`
	}{c.ChunkID, c.DocID, c.Text, c.Missing})
}

// Show resolves name in the tenant's graph and returns the view of the
// entity it denotes. A name that denotes several entities shows the best
// one and lists all of them in Candidates (best: canonical name over alias,
// anchored to a biography entry over unanchored, more facts, smaller id).
// With withText the chunks are read from chunks with their text, in
// document order; chunks may be nil otherwise. An unknown name fails with an
// error wrapping ErrNotFound.
func Show(ctx context.Context, g graph.Reader, chunks ChunkReader, tenant, name string, withText bool) (View, error) {
	query := strings.TrimSpace(name)
	if query == "" {
		return View{}, fmt.Errorf("show entity: %w: empty name", graph.ErrNotFound)
	}
	if withText && chunks == nil {
		return View{}, errors.New("show entity: chunk text requested without a chunk store")
	}
	ids, err := g.Resolve(ctx, tenant, query)
	if err != nil {
		return View{}, fmt.Errorf("show entity %q: %w", query, err)
	}
	ents := make([]graph.Entity, 0, len(ids))
	for _, id := range ids {
		e, err := g.Entity(ctx, tenant, id)
		if errors.Is(err, graph.ErrNotFound) {
			continue
		}
		if err != nil {
			return View{}, fmt.Errorf("show entity %q: %w", query, err)
		}
		ents = append(ents, e)
	}
	if len(ents) == 0 {
		return View{}, fmt.Errorf("show entity: %w: %q", graph.ErrNotFound, query)
	}
	slices.SortFunc(ents, func(a, b graph.Entity) int { return compareCandidates(query, a, b) })

	best := ents[0]
	v := View{
		Query: query, Matched: matched(query, best), Node: best.Node,
		Aliases: best.Aliases, Edges: best.Edges, Incoming: best.Incoming, Homonyms: best.Homonyms,
	}
	if len(ents) > 1 {
		for _, e := range ents {
			v.Candidates = append(v.Candidates, Candidate{
				ID: e.ID, Name: e.Name, Type: e.Type, EntryChunk: e.EntryChunk, Matched: matched(query, e),
				Aliases: e.Aliases, Edges: len(e.Edges) + len(e.Incoming), Chunks: len(e.Chunks),
			})
		}
	}
	if v.Chunks, err = chunkRefs(ctx, chunks, tenant, best.Chunks, withText); err != nil {
		return View{}, fmt.Errorf("show entity %q: %w", query, err)
	}
	return v, nil
}

func matched(query string, e graph.Entity) string {
	switch query {
	case e.ID:
		return MatchID
	case e.Name:
		return MatchName
	}
	return MatchAlias
}

func compareCandidates(query string, a, b graph.Entity) int {
	rank := func(e graph.Entity) (int, int) {
		name := 1
		if matched(query, e) != MatchAlias {
			name = 0
		}
		anchored := 1
		if e.EntryChunk != "" {
			anchored = 0
		}
		return name, anchored
	}
	an, aa := rank(a)
	bn, ba := rank(b)
	return cmp.Or(
		cmp.Compare(an, bn),
		cmp.Compare(aa, ba),
		cmp.Compare(len(b.Edges)+len(b.Incoming), len(a.Edges)+len(a.Incoming)),
		cmp.Compare(a.ID, b.ID),
	)
}

func chunkRefs(ctx context.Context, chunks ChunkReader, tenant string, ids []string, withText bool) ([]ChunkRef, error) {
	refs := make([]ChunkRef, 0, len(ids))
	if !withText {
		for _, id := range ids {
			refs = append(refs, ChunkRef{ChunkID: id})
		}
		return refs, nil
	}
	got, err := chunks.Get(ctx, tenant, ids)
	if err != nil {
		return nil, fmt.Errorf("read %d chunks: %w", len(ids), err)
	}
	slices.SortFunc(got, func(a, b schemas.Chunk) int {
		return cmp.Or(cmp.Compare(a.DocID, b.DocID), cmp.Compare(a.Start, b.Start), cmp.Compare(a.ChunkID, b.ChunkID))
	})
	found := make(map[string]bool, len(got))
	for _, c := range got {
		found[c.ChunkID] = true
		refs = append(refs, ChunkRef{ChunkID: c.ChunkID, DocID: c.DocID, Text: c.Text, withText: true})
	}
	for _, id := range ids {
		if !found[id] {
			refs = append(refs, ChunkRef{ChunkID: id, Missing: true, withText: true})
		}
	}
	return refs, nil
}

// WriteText prints the view for people: the entity, how the query matched,
// the other candidates, aliases, each edge with the chunk it came from and
// its evidence, the incoming edges, and the chunks (with their text when it
// was requested).
func (v View) WriteText(w io.Writer) error {
	p := &printer{w: w}
	p.printf("%s  [%s]  %s", v.Name, v.ID, v.Type)
	if v.EntryChunk != "" {
		p.printf(", entry chunk %s", v.EntryChunk)
	}
	p.printf("\n")
	if v.Matched != MatchName {
		p.printf("  %q matched its %s\n", v.Query, v.Matched)
	}
	if len(v.Candidates) > 1 {
		p.printf("%q is ambiguous: %d candidates, the first is shown\n", v.Query, len(v.Candidates))
		for _, c := range v.Candidates {
			p.printf("  %s  [%s]  %s, matched %s", c.Name, c.ID, c.Type, c.Matched)
			if c.EntryChunk != "" {
				p.printf(", entry chunk %s", c.EntryChunk)
			}
			p.printf(", %d edges, %d chunks; aliases: %s\n", c.Edges, c.Chunks, strings.Join(c.Aliases, ", "))
		}
	}
	p.printf("aliases: %s\n", strings.Join(v.Aliases, ", "))
	if len(v.Homonyms) > 0 {
		p.printf("same name: %s\n", strings.Join(v.Homonyms, ", "))
	}
	p.printf("edges (%d):\n", len(v.Edges))
	for _, e := range v.Edges {
		p.printf("  %s: %s", e.Relation, e.Tail)
		if e.TailID != "" {
			p.printf("  [%s]", e.TailID)
		}
		p.printf("\n")
		p.edgeSource(e)
	}
	if len(v.Incoming) > 0 {
		p.printf("incoming (%d):\n", len(v.Incoming))
		for _, e := range v.Incoming {
			p.printf("  %s [%s] %s: %s\n", e.Head, e.HeadID, e.Relation, e.Tail)
			p.edgeSource(e)
		}
	}
	p.printf("chunks (%d):", len(v.Chunks))
	for _, c := range v.Chunks {
		p.printf(" %s", c.ChunkID)
	}
	p.printf("\n")
	for _, c := range v.Chunks {
		if !c.withText {
			continue
		}
		if c.Missing {
			p.printf("--- chunk %s: not in the chunk store\n", c.ChunkID)
			continue
		}
		p.printf("--- chunk %s (document %s)\n%s\n", c.ChunkID, c.DocID, strings.TrimRight(c.Text, "\n"))
	}
	return p.err
}

type printer struct {
	w   io.Writer
	err error
}

func (p *printer) printf(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}

func (p *printer) edgeSource(e graph.Edge) {
	p.printf("      from chunk %s [%d,%d)", e.ChunkID, e.Span.Start, e.Span.End)
	if e.Method != "" {
		p.printf(" by %s", e.Method)
	}
	if e.Evidence != "" {
		p.printf(": %q", e.Evidence)
	}
	p.printf("\n")
	if len(e.Qualifiers) > 0 {
		var q []string
		for _, k := range slices.Sorted(maps.Keys(e.Qualifiers)) {
			q = append(q, k+"="+e.Qualifiers[k])
		}
		p.printf("      qualifiers: %s\n", strings.Join(q, ", "))
	}
	if e.Resolution == graph.ResolvedAmbiguous {
		p.printf("      head %q is ambiguous: %s\n", e.Head, strings.Join(e.Candidates, ", "))
	}
	if e.TailResolution == graph.ResolvedAmbiguous {
		p.printf("      tail %q is ambiguous: %s\n", e.Tail, strings.Join(e.TailCandidates, ", "))
	}
}
