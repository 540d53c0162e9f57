package schemas

// Reference sources: how a chunk entered a reference set.
const (
	// SourceEntity: the chunk mentions the subject (its entry chunks and
	// every chunk the knowledge graph links to it).
	SourceEntity = "entity"
	// SourceNeighbour: the chunk was reached through a 1-hop neighbour of
	// the subject in the knowledge graph.
	SourceNeighbour = "neighbour"
	// SourceVector: the chunk was found by vector search.
	SourceVector = "vector"
	// SourceMention: the entity linker found the subject named in the
	// chunk, in another document than the subject's own chunks.
	SourceMention = "mention"
	// SourceGlossary: a glossary entry (offices, examination ranks, old
	// place names) a solver looked up.
	SourceGlossary = "glossary"
	// SourceQuote: a quotation of the quotes collection, added to a page
	// asked for with quotations (Request.Quotes); Reference.Author names
	// who said it.
	SourceQuote = "quote"
)

// Reference is one chunk a page may cite.
type Reference struct {
	ChunkID string `json:"chunk_id"`
	DocID   string `json:"doc_id,omitempty"`
	Text    string `json:"text"`
	// Score ranks references for the drafter and for `annalist retrieve`:
	// higher is more relevant. Its scale depends on Source.
	Score  float64 `json:"score"`
	Source string  `json:"source"`
	// Entity is the id of the entity the chunk was reached through.
	Entity string `json:"entity,omitempty"`
	// Author, on a quotation (SourceQuote), is who said it: the chunk's
	// subject as the collection names them. A sentence quoting the chunk
	// must attribute it to this author.
	Author string `json:"author,omitempty"`
}

// KGFact is one knowledge-graph fact about the subject, with the chunk and
// span it was extracted from.
type KGFact struct {
	EdgeID     string            `json:"edge_id,omitempty"`
	Relation   string            `json:"relation"`
	Value      string            `json:"value"`
	ChunkID    string            `json:"chunk_id"`
	Span       Span              `json:"span"`
	Evidence   string            `json:"evidence,omitempty"`
	Qualifiers map[string]string `json:"qualifiers,omitempty"`
	Confidence float64           `json:"confidence,omitempty"`
}

// Decision is an expert's resolution of a reference conflict: for the
// subject's Relation, Value (cited from ChunkID) is right.
type Decision struct {
	ReviewID string `json:"review_id"`
	Relation string `json:"relation"`
	Value    string `json:"value"`
	ChunkID  string `json:"chunk_id,omitempty"`
	// Rejected are the values the expert ruled out.
	Rejected []string `json:"rejected,omitempty"`
}

// ReferenceSet is everything a page about one subject may be written from:
// the chunks, the subject's names and KG facts, and the expert decisions
// that apply. The writer builds it once per request and keeps it in agent
// memory; the verifier, the solvers and the assembler read it from there.
type ReferenceSet struct {
	// Subject is the name as requested; Name the canonical name it
	// resolved to, EntityID the entity.
	Subject  string `json:"subject"`
	Name     string `json:"name"`
	EntityID string `json:"entity_id"`
	// Aliases are the surface forms of the subject: Name first, then
	// courtesy names, art names and other aliases.
	Aliases []string `json:"aliases"`
	// Lang is the language of the sources ("zh" or "en"); pages are written
	// in it.
	Lang string `json:"lang"`
	// Profile is the corpus profile of the subject's sources (the entry
	// chunk's, internal/lang/profile): the verifier, the solvers and the writer
	// read the set with its rules in Lang. Empty in sets stored before it
	// was carried; readers then take the generic profile in Lang.
	Profile string `json:"profile,omitempty"`
	// Facts are the subject's KG facts (the subject is the head), in the
	// order a reader meets them.
	Facts []KGFact `json:"facts"`
	// References are the chunks, best first, each once.
	References []Reference `json:"references"`
	// Decisions are the expert decisions on the subject's conflicts.
	Decisions []Decision `json:"decisions,omitempty"`
	// Homonyms are other entities the subject's name may denote.
	Homonyms []string `json:"homonyms,omitempty"`
	// Fresh are the documents whose arrival made the scheduler ask for
	// the page again (the trigger's new evidence): a drafter gives their
	// passages that name the subject a place on the page.
	Fresh []string `json:"fresh,omitempty"`
	// Curation, on a topic page's set, is the curated knowledge and the
	// outline the page is written by; nil for a biography.
	Curation *Curation `json:"curation,omitempty"`
	// Discussion, on a discussion summary's set, is the discussion itself:
	// its paragraphs and turns are the set's references (ParagraphRef,
	// TurnRef), and the verifier checks a turn-cited sentence against the
	// turn with the discussion's own graph.
	Discussion *Discussion `json:"discussion,omitempty"`
}

// Reference returns the reference with the chunk id, if the set has it.
func (rs *ReferenceSet) Reference(chunkID string) (Reference, bool) {
	for _, r := range rs.References {
		if r.ChunkID == chunkID {
			return r, true
		}
	}
	return Reference{}, false
}

// FactsOf returns the subject's facts of one relation.
func (rs *ReferenceSet) FactsOf(relation string) []KGFact {
	var out []KGFact
	for _, f := range rs.Facts {
		if f.Relation == relation {
			out = append(out, f)
		}
	}
	return out
}
