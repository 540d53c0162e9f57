// Package summary is the discussion_summary kind (KGDS,
// KGDS) on the generation stages: its planner, its drafters and its Spec.
// The offline core it writes with — the discussion's graph, the resolver,
// the background selection, the atomic opinions and the check of an
// opinion against its turn — is internal/lang/en/discourse; this package puts it
// through the writer → verifier → router/solvers → assembler loop like any
// other kind, so every published sentence passed the verifier.
//
// # Plan (Planner)
//
// A request's subject is a discussion id. The planner reads the stored
// discussion through the Store port (infra/discussionstore implements it; not
// found → kind.ErrUnknownSubject, the request fails with the reason; any
// other error is transient) and makes the reference set: Subject and Name
// the id, Lang "en", Discussion the discussion itself, and as references
// its background paragraphs (schemas.ParagraphRef, source
// schemas.SourceParagraph, the paragraph's text) then its turns
// (schemas.TurnRef, source schemas.SourceTurn, the utterance).
//
// # Page
//
// A sectioned page (kind.Layout.Sectioned): the section SectionBackground
// first, the background sentences each citing its paragraph, then one
// section per participant, named by the participant, in the order they
// first speak, each sentence an atomic opinion ("Person1 thinks that …")
// citing the one turn it comes from and listing in Draft.Entities the
// background entities it names (canonical names, for a reader to link;
// the writer carries them to PageSentence.Entities). A reader (the feed
// stage) rebuilds the schemas.DiscussionSummary from the citations alone:
// a paragraph-cited sentence is background, a turn-cited one an opinion of
// that turn's participant.
//
// # Drafters
//
// Offline writes core.Summarize's summary, computed once per discussion
// and cached: sentence k is the k-th of the background sentences followed
// by each participant's opinions.
//
// LLM asks a chat model once per discussion (and set of quotations) for
// the whole summary (prompt PromptSummary, strict JSON through
// internal/kit/ask) and checks the answer's
// structure before any sentence of it is drafted: every cited paragraph
// and turn exists, an opinion's turn is its participant's, the text is one
// non-empty line that opens with the participant ("PersonN thinks …").
// A rejected answer is asked again once with the reason; when that one is
// rejected too, the drafter reports writer.ErrMalformed for each sentence
// of the offline plan, so the writer's loop writes the page with the
// offline drafter, each sentence marked Draft.Fallback and counted as an
// offline fallback. Whether a sentence is true is not the drafter's to
// judge: the verifier checks each one (consumers/verifier, WithDiscussions)
// — a turn-cited sentence with core.VerifyOpinion, a paragraph-cited one
// against the paragraphs it cites — and a failing one goes to the solvers
// and is dropped after bounded attempts.
//
// # Quotations
//
// A request with Quotes (`annalist generate discussion ID --quotes`) asks
// the planner's quotation finder (WithQuotes, the port kind.Quotes) for at
// most one quotation per section, chosen by kind.PickQuotes as the topic
// page chooses its own: the section's query is its paragraphs (the
// background) or its participant's turns, a quotation is on the page
// once, and each chosen one is a reference of the set (source
// schemas.SourceQuote, its author recorded). Where it goes is the set's
// Curation.Outline: a section per section given a quotation, holding its
// item (schemas.RelQuote). Both drafters end that section with it: the
// offline drafter writes quotes.Sentence, the author's words verbatim;
// the LLM drafter's prompt lists the quotations and its answer gives
// each once, in its section, citing references of the set. The verifier
// (verifier.WithQuotes) publishes a quotation sentence only verbatim and
// attributed to the quotation's author, so a quotation the model altered
// or gave to another author is never published. Without a finder such a
// request fails with kind.ErrNoQuotes. A reader rebuilding the
// DiscussionSummary from the citations (the feed) passes quotations by:
// they cite neither a paragraph nor a turn.
//
// The model's summary is cached in the process, like the offline plan: a
// page whose drafting moves to another writer replica after a restart asks
// the model again, and the sentences drafted from then on follow the new
// answer.
package summary
