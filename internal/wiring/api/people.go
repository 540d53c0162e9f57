package api

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/annalist-dev/annalist/internal/ports/graph"
	"github.com/annalist-dev/annalist/schemas"
)

// ChunkLinkReader reads the entity linker's mentions of a chunk: the JSON
// list of {entity, surface, …} it stored, "" when it stored none;
// *kg.Store implements it.
type ChunkLinkReader interface {
	ChunkLinks(ctx context.Context, tenant, chunk string) (string, error)
}

// PersonRef is a person a page's sentences name, for a reader to follow to
// the person's own page (the UI links every occurrence of Surface in the
// page's sentences).
type PersonRef struct {
	// Surface is the name as the sentences write it (a full name, a
	// courtesy or art name).
	Surface string `json:"surface"`
	// Entity is the person's KG id, Name the canonical name.
	Entity string `json:"entity"`
	Name   string `json:"name"`
	// Link is what GET /v1/entities/{name} and GET /v1/pages/{subject}
	// find the person by: the canonical name, or the entity id when
	// another entity shares the name.
	Link string `json:"link"`
}

// maxPeople bounds the persons one page answer looks up.
const maxPeople = 500

// pagePeople finds the persons p's sentences name, from the knowledge
// graph and never from the text alone: a person counts when the entity
// linker resolved a mention of him in a chunk the sentence cites and the
// sentence contains that mention's surface or his canonical name (a
// sentence names only people its sources name: the grounding rule of
// topic pages). A surface that would denote two persons on the same page
// is left out rather than linked to either. Without a graph that reads the
// linker's mentions the list is empty. The answer is sorted longest
// surface first, so a reader matching the surfaces in that order finds
// the longest name at each place (陆文渊 before 文渊).
func pagePeople(ctx context.Context, d Deps, tenant string, p schemas.Page) ([]PersonRef, error) {
	out := []PersonRef{}
	links, ok := d.Graph.(ChunkLinkReader)
	if !ok {
		return out, nil
	}
	type mention struct {
		Entity  string `json:"entity"`
		Surface string `json:"surface"`
	}
	// The resolved mentions of every cited chunk.
	byChunk := map[string][]mention{}
	for _, st := range p.Sentences {
		for _, c := range st.Citations {
			if _, done := byChunk[c.ChunkID]; done {
				continue
			}
			raw, err := links.ChunkLinks(ctx, tenant, c.ChunkID)
			if err != nil {
				return nil, err
			}
			var ms []mention
			if raw != "" {
				if err := json.Unmarshal([]byte(raw), &ms); err != nil {
					return nil, fmt.Errorf("mentions of chunk %s: %w", c.ChunkID, err)
				}
			}
			byChunk[c.ChunkID] = slices.DeleteFunc(ms, func(m mention) bool { return m.Entity == "" || m.Surface == "" })
		}
	}
	ents := map[string]graph.Entity{}
	entity := func(id string) (graph.Entity, bool, error) {
		if e, ok := ents[id]; ok {
			return e, e.ID != "", nil
		}
		if len(ents) >= maxPeople {
			return graph.Entity{}, false, nil
		}
		e, err := d.Graph.Entity(ctx, tenant, id)
		if errors.Is(err, graph.ErrNotFound) {
			ents[id] = graph.Entity{}
			return e, false, nil
		}
		if err != nil {
			return e, false, err
		}
		ents[id] = e
		return e, e.ID != "", nil
	}
	// surface → the persons it names on this page.
	named := map[string]map[string]bool{}
	add := func(surface, id string) {
		if named[surface] == nil {
			named[surface] = map[string]bool{}
		}
		named[surface][id] = true
	}
	for _, st := range p.Sentences {
		for _, c := range st.Citations {
			for _, m := range byChunk[c.ChunkID] {
				e, ok, err := entity(m.Entity)
				if err != nil {
					return nil, err
				}
				if !ok || e.Type != schemas.EntityPerson {
					continue
				}
				if strings.Contains(st.Text, m.Surface) {
					add(m.Surface, e.ID)
				}
				if e.Name != m.Surface && e.Name != "" && strings.Contains(st.Text, e.Name) {
					add(e.Name, e.ID)
				}
			}
		}
	}
	for surface, ids := range named {
		if len(ids) != 1 {
			continue
		}
		for id := range ids {
			e := ents[id]
			link := e.Name
			if len(e.Homonyms) > 0 {
				link = e.ID
			}
			out = append(out, PersonRef{Surface: surface, Entity: id, Name: e.Name, Link: link})
		}
	}
	slices.SortFunc(out, func(a, b PersonRef) int {
		return cmp.Or(cmp.Compare(len([]rune(b.Surface)), len([]rune(a.Surface))), cmp.Compare(a.Surface, b.Surface))
	})
	return out, nil
}

// citedTexts returns the text of every chunk p cites, by chunk id; a
// chunk no longer stored is left out.
func citedTexts(ctx context.Context, d Deps, tenant string, p schemas.Page) (map[string]string, error) {
	out := map[string]string{}
	if d.Chunks == nil {
		return out, nil
	}
	var ids []string
	seen := map[string]bool{}
	for _, st := range p.Sentences {
		for _, c := range st.Citations {
			if !seen[c.ChunkID] {
				seen[c.ChunkID] = true
				ids = append(ids, c.ChunkID)
			}
		}
	}
	if len(ids) == 0 {
		return out, nil
	}
	chunks, err := d.Chunks.Get(ctx, tenant, ids)
	if err != nil {
		return nil, fmt.Errorf("text of the cited chunks: %w", err)
	}
	for _, c := range chunks {
		out[c.ChunkID] = c.Text
	}
	return out, nil
}
