package schemas

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Message type names (the type header).
const (
	TypeDocument   = "document"
	TypeChunk      = "chunk"
	TypeTriplet    = "triplet"
	TypeKGUpdate   = "kg_update"
	TypeRequest    = "request"
	TypeDraft      = "draft"
	TypeVerdict    = "verdict"
	TypeRepair     = "repair"
	TypeCorrection = "correction"
	TypeReview     = "review"
	TypePage       = "page"
	TypeRetraction = "retraction"
)

// Types lists every message type this package can decode.
func Types() []string {
	return []string{TypeDocument, TypeChunk, TypeTriplet, TypeKGUpdate, TypeRequest,
		TypeDraft, TypeVerdict, TypeRepair, TypeCorrection, TypeReview, TypePage, TypeRetraction,
		TypeDiscussion, TypeFeedItem}
}

func invalid(typ, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrInvalid, typ, fmt.Sprintf(format, args...))
}

func required(typ string, fields ...[2]string) error {
	for _, f := range fields {
		if f[1] == "" {
			return invalid(typ, "%s is required", f[0])
		}
	}
	return nil
}

// Span is a half-open range [Start, End) of characters (runes, not bytes).
type Span struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

func (s Span) valid(limit int) bool {
	return s.Start >= 0 && s.End >= s.Start && (limit < 0 || s.End <= limit)
}

// Document is one source text entering the pipeline (topic documents,
// keyed by DocID).
type Document struct {
	// DocID names one version of a source: it is stable for the same
	// content and source, so re-ingesting a file yields the same id and
	// nothing downstream changes.
	DocID string `json:"doc_id"`
	// Source is the document's stable key (a path relative to the ingest
	// root, or what an HTTP or JSONL client names it): a later document of
	// the same source with other text supersedes this one.
	Source string `json:"source"`
	// Supersedes is the id of the version of Source this document
	// replaces; empty for a first version. The replaced version is
	// retracted (a Retraction with reason superseded) by whoever accepted
	// this one.
	Supersedes string `json:"supersedes,omitempty"`
	Title      string `json:"title,omitempty"`
	// Collection groups documents (e.g. "mingshi", "glossary").
	Collection string `json:"collection,omitempty"`
	// Profile names the chunker profile; empty means detect.
	Profile  string            `json:"profile,omitempty"`
	Lang     string            `json:"lang,omitempty"`
	Text     string            `json:"text"`
	Metadata map[string]string `json:"metadata,omitempty"`
}

func (Document) MessageType() string    { return TypeDocument }
func (Document) SchemaVersion() int     { return 1 }
func (d Document) PartitionKey() string { return d.DocID }
func (d Document) Validate() error {
	if err := required(TypeDocument, [2]string{"doc_id", d.DocID}, [2]string{"text", d.Text}); err != nil {
		return err
	}
	if !utf8.ValidString(d.Text) {
		return invalid(TypeDocument, "text is not UTF-8")
	}
	return nil
}

// Chunk is a contiguous piece of a document (topic chunks, keyed by DocID).
// The chunks of a document tile it: no character is lost or repeated.
type Chunk struct {
	// ChunkID is derived from DocID and Seq, so re-chunking the same text
	// gives the same ids.
	ChunkID string `json:"chunk_id"`
	DocID   string `json:"doc_id"`
	Seq     int    `json:"seq"`
	// Total is the number of chunks of the document.
	Total      int    `json:"total"`
	Collection string `json:"collection,omitempty"`
	Profile    string `json:"profile"`
	// Method is how the boundaries were found: "pattern", "window", "llm".
	Method string `json:"method"`
	// Subject is the person whose entry this chunk begins (on an Attached
	// chunk the attached person, while Entry stays the main person);
	// empty for a continuation chunk or a generic window.
	Subject string `json:"subject,omitempty"`
	// Entry is the person whose entry the chunk belongs to, set on
	// continuation chunks too; empty outside entries.
	Entry string `json:"entry,omitempty"`
	// EntryChunk is the id of the chunk that begins Entry's entry.
	EntryChunk string `json:"entry_chunk,omitempty"`
	// SubEntry is the person the chunk is about when that is not Entry: a
	// relative or an attached person whose own paragraph opens inside
	// Entry's entry ("子琮，字季玉", "用嘉，举人", "袁萃，字圣起，吴县人"),
	// on the chunk that opens it and on the continuation chunks cut from
	// it. The text up to the next person it introduces is about SubEntry,
	// not Entry. It is the full name when it can be derived (Entry's
	// surname and the given name written: 申用嘉 in 申时行's entry; or the
	// full form the entry used earlier), else the name as written; empty
	// for any other chunk. Entry and EntryChunk stay the main person's, so
	// the people of one entry and its attached entries are anchored to
	// one entry in the knowledge graph and a relative's own facts meet the
	// edge that names him.
	SubEntry string `json:"sub_entry,omitempty"`
	// Attached is set on the chunk that opens the entry of an attached
	// person: someone whose own entry (附传, or a relative with a formula
	// of their own) opens inside another's. Subject and SubEntry are the
	// attached person and Main the person whose entry it opens in. The
	// attached person's text is theirs: its facts are never the main
	// person's, and the main person's reference set leaves it out unless
	// it names him.
	Attached bool `json:"attached,omitempty"`
	// Main is the person whose entry an attached person's text sits in, on
	// every chunk of that text (the Attached chunk and its continuations);
	// empty elsewhere.
	Main string `json:"main,omitempty"`
	// Listed are the parenthesised groups of a biography volume's listing
	// (line 1), as written: runs of the names of the people the volume
	// attaches to its entries ("子承荫孙应昌全昌德昌"), on every chunk of
	// the volume. They tell the extractor where such a name begins and
	// ends where the text names the person only in passing.
	Listed []string `json:"listed,omitempty"`
	// Start and End are rune offsets of the chunk in the document.
	Start int    `json:"start"`
	End   int    `json:"end"`
	Text  string `json:"text"`
	Lang  string `json:"lang,omitempty"`
	Title string `json:"title,omitempty"`
}

func (Chunk) MessageType() string    { return TypeChunk }
func (Chunk) SchemaVersion() int     { return 1 }
func (c Chunk) PartitionKey() string { return c.DocID }
func (c Chunk) Validate() error {
	if err := required(TypeChunk, [2]string{"chunk_id", c.ChunkID}, [2]string{"doc_id", c.DocID},
		[2]string{"text", c.Text}); err != nil {
		return err
	}
	if !(Span{c.Start, c.End}).valid(-1) || c.End-c.Start != utf8.RuneCountInString(c.Text) {
		return invalid(TypeChunk, "span [%d,%d) does not match text of %d characters",
			c.Start, c.End, utf8.RuneCountInString(c.Text))
	}
	if c.Seq < 0 || c.Total <= c.Seq {
		return invalid(TypeChunk, "seq %d outside total %d", c.Seq, c.Total)
	}
	return nil
}

// Entity types used on triplets and KG nodes.
const (
	EntityPerson = "person"
	EntityPlace  = "place"
	EntityOffice = "office"
	EntityTime   = "time"
	EntityName   = "name"
	EntityValue  = "value"
)

// Relation names. Relations that give another name of the head (courtesy
// name, art name, alias) make the tail an alias of the head in the KG.
const (
	RelCourtesyName = "courtesy_name" // 字
	RelArtName      = "art_name"      // 号
	RelAlias        = "alias"         // other surface forms, English variants
	RelNativePlace  = "native_place"  // …人
	RelJinshi       = "jinshi"        // 进士 examination: tail is the era year
	RelOffice       = "office"        // offices held
	RelDeath        = "death"         // 卒 / died: tail is the time (or the place, qualifier time)
	RelDeathAge     = "death_age"     // 卒，年七十一: tail is the age at death, a value
	RelBirth        = "birth"
	RelRelative     = "relative" // family: qualifier "kin" says which
	RelMention      = "mentions" // head is mentioned in the chunk, tail empty
)

// AliasRelation reports whether a relation names the head by another name.
func AliasRelation(rel string) bool {
	return rel == RelCourtesyName || rel == RelArtName || rel == RelAlias
}

// Triplet is one extracted fact with its provenance (topic triplets, keyed
// by the head surface, the key the KG writer resolves to a canonical entity).
type Triplet struct {
	// TripletID is derived from chunk, relation, tail and span.
	TripletID string `json:"triplet_id"`
	Head      string `json:"head"`
	HeadType  string `json:"head_type"`
	Relation  string `json:"relation"`
	Tail      string `json:"tail,omitempty"`
	TailType  string `json:"tail_type,omitempty"`
	// Qualifiers refine the fact: year, gregorian, rank, kin, order …
	Qualifiers map[string]string `json:"qualifiers,omitempty"`
	ChunkID    string            `json:"chunk_id"`
	DocID      string            `json:"doc_id"`
	// Entry and EntryChunk identify the entry the chunk belongs to, so the
	// KG writer can tell apart two people of one name.
	Entry      string `json:"entry,omitempty"`
	EntryChunk string `json:"entry_chunk,omitempty"`
	// Span is the evidence, in rune offsets within the chunk text.
	Span Span `json:"span"`
	// Evidence is the text of Span.
	Evidence string `json:"evidence,omitempty"`
	// Method is "regex" (hand-made), "llm_regex" (synthesised) or "llm".
	Method     string  `json:"method"`
	Pattern    string  `json:"pattern,omitempty"`
	Confidence float64 `json:"confidence"`
}

func (Triplet) MessageType() string    { return TypeTriplet }
func (Triplet) SchemaVersion() int     { return 1 }
func (t Triplet) PartitionKey() string { return t.Head }
func (t Triplet) Validate() error {
	if err := required(TypeTriplet, [2]string{"triplet_id", t.TripletID}, [2]string{"head", t.Head},
		[2]string{"relation", t.Relation}, [2]string{"chunk_id", t.ChunkID},
		[2]string{"method", t.Method}); err != nil {
		return err
	}
	if t.Relation != RelMention && t.Tail == "" {
		return invalid(TypeTriplet, "relation %s needs a tail", t.Relation)
	}
	if !t.Span.valid(-1) {
		return invalid(TypeTriplet, "bad span [%d,%d)", t.Span.Start, t.Span.End)
	}
	if t.Confidence < 0 || t.Confidence > 1 {
		return invalid(TypeTriplet, "confidence %v outside [0,1]", t.Confidence)
	}
	return nil
}

// KGUpdate says which entity changed and how (topic kg-updates, keyed by
// the canonical entity id).
//
// A retraction is announced on the same topic, after it was applied: one
// update per entity that lost edges, mentions or names (Removed*), and
// one of Type EntityDocument (EntityID "doc:<doc id>") listing every chunk
// of the retracted document in RemovedChunks, so that a reader finds the
// pages citing them whatever entity they were reached through.
type KGUpdate struct {
	EntityID string `json:"entity_id"`
	Name     string `json:"name"`
	Type     string `json:"type"`
	// Created is true when the entity node was new.
	Created bool     `json:"created,omitempty"`
	Edges   []string `json:"edges,omitempty"`
	Chunks  []string `json:"chunks,omitempty"`
	Aliases []string `json:"aliases,omitempty"`
	// RemovedEdges, RemovedChunks and RemovedAliases are what a
	// retraction took away from the entity.
	RemovedEdges   []string `json:"removed_edges,omitempty"`
	RemovedChunks  []string `json:"removed_chunks,omitempty"`
	RemovedAliases []string `json:"removed_aliases,omitempty"`
	// Reason is why the entity changed: ReasonNewEvidence (empty means
	// it too), ReasonSuperseded or ReasonRetracted.
	Reason string `json:"reason,omitempty"`
	// DocIDs are the documents whose text made the change (the new
	// evidence, or the retracted version and the one superseding it).
	DocIDs []string `json:"doc_ids,omitempty"`
}

// EntityDocument is KGUpdate.Type of the update announcing a retracted
// document.
const EntityDocument = "document"

// EntityReview is KGUpdate.Type of the update announcing a decision on a
// mention's review (EntityID "review:<review id>", Name the surface,
// Chunks the chunks whose mentions it decides): the entity linker links
// them again with the decision.
const EntityReview = "review"

// DocumentEntity is the KGUpdate.EntityID of a document's retraction.
func DocumentEntity(docID string) string { return "doc:" + docID }

// Why a page changed (Page.Reason, Trigger.Reason) and why an entity did
// (KGUpdate.Reason). A retraction outranks a supersession, which outranks
// new evidence: the scheduler serves them in that order.
const (
	ReasonNewEvidence = "new_evidence"
	ReasonSuperseded  = "superseded"
	ReasonRetracted   = "retracted"
	ReasonRequested   = "requested"
)

// ReasonRank orders reasons by urgency: higher first; unknown is 0.
func ReasonRank(reason string) int {
	switch reason {
	case ReasonRetracted:
		return 3
	case ReasonSuperseded:
		return 2
	case ReasonNewEvidence, "":
		return 1
	}
	return 0
}

func (KGUpdate) MessageType() string    { return TypeKGUpdate }
func (KGUpdate) SchemaVersion() int     { return 1 }
func (u KGUpdate) PartitionKey() string { return u.EntityID }
func (u KGUpdate) Validate() error {
	return required(TypeKGUpdate, [2]string{"entity_id", u.EntityID}, [2]string{"name", u.Name})
}

// Request kinds the project names. They are wire names, not the list of
// what a process serves: a kind is served once it is registered
// (internal/ports/kind), and a registered kind needs no constant here.
const (
	KindBiography         = "biography"
	KindTopicPage         = "topic_page"
	KindAnswer            = "answer"
	KindDiscussionSummary = "discussion_summary"
)

// maxKind bounds the length of a kind name.
const maxKind = 64

// ValidKind checks that kind is a well-formed kind name: a lower-case
// ASCII letter, then lower-case letters, digits or underscores, at most 64
// bytes. Page keys put the kind before the subject, so the name must not
// carry a separator.
func ValidKind(kind string) error {
	if kind == "" {
		return invalid(TypeRequest, "kind is required")
	}
	if len(kind) > maxKind {
		return invalid(TypeRequest, "kind of %d bytes (at most %d)", len(kind), maxKind)
	}
	for i := 0; i < len(kind); i++ {
		c := kind[i]
		if !(c >= 'a' && c <= 'z' || i > 0 && (c >= '0' && c <= '9' || c == '_')) {
			return invalid(TypeRequest, "kind %q: want a lower-case name (letters, digits, _)", kind)
		}
	}
	return nil
}

// Request asks for a page (topic requests, keyed by subject).
type Request struct {
	RequestID string            `json:"request_id"`
	Kind      string            `json:"kind"`
	Subject   string            `json:"subject"`
	Params    map[string]string `json:"params,omitempty"`
	Priority  int               `json:"priority,omitempty"`
	// Reason is "user" or "regeneration".
	Reason      string `json:"reason,omitempty"`
	RequestedAt string `json:"requested_at,omitempty"`
	// Trigger, on a regeneration, says what changed: the scheduler sets
	// it, and the page version records it (Page.Reason, TriggerDocIDs).
	Trigger *Trigger `json:"trigger,omitempty"`
	// Documents, on an answer request, are the documents the answer is
	// written from (ALCE's retrieved documents, cited by their 1-based
	// place in this list); without them the answer's planner retrieves
	// its own. Other kinds ignore them.
	Documents []AnswerDocument `json:"documents,omitempty"`
	// Quotes asks a topic page or a discussion summary for at most one
	// quotation per section, from the quotes collection, verbatim,
	// attributed and cited. Other kinds ignore it.
	Quotes bool `json:"quotes,omitempty"`
}

// Request reasons.
const (
	RequestUser         = "user"
	RequestRegeneration = "regeneration"
)

// Trigger is why the scheduler asked for a page again.
type Trigger struct {
	// Reason is ReasonNewEvidence, ReasonSuperseded or ReasonRetracted.
	Reason string `json:"reason"`
	// DocIDs are the documents whose arrival, supersession or retraction
	// changed what the page rests on.
	DocIDs []string `json:"doc_ids,omitempty"`
}

func (Request) MessageType() string    { return TypeRequest }
func (Request) SchemaVersion() int     { return 1 }
func (r Request) PartitionKey() string { return r.Subject }

// RequestRef is the generation request the message belongs to.
func (r Request) RequestRef() string { return r.RequestID }

// Validate checks the request's structure: ids, subject, and a
// well-formed kind name. Whether the kind is served is not a property of
// the message: every entry point checks it against the process's registry
// (kind.Registry.Validate), which calls this first.
func (r Request) Validate() error {
	if err := required(TypeRequest, [2]string{"request_id", r.RequestID}, [2]string{"kind", r.Kind},
		[2]string{"subject", r.Subject}); err != nil {
		return err
	}
	for i, d := range r.Documents {
		if strings.TrimSpace(d.Text) == "" {
			return invalid(TypeRequest, "document %d has no text", i+1)
		}
	}
	return ValidKind(r.Kind)
}

// Fact is one atomic claim a sentence rests on.
type Fact struct {
	Text     string `json:"text"`
	Relation string `json:"relation,omitempty"`
	Value    string `json:"value,omitempty"`
	ChunkID  string `json:"chunk_id,omitempty"`
}

// Evidence is a span of a cited chunk.
type Evidence struct {
	ChunkID string `json:"chunk_id"`
	Span    Span   `json:"span"`
	Text    string `json:"text,omitempty"`
}

// Draft is sentence Index of a request's page, attempt Attempt (topic
// drafts, keyed by request id).
type Draft struct {
	RequestID string   `json:"request_id"`
	Kind      string   `json:"kind"`
	Subject   string   `json:"subject"`
	Index     int      `json:"index"`
	Attempt   int      `json:"attempt"`
	Text      string   `json:"text"`
	Citations []string `json:"citations,omitempty"`
	Facts     []Fact   `json:"facts,omitempty"`
	Engine    string   `json:"engine,omitempty"`
	// Origin is who wrote this attempt: "writer", or the solver whose
	// correction it is ("era", "alias", "refconflict", "knowledge",
	// "regenerate").
	Origin string `json:"origin,omitempty"`
	// Conflict marks a sentence that states a disagreement of the
	// references: each of Facts names the chunk that gives its value, and
	// the verifier checks each value against that chunk alone.
	Conflict bool `json:"conflict,omitempty"`
	// Note says what was wrong with the attempt this one replaces.
	Note string `json:"note,omitempty"`
	// Final marks the end of the page: no sentence, the writer is done.
	Final bool `json:"final,omitempty"`
	// Error, on a Final draft, says why the page could not be written
	// (an unknown subject, say); the request then fails.
	Error string `json:"error,omitempty"`
	// Fallback, on a writer's draft, says why the offline engine wrote it
	// although the process drafts with another (the model's answers could
	// not be used); empty when the configured engine wrote it.
	Fallback string `json:"fallback,omitempty"`
	// Section is the title of the page section the sentence belongs to,
	// for kinds whose pages have several (a topic page's outline); empty
	// for a one-section page.
	Section string `json:"section,omitempty"`
	// Position orders the sentence on the page: sentences are laid out by
	// Position, then by Index. Zero means the sentence's Index; the
	// editor (a topic page's review) gives a sentence it adds or moves
	// the place it takes.
	Position float64 `json:"position,omitempty"`
	// Entities are the entities the sentence names, by canonical name,
	// when the drafter knows them (a discussion summary's opinion names
	// the background's entities a reference was resolved to); carried to
	// the page for a reader to link.
	Entities []string `json:"entities,omitempty"`
}

func (Draft) MessageType() string    { return TypeDraft }
func (Draft) SchemaVersion() int     { return 1 }
func (d Draft) PartitionKey() string { return d.RequestID }

// RequestRef is the generation request the message belongs to.
func (d Draft) RequestRef() string { return d.RequestID }

func (d Draft) Validate() error {
	if err := required(TypeDraft, [2]string{"request_id", d.RequestID}, [2]string{"subject", d.Subject}); err != nil {
		return err
	}
	if !d.Final && d.Text == "" {
		return invalid(TypeDraft, "text is required")
	}
	if d.Index < 0 || d.Attempt < 0 {
		return invalid(TypeDraft, "negative index or attempt")
	}
	return nil
}

// Verdict statuses and error types.
const (
	StatusSupported    = "supported"
	StatusNotIncluded  = "not_included"
	StatusNotSupported = "not_supported"

	ErrorEra         = "era"
	ErrorAlias       = "alias"
	ErrorRefConflict = "ref_conflict"
	ErrorKnowledge   = "knowledge_lack"
	ErrorOther       = "other"
)

// FactVerdict is the decision on one atomic fact.
type FactVerdict struct {
	Fact      Fact       `json:"fact"`
	Status    string     `json:"status"`
	ErrorType string     `json:"error_type,omitempty"`
	Message   string     `json:"message,omitempty"`
	Evidence  []Evidence `json:"evidence,omitempty"`
}

// Verdict is the verifier's decision on a draft sentence (topic verdicts,
// keyed by request id).
type Verdict struct {
	RequestID string        `json:"request_id"`
	Kind      string        `json:"kind"`
	Subject   string        `json:"subject"`
	Index     int           `json:"index"`
	Attempt   int           `json:"attempt"`
	Draft     Draft         `json:"draft"`
	Status    string        `json:"status"`
	ErrorType string        `json:"error_type,omitempty"`
	Facts     []FactVerdict `json:"facts,omitempty"`
	// LLMCalls is how many model calls the verdict took (0 offline).
	LLMCalls int `json:"llm_calls,omitempty"`
}

func (Verdict) MessageType() string    { return TypeVerdict }
func (Verdict) SchemaVersion() int     { return 1 }
func (v Verdict) PartitionKey() string { return v.RequestID }

// RequestRef is the generation request the message belongs to.
func (v Verdict) RequestRef() string { return v.RequestID }

func (v Verdict) Validate() error {
	if err := required(TypeVerdict, [2]string{"request_id", v.RequestID}, [2]string{"status", v.Status}); err != nil {
		return err
	}
	switch v.Status {
	case StatusSupported, StatusNotIncluded, StatusNotSupported:
		return nil
	}
	return invalid(TypeVerdict, "unknown status %q", v.Status)
}

// Repair routes a failed verdict to one solver (topics repairs.<solver>,
// keyed by request id).
type Repair struct {
	RequestID string  `json:"request_id"`
	Solver    string  `json:"solver"`
	Verdict   Verdict `json:"verdict"`
}

func (Repair) MessageType() string    { return TypeRepair }
func (Repair) SchemaVersion() int     { return 1 }
func (r Repair) PartitionKey() string { return r.RequestID }

// RequestRef is the generation request the message belongs to.
func (r Repair) RequestRef() string { return r.RequestID }

func (r Repair) Validate() error {
	return required(TypeRepair, [2]string{"request_id", r.RequestID}, [2]string{"solver", r.Solver})
}

// Correction outcomes.
const (
	OutcomeCorrected = "corrected"
	OutcomeConflict  = "conflict"
	OutcomeDropped   = "dropped"
	OutcomeRetry     = "retry"
)

// Correction is a solver's answer to a repair (topic corrections, keyed by
// request id).
type Correction struct {
	RequestID string   `json:"request_id"`
	Kind      string   `json:"kind"`
	Subject   string   `json:"subject"`
	Index     int      `json:"index"`
	Attempt   int      `json:"attempt"`
	Solver    string   `json:"solver"`
	Outcome   string   `json:"outcome"`
	Text      string   `json:"text,omitempty"`
	Citations []string `json:"citations,omitempty"`
	Facts     []Fact   `json:"facts,omitempty"`
	Reason    string   `json:"reason,omitempty"`
	ReviewID  string   `json:"review_id,omitempty"`
	// ErrorType is the verdict's error type the correction answers
	// ("" for a not-included fact).
	ErrorType string `json:"error_type,omitempty"`
	// LLMCalls is how many model calls the correction took (0 offline).
	LLMCalls int `json:"llm_calls,omitempty"`
}

func (Correction) MessageType() string    { return TypeCorrection }
func (Correction) SchemaVersion() int     { return 1 }
func (c Correction) PartitionKey() string { return c.RequestID }

// RequestRef is the generation request the message belongs to.
func (c Correction) RequestRef() string { return c.RequestID }

func (c Correction) Validate() error {
	if err := required(TypeCorrection, [2]string{"request_id", c.RequestID}, [2]string{"solver", c.Solver},
		[2]string{"outcome", c.Outcome}); err != nil {
		return err
	}
	switch c.Outcome {
	case OutcomeCorrected, OutcomeConflict, OutcomeRetry:
		if c.Text == "" {
			return invalid(TypeCorrection, "outcome %s needs text", c.Outcome)
		}
	case OutcomeDropped:
	default:
		return invalid(TypeCorrection, "unknown outcome %q", c.Outcome)
	}
	return nil
}

// ReviewOption is one of the values the references disagree on.
type ReviewOption struct {
	Value   string `json:"value"`
	ChunkID string `json:"chunk_id"`
	Text    string `json:"text,omitempty"`
}

// Review states, and what a review of a mention (Review.Relation
// ReviewMention: whom a surface names in a chunk, asked by the entity
// linker) offers beside its candidates.
const (
	ReviewOpen    = "open"
	ReviewDecided = "decided"
	ReviewMention = "mention"
	// ReviewNone is the option "none of these persons" of a mention's
	// review.
	ReviewNone = "none"
)

// Review is an item for an expert: references disagree (topic reviews,
// keyed by subject), or a mention the entity linker could not decide
// (Relation ReviewMention, Subject the surface).
type Review struct {
	ReviewID  string         `json:"review_id"`
	Subject   string         `json:"subject"`
	RequestID string         `json:"request_id,omitempty"`
	Relation  string         `json:"relation,omitempty"`
	Question  string         `json:"question"`
	Options   []ReviewOption `json:"options"`
	Status    string         `json:"status"`
	Decision  string         `json:"decision,omitempty"`
}

func (Review) MessageType() string    { return TypeReview }
func (Review) SchemaVersion() int     { return 1 }
func (r Review) PartitionKey() string { return r.Subject }
func (r Review) Validate() error {
	return required(TypeReview, [2]string{"review_id", r.ReviewID}, [2]string{"subject", r.Subject},
		[2]string{"status", r.Status})
}

// Citation points a sentence at a chunk.
type Citation struct {
	ChunkID string `json:"chunk_id"`
	// DocID is the document the chunk belongs to (the version of its
	// source), so a reader can follow a citation to the document and
	// tell which documents a page rests on.
	DocID string `json:"doc_id,omitempty"`
	Text  string `json:"text,omitempty"`
	Span  *Span  `json:"span,omitempty"`
}

// PageSentence is one published sentence.
type PageSentence struct {
	Text      string     `json:"text"`
	Status    string     `json:"status"`
	Citations []Citation `json:"citations"`
	Facts     []Fact     `json:"facts,omitempty"`
	Note      string     `json:"note,omitempty"`
	// Entities are the names the sentence mentions, canonical, for a
	// reader to link (Draft.Entities).
	Entities []string `json:"entities,omitempty"`
	// OfflineFallback is set on a sentence the offline engine wrote
	// because the model's answers for it could not be used, and says why
	// (Draft.Fallback); the page's stats count them as offline_fallbacks.
	OfflineFallback string `json:"offline_fallback,omitempty"`
	// Section is the title of the section the sentence is in (Draft.Section);
	// empty on a one-section page.
	Section string `json:"section,omitempty"`
}

// PageSection is one section of a page of several (a topic page): its
// title and its sentences in page order.
type PageSection struct {
	Title     string         `json:"title"`
	Sentences []PageSentence `json:"sentences"`
}

// DroppedSentence is a sentence left out of a page.
type DroppedSentence struct {
	Index  int    `json:"index"`
	Reason string `json:"reason"`
}

// Page is one published version of a subject's page (topic pages,
// compacted, keyed by subject).
type Page struct {
	Subject   string `json:"subject"`
	Kind      string `json:"kind"`
	Version   int    `json:"version"`
	RequestID string `json:"request_id"`
	// Sentences are every sentence of the page in page order, whatever its
	// kind (a sentence of a sectioned page names its section).
	Sentences []PageSentence `json:"sentences"`
	// Sections, on a page of a kind laid out in several sections (a topic
	// page), are the same sentences grouped by section in outline order;
	// empty on a one-section page (a biography).
	Sections []PageSection `json:"sections,omitempty"`
	// Dropped are the sentences the loop gave up on, and why.
	Dropped     []DroppedSentence `json:"dropped,omitempty"`
	Stats       map[string]int64  `json:"stats,omitempty"`
	GeneratedAt string            `json:"generated_at,omitempty"`
	// TraceID is the trace id of the request that made the page (the
	// request id when it came from the API or `annalist generate`).
	TraceID string `json:"trace_id,omitempty"`
	// Reason is why this version was made: ReasonRequested, or the
	// scheduler's trigger (new evidence, superseded, retracted).
	Reason string `json:"reason,omitempty"`
	// TriggerDocIDs are the documents behind a regeneration.
	TriggerDocIDs []string `json:"trigger_doc_ids,omitempty"`
	// Documents, on an answer written from the documents its request
	// carried (Request.Documents), are those documents, in their order:
	// the citations AnswerDocRef(k) index them, and the scheduler's
	// regeneration of the page carries them again, so that it is not
	// answered from a retrieval instead.
	Documents []AnswerDocument `json:"documents,omitempty"`
}

func (Page) MessageType() string    { return TypePage }
func (Page) SchemaVersion() int     { return 1 }
func (p Page) PartitionKey() string { return p.Key() }

// Key names the page among all pages of the tenant: the subject for a
// biography, "<kind>:<subject>" for any other kind. The pages topic is
// compacted by this key and the page store keys by it, so a page of
// another kind about the same subject never replaces the biography; a
// biography keeps the bare subject, the key it had before there were
// other kinds.
func (p Page) Key() string { return PageKey(p.Kind, p.Subject) }

// PageKey is Page.Key of a page of kind about subject; an empty kind is a
// biography.
func PageKey(kind, subject string) string {
	if kind == "" || kind == KindBiography {
		return subject
	}
	return kind + ":" + subject
}

// RequestRef is the generation request the message belongs to.
func (p Page) RequestRef() string { return p.RequestID }

func (p Page) Validate() error {
	if err := required(TypePage, [2]string{"subject", p.Subject}, [2]string{"kind", p.Kind}); err != nil {
		return err
	}
	if p.Version <= 0 {
		return invalid(TypePage, "version must be positive")
	}
	for i, s := range p.Sentences {
		if len(s.Citations) == 0 {
			return invalid(TypePage, "sentence %d has no citation", i)
		}
	}
	for i, sec := range p.Sections {
		if sec.Title == "" {
			return invalid(TypePage, "section %d has no title", i)
		}
		for j, s := range sec.Sentences {
			if len(s.Citations) == 0 {
				return invalid(TypePage, "sentence %d of section %q has no citation", j, sec.Title)
			}
		}
	}
	return nil
}

// Retraction reasons.
const (
	RetractRetracted  = ReasonRetracted
	RetractSuperseded = ReasonSuperseded
)

// Retraction withdraws one version of a document (topic retractions,
// keyed by doc_id): its chunks, mentions and vectors are removed, and the
// facts it alone gave. It is published only after the document is
// marked retracted in the document store, so that every stage still
// holding some of its work skips it.
type Retraction struct {
	DocID  string `json:"doc_id"`
	Source string `json:"source,omitempty"`
	// Reason is RetractRetracted or RetractSuperseded.
	Reason string `json:"reason"`
	// SupersededBy is the version that replaced the document.
	SupersededBy string `json:"superseded_by,omitempty"`
	At           string `json:"at,omitempty"`
}

func (Retraction) MessageType() string    { return TypeRetraction }
func (Retraction) SchemaVersion() int     { return 1 }
func (r Retraction) PartitionKey() string { return r.DocID }
func (r Retraction) Validate() error {
	if err := required(TypeRetraction, [2]string{"doc_id", r.DocID}, [2]string{"reason", r.Reason}); err != nil {
		return err
	}
	switch r.Reason {
	case RetractRetracted:
	case RetractSuperseded:
		if r.SupersededBy == "" {
			return invalid(TypeRetraction, "reason superseded needs superseded_by")
		}
	default:
		return invalid(TypeRetraction, "unknown reason %q", r.Reason)
	}
	return nil
}
