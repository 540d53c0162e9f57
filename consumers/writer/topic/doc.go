// Package topic is the topic-page kind: a page about a place,
// an office, an era year, a person's circle, a glossary term or a free-text
// subject, written from a curation of the knowledge graph (APOLLO's
// knowledge curation, here over the graph rather than the web) and revised
// by a critical reviewer and an editor.
//
// # Curation (Curator, a kind.Planner)
//
// Seeds. The topic string is resolved in the graph (names and aliases).
// Of the candidates, a place, an office or an era year is preferred to a
// person, and a person to a glossary term, because the typed nodes are
// what gather people (their incoming native_place, office and jinshi
// edges); of several persons, the one anchored to an entry under the
// topic's own name, then the one with the most edges. A glossary term
// among the candidates adds its definition to the page whatever the seed.
// When nothing typed resolves, the topic is free text: its seeds are the
// chunks of any entity it names whose text contains it (lexical) and the
// vector search's hits whose text contains it (WithVectors) — a hit that
// does not contain the topic is about something near it, not about it.
//
// Expansion. Breadth first from the seed, depth by depth, at most MaxDepth
// (4) edges away, with a seen-set: an entity reached once is never
// reached again, so no entity is curated twice and cycles end. Beyond the
// seed only persons are followed: a place, an office or a year reached
// from a native is a hub of hundreds of people belonging to other topics.
// Relevance filter: a reached entity is kept when the edge's evidence or
// the chunk the edge comes from names the topic (one of the seed's names)
// or a key entity kept so far. The first catches every native, holder and
// jinshi (their evidence is "长洲人", "擢吏部尚书"); the second keeps the
// relatives and associates an entry names beside its subject, and drops
// what a person's facts reach in passages about something else. Key
// entities are the persons reached at depth 1 over the topic's defining
// relation (natives of a place, holders of an office, jinshi of a year,
// relatives of a person) whose planned sentence names them: the reviewer
// checks each is named on the page. Curation.Depths records, per step,
// the frontier, what it reached and what was kept.
//
// References are the chunks of the outline in outline order, then the
// other curated chunks; Facts stay empty, because the verifier reads
// Facts as the subject's own and a place has none.
//
// Quotations. The curation never takes a chunk of the quotes collection
// (profile quotes.Profile), however it reaches one (a tag or an author
// resolved as the topic, a vector hit naming it): a quotation's words
// are its author's and must not become a plain, unattributed sentence.
// A quotation enters a page only when the request asks for quotations
// (WithQuotes, kind.PickQuotes): at most one per section, as its author's
// quotation (schemas.RelQuote), its reference marked schemas.SourceQuote
// with the author, which the verifier holds it to.
//
// # Outline
//
//   - place: the natives, grouped into sections by the reign era of their
//     period (the year of their jinshi, else the first era date of their
//     entry), sections and people in Gregorian order (internal/lang/zh/era), the
//     undated last;
//   - office: the holders, likewise, the period being the last era date
//     before the appointment in its passage (the narrative's date of it),
//     else the jinshi year, else the entry's first date;
//   - after a place's or an office's people, the passages elsewhere that
//     name the topic (提及), reached through the people's mentions (the
//     linker's links, one step further out), the documents whose arrival
//     asked for the page first, at most a few sentences: new evidence
//     about a place reaches its page;
//   - era year: the jinshi of that year, then what the sources say
//     happened that year (sentences naming the date in the chunks that
//     name it, those already on the page as a jinshi's left out);
//   - person: the entry's opening, then the circle: relatives, the people
//     the entry names and who name them, then passages of other documents
//     naming the person (the linker's);
//   - glossary term: its definition (the glossary chunk), then its uses;
//   - free text: one section per cluster of the found chunks (the entry,
//     else the document, they belong to), in each the sentences naming
//     the topic.
//
// # Drafting (Offline)
//
// One sentence per outline item, copied word for word from the item's
// chunk, citing it: the sentence holding the evidence span. A page names
// the people it is about and every person a sentence names must be in a
// chunk it cites, so when the evidence's sentence does not name the
// person (entries call their subject by the given name after the
// opening), the copy reaches back to the sentence naming him, or puts the
// entry's opening before it as a sentence of its own (see sentenceWithin).
// A verbatim passage is what the offline verifier supports without
// reading its facts. Items exposes the plan for the LLM drafter.
//
// # Review (Reviewer, Editor)
//
// Deterministic rules, findings quoting the sentences:
//   - coverage: a key entity no sentence names. The editor adds a sentence
//     naming it from another passage of its chunk (the entry's opening,
//     else another sentence naming it): the planned one was drafted and
//     did not stay.
//   - redundancy: a sentence equal to an earlier one, or with token
//     Jaccard ≥ NearDuplicate (internal/lang/text). The later one is dropped.
//   - order: a sentence whose period is earlier than one above it in its
//     section. It moves after the last sentence of the section not later
//     than it.
//   - balance, among the dated sections only (a definition or an entry's
//     opening is one sentence by design): a section of at least
//     LongSection sentences and more than LongFactor times the median is
//     split at its median period into two sections titled with their
//     years; a one-sentence section, on a page of at least MinSections
//     dated sections, is merged into the section before it (after it when
//     first), keeping its place, so the order of periods stays.
//
// The editor never writes text the references do not contain: its adds
// are sentences of a cited chunk, and they go through the verifier like
// every draft.
package topic
