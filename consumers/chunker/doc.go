// Package chunker is the chunker stage: it splits each document into
// chunks that tile it — concatenated, the chunks give the document text
// back exactly; offsets are runes — and publishes them on the chunks topic.
// It implements the training-free pattern-enhanced chunking of the
// Alstorian paper (seed 000, §2.2.1): a corpus profile supplies the entry
// pattern and a few hand-made demonstrations.
//
// # Profiles
//
// A document names its profile (schemas.Document.Profile) or the chunker
// detects it (Detect). Profiles are data (internal/profile): each says how
// its documents are chunked and holds the entry patterns and
// demonstrations; the embedded ones are:
//
//   - liezhuan: volumes of biographies in the manner of the History of
//     Ming. One entry chunk per person, Subject set to the person; a long
//     entry is split at paragraph, then sentence ends into continuation
//     chunks (empty Subject, Entry and EntryChunk set). A chunk never spans
//     two people as far as the text shows: relatives' sub-entries inside an
//     entry — the people in parentheses on the volume's listing line, such
//     as 刘基(子琏璟) — start continuation chunks of the main person's entry,
//     as do other people introduced with a full "Name，字X，Place人" formula.
//     Such a chunk names the person in SubEntry (申用嘉 for "用嘉，举人" in
//     申时行's entry; see subentry.go for how a name written short is
//     completed), so the facts of that paragraph are not given to the main
//     person; an opening that does not show a person ("互市者，…") splits
//     without one.
//     Relatives do not get entry chunks of their own: the listing attaches
//     them to the main person's entry, and the volume's entry chunks then
//     spell its listing. Text before the first entry (the listing line, a
//     category volume's introduction), heading lines and the closing
//     appraisal (赞曰) form chunks that belong to no entry. See liezhuan.go
//     for the rules.
//   - generic: sentence-aware windows for everything else: Chinese (。！？)
//     and English (. ! ?) sentence ends and paragraph breaks, about
//     Config.TargetChars long, never cut inside a sentence unless the
//     sentence alone exceeds Config.HardMaxChars.
//   - english: the same windows for English prose a document says is
//     English; the later stages read it with English rules whatever
//     characters it quotes.
//   - glossary: "term｜category｜definition" lines (internal/glossary),
//     one chunk per entry; chosen for documents of the glossary collection
//     or whose lines are such entries (glossary.go).
//
// # Engines
//
// The offline engine is deterministic and needs no network. With WithModel,
// liezhuan documents are split by the model instead: the prompt
// (prompts/liezhuan.v1.tmpl, with the profile's demonstrations,
// internal/profile's chunk_demos.json) states the pattern, the model answers the
// entry starts as JSON anchors, the answer is validated (boundaries on
// sentence starts of the text, in order, so the pieces tile it), a rejected
// answer is asked again with the reason, and a document whose answers stay
// invalid falls back to the offline engine, with the reason in
// Result.Fallback, a warning in the log and Stats.LLMFallbacks counted.
// Generic documents never use the model: sentence windows gain nothing
// from it.
//
// Chunk ids are <doc id>-<seq, 4 digits>: deterministic from the document
// id and the chunk's position.
package chunker
