// Package extractor is the extractor stage: regex-driven relation
// extraction (Alstorian §2.2.1). A chunk goes in; triplets (head, relation,
// tail) come out, each with its chunk id, doc id, entry, the rune span of
// its evidence within the chunk, the method and pattern that found it and
// a confidence.
//
// Three methods, in order of trust:
//
//   - "regex": hand-made rules. The stage reads nothing itself: it hands
//     the chunk to the fact reader of its profile's language (Reader):
//     internal/lang/zh for classical Chinese, internal/lang/en
//     for English prose. The chunk's corpus profile (internal/lang/profile)
//     decides which, whatever characters the text holds, and its eras,
//     lexicons and kinship words feed the reader's rules. A reader returns
//     the facts (internal/lang/factkit.Fact: spans are byte offsets), the
//     parts of the text by the person each is about, and, for a chunk
//     outside every entry, the facts of the known persons that open its
//     sentences (see Linked). A glossary chunk is read by
//     internal/lang/zh/glossary's format instead, and by nothing else.
//   - "llm_regex": when the opening chunk of an entry lacks a relation the
//     profile expects (Config.Expect), regexes that the model wrote for
//     earlier chunks are tried from agent memory; if none fits, the model
//     is asked to write one for this chunk, with hand-made and remembered
//     regexes (the profile's regex_demos.tsv) as demonstrations. The
//     proposal is compiled with Go's RE2 (linear time, no backreferences or
//     lookaround) and validated (CheckRegex lists the rules); a regex that
//     passes is stored in memory. Its matches count only in the parts of
//     the chunk the reader gave to the person.
//   - "llm": plan B, when no regex validates: the model returns triplets in
//     a strict JSON schema, kept only if the relation was asked for and the
//     tail and evidence are verbatim in the chunk.
//
// The model is asked only when its answer can pay (Gating in llm.go): not
// when the person's text lacks every cue word of the relation's patterns
// (the words every match of a hand-made or stored pattern must contain),
// not for a relation and chunk shape whose remembered outcomes yield less
// than one fact per Config.MinYieldCalls calls, and plan B only after a
// rejected regex, not after the model answered that the chunk does not
// state the fact. Config.AskAlways turns the gates off.
//
// The stage turns facts into triplets: evidence spans become rune
// offsets, facts are ordered by position, and a (head, relation, tail)
// stated twice in one chunk is kept once. Every triplet of an entry's
// chunk keeps Entry and EntryChunk whatever its head: the KG anchors each
// person an entry introduces to that entry, the sub-entry's person as an
// entity of his own. A chunk outside every entry gives the facts of the
// persons it names as subjects when the knowledge graph links them to it
// (WithPersons, Linked), so those facts do not depend on the order
// documents come in.
//
// Memory is consumer-side (internal/ports/regexmem.Memory); infra/memory
// keeps it in Redis. The model is any eino model.BaseChatModel; infra/llm
// supplies one with timeouts, retries and a concurrency limit. Stats
// counts chunks, triplets, model calls made and calls saved by remembered
// regexes. BatchHandler reads the memory's regexes once per batch.
//
// Speed is the readers' (see internal/lang/zh): the offline
// extractor handles the whole mingshi-liezhuan corpus (1.58 M characters)
// in about half a second on one core (see BenchmarkExtractCorpus).
package extractor
