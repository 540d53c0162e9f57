package schemas

// Topic types: what a topic page's subject resolved to (Curation.Type),
// which decides its outline.
const (
	TopicPlace  = "place"  // a native place: the people from it, by period
	TopicOffice = "office" // an office: its holders in order
	TopicTime   = "time"   // an era year: its jinshi and what happened
	TopicPerson = "person" // a person: their circle
	TopicTerm   = "term"   // a glossary term: its definition and uses
	TopicText   = "text"   // free text: sections by the clusters of the curated set
)

// Curation is the knowledge a topic page is written from (APOLLO,
// Apollo's knowledge curation, here over the knowledge graph): the seeds
// the topic string resolved to, the entities and edges reached by
// breadth and depth expansion, and the outline built from them. The
// writer keeps it in agent memory with the reference set; the curated
// entities and chunks are the page's dependency set.
type Curation struct {
	// Type is the topic's type (Topic*).
	Type string `json:"type"`
	// Seeds are how the topic string was found: entity ids, and
	// "lexical" or "vector" for chunk seeds.
	Seeds []string `json:"seeds,omitempty"`
	// Entities are the curated entities, the topic's own first.
	Entities []CuratedEntity `json:"entities"`
	// Edges are the ids of the curated edges.
	Edges []string `json:"edges,omitempty"`
	// Depths say what each expansion step found: Depths[j] is step j+1.
	Depths []CurationStep `json:"depths,omitempty"`
	// Outline is the page's plan: its sections in page order.
	Outline []OutlineSection `json:"outline"`
}

// CuratedEntity is one entity of a curation.
type CuratedEntity struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Type string `json:"type,omitempty"`
	// Depth is the expansion step that reached it (0 for a seed).
	Depth int `json:"depth"`
	// Key marks the entities the page is expected to cover (the natives
	// of a place, the holders of an office, the jinshi of a year): the
	// reviewer checks that each is named on the page.
	Key bool `json:"key,omitempty"`
	// Chunk is the chunk the page writes about it from.
	Chunk string `json:"chunk,omitempty"`
}

// CurationStep reports one step of the expansion.
type CurationStep struct {
	Depth int `json:"depth"`
	// Frontier is how many entities the step expanded; Reached how many
	// new entities their edges led to; Kept how many passed the relevance
	// filter.
	Frontier int `json:"frontier"`
	Reached  int `json:"reached"`
	Kept     int `json:"kept"`
}

// OutlineSection is one section of a topic page's outline.
type OutlineSection struct {
	Title string        `json:"title"`
	Items []OutlineItem `json:"items"`
}

// RelQuote is the relation of an outline item that quotes a quotation of
// the quotes collection: its Chunk is the quotation, its Name the author.
const RelQuote = "quote"

// OutlineItem is one planned sentence: what it is about and where the
// sources say it.
type OutlineItem struct {
	// Entity is the entity the sentence is about (a person of the topic),
	// Name its name; empty for a sentence about the topic itself.
	Entity string `json:"entity,omitempty"`
	Name   string `json:"name,omitempty"`
	// Chunk is the chunk the sentence is written from and cites; Span the
	// evidence in it (rune offsets) the sentence must contain.
	Chunk string `json:"chunk"`
	Span  Span   `json:"span"`
	// Relation is the KG relation that put the item on the outline
	// (native_place, office, jinshi, …), Value its tail as written.
	Relation string `json:"relation,omitempty"`
	Value    string `json:"value,omitempty"`
	// Period orders the item within its section: a Gregorian year, 0 when
	// unknown.
	Period int `json:"period,omitempty"`
}

// Review finding types: what a reviewer (APOLLO's Critical Reviewer)
// reports of a drafted page.
const (
	// FindingCoverage: a key entity of the curation is not named on the
	// page.
	FindingCoverage = "coverage"
	// FindingRedundancy: a sentence says what another already says.
	FindingRedundancy = "redundancy"
	// FindingOrder: a sentence is out of its section's order.
	FindingOrder = "order"
	// FindingBalance: a section is too long or too short beside the
	// others.
	FindingBalance = "balance"
)

// Finding is one structured reviewer finding.
type Finding struct {
	Type string `json:"type"`
	// Section is the section it concerns; Index the sentence (the loop's
	// index), -1 when it concerns no one sentence.
	Section string `json:"section,omitempty"`
	Index   int    `json:"index"`
	// Entity is the entity a coverage finding misses.
	Entity string `json:"entity,omitempty"`
	// Other is the sentence a redundant one repeats.
	Other  int    `json:"other,omitempty"`
	Detail string `json:"detail"`
}

// Editor operations.
const (
	// EditDrop removes sentence Index from the page.
	EditDrop = "drop"
	// EditMove gives sentence Index another Section and Position.
	EditMove = "move"
	// EditAdd drafts a new sentence (Text, Citations, Facts) at Section
	// and Position; it goes through the verifier like every draft.
	EditAdd = "add"
)

// Edit is one operation of an editor applying the reviewer's findings. A
// rewrite is a drop and an add.
type Edit struct {
	Op        string   `json:"op"`
	Index     int      `json:"index"`
	Section   string   `json:"section,omitempty"`
	Position  float64  `json:"position,omitempty"`
	Text      string   `json:"text,omitempty"`
	Citations []string `json:"citations,omitempty"`
	Facts     []Fact   `json:"facts,omitempty"`
	Reason    string   `json:"reason,omitempty"`
}
