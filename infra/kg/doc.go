// Package kg is the knowledge graph in Redis (ARCHITECTURE.md §9): entities, facts
// with their provenance, the surface forms that name each entity, and the
// chunks that mention it. The kg-writer stage writes it through Apply;
// retrieval, the solvers and `annalist kg show` read it through Resolve,
// Entity and Neighbourhood, whose result types are in internal/kit/kgview.
//
// # Keys
//
// Every key carries the tenant between braces, which is also the Redis
// Cluster hash tag, so one tenant's graph lives in one slot and the write
// script may touch any of its keys:
//
//	kg:{t}:node:<id>      hash  name, type, first_seen, first_chunk, first_doc,
//	                            entry_chunk (anchored persons), created_by
//	kg:{t}:out:<id>       set   ids of the edges whose head is <id>
//	kg:{t}:in:<id>        set   ids of the edges whose tail is <id>
//	kg:{t}:edge:<eid>     hash  head, head_name, relation, tail, tail_id, chunk, doc,
//	                            start, end, evidence, method, pattern, confidence,
//	                            qualifiers (JSON), triplet, resolution, candidates
//	                            (JSON), tail_resolution, tail_candidates (JSON)
//	kg:{t}:alias:<surface> set  entity ids the surface form may denote
//	kg:{t}:names:<id>     set   surface forms of <id> (the reverse of alias:)
//	kg:{t}:mentions:<id>  set   chunk ids that mention <id>
//	kg:{t}:nodes          set   all entity ids (counting, listing)
//	kg:{t}:edges          set   all edge ids
//	kg:{t}:aliases        set   all surface forms
//	kg:{t}:rels           set   relation names seen on person heads
//	kg:{t}:rel:<relation> set   person ids having the relation
//	kg:{t}:applied        hash  triplet key -> the delivery that applied it, the
//	                            entities it resolved to and what it changed
//	kg:{t}:fact:<head id>|<relation>|<tail id or surface>
//	                      set   the edges stating one fact: its provenance, one
//	                            edge per chunk and span that says it
//	kg:{t}:chunkedges:<c> set   edges extracted from chunk c
//	kg:{t}:chunkents:<c>  set   entities whose mentions: set holds chunk c
//	kg:{t}:surfaces       zset  every surface form in kg:{t}:aliases, scored by
//	                            the order it arrived in (kg:{t}:surfaces:seq), so
//	                            the entity linker reads the new ones incrementally
//
// The triplets of a document marked retracted in the document store
// (doc:{t}:<id> has a retracted field) are skipped: the mark is set before
// the retraction is published, and the check and the write are one script,
// so a triplet still in flight when its document is retracted either
// lands before the retraction removes it or not at all.
//
// # Entity resolution
//
// A name is not an identity: the History of Ming has two different 王溥,
// courtesy names repeat (many a 子明), and archive books mention people by
// name, courtesy name or art name without saying which entry they mean.
// The graph therefore resolves surfaces as follows.
//
//   - A person inside a biography entry (the triplet has EntryChunk set) is
//     anchored to that entry: id person:<name>@<8 hex of hash(name, entry
//     chunk)>. This covers the entry's subject (Head == Entry) and the
//     people the entry itself introduces: a relative's sub-entry ("子琮，
//     字季玉") and the relatives it names as tails of relative edges ("父朝
//     荣"). Two entries of one name give two entities; all chunks of one
//     entry, continuation chunks included, give one; a relative's own facts
//     and the edge naming him meet on one node whatever order they arrive
//     in (triplets are partitioned by head, so there is no order between
//     them). This relies on the extractor's contract that inside an entry
//     the heads are the people the entry introduces, never people it merely
//     mentions. A relative who also has an entry of his own is then two
//     entities, each listing the other as a homonym: a visible split, where
//     resolving by name would merge him with whoever else bears it (a
//     father known by his given name alone, 朝荣, is not the 朝荣 of another
//     volume). Anchoring is deterministic, so replicas and re-ingests agree
//     without coordination.
//   - A person surface outside entries (archive books, generic text, the
//     news) is looked up in kg:{t}:alias:<surface>, keeping only person
//     ids other than the surface's own unanchored id person:<surface>:
//     exactly one candidate → that entity ("alias"); none → the unanchored
//     person person:<surface>, created if needed ("new"); several → the fact
//     is NOT given to any of them. It is kept on person:<surface> and the
//     edge records "ambiguous" with the sorted candidate ids. Guessing
//     would put one man's office in another man's biography, which the
//     verifier downstream cannot detect because the KG itself would then
//     support the error; an explicit ambiguity is visible to `kg show`, to
//     the alias solver and to a reviewer, and costs nothing when unused.
//   - Places, offices and times named as tails become nodes of their type,
//     place:福清, office:…, time:万历十一年, one per surface, so persons who
//     share a native place or an examination year are two hops apart.
//     Courtesy names, art names and other values are not nodes.
//   - An alias relation (courtesy name 字, art name 号, alias) makes its tail
//     a surface form of the head: SADD kg:{t}:alias:<tail> <head id>. The
//     canonical name of every node is an alias of itself, so Resolve finds
//     a person by name, courtesy name or art name alike, and a place by its
//     name.
//
// Resolution happens once per triplet, when the triplet is first applied,
// and is never redone: a mention written before the entry that would have
// resolved it stays on the unanchored person. Entity lists the other
// entities of the same name (Homonyms), so such a split is visible rather
// than silent.
//
// # Idempotency and change reports
//
// Each triplet has a key derived from its head surface, relation, tail,
// chunk and span (the edge id). Apply writes a triplet only when its key is
// not in kg:{t}:applied, and records the keys after everything else, so a
// triplet applied again — a redelivery, a re-ingest, the same fact found
// twice — changes nothing, and a write cut short may be applied again
// safely (every write is an upsert). The writes of a batch run in one Lua
// script: atomic against concurrent writers of the same tenant (two
// kg-writer replicas resolving the same surface), and one round trip per
// batch of up to Config.ScriptBatch triplets.
//
// Apply returns the changes each triplet made (new entity, new edge, new
// mention, new alias), so the stage announces real changes only. To keep
// announcements at-least-once, the applied record keeps the id of the
// delivery (input event) that applied the triplet: when the same delivery
// comes again — the stage crashed after writing the graph but before its
// kg-updates were produced — Apply reports that triplet's changes again
// instead of nothing. Any other delivery of an applied triplet reports
// nothing.
package kg
