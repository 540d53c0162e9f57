// Package graph holds the types the knowledge graph is read as (Node, Edge,
// Entity, Subgraph, the ErrNotFound sentinel) and the KG reader port
// (Reader). They are free of any SDK import, so the Redis store in
// infra/kg returns them and the stages that retrieve from the graph
// declare small interfaces over them without importing a Redis client or
// each other.
package graph

import (
	"context"
	"errors"

	"github.com/annalist-dev/annalist/schemas"
)

// ErrNotFound reports a name or entity id the knowledge graph does not know.
// Branch on it with errors.Is.
var ErrNotFound = errors.New("entity not found")

// How a triplet's head or tail surface was resolved to an entity (the
// Resolution fields of Edge). The rules are in infra/kg's package doc.
const (
	// ResolvedEntry: a person of the biography entry the chunk belongs to
	// (its subject, or a relative the entry introduces), anchored to that
	// entry.
	ResolvedEntry = "entry"
	// ResolvedAlias: the only person the surface form denoted.
	ResolvedAlias = "alias"
	// ResolvedNew: no person had that surface form; an unanchored person
	// named by the surface was used.
	ResolvedNew = "new"
	// ResolvedAmbiguous: several persons had that surface form; the fact
	// was kept on the unanchored person named by the surface, and the
	// candidates were recorded on the edge.
	ResolvedAmbiguous = "ambiguous"
	// ResolvedTyped: a place, office, time or other typed value, whose node
	// is identified by type and surface.
	ResolvedTyped = "typed"
)

// Node is one entity of the knowledge graph.
type Node struct {
	// ID is the canonical entity id: "person:叶向高@1a2b3c4d" for a person
	// anchored to a biography entry, "person:王溥" for an unanchored one,
	// "place:福清", "office:…", "time:…" for typed values.
	ID   string `json:"id"`
	Name string `json:"name"`
	Type string `json:"type"`
	// EntryChunk is the chunk that begins the biography entry the person is
	// anchored to; empty for unanchored entities.
	EntryChunk string `json:"entry_chunk,omitempty"`
	// FirstChunk and FirstDoc are where the entity was first written from;
	// FirstSeen is when (RFC 3339, UTC).
	FirstChunk string `json:"first_chunk,omitempty"`
	FirstDoc   string `json:"first_doc,omitempty"`
	FirstSeen  string `json:"first_seen,omitempty"`
}

// Edge is one fact with its provenance: the triplet it came from, the chunk,
// the character span in that chunk and the text of the span.
type Edge struct {
	ID string `json:"id"`
	// HeadID is the entity the fact is about; Head the surface form the
	// source used for it.
	HeadID   string `json:"head_id"`
	Head     string `json:"head"`
	Relation string `json:"relation"`
	// Tail is the value as written in the source; TailID the entity it
	// was resolved to, empty for values that are not entities (courtesy
	// names, ages).
	Tail    string `json:"tail,omitempty"`
	TailID  string `json:"tail_id,omitempty"`
	ChunkID string `json:"chunk_id"`
	DocID   string `json:"doc_id,omitempty"`
	// Span is the evidence in rune offsets within the chunk text.
	Span       schemas.Span      `json:"span"`
	Evidence   string            `json:"evidence,omitempty"`
	Method     string            `json:"method,omitempty"`
	Pattern    string            `json:"pattern,omitempty"`
	Confidence float64           `json:"confidence"`
	Qualifiers map[string]string `json:"qualifiers,omitempty"`
	TripletID  string            `json:"triplet_id,omitempty"`
	// Resolution says how Head became HeadID (one of the Resolved*
	// constants); Candidates lists the persons an ambiguous head could
	// denote. TailResolution and TailCandidates say the same of the tail.
	Resolution     string   `json:"resolution,omitempty"`
	Candidates     []string `json:"candidates,omitempty"`
	TailResolution string   `json:"tail_resolution,omitempty"`
	TailCandidates []string `json:"tail_candidates,omitempty"`
}

// Entity is a node with everything attached to it: the view retrieval and
// `annalist kg show` work from.
type Entity struct {
	Node
	// Aliases are the surface forms that denote the entity: its canonical
	// name first, then courtesy names, art names and other aliases.
	Aliases []string `json:"aliases"`
	// Edges are the facts about the entity (it is the head).
	Edges []Edge `json:"edges"`
	// Incoming are the facts whose tail is the entity.
	Incoming []Edge `json:"incoming"`
	// Chunks are the ids of the chunks that mention the entity, sorted.
	Chunks []string `json:"chunks"`
	// Homonyms are the other entities the canonical name may denote (a
	// second person of the same name, or one whose alias it is), sorted.
	Homonyms []string `json:"homonyms,omitempty"`
}

// SurfaceStat is what the entity linker counted of one surface over the
// stored chunks (or of every surface, as a total): its occurrences by
// how its mention model read them, in LLRBins bins of the log-likelihood
// ratio of a name (bin k holds ratios in [k-4, k-3), the first and last
// bins everything below and above).
type SurfaceStat struct {
	Bins [LLRBins]int64
}

// LLRBins is the number of bins of a SurfaceStat.
const LLRBins = 8

// Occurrences is the number of occurrences counted.
func (s SurfaceStat) Occurrences() int64 {
	n := int64(0)
	for _, b := range s.Bins {
		n += b
	}
	return n
}

// Subgraph is the neighbourhood of an entity: the nodes within a number of
// hops and the edges between them that were walked.
type Subgraph struct {
	Root  string `json:"root"`
	Nodes []Node `json:"nodes"`
	Edges []Edge `json:"edges"`
	// Truncated is true when the walk stopped at the store's edge limit
	// (hubs such as a capital city or an examination year have thousands
	// of edges).
	Truncated bool `json:"truncated,omitempty"`
}

// Reader is the part of the knowledge graph a reader of entities needs; infra/kg's
// Store implements it.
type Reader interface {
	// Resolve returns the ids of the entities a surface form (or an entity
	// id) may denote; none, without error, for an unknown surface.
	Resolve(ctx context.Context, tenant, surface string) ([]string, error)
	// Entity returns an entity with its edges, aliases and mentions; an
	// unknown id fails with an error wrapping ErrNotFound.
	Entity(ctx context.Context, tenant, id string) (Entity, error)
}
