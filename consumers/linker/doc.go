// Package linker is the entity-linking stage: it finds, in every chunk of
// every document, the names of the persons the knowledge graph knows, and
// records each as a mention (chunk, rune span, surface) resolved to one
// person or kept with its candidates and their scores (ARCHITECTURE.md §9,
// keys in infra/kg's link.go). It reads chunks, to link them as they are
// ingested, and kg-updates, to link the chunks already stored against the
// names those updates bring; it announces on kg-updates, per person, the
// chunks newly linked to him (and those he lost when a later name made
// the mention ambiguous), so the pages that rest on him are regenerated.
//
// # Matching
//
// The dictionary is every surface of the tenant's alias sets, read from
// the surface log kg:{t}:surfaces (a zset scored by arrival) and compiled
// into an Aho–Corasick automaton with leftmost-longest matching: a name
// inside a longer known name (a place, an office, another person's full
// name) is not a match. Each linker process keeps, per tenant, a main
// automaton and a delta of the surfaces that arrived after it was built;
// the delta is read (ZRANGEBYSCORE after the last sequence seen) at the
// start of every batch and folded into the main automaton when it grows
// past an eighth of it. One-character surfaces are never matched on their
// own. Candidates are the person ids of the surface's alias set, read
// fresh for every batch, so a surface that names no person is a match that
// links nothing (it still shadows the shorter names inside it).
//
// # Resolution
//
// Each candidate is scored from the chunk's context: the chunk belongs to
// the candidate's own entry (Chunk.EntryChunk equals the node's
// entry_chunk), the candidate was first seen in the chunk's document,
// unambiguous co-mentioned persons are his KG neighbours, his native place
// is named, and the era dates of the chunk fall in his life (jinshi,
// birth and death years; internal/lang/zh/era) or outside it, which counts
// against. A courtesy or art name is weaker evidence than a full name: it
// gains when the full name is in the chunk or the surname precedes it.
// Precision comes before recall: of several candidates the best must
// reach a score and lead the next by a margin; a single candidate must be
// a person the graph holds a biographical fact about, and a two-character
// name or an alias needs context on top (see decide). What is not
// resolved is still stored, with its candidates and scores.
//
// # Order independence
//
// Chunks and names arrive in any order, on different partitions and
// replicas. Every (chunk c, surface s) pair is linked, because:
//
//   - c is matched against the surface log as of the batch that links it
//     (the delta is read first), and the write records, in kg:{t}:linkver,
//     the sequence v of that log; the write script (link.lua) refuses a
//     write when a person surface with a sequence above v occurs in c's
//     text or when a matched surface's candidates changed, and the stage
//     then reads the delta again and recomputes. So a written link is
//     current as of the moment of the write, atomically. Right before the
//     write the stage reads the delta itself (advance): a chunk holding a
//     person surface of it is recomputed without a write, and the others
//     are written with the sequence just read, so the script scans only
//     what was logged after that read.
//   - A new surface s (sequence q) reaches the linker in the kg-update that
//     announced it (Created for a person's name, Aliases for a courtesy or
//     art name; the kg-writer writes the surface and the alias set before
//     it publishes the update). Handling that update, the linker links
//     again every chunk recorded in kg:{t}:linkver below q whose text holds
//     s, and the chunks where s was already matched (kg:{t}:surfchunks:s),
//     whose candidates just changed.
//   - If c's write came first, it is recorded below q and the backfill
//     finds it. If the backfill's scan came first, c's write sees s in the
//     log with a sequence above its v and is refused until it includes s.
//     A chunk not linked yet at all is still in the chunks topic, and will
//     be linked against a log that holds s.
//
// The linker's own updates carry only Chunks and RemovedChunks, never a
// name, so they trigger no backfill.
//
// # Bounds and idempotence
//
// The backfill reads the backlog (chunks recorded below the new surfaces'
// highest sequence) in pages of Config.BackfillPage chunks, at most
// Config.MaxBackfill chunks per batch; a chunk scanned is recorded at the
// current sequence whether or not it needed linking again, and the
// highest sequence asked for is kept in Redis (kg:{t}:linkstate), so what a
// batch leaves is picked up by the next batch of either topic, on any
// replica, and a repeated update finds nothing left to do. Writes are set differences, so linking
// a chunk again changes nothing and announces nothing; a redelivery of
// the delivery that made a change announces it again (kg:{t}:linkapplied),
// under the same content-derived event id. A chunk of a retracted
// document (doc:{t}:<id> has retracted) is skipped by the write script.
package linker
